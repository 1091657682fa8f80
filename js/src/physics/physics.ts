// The JS face of limina-physics: Rapier lives natively in OpState; bodies
// are stable u32 handles (a destroyed handle never addresses a later body).

import type { QuatColumns, Vec3, Vec3Columns } from "../ecs/world.ts";

const ops = Limina.ops;

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
  rotation?: [number, number, number, number];
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
  rotation: [number, number, number, number];
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

const rayOut = new Float64Array(8);

export const Physics = {
  createBody(desc: BodyDesc): number {
    return ops.op_physics_create_body(desc);
  },
  destroyBody(handle: number): void {
    ops.op_physics_destroy_body(handle);
  },
  step(dt: number): void {
    ops.op_physics_step(dt);
  },
  applyImpulse(handle: number, [x, y, z]: Vec3): void {
    ops.op_physics_apply_impulse(handle, x, y, z);
  },
  setPose(handle: number, [px, py, pz]: Vec3, [qx, qy, qz, qw]: [number, number, number, number] = [0, 0, 0, 1]): void {
    ops.op_physics_set_pose(handle, px, py, pz, qx, qy, qz, qw);
  },
  setLinearVelocity(handle: number, [x, y, z]: Vec3): void {
    ops.op_physics_set_linear_velocity(handle, x, y, z);
  },
  bodyState(handle: number): BodyState {
    return ops.op_physics_body_state(handle);
  },
  /** The first body hit by a ray (direction need not be normalised). */
  raycast(origin: Vec3, direction: Vec3, maxDistance = 1000, solid = true): RayHit | null {
    const handle = ops.op_physics_raycast(...origin, ...direction, maxDistance, solid, rayOut);
    if (handle === 0) return null;
    return {
      handle,
      eid: rayOut[7] < 0 ? null : rayOut[7],
      distance: rayOut[0],
      point: [rayOut[1], rayOut[2], rayOut[3]],
      normal: [rayOut[4], rayOut[5], rayOut[6]],
    };
  },
  /** Collision starts and stops since the last drain, in order. */
  drainCollisions(): CollisionEvent[] {
    return ops.op_physics_drain_collision_events();
  },
  /** Writes every dynamic body's pose into the SoA columns at its eid, in place. */
  writeTransforms(position: Vec3Columns, rotation: QuatColumns): number {
    return ops.op_physics_write_transforms(
      position.x, position.y, position.z, rotation.x, rotation.y, rotation.z, rotation.w,
    );
  },
  bodyCount(): number {
    return ops.op_physics_body_count();
  },
  setGravity([x, y, z]: Vec3): void {
    ops.op_physics_set_gravity(x, y, z);
  },
  /** Removes every body; handle numbering carries on. */
  clear(): void {
    ops.op_physics_clear();
  },
};
