// Whole entities: an ECS entity with SoA transform, an EntityTable id, a
// Three.js object in the scene graph and, optionally, a Rapier body — created,
// moved, synced and destroyed together.

import * as THREE from "../../build/three.bundle.mjs";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { Quat, Vec3 } from "../ecs/world.ts";
import { engineError } from "../errors.ts";
import type { WorldContext } from "../skills/context.ts";

export interface CreateEntityOptions {
  shape: "box" | "sphere";
  /** Collider shape when it differs from the visible shape. */
  collider?: "box" | "sphere" | "capsule";
  size: number;
  color: number;
  position: Vec3;
  dynamic: boolean;
  static: boolean;
  friction: number;
  restitution: number;
  tags?: string[];
}

function meshFor(o: CreateEntityOptions): THREE.Mesh {
  const geometry = o.shape === "box" ? new THREE.BoxGeometry(o.size, o.size, o.size) : new THREE.SphereGeometry(o.size / 2, 32, 16);
  const material = new THREE.MeshStandardMaterial({ color: o.color, roughness: 0.5, metalness: 0 });
  return new THREE.Mesh(geometry, material);
}

/** The live entry for `id`, or an error naming it. */
export function requireEntity(wc: WorldContext, id: string): EntityEntry {
  const entry = wc.world.entities.get(id);
  if (!entry) throw engineError("not_found", `unknown entity ${JSON.stringify(id)} (never created or already destroyed)`);
  return entry;
}

/** Creates the whole entity; on any failure nothing is left behind. */
export function createEntity(wc: WorldContext, o: CreateEntityOptions): EntityEntry {
  if (o.dynamic && o.static) throw engineError("invalid_input", "an entity is either dynamic or static, not both");
  const entry = wc.world.spawn({ position: o.position, tags: o.tags });
  try {
    const mesh = meshFor(o);
    mesh.name = entry.id;
    mesh.position.set(...o.position);
    wc.scene.add(mesh);
    entry.mesh = mesh;
    if (o.dynamic || o.static) {
      const collider = o.collider ?? o.shape;
      const shape = collider === "box"
        ? { type: "box" as const, halfExtents: [o.size / 2, o.size / 2, o.size / 2] as Vec3 }
        : collider === "sphere"
        ? { type: "sphere" as const, radius: o.size / 2 }
        : { type: "capsule" as const, halfHeight: o.size / 4, radius: o.size / 4 };
      entry.body = wc.physics.createBody({
        kind: o.dynamic ? "dynamic" : "static",
        shape,
        position: o.position,
        friction: o.friction,
        restitution: o.restitution,
        eid: entry.eid,
      });
    }
    return entry;
  } catch (e) {
    destroyEntity(wc, entry.id);
    throw e;
  }
}

function disposeObject(object: THREE.Object3D): void {
  object.removeFromParent();
  object.traverse((o: THREE.Object3D) => {
    const mesh = o as THREE.Mesh;
    if (mesh.isMesh) {
      mesh.geometry.dispose();
      for (const m of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) m.dispose();
    }
  });
}

/** Destroys an entity with its scene object and body; its id is retired for good. */
export function destroyEntity(wc: WorldContext, id: string): boolean {
  const entry = wc.world.entities.get(id);
  if (!entry) return false;
  if (entry.body !== undefined) wc.physics.destroyBody(entry.body);
  if (entry.mesh) disposeObject(entry.mesh as THREE.Object3D);
  return wc.world.destroy(id);
}

/** Copies an entity's SoA transform onto its scene object. */
export function syncObject(wc: WorldContext, entry: EntityEntry): void {
  const object = entry.mesh as THREE.Object3D | undefined;
  if (!object) return;
  const w = wc.world;
  const e = entry.eid;
  object.position.set(w.Position.x[e], w.Position.y[e], w.Position.z[e]);
  object.quaternion.set(w.Rotation.x[e], w.Rotation.y[e], w.Rotation.z[e], w.Rotation.w[e]);
  object.scale.set(w.Scale.x[e], w.Scale.y[e], w.Scale.z[e]);
}

/** Sets any of an entity's position, rotation and scale: SoA, scene object and physics body together. */
export function setTransform(wc: WorldContext, entry: EntityEntry, t: { position?: Vec3; rotation?: Quat; scale?: Vec3 }): void {
  let rotation = t.rotation;
  if (rotation) {
    const len = Math.hypot(...rotation);
    if (!(len > 1e-9)) throw engineError("invalid_input", `rotation quaternion must be non-zero, got ${JSON.stringify(rotation)}`);
    rotation = rotation.map((c) => c / len) as Quat;
  }
  wc.world.writeTransform(entry.eid, t.position, rotation, t.scale);
  syncObject(wc, entry);
  if (entry.body !== undefined && (t.position || rotation)) {
    wc.physics.setPose(entry.body, wc.world.position(entry.eid), wc.world.rotation(entry.eid));
  }
}

/** One simulation step: physics, the zero-copy write-back, then scene sync. */
export function stepWorld(wc: WorldContext, dt: number): void {
  wc.physics.step(dt);
  if (wc.physics.writeTransforms(wc.world.Position, wc.world.Rotation) > 0) {
    for (const entry of wc.world.entities.entries()) if (entry.body !== undefined) syncObject(wc, entry);
  }
}
