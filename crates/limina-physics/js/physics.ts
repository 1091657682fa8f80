// The JS face of limina-physics: each PhysicsWorld is a native Rapier world
// in OpState, addressed by id, so world sessions never share bodies. Bodies
// and joints are stable u32 handles (a destroyed handle never addresses a
// later one). Mesh shapes carry their vertices as typed arrays, which cross
// to Rust without a copy.

import type { Quat, QuatColumns, Vec3, Vec3Columns } from "../../limina-ops/js/soa.ts";

export type BodyKind = "dynamic" | "static" | "kinematic";

/** A collider shape in metres, in the collider's frame; round shapes stand upright along Y. */
export type ShapeDesc =
  | { type: "box"; halfExtents: Vec3 }
  | { type: "sphere"; radius: number }
  | { type: "capsule"; halfHeight: number; radius: number }
  | { type: "cylinder"; halfHeight: number; radius: number }
  | { type: "cone"; halfHeight: number; radius: number }
  /** The convex hull of `vertices` (x, y, z triples). */
  | { type: "convexHull"; vertices: Float32Array }
  /** A triangle mesh (static and kinematic bodies only): `triangles` index triples into `vertices`. */
  | { type: "trimesh"; vertices: Float32Array; triangles: Uint32Array }
  /**
   * A grid of heights (static and kinematic bodies only): `rows` along z by `cols` along x,
   * row-major by z, spanning `size` = [x, z] metres centred on the collider.
   */
  | { type: "heightfield"; heights: Float32Array; rows: number; cols: number; size: [number, number] };

/** One collider of a body: its shape, its pose on the body, and what it changes from the body's material. */
export interface ColliderDesc {
  shape: ShapeDesc;
  offset?: Vec3;
  /** Quaternion [x, y, z, w] in the body's frame. */
  rotation?: Quat;
  friction?: number;
  restitution?: number;
  density?: number;
  sensor?: boolean;
}

/** Collision groups as bit masks over groups 0–31: two colliders meet when each one's memberships intersect the other's filter. */
export interface Groups {
  memberships: number;
  filter: number;
}

/** The material every collider of a body takes unless it says otherwise. */
export interface ColliderMaterial {
  friction?: number;
  restitution?: number;
  density?: number;
  /** Sensors report bodies entering and leaving them and stop nothing. */
  sensor?: boolean;
  groups?: Groups;
}

export interface BodyDesc extends ColliderMaterial {
  kind: BodyKind;
  /** One collider at the body's centre... */
  shape?: ShapeDesc;
  /** ...or several (a compound body). */
  colliders?: ColliderDesc[];
  position?: Vec3;
  /** Quaternion [x, y, z, w]. */
  rotation?: Quat;
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
  /** One of the two is a sensor: a body entered (`started`) or left it, without contact. */
  sensor: boolean;
  a: number;
  b: number;
  eidA: number | null;
  eidB: number | null;
  point: Vec3 | null;
  normal: Vec3 | null;
}

export type JointType = "fixed" | "revolute" | "prismatic" | "spherical" | "rope" | "spring";

/** A hinge's or slider's motor: drives toward `targetVelocity`, and toward `targetPosition` when given, with at most `maxForce`. */
export interface Motor {
  targetVelocity?: number;
  targetPosition?: number;
  stiffness?: number;
  damping?: number;
  maxForce?: number;
}

/** A joint as it is created: in world space, as the bodies stand now (both frames coincide at creation). */
export interface JointDesc {
  type: JointType;
  bodyA: number;
  bodyB: number;
  /** Where the bodies meet (default body B's centre); for ropes and springs, body A's attachment point. */
  anchor?: Vec3;
  /** A hinge's or slider's axis (default +Y). */
  axis?: Vec3;
  /** A hinge's angle range (radians) or a slider's range (m). */
  limits?: [number, number];
  /** A rope's maximum or a spring's rest length (default: the current distance). */
  length?: number;
  /** A spring's stiffness and damping. */
  stiffness?: number;
  damping?: number;
  motor?: Motor;
  /** Whether the joined bodies still collide with each other (default false). */
  contacts?: boolean;
}

export interface JointState {
  handle: number;
  type: JointType;
  bodyA: number;
  bodyB: number;
  /** A hinge's angle (radians), a slider's offset (m), a rope's or spring's length (m); null for fixed and spherical joints. */
  position: number | null;
  limits: [number, number] | null;
  motor: Motor | null;
  contacts: boolean;
}

/** Where dynamic bodies fall out of the world, and whether they are put back where they were created instead of removed. */
export interface KillPlane {
  y: number;
  respawn?: boolean;
}

