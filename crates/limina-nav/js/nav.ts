// The JS face of limina-nav: one Navigation per world session, beside its
// PhysicsWorld, whose static colliders it bakes into a tiled navmesh and
// whose characters its crowd may drive. Paths come back as plain points;
// agent states are read in bulk into a Float32Array.

import type { Quat, QuatColumns, Vec3, Vec3Columns } from "../../limina-ops/js/soa.ts";
import type { PhysicsWorld } from "../../limina-physics/js/physics.ts";

export type { Quat };

/** A box of the world, [min, max]. */
export interface NavBounds {
  min: Vec3;
  max: Vec3;
}

/** Floor inside a box costs `cost` × its length to walk; without `cost` it is never walked. */
export interface NavArea extends NavBounds {
  cost?: number;
}

/** A way the floor does not show (a jump, a ladder): from → to, and back when bidirectional (default). */
export interface NavLink {
  from: Vec3;
  to: Vec3;
  bidirectional?: boolean;
  /** What taking it costs (default: its length). */
  cost?: number;
}

export interface NavParams {
  /** Agent radius (m): floors are eroded this far from walls and ledges (default 0.4). */
  agentRadius?: number;
  /** Headroom (m, default 1.8). */
  agentHeight?: number;
  /** Steepest walkable slope, degrees (default 45). */
  maxSlope?: number;
  /** Highest step (m, default 0.4). */
  maxClimb?: number;
  /** Grid cell (m, default 0.25). */
  cellSize?: number;
  /** Tile side in cells, the unit of rebuilds (default 64). */
  tileSize?: number;
  /** Region to bake (default: the static geometry's bounds). */
  bounds?: NavBounds;
  areas?: NavArea[];
  links?: NavLink[];
}

export interface NavBuild {
  polygons: number;
  tiles: number;
  tilesX: number;
  tilesZ: number;
  cellSize: number;
  bounds: NavBounds;
}

export interface NavPath {
  /** Whether the goal is reachable; when not, `path` leads as near it as the mesh allows. */
  found: boolean;
  path: Vec3[];
  length: number;
}

export interface AgentDesc {
  position: Vec3;
  radius?: number;
  maxSpeed?: number;
  maxAccel?: number;
  /** Within this of its target an agent has arrived (m, default 0.2). */
  arriveDistance?: number;
  /** A physics character (body handle) the agent drives instead of moving itself. */
  character?: number;
  /** The entity whose SoA transform the agent writes (when it drives no character). */
  eid?: number;
}

export type CrowdEvent =
  | { type: "arrived"; agent: number; position: Vec3 }
  | { type: "failed"; agent: number; position: Vec3; reason: "unreachable" | "blocked" };

/** Floats per agent in `agentStates`: position (3), velocity (3), speed, mode (0 idle, 1 moving, 2 crossing a link), facing x, z. */
export const AGENT_STATE_FLOATS = 10;

interface NavOps {
  op_nav_world_create(): number;
  op_nav_world_drop(id: number): boolean;
  op_nav_build(id: number, physics: number, params: NavParams): NavBuild;
  op_nav_refresh(id: number, physics: number): number;
  op_nav_counts(id: number, out: Float64Array): boolean;
  op_nav_find_path(id: number, fx: number, fy: number, fz: number, tx: number, ty: number, tz: number, out: Float64Array): number;
  op_nav_reachable(id: number, fx: number, fy: number, fz: number, tx: number, ty: number, tz: number): number;
  op_nav_connected_batch(id: number, pairs: Float32Array, out: Uint8Array): void;
  op_nav_nearest(id: number, x: number, y: number, z: number, out: Float64Array): boolean;
  op_nav_agent_add(id: number, desc: AgentDesc): number;
  op_nav_agent_remove(id: number, agent: number): boolean;
  op_nav_agent_target(id: number, agent: number, x: number, y: number, z: number, speed: number): void;
  op_nav_agent_stop(id: number, agent: number): void;
  op_nav_agent_place(id: number, agent: number, x: number, y: number, z: number): void;
  op_nav_crowd_step(id: number, physics: number, dt: number, px: Float32Array, py: Float32Array, pz: Float32Array, rx: Float32Array, ry: Float32Array, rz: Float32Array, rw: Float32Array): number;
  op_nav_agent_states(id: number, agents: Uint32Array, out: Float32Array): number;
  op_nav_crowd_events(id: number): CrowdEvent[];
  op_nav_snapshot(id: number): Uint8Array;
  op_nav_restore(id: number, physics: number, bytes: Uint8Array): void;
  op_nav_digest_bytes(id: number): Uint8Array;
  op_nav_polygons(id: number): Uint8Array;
}

const ops = Limina.ops as unknown as NavOps;
const small = new Float64Array(3);

/** Connectivity of a pair by `connected`: a path may exist, none can, an end is off the mesh, or there is no mesh. */
export type Connectivity = "connected" | "apart" | "offMesh" | "noMesh";
const CONNECTIVITY: Connectivity[] = ["apart", "connected", "offMesh", "noMesh"];

