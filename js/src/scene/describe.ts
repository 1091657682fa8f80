// Entities describe themselves: the compact look another client redraws an
// entity from (its shape and dimensions, colour, PBR parameters, named
// material, visibility) and, in full, its tags, transform, body and joints.
// The format is a contract (docs/entities.md): snapshots, inspector.snapshot,
// scene.describe and the WebSocket state stream all carry it.

import type { JointState } from "../../../crates/limina-physics/js/physics.ts";
import type * as THREE from "three";
import type { EntityEntry } from "../ecs/entity-table.ts";
import { libraryMaterialOf } from "../render/materials.ts";
import type { Quat, Vec3 } from "../ecs/world.ts";
import type { BodySpec, Entities, EntityStyle } from "./entities.ts";
import { materialsOf, meshesOf } from "./meshes.ts";
import type { EntityShape } from "./shapes.ts";

/**
 * How an entity looks, in one flat object: its normalised shape (`shape` and that shape's
 * dimensions, or `asset` for a model), `color` (0xRRGGBB; null: a model's own colours; with a
 * named material, its tint), `roughness` and `metalness` when set, `material` (the library
 * material applied with material.apply, or null) and `visible`.
 */
export type EntityLook = EntityShape & {
  color: number | null;
  roughness?: number;
  metalness?: number;
  material: string | null;
  visible: boolean;
};

/** An entity's look, or null for one the engine did not make from a shape (e.g. a module's own scene object). */
export function entityLook(entry: EntityEntry): EntityLook | null {
  const shape = entry.shape as EntityShape | undefined;
  if (!shape) return null;
  const style = (entry.style ?? { color: null, roughness: null, metalness: null, visible: true }) as EntityStyle;
  // A library material is the mesh's own: it says its name and tint.
  const mesh = entry.mesh ? meshesOf(entry.mesh as THREE.Object3D)[0] : undefined;
  const library = mesh ? libraryMaterialOf(materialsOf(mesh)[0]) : null;
  if (library) return { ...shape, color: library.tint, material: library.material, visible: style.visible };
  return {
    ...shape,
    color: style.color,
    ...(style.roughness === null ? {} : { roughness: style.roughness }),
    ...(style.metalness === null ? {} : { metalness: style.metalness }),
    material: null,
    visible: style.visible,
  };
}

export interface JointDescription {
  joint: string;
  type: JointState["type"];
  entityA: string | null;
  entityB: string | null;
  /** A hinge's angle (radians), a slider's offset (m), a rope's or spring's length (m). */
  position: number | null;
  limits: [number, number] | null;
  motor: JointState["motor"];
}

export interface BodyDescription {
  body: number;
  type: BodySpec["kind"];
  /** The collider override or compound list it was made with; absent: the shape's own colliders. */
  colliders?: BodySpec["colliders"];
  friction: number;
  restitution: number;
  density: number;
  sensor: boolean;
  ccd: boolean;
  groups?: BodySpec["groups"];
  linearVelocity: Vec3;
  angularVelocity: Vec3;
  sleeping: boolean;
}

export interface EntityDescription {
  entity: string;
  look: EntityLook | null;
  tags: string[];
  transform: { position: Vec3; rotation: Quat; scale: Vec3 };
  body: BodyDescription | null;
  joints: JointDescription[];
}

/** The id a joint goes by: `jnt_` and its physics handle. */
export const jointId = (handle: number): string => `jnt_${handle}`;

/** Every joint, described, with the entities it joins. */
export function describeJoints(entities: Entities): JointDescription[] {
  const byBody = new Map<number, string>();
  for (const e of entities.world.entities.entries()) if (e.body !== undefined) byBody.set(e.body, e.id);
  return entities.physics.jointHandles().map((h) => {
    const s = entities.physics.jointState(h);
    return { joint: jointId(h), type: s.type, entityA: byBody.get(s.bodyA) ?? null, entityB: byBody.get(s.bodyB) ?? null, position: s.position, limits: s.limits, motor: s.motor };
  });
}

/** Everything about one entity another client needs to redraw and reason about it. */
export function describeEntity(entities: Entities, entry: EntityEntry): EntityDescription {
  const { world, physics } = entities;
  let body: BodyDescription | null = null;
  if (entry.body !== undefined) {
    const s = physics.bodyState(entry.body);
    const spec = entry.bodySpec as BodySpec | undefined;
    body = {
      body: entry.body,
      type: s.kind,
      ...(spec?.colliders ? { colliders: spec.colliders } : {}),
      friction: spec?.friction ?? 0.5,
      restitution: spec?.restitution ?? 0,
      density: spec?.density ?? 1,
      sensor: spec?.sensor ?? false,
      ccd: spec?.ccd ?? false,
      ...(spec?.groups ? { groups: spec.groups } : {}),
      linearVelocity: s.linearVelocity,
      angularVelocity: s.angularVelocity,
      sleeping: s.sleeping,
    };
  }
  return {
    entity: entry.id,
    look: entityLook(entry),
    tags: [...entry.tags],
    transform: { position: world.position(entry.eid), rotation: world.rotation(entry.eid), scale: world.scale(entry.eid) },
    body,
    joints: entry.body === undefined ? [] : describeJoints(entities).filter((j) => j.entityA === entry.id || j.entityB === entry.id),
  };
}