/** A body that left the world (below the kill plane, or beyond the world's extent) during a step. */
export interface Fallen {
  handle: number;
  eid: number | null;
  position: Vec3;
  /** Put back at its spawn pose, at rest; otherwise it was removed with its joints. */
  respawned: boolean;
}

interface PhysicsOps {
  op_physics_world_create(): number;
  op_physics_world_drop(world: number): boolean;
  op_physics_create_body(world: number, desc: unknown, vertices: Float32Array, triangles: Uint32Array): number;
  op_physics_set_colliders(world: number, handle: number, colliders: unknown, material: ColliderMaterial, vertices: Float32Array, triangles: Uint32Array): void;
  op_physics_destroy_body(world: number, handle: number): number[];
  op_physics_step(world: number, dt: number): number;
  op_physics_set_body_type(world: number, handle: number, kind: BodyKind): void;
  op_physics_set_angular_velocity(world: number, handle: number, x: number, y: number, z: number): void;
  op_physics_create_joint(world: number, desc: JointDesc): number;
  op_physics_remove_joint(world: number, handle: number): void;
  op_physics_set_motor(world: number, handle: number, motor: Motor | null): void;
  op_physics_joint_state(world: number, handle: number): JointState;
  op_physics_joint_handles(world: number): number[];
  op_physics_sensor_contents(world: number, handle: number): number[];
  op_physics_set_kill_plane(world: number, plane: KillPlane | null): void;
  op_physics_kill_plane(world: number): KillPlane | null;
  op_physics_drain_fallen(world: number): Fallen[];
  op_physics_apply_impulse(world: number, handle: number, x: number, y: number, z: number): void;
  op_physics_set_pose(world: number, handle: number, px: number, py: number, pz: number, qx: number, qy: number, qz: number, qw: number): void;
  op_physics_set_linear_velocity(world: number, handle: number, x: number, y: number, z: number): void;
  op_physics_body_state(world: number, handle: number): BodyState;
  op_physics_raycast(world: number, ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, maxDistance: number, solid: boolean, out: Float64Array): number;
  op_physics_drain_collision_events(world: number): CollisionEvent[];
  op_physics_write_transforms(world: number, px: Float32Array, py: Float32Array, pz: Float32Array, rx: Float32Array, ry: Float32Array, rz: Float32Array, rw: Float32Array, moved: Uint32Array): number;
  op_physics_body_count(world: number): number;
  op_physics_set_gravity(world: number, x: number, y: number, z: number): void;
  op_physics_snapshot(world: number): Uint8Array;
  op_physics_restore(world: number, bytes: Uint8Array): void;
  op_physics_digest_bytes(world: number): Uint8Array;
}

const ops = Limina.ops as unknown as PhysicsOps;

const rayOut = new Float64Array(8);
const NO_VERTICES = new Float32Array(0);
const NO_TRIANGLES = new Uint32Array(0);

/** Floats a heightfield takes in the packed vertex buffer: its heights, padded so vertex triples after it stay aligned. */
const heightsSpan = (heights: Float32Array) => Math.ceil(heights.length / 3) * 3;

/**
 * The wire form of colliders: mesh shapes' arrays packed into one vertex and one triangle
 * buffer (triangles re-based onto the packed vertices), each shape naming its runs by range
 * (a heightfield's heights by float, not by vertex).
 */
function packColliders(colliders: ColliderDesc[]): { colliders: unknown[]; vertices: Float32Array; triangles: Uint32Array } {
  let nv = 0;
  let nt = 0;
  for (const { shape } of colliders) {
    if (shape.type === "convexHull" || shape.type === "trimesh") nv += shape.vertices.length;
    if (shape.type === "heightfield") nv += heightsSpan(shape.heights);
    if (shape.type === "trimesh") nt += shape.triangles.length;
  }
  if (nv === 0) return { colliders, vertices: NO_VERTICES, triangles: NO_TRIANGLES };
  const vertices = new Float32Array(nv);
  const triangles = new Uint32Array(nt);
  let v = 0;
  let t = 0;
  const wire = colliders.map((c) => {
    const s = c.shape;
    if (s.type === "heightfield") {
      vertices.set(s.heights, v);
      const heights = [v, s.heights.length];
      v += heightsSpan(s.heights);
      return { ...c, shape: { ...s, heights } };
    }
    if (s.type !== "convexHull" && s.type !== "trimesh") return c;
    if (s.vertices.length % 3 !== 0) throw new RangeError(`${s.type} vertices must be x, y, z triples, got ${s.vertices.length} numbers`);
    const first = v / 3;
    vertices.set(s.vertices, v);
    v += s.vertices.length;
    if (s.type === "convexHull") return { ...c, shape: { type: s.type, vertices: [first, s.vertices.length / 3] } };
    if (s.triangles.length % 3 !== 0) throw new RangeError(`trimesh triangles must be index triples, got ${s.triangles.length} indices`);
    const tri = t / 3;
    triangles.set(s.triangles, t);
    t += s.triangles.length;
    return { ...c, shape: { type: s.type, vertices: [first, s.vertices.length / 3], triangles: [tri, s.triangles.length / 3] } };
  });
  return { colliders: wire, vertices, triangles };
}

