// The JS face of limina-physics: each PhysicsWorld is a native Rapier world
// in OpState, addressed by id, so world sessions never share bodies. Bodies
// are stable u32 handles (a destroyed handle never addresses a later body).

import type { Quat, QuatColumns, Vec3, Vec3Columns } from "../../limina-ops/js/soa.ts";

export type BodyKind = "dynamic" | "static" | "kinematic";

export type ShapeDesc =
  | { type: "box"; halfExtents: Vec3 }
  | { type: "sphere"; radius: number }
  | { type: "capsule"; halfHeight: number; radius: number };

export interface BodyDesc {
  kind: BodyKind;
  shape: ShapeDesc;
  position?: Vec3;
  /** Quaternion [x, y, z, w]. */
  rotation?: Quat;
  friction?: number;
  restitution?: number;
  density?: number;
  linearDamping?: number;
  angularDamping?: number;
  ccd?: boolean;
  /** The ECS entity this body drives (its SoA slot for write-back). */
  eid?: number;
}

export interface BodyState {
  handle: number;
  kind: BodyKind;
  eid: number | null;
  position: Vec3;
  rotation: Quat;
  linearVelocity: Vec3;
  angularVelocity: Vec3;
  sleeping: boolean;
}

export interface RayHit {
  handle: number;
  eid: number | null;
  distance: number;
  point: Vec3;
  normal: Vec3;
}

export interface CollisionEvent {
  started: boolean;
  a: number;
  b: number;
  eidA: number | null;
  eidB: number | null;
  point: Vec3 | null;
  normal: Vec3 | null;
}

interface PhysicsOps {
  op_physics_world_create(): number;
  op_physics_world_drop(world: number): boolean;
  op_physics_create_body(world: number, desc: BodyDesc): number;
  op_physics_destroy_body(world: number, handle: number): void;
  op_physics_step(world: number, dt: number): void;
  op_physics_apply_impulse(world: number, handle: number, x: number, y: number, z: number): void;
  op_physics_set_pose(world: number, handle: number, px: number, py: number, pz: number, qx: number, qy: number, qz: number, qw: number): void;
  op_physics_set_linear_velocity(world: number, handle: number, x: number, y: number, z: number): void;
  op_physics_body_state(world: number, handle: number): BodyState;
  op_physics_raycast(world: number, ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, maxDistance: number, solid: boolean, out: Float64Array): number;
  op_physics_drain_collision_events(world: number): CollisionEvent[];
  op_physics_write_transforms(world: number, px: Float32Array, py: Float32Array, pz: Float32Array, rx: Float32Array, ry: Float32Array, rz: Float32Array, rw: Float32Array): number;
  op_physics_body_count(world: number): number;
  op_physics_set_gravity(world: number, x: number, y: number, z: number): void;
  op_physics_snapshot(world: number): Uint8Array;
  op_physics_restore(world: number, bytes: Uint8Array): void;
  op_physics_digest_bytes(world: number): Uint8Array;
}

const ops = Limina.ops as unknown as PhysicsOps;

const rayOut = new Float64Array(8);

/** A native Rapier world: one per world session. Call `dispose()` to free it. */
export class PhysicsWorld {
  readonly id: number = ops.op_physics_world_create();

  createBody(desc: BodyDesc): number {
    return ops.op_physics_create_body(this.id, desc);
  }
  destroyBody(handle: number): void {
    ops.op_physics_destroy_body(this.id, handle);
  }
  step(dt: number): void {
    ops.op_physics_step(this.id, dt);
  }
  applyImpulse(handle: number, [x, y, z]: Vec3): void {
    ops.op_physics_apply_impulse(this.id, handle, x, y, z);
  }
  setPose(handle: number, [px, py, pz]: Vec3, [qx, qy, qz, qw]: Quat = [0, 0, 0, 1]): void {
    ops.op_physics_set_pose(this.id, handle, px, py, pz, qx, qy, qz, qw);
  }
  setLinearVelocity(handle: number, [x, y, z]: Vec3): void {
    ops.op_physics_set_linear_velocity(this.id, handle, x, y, z);
  }
  bodyState(handle: number): BodyState {
    return ops.op_physics_body_state(this.id, handle);
  }
  /** The first body hit by a ray (direction need not be normalised). */
  raycast(origin: Vec3, direction: Vec3, maxDistance = 1000, solid = true): RayHit | null {
    const handle = ops.op_physics_raycast(this.id, ...origin, ...direction, maxDistance, solid, rayOut);
    if (handle === 0) return null;
    return {
      handle,
      eid: rayOut[7] < 0 ? null : rayOut[7],
      distance: rayOut[0],
      point: [rayOut[1], rayOut[2], rayOut[3]],
      normal: [rayOut[4], rayOut[5], rayOut[6]],
    };
  }
  /** Collision starts and stops since the last drain, in order. */
  drainCollisions(): CollisionEvent[] {
    return ops.op_physics_drain_collision_events(this.id);
  }
  /** Writes every dynamic body's pose into the SoA columns at its eid, in place. */
  writeTransforms(position: Vec3Columns, rotation: QuatColumns): number {
    return ops.op_physics_write_transforms(this.id, position.x, position.y, position.z, rotation.x, rotation.y, rotation.z, rotation.w);
  }
  bodyCount(): number {
    return ops.op_physics_body_count(this.id);
  }
  setGravity([x, y, z]: Vec3): void {
    ops.op_physics_set_gravity(this.id, x, y, z);
  }
  /** The whole world (Rapier's own serialization plus the body handles) as bytes `restore` takes back. */
  snapshot(): Uint8Array {
    return ops.op_physics_snapshot(this.id);
  }
  /** Replaces this world with a snapshot's: it then steps bit-for-bit as the saved one did and issues the same next handles. */
  restore(bytes: Uint8Array): void {
    ops.op_physics_restore(this.id, bytes);
  }
  /** What the world digest hashes: every body's handle, kind, eid, pose, motion and sleep flag, in handle order. */
  digestBytes(): Uint8Array {
    return ops.op_physics_digest_bytes(this.id);
  }
  /** Frees the native world and its bodies; later calls fail with `not_found`. */
  dispose(): void {
    ops.op_physics_world_drop(this.id);
  }
}
