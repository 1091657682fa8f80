// Terrain in a physics world: heightfield bodies for terrain tiles, one
// compound body for scattered props (trunks and rocks), and buoyancy and
// drag for bodies in water. Each is a static body with an ordinary handle.

import type { Vec3 } from "../../limina-ops/js/soa.ts";
import type { PhysicsWorld } from "./physics.ts";

export type PropShape =
  | { type: "capsule"; position: Vec3; halfHeight: number; radius: number }
  | { type: "ball"; position: Vec3; radius: number };

/** A body of water: its surface level and a disc (`radius` 0: everywhere). */
export interface WaterBody {
  level: number;
  center: [number, number];
  radius: number;
}

interface HeightfieldOps {
  op_physics_create_heightfield(world: number, heights: Float32Array, rows: number, cols: number, sx: number, sz: number, cx: number, cy: number, cz: number, friction: number): number;
  op_physics_set_heightfield(world: number, handle: number, heights: Float32Array): void;
  op_physics_create_props(world: number, props: PropShape[], friction: number): number;
  op_physics_apply_water(world: number, waters: Float32Array, buoyancy: number, drag: number, dt: number): number;
  op_physics_refresh_queries(world: number): void;
}

const ops = Limina.ops as unknown as HeightfieldOps;

/**
 * A static heightfield body: `heights` row-major by z (`rows` along z, `cols` along x), spanning
 * `size` = [x, z] metres centred at `center`. Each cell is two triangles split along the
 * diagonal from its (x0, z1) corner to its (x1, z0) corner.
 */
export function createHeightfield(world: PhysicsWorld, heights: Float32Array, rows: number, cols: number, size: [number, number], center: Vec3, friction = 0.8): number {
  return ops.op_physics_create_heightfield(world.id, heights, rows, cols, size[0], size[1], center[0], center[1], center[2], friction);
}

/** New heights for a heightfield body (same grid); resting bodies wake to meet them. */
export function setHeightfield(world: PhysicsWorld, handle: number, heights: Float32Array): void {
  ops.op_physics_set_heightfield(world.id, handle, heights);
}

/** One static body holding every prop's collider (world-space shapes); returns its handle. */
export function createProps(world: PhysicsWorld, props: PropShape[], friction = 0.7): number {
  return ops.op_physics_create_props(world.id, props, friction);
}

/** Brings raycasts up to date with colliders added or changed since the last step (a restored world's too). */
export function refreshQueries(world: PhysicsWorld): void {
  ops.op_physics_refresh_queries(world.id);
}

const waterScratch = { buf: new Float32Array(16) };

/**
 * Buoyancy and drag for one step: every dynamic body whose bounding box dips below a water
 * surface gets an upward impulse of `buoyancy` × its weight × the submerged share of its box's
 * height, and its velocities damped by `drag` per second in that share. Returns how many were wet.
 */
export function applyWater(world: PhysicsWorld, waters: readonly WaterBody[], buoyancy: number, drag: number, dt: number): number {
  if (waterScratch.buf.length < waters.length * 4) waterScratch.buf = new Float32Array(waters.length * 4);
  const buf = waterScratch.buf;
  waters.forEach((w, i) => buf.set([w.level, w.center[0], w.center[1], w.radius], i * 4));
  return ops.op_physics_apply_water(world.id, buf.subarray(0, waters.length * 4), buoyancy, drag, dt);
}
