// material.* skills: the look's material library (js/src/render/materials.ts)
// — list its named PBR materials, and dress an entity in one. A dressed
// entity keeps its material in snapshots and world files.

import type * as THREE from "three";
import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { createMaterial, materialCatalog, MATERIAL_NAMES } from "../render/materials.ts";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "./registry.ts";
import { meshesOf } from "../scene/meshes.ts";

const Hex = z.number().int().min(0).max(0xffffff);

/** Dresses every mesh of `object` in a new instance of library material `name` (the old materials are disposed). Returns how many meshes. */
export function applyLibraryMaterial(object: THREE.Object3D, name: (typeof MATERIAL_NAMES)[number], options: { tint?: number; uvScale?: number }): number {
  const meshes = meshesOf(object);
  for (const mesh of meshes) {
    const old = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
    mesh.material = createMaterial(name, options);
    for (const m of old) m.dispose();
  }
  return meshes.length;
}

const materialListInput = z.strictObject({});
const materialListOutput = z.object({ materials: z.array(z.object({ name: z.string(), description: z.string(), albedo: z.number(), roughness: z.number(), metalness: z.number() })) });
const materialApplyInput = z.strictObject({ entityId: z.string(), material: z.enum(MATERIAL_NAMES as [string, ...string[]]), tint: Hex.optional(), uvScale: z.number().gt(0).max(1000).optional() });
const materialApplyOutput = z.object({ entityId: z.string(), material: z.string(), meshes: z.number().int() });

export function materialSkills({ entities }: { entities: Entities }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "materialSkills" };
  return [
    {
      name: "material.list",
      version: "1.0.0",
      category: "material",
      description: "The material library: each named PBR material (procedural albedo, roughness and relief; no UVs needed) with a description, its nominal albedo (0xRRGGBB), roughness and metalness. Dress an entity with material.apply.",
      input: materialListInput,
      output: materialListOutput,
      permissions: ["scene.read"],
      source,
      handler: () => ({ materials: materialCatalog() }),
    },
    {
      name: "material.apply",
      version: "1.0.0",
      category: "material",
      description: `Dress every mesh of an entity in a library material (${MATERIAL_NAMES.join(", ")}; see material.list). tint (0xRRGGBB) multiplies its albedo; uvScale (default 1) scales its texture: 2 makes features half the size. Shadow settings are kept. Returns how many meshes changed.`,
      input: materialApplyInput,
      output: materialApplyOutput,
      permissions: ["render.write"],
      source,
      handler: ({ entityId, material, tint, uvScale }, ctx) => {
        const entry = entities.require(entityId);
        const object = entry.mesh as THREE.Object3D | undefined;
        if (!object || meshesOf(object).length === 0) throw engineError("handler_error", `entity ${entityId} has no meshes to dress`);
        const meshes = applyLibraryMaterial(object, material as (typeof MATERIAL_NAMES)[number], { tint, uvScale });
        entities.touch(entry);
        ctx.emit("material.applied", { entityId, material, tint: tint ?? null, uvScale: uvScale ?? 1, meshes });
        return { entityId, material, meshes };
      },
    },
  ];
}