/** A world session's navigation: its navmesh and its crowd. Call `dispose()` to free it. */
export class Navigation {
  readonly id: number = ops.op_nav_world_create();
  private pathOut = new Float64Array(2 + 3 * 64);

  constructor(readonly physics: PhysicsWorld) {}

  /** Bakes the navmesh over the physics world's static colliders (replacing any earlier one). */
  build(params: NavParams = {}): NavBuild {
    return ops.op_nav_build(this.id, this.physics.id, params);
  }

  /** Rebuilds the tiles under static colliders that appeared, moved, changed or went away; returns how many. */
  refresh(): number {
    return ops.op_nav_refresh(this.id, this.physics.id);
  }

  /** Polygon and tile counts and the mesh revision, or null before any build. */
  counts(): { polygons: number; tiles: number; revision: number } | null {
    return ops.op_nav_counts(this.id, small) ? { polygons: small[0], tiles: small[1], revision: small[2] } : null;
  }

  /** A path between two points, or null when either is off the mesh. */
  findPath(from: Vec3, to: Vec3): NavPath | null {
    let n = ops.op_nav_find_path(this.id, ...from, ...to, this.pathOut);
    if (n < 0) return null;
    if (2 + 3 * n > this.pathOut.length) {
      this.pathOut = new Float64Array(2 + 3 * n);
      n = ops.op_nav_find_path(this.id, ...from, ...to, this.pathOut);
    }
    const out = this.pathOut;
    const path: Vec3[] = [];
    for (let k = 0; k < n; k++) path.push([out[2 + 3 * k], out[3 + 3 * k], out[4 + 3 * k]]);
    return { found: out[0] === 1, path, length: out[1] };
  }

  /** Whether a walk from `from` to `to` exists (null: an end is off the mesh). */
  isReachable(from: Vec3, to: Vec3): boolean | null {
    const r = ops.op_nav_reachable(this.id, ...from, ...to);
    return r < 0 ? null : r === 1;
  }

  /** Island connectivity of many pairs at once (`[fx, fy, fz, tx, ty, tz]` each), without searching. */
  connected(pairs: Float32Array): Connectivity[] {
    const out = new Uint8Array(pairs.length / 6);
    ops.op_nav_connected_batch(this.id, pairs, out);
    return Array.from(out, (c) => CONNECTIVITY[c]);
  }

  /** The nearest point of the mesh, or null when none is near. */
  nearest(p: Vec3): Vec3 | null {
    return ops.op_nav_nearest(this.id, ...p, small) ? [small[0], small[1], small[2]] : null;
  }

  addAgent(desc: AgentDesc): number {
    return ops.op_nav_agent_add(this.id, desc);
  }
  removeAgent(agent: number): boolean {
    return ops.op_nav_agent_remove(this.id, agent);
  }
  /** Sends an agent toward `target` (planned now: an unreachable target throws `not_found` and changes nothing). */
  setTarget(agent: number, target: Vec3, speed?: number): void {
    ops.op_nav_agent_target(this.id, agent, ...target, speed ?? -1);
  }
  stopAgent(agent: number): void {
    ops.op_nav_agent_stop(this.id, agent);
  }
  placeAgent(agent: number, position: Vec3): void {
    ops.op_nav_agent_place(this.id, agent, ...position);
  }

  /** One crowd step: agents' feet and facing into the SoA columns, characters' velocities set. */
  step(dt: number, position: Vec3Columns, rotation: QuatColumns): number {
    return ops.op_nav_crowd_step(this.id, this.physics.id, dt, position.x, position.y, position.z, rotation.x, rotation.y, rotation.z, rotation.w);
  }

  /** The state of each agent in `agents`, AGENT_STATE_FLOATS floats each, into `out`. */
  agentStates(agents: Uint32Array, out: Float32Array): void {
    ops.op_nav_agent_states(this.id, agents, out);
  }

  /** Arrivals and failures since the last call, in order. */
  drainEvents(): CrowdEvent[] {
    return ops.op_nav_crowd_events(this.id);
  }

  /** The polygons as `[x0, y, z0, x1, z1, area]` rows, for drawing. */
  polygons(): Float32Array {
    return new Float32Array(ops.op_nav_polygons(this.id).slice().buffer);
  }

  /** Navigation's state (the bake's parameters and revisions, the crowd) as bytes `restore` takes back. */
  snapshot(): Uint8Array {
    return ops.op_nav_snapshot(this.id);
  }
  /** Replaces this navigation with a snapshot's, its mesh baked again over the (restored) physics world. */
  restore(bytes: Uint8Array): void {
    ops.op_nav_restore(this.id, this.physics.id, bytes);
  }
  /** What the world digest hashes: the mesh's polygons and floors, then every agent's state. */
  digestBytes(): Uint8Array {
    return ops.op_nav_digest_bytes(this.id);
  }
  dispose(): void {
    ops.op_nav_world_drop(this.id);
  }
}
