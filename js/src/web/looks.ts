// What the state stream tells a spectator about how each entity looks and
// how its world is lit, so the page redraws it with the engine's own mesh
// and look code. An entity's look is the compact form docs/entities.md
// names: its shape and dimensions, colour, PBR parameters, named material,
// visibility — read here from the scene object the engine made for it
// (a primitive of scene.createEntity); a module's own scene objects have
// none (null), and the page shows such entities as markers.

import type * as THREE from "three";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { LookSettings } from "../render/look.ts";
import { libraryMaterialOf } from "../render/materials.ts";
import type { CameraPose } from "../render/view-camera.ts";
import type { WorldSession } from "../world-session.ts";
import { saveLighting, type SavedLighting } from "../scene/scene-graph.ts";

export type EntityLook =
  & ({ shape: "box"; size: [number, number, number] } | { shape: "sphere"; radius: number })
  & { color: number | null; roughness?: number; metalness?: number; material: string | null; visible: boolean };

/** An entity's look, or null for one the engine did not make from a shape. */
export function entityLook(entry: EntityEntry): EntityLook | null {
  const mesh = entry.mesh as THREE.Mesh | undefined;
  const geometry = mesh?.geometry as (THREE.BufferGeometry & { parameters?: Record<string, number> }) | undefined;
  if (!mesh || !geometry || Array.isArray(mesh.material)) return null;
  const m = mesh.material as THREE.MeshStandardMaterial;
  const style = {
    color: m.color ? m.color.getHex() : null,
    ...(typeof m.roughness === "number" ? { roughness: m.roughness } : {}),
    ...(typeof m.metalness === "number" ? { metalness: m.metalness } : {}),
    material: libraryMaterialOf(m)?.material ?? null,
    visible: mesh.visible,
  };
  const p = geometry.parameters!;
  if (geometry.type === "BoxGeometry") return { shape: "box", size: [p.width, p.height, p.depth], ...style };
  if (geometry.type === "SphereGeometry") return { shape: "sphere", radius: p.radius, ...style };
  return null;
}

/** How the world is lit and drawn: what a spectator needs besides its entities. */
export interface WorldLook {
  look: LookSettings;
  lighting: SavedLighting;
  view: CameraPose;
}

export function worldLook(session: WorldSession): WorldLook {
  return { look: session.look.settings(), lighting: saveLighting(session.lighting), view: session.view.get() };
}
