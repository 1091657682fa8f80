// Whole entities: an ECS entity with SoA transform, an EntityTable id, a
// Three.js object in the scene graph and, optionally, a Rapier body in the
// session's physics world — created, moved, synced and destroyed together.

import * as THREE from "three";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { Quat, Vec3, World } from "../ecs/world.ts";

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

/** The mesh of a primitive entity: its shape at its size, in a standard PBR material of its colour. */
export function meshFor(o: Pick<CreateEntityOptions, "shape" | "size" | "color">): THREE.Mesh {
  const geometry = o.shape === "box" ? new THREE.BoxGeometry(o.size, o.size, o.size) : new THREE.SphereGeometry(o.size / 2, 32, 16);
  const material = new THREE.MeshStandardMaterial({ color: o.color, roughness: 0.5, metalness: 0 });
  return new THREE.Mesh(geometry, material);
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

/** The whole-entity service of one world session: its World, scene graph and physics world. */
export class Entities {
  constructor(readonly world: World, readonly scene: THREE.Scene, readonly physics: PhysicsWorld) {}

  /** The live entry for `id`, or a `not_found` error naming it. */
  require(id: string): EntityEntry {
    const entry = this.world.entities.get(id);
    if (!entry) throw engineError("not_found", `unknown entity ${JSON.stringify(id)} (never created or already destroyed)`);
    return entry;
  }

  /** Creates the whole entity (dynamic wins over static); on any failure nothing is left behind. */
  create(o: CreateEntityOptions): EntityEntry {
    const entry = this.world.spawn({ position: o.position, tags: o.tags });
    try {
      const mesh = meshFor(o);
      mesh.name = entry.id;
      mesh.position.set(...o.position);
      this.scene.add(mesh);
      entry.mesh = mesh;
      if (o.dynamic || o.static) {
        const collider = o.collider ?? o.shape;
        const shape = collider === "box"
          ? { type: "box" as const, halfExtents: [o.size / 2, o.size / 2, o.size / 2] as Vec3 }
          : collider === "sphere"
          ? { type: "sphere" as const, radius: o.size / 2 }
          : { type: "capsule" as const, halfHeight: o.size / 4, radius: o.size / 4 };
        entry.body = this.physics.createBody({
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
      this.destroy(entry.id);
      throw e;
    }
  }

  /** Adds a loaded scene object (a glTF model) as a new entity. */
  adopt(object: THREE.Object3D, position: Vec3, tags: string[], resource?: unknown): EntityEntry {
    const entry = this.world.spawn({ position, tags });
    object.name = entry.id;
    object.position.set(...position);
    this.scene.add(object);
    entry.mesh = object;
    entry.resource = resource;
    return entry;
  }

  /** Destroys an entity with its scene object and body; its id is retired for good. */
  destroy(id: string): boolean {
    const entry = this.world.entities.get(id);
    if (!entry) return false;
    if (entry.body !== undefined) this.physics.destroyBody(entry.body);
    if (entry.mesh) disposeObject(entry.mesh as THREE.Object3D);
    return this.world.destroy(id);
  }

  /** Copies an entity's SoA transform onto its scene object. */
  sync(entry: EntityEntry): void {
    const object = entry.mesh as THREE.Object3D | undefined;
    if (!object) return;
    const w = this.world;
    const e = entry.eid;
    object.position.set(w.Position.x[e], w.Position.y[e], w.Position.z[e]);
    object.quaternion.set(w.Rotation.x[e], w.Rotation.y[e], w.Rotation.z[e], w.Rotation.w[e]);
    object.scale.set(w.Scale.x[e], w.Scale.y[e], w.Scale.z[e]);
  }

  /** Sets any of an entity's position, rotation and scale: SoA, scene object and physics body together. */
  setTransform(entry: EntityEntry, t: { position?: Vec3; rotation?: Quat; scale?: Vec3 }): void {
    let rotation = t.rotation;
    if (rotation) {
      const len = Math.hypot(...rotation);
      if (!(len > 1e-9)) throw engineError("invalid_input", `rotation quaternion must be non-zero, got ${JSON.stringify(rotation)}`);
      rotation = rotation.map((c) => c / len) as Quat;
    }
    this.world.writeTransform(entry.eid, t.position, rotation, t.scale);
    this.sync(entry);
    if (entry.body !== undefined && (t.position || rotation)) {
      this.physics.setPose(entry.body, this.world.position(entry.eid), this.world.rotation(entry.eid));
    }
  }

  /** One simulation step: physics, the zero-copy write-back, then scene sync. */
  step(dt: number): void {
    this.physics.step(dt);
    if (this.physics.writeTransforms(this.world.Position, this.world.Rotation) > 0) {
      for (const entry of this.world.entities.entries()) if (entry.body !== undefined) this.sync(entry);
    }
  }
}
