// three.* skills: transforms, PBR materials, lighting and glTF models in the
// Three.js scene graph.

import * as THREE from "three";
import { z } from "zod";
import type { Quat } from "../ecs/world.ts";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { createGLTFLoader } from "../../../crates/limina-render/js/gltf.ts";
import { readAsset, resolveAsset } from "../../../crates/limina-runtime/js/host.ts";
import type { Entities } from "../scene/entities.ts";
import type { Lighting } from "../scene/scene-graph.ts";
import { materialsOf, meshesOf } from "../scene/meshes.ts";
import type { SkillDefinition } from "./registry.ts";
import { Scale3, WorldVec3 } from "./schemas.ts";

const Color = z.number().int().min(0).max(0xffffff);

export interface GltfResource {
  kind: "gltf";
  assetId: string;
  source: string;
  bytes: number;
  rootName?: string;
  objectCount: number;
  meshCount: number;
  materialCount: number;
  textureCount: number;
}

/** Loads a glTF/glb asset (by id, through the sandboxed asset manifest) into a scene object, with its animation clips. */
export async function loadGltf(assetId: string): Promise<{ object: THREE.Object3D; resource: GltfResource; animations: THREE.AnimationClip[] }> {
  const info = await resolveAsset(assetId);
  if (info.kind !== "gltf") throw engineError("invalid_input", `asset ${assetId} is a ${info.kind}, not a gltf model`);
  const bytes = await readAsset(assetId);
  const buffer = bytes.slice().buffer;
  const gltf = await createGLTFLoader().parseAsync(buffer, "");
  const object: THREE.Object3D = gltf.scene;
  let objectCount = 0;
  object.traverse(() => objectCount++);
  const meshes = meshesOf(object);
  const materials = new Set<THREE.Material>();
  const textures = new Set<unknown>();
  for (const m of meshes) {
    for (const mat of materialsOf(m)) {
      materials.add(mat);
      for (const value of Object.values(mat)) if ((value as { isTexture?: boolean })?.isTexture) textures.add(value);
    }
  }
  const resource: GltfResource = {
    kind: "gltf",
    assetId,
    source: info.source,
    bytes: bytes.byteLength,
    objectCount,
    meshCount: meshes.length,
    materialCount: materials.size,
    textureCount: textures.size,
  };
  if (object.name) resource.rootName = object.name;
  return { object, resource, animations: gltf.animations };
}

const threeSetTransformInput = z
  .strictObject({ entity: z.string(), position: WorldVec3.optional(), rotationEuler: WorldVec3.optional(), scale: Scale3.optional() })
  .refine((i) => i.position || i.rotationEuler || i.scale, { message: "give at least one of position, rotationEuler, scale" });
const threeSetTransformOutput = z.object({ ok: z.boolean() });
const threeSetMaterialInput = z
  .strictObject({
    entity: z.string(),
    color: Color.optional(),
    roughness: z.number().min(0).max(1).optional(),
    metalness: z.number().min(0).max(1).optional(),
    castShadow: z.boolean().optional(),
    receiveShadow: z.boolean().optional(),
  })
  .refine((i) => Object.keys(i).length > 1, { message: "give at least one material or shadow property" });
const threeSetMaterialOutput = z.object({ ok: z.boolean() });
const threeSetLightingInput = z.strictObject({
  ambientColor: Color.default(0x404060),
  ambientIntensity: z.number().min(0).max(10).default(1.2),
  directionalColor: Color.default(0xffffff),
  directionalIntensity: z.number().min(0).max(10).default(3),
  direction: WorldVec3.default([5, 9, 6]).refine((d) => Math.hypot(...d) > 0, { message: "direction must be non-zero" }),
  castShadow: z.boolean().default(false),
  shadowMapSize: z.number().int().min(256).max(4096).default(2048),
  shadowCameraExtent: z.number().gt(0).max(500).default(20),
  shadowCameraNear: z.number().gt(0).default(0.5),
  shadowCameraFar: z.number().gt(0).default(120),
  shadowBias: z.number().min(-0.01).max(0.01).default(-0.0008),
}).refine((i) => i.shadowCameraFar > i.shadowCameraNear, { message: "shadowCameraFar must exceed shadowCameraNear", path: ["shadowCameraFar"] });
const threeSetLightingOutput = z.object({ ok: z.boolean() });
const threeLoadGLTFInput = z.strictObject({ assetId: z.string(), position: WorldVec3.default([0, 0, 0]) });
const threeLoadGLTFOutput = z.object({
  entity: z.string(),
  resource: z.object({
    kind: z.literal("gltf"),
    assetId: z.string(),
    source: z.string(),
    bytes: z.number().int(),
    rootName: z.string().optional(),
    objectCount: z.number().int(),
    meshCount: z.number().int(),
    materialCount: z.number().int(),
    textureCount: z.number().int(),
  }),
});

