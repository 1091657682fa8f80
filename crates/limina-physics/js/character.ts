// Characters of a PhysicsWorld: kinematic upright capsules moved each fixed
// step by Rapier's character controller (walls, slopes, steps, snapping to
// the ground, gravity, jumps, pushing dynamic bodies). A character is a body
// handle like any other; what it wants (a velocity, a jump, a facing) is set
// between steps and carried out by `step`, which writes feet and facing
// into the SoA columns at its eid.

import type { QuatColumns, Vec3, Vec3Columns } from "../../limina-ops/js/soa.ts";
import type { PhysicsWorld } from "./physics.ts";

export interface CharacterDesc {
  /** Where its feet stand. */
  position: Vec3;
  /** Capsule radius (m, default 0.3). */
  radius?: number;
  /** Head to feet (m, default 1.8). */
  height?: number;
  /** Steepest slope it walks up, degrees (default 45). */
  maxSlope?: number;
  /** Highest step it steps up (m, default 0.35). */
  stepHeight?: number;
  /** How far down it sticks to the ground (m, default 0.3). */
  snapDistance?: number;
  /** Mass for pushing dynamic bodies (kg, default 70). */
  mass?: number;
  /** The ECS entity it drives (its SoA slot). */
  eid?: number;
}

export interface CharacterState {
  /** Feet position. */
  position: Vec3;
  /** Velocity achieved over the last step. */
  velocity: Vec3;
  grounded: boolean;
  sliding: boolean;
  /** Unit ground-plane direction it faces, [x, z]. */
  facing: [number, number];
}

/** Floats per character in `Characters.motion`'s output: velocity x, y, z, then 1 if grounded (else 0). */
export const MOTION_FLOATS = 4;

interface CharacterOps {
  op_physics_character_create(world: number, desc: CharacterDesc): number;
  op_physics_character_set_velocity(world: number, handle: number, x: number, z: number): void;
  op_physics_character_set_facing(world: number, handle: number, x: number, z: number): void;
  op_physics_character_jump(world: number, handle: number, speed: number): boolean;
  op_physics_character_state(world: number, handle: number): CharacterState;
  op_physics_characters_motion(world: number, handles: Uint32Array, out: Float32Array): void;
  op_physics_characters_step(world: number, dt: number, px: Float32Array, py: Float32Array, pz: Float32Array, rx: Float32Array, ry: Float32Array, rz: Float32Array, rw: Float32Array): number;
  op_physics_characters_snapshot(world: number): Uint8Array;
  op_physics_characters_restore(world: number, bytes: Uint8Array): void;
  op_physics_characters_digest_bytes(world: number): Uint8Array;
}

const ops = Limina.ops as unknown as CharacterOps;

/** The characters of one physics world. */
export class Characters {
  constructor(readonly physics: PhysicsWorld) {}

  /** A new character; returns its body handle (destroy it with `physics.destroyBody`). */
  create(desc: CharacterDesc): number {
    return ops.op_physics_character_create(this.physics.id, desc);
  }
  /** The horizontal velocity [x, z] it walks at from the next step on. */
  setVelocity(handle: number, [x, z]: [number, number]): void {
    ops.op_physics_character_set_velocity(this.physics.id, handle, x, z);
  }
  /** Turns it to face ground direction [x, z] (kept until it walks another way). */
  setFacing(handle: number, [x, z]: [number, number]): void {
    ops.op_physics_character_set_facing(this.physics.id, handle, x, z);
  }
  /** Jumps at `speed` m/s up at the next step, if it stands on the ground; returns whether it will. */
  jump(handle: number, speed: number): boolean {
    return ops.op_physics_character_jump(this.physics.id, handle, speed);
  }
  state(handle: number): CharacterState {
    return ops.op_physics_character_state(this.physics.id, handle);
  }
  /** Each of `handles`' motion over the last step into `out` (MOTION_FLOATS each; NaN velocity for a handle that is no character): one call for all. */
  motion(handles: Uint32Array, out: Float32Array): void {
    ops.op_physics_characters_motion(this.physics.id, handles, out);
  }
  /** Moves every character one step (before the physics step), feet and facing into the SoA. */
  step(dt: number, position: Vec3Columns, rotation: QuatColumns): number {
    return ops.op_physics_characters_step(this.physics.id, dt, position.x, position.y, position.z, rotation.x, rotation.y, rotation.z, rotation.w);
  }
  /** Every controller's settings and state, as bytes `restore` takes back (the bodies are in the physics snapshot). */
  snapshot(): Uint8Array {
    return ops.op_physics_characters_snapshot(this.physics.id);
  }
  restore(bytes: Uint8Array): void {
    ops.op_physics_characters_restore(this.physics.id, bytes);
  }
  /** What the world digest hashes of them: wanted and achieved motion, facing, grounded, in handle order. */
  digestBytes(): Uint8Array {
    return ops.op_physics_characters_digest_bytes(this.physics.id);
  }
}