/** A native Rapier world: one per world session. Call `dispose()` to free it. */
export class PhysicsWorld {
  readonly id: number = ops.op_physics_world_create();
  /** Where `writeTransforms` lists the eids that moved (a slot per body at least). */
  private moved = new Uint32Array(0);

  createBody(desc: BodyDesc): number {
    const { shape, colliders, ...rest } = desc;
    const list = colliders ?? (shape ? [{ shape }] : []);
    const packed = packColliders(list);
    const wire = colliders ? { ...rest, colliders: packed.colliders } : { ...rest, ...(shape ? { shape: (packed.colliders[0] as { shape: unknown }).shape } : {}) };
    return ops.op_physics_create_body(this.id, wire, packed.vertices, packed.triangles);
  }
  /** Replaces a body's colliders (taking `material` as their defaults); on a bad one the body keeps its old ones. */
  setColliders(handle: number, colliders: ColliderDesc[], material: ColliderMaterial = {}): void {
    const packed = packColliders(colliders);
    ops.op_physics_set_colliders(this.id, handle, packed.colliders, material, packed.vertices, packed.triangles);
  }
  /** Destroys a body with its colliders and joints; returns the handles of the joints that went with it. */
  destroyBody(handle: number): number[] {
    return ops.op_physics_destroy_body(this.id, handle);
  }
  /** Steps the world; returns how many events (collisions, fallen bodies) wait to be drained. */
  step(dt: number): number {
    return ops.op_physics_step(this.id, dt);
  }
  setBodyType(handle: number, kind: BodyKind): void {
    ops.op_physics_set_body_type(this.id, handle, kind);
  }
  setAngularVelocity(handle: number, [x, y, z]: Vec3): void {
    ops.op_physics_set_angular_velocity(this.id, handle, x, y, z);
  }
  createJoint(desc: JointDesc): number {
    return ops.op_physics_create_joint(this.id, desc);
  }
  removeJoint(handle: number): void {
    ops.op_physics_remove_joint(this.id, handle);
  }
  /** Sets a hinge's or slider's motor, or (null) switches it off. */
  setMotor(handle: number, motor: Motor | null): void {
    ops.op_physics_set_motor(this.id, handle, motor);
  }
  jointState(handle: number): JointState {
    return ops.op_physics_joint_state(this.id, handle);
  }
  /** The bodies overlapping a body's sensor colliders now, in handle order. */
  sensorContents(handle: number): number[] {
    return ops.op_physics_sensor_contents(this.id, handle);
  }
  /** Every joint's handle, in creation order. */
  jointHandles(): number[] {
    return ops.op_physics_joint_handles(this.id);
  }
  /** Sets the kill plane, or (null) lets bodies fall forever. */
  setKillPlane(plane: KillPlane | null): void {
    ops.op_physics_set_kill_plane(this.id, plane);
  }
  killPlane(): KillPlane | null {
    return ops.op_physics_kill_plane(this.id);
  }
  /** Bodies that left the world since the last drain, in order. */
  drainFallen(): Fallen[] {
    return ops.op_physics_drain_fallen(this.id);
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
  /**
   * Writes every dynamic body's pose into the SoA columns at its eid, in place; returns the eids
   * whose pose changed (a view, valid until the next call): bodies asleep or at rest are not among them.
   */
  writeTransforms(position: Vec3Columns, rotation: QuatColumns): Uint32Array {
    const bodies = ops.op_physics_body_count(this.id);
    if (this.moved.length < bodies) this.moved = new Uint32Array(Math.max(bodies, 2 * this.moved.length));
    const n = ops.op_physics_write_transforms(this.id, position.x, position.y, position.z, rotation.x, rotation.y, rotation.z, rotation.w, this.moved);
    return this.moved.subarray(0, n);
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
  /** What the world digest hashes: every body (pose, motion, sleep flag, colliders), every joint, gravity and the kill plane, in handle order. */
  digestBytes(): Uint8Array {
    return ops.op_physics_digest_bytes(this.id);
  }
  /** Frees the native world and its bodies; later calls fail with `not_found`. */
  dispose(): void {
    ops.op_physics_world_drop(this.id);
  }
}