export function threeSkills({ entities, lighting }: { entities: Entities; lighting: Lighting }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "threeSkills" };
  return [
    {
      name: "three.setTransform",
      version: "1.0.0",
      category: "three",
      description: "Set an entity's position, rotation (Euler radians), and/or scale.",
      input: threeSetTransformInput,
      output: threeSetTransformOutput,
      permissions: ["scene.write"],
      source,
      handler: ({ entity, position, rotationEuler, scale }) => {
        const entry = entities.require(entity);
        let rotation: Quat | undefined;
        if (rotationEuler) {
          const [x, y, z] = rotationEuler;
          const q = new THREE.Quaternion().setFromEuler(new THREE.Euler(x, y, z, "XYZ"));
          rotation = [q.x, q.y, q.z, q.w];
        }
        entities.setTransform(entry, { position, rotation, scale });
        return { ok: true };
      },
    },
    {
      name: "three.setMaterial",
      version: "1.0.0",
      category: "three",
      description:
        "Update an entity's PBR material (color, roughness, metalness) and/or shadow participation (castShadow/receiveShadow). Applies across all meshes of a glTF entity.",
      input: threeSetMaterialInput,
      output: threeSetMaterialOutput,
      permissions: ["scene.write"],
      source,
      handler: (input, ctx) => {
        const { entity, ...changes } = input;
        const meshes = entities.restyle(entities.require(entity), changes);
        ctx.emit("three.material.updated", { entity, changes, meshes });
        return { ok: true };
      },
    },
    {
      name: "three.setLighting",
      version: "1.0.0",
      category: "three",
      description: "Set scene lighting: one ambient + one directional light, optionally casting real shadow maps.",
      input: threeSetLightingInput,
      output: threeSetLightingOutput,
      permissions: ["scene.write"],
      source,
      handler: (l, ctx) => {
        const { ambient, directional } = lighting;
        ambient.color.setHex(l.ambientColor);
        ambient.intensity = l.ambientIntensity;
        directional.color.setHex(l.directionalColor);
        directional.intensity = l.directionalIntensity;
        const [dx, dy, dz] = l.direction;
        directional.position.set(dx, dy, dz);
        directional.target.position.set(0, 0, 0);
        directional.castShadow = l.castShadow;
        const shadow = directional.shadow;
        if (shadow.mapSize.x !== l.shadowMapSize) {
          shadow.mapSize.set(l.shadowMapSize, l.shadowMapSize);
          shadow.map?.dispose();
          shadow.map = null;
        }
        const cam = shadow.camera as THREE.OrthographicCamera;
        cam.left = cam.bottom = -l.shadowCameraExtent;
        cam.right = cam.top = l.shadowCameraExtent;
        cam.near = l.shadowCameraNear;
        cam.far = l.shadowCameraFar;
        cam.updateProjectionMatrix();
        shadow.bias = l.shadowBias;
        ctx.emit("three.lighting.updated", l);
        return { ok: true };
      },
    },
    {
      name: "three.loadGLTF",
      version: "1.0.0",
      category: "three",
      description: "Load a glTF/glb model from a sandboxed asset id and add it to the scene at a position.",
      input: threeLoadGLTFInput,
      output: threeLoadGLTFOutput,
      permissions: ["scene.write"],
      source,
      handler: async ({ assetId, position }, ctx) => {
        const { object, resource } = await loadGltf(assetId);
        const entry = entities.adopt(object, position, ["gltf"], resource, assetId);
        ctx.emit("three.gltf.loaded", { entity: entry.id, resource });
        return { entity: entry.id, resource };
      },
    },
  ];
}
