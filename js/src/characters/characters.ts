// The world's characters: each an entity with a body that walks — a
// skinned humanoid (or a user's glTF rig), a physics character (Rapier's
// kinematic controller) and an Animator — and a member of the navigation
// crowd, so it can be sent somewhere on the navmesh (avoiding the others
// on the way) or driven directly. Each fixed step, before physics: the
// navmesh takes in changed static geometry, the crowd steers, the
// controllers move; after physics: every character's animation follows
// what its body did, and arrivals become world-log events.

import * as THREE from "three";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { AGENT_STATE_FLOATS, type Navigation } from "../../../crates/limina-nav/js/nav.ts";
import { MOTION_FLOATS, Characters as PhysicsCharacters } from "../../../crates/limina-physics/js/character.ts";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { Vec3 } from "../ecs/world.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { Entities } from "../scene/entities.ts";
import { loadGltf } from "../skills/three.ts";
import type { WorldResource } from "../ecs/resources.ts";
import { base64 } from "../../../crates/limina-ops/js/base64.ts";
import { sha256 } from "../../../crates/limina-trace/js/world-file.ts";
import { fromBase64 } from "../game/save/bytes.ts";
import { type AnimationChange, Animator, clipKey, type SavedAnimation } from "./animator.ts";
import { humanoidClips } from "./clips.ts";
import { type Appearance, createHumanoid, DEFAULT_APPEARANCE, REFERENCE_HEIGHT } from "./humanoid.ts";

export interface SpawnOptions {
  position: Vec3;
  appearance?: Appearance;
  /** A glTF asset id to use as the body instead of the built-in humanoid. */
  model?: string;
  tags?: string[];
  /** Top walking speed, m/s (default 4.5: it can run). */
  maxSpeed?: number;
  /** Drawn by a CrowdDraw, not by a mesh of its own: its body has no mesh and no skeleton. */
  drawnByCrowd?: boolean;
}

/** An animation change as watchers get it: the animation clock it happened at, then the change. */
export type ClockedChange = [number, ...AnimationChange];

/** What a character is, as snapshots save it. */
export interface CharacterResource {
  kind: "character";
  appearance: Appearance;
  model?: string;
  maxSpeed: number;
  drawnByCrowd?: true;
}

interface Walk {
  target: Vec3;
  /** Who asked, and the event that asked. */
  actorId: string;
  threadId: string;
  cause: string;
}

/** The world resource "characters": the controllers (bytes), and each character's walk and animation. */
export interface SavedCharacters {
  controllers: string;
  characters: Record<string, { walk: Walk | null; animation: SavedAnimation }>;
}

export interface Character {
  entity: EntityEntry;
  /** The physics character's body handle (also `entity.body`). */
  body: number;
  /** The crowd agent it is. */
  agent: number;
  animator: Animator;
  rig: THREE.Object3D;
  resource: CharacterResource;
  walk: Walk | null;
  /** Ground speed and vertical speed of the last step. */
  speed: number;
  grounded: boolean;
}

const CAPSULE_RADIUS = 0.3;
/** Crowd agents keep this far apart (a little wider than the capsule, for elbow room). */
const AGENT_RADIUS = 0.35;

let trackless: THREE.AnimationClip[] | null = null;
/**
 * A crowd-drawn character's clips: the crowd poses it from its baked table by what its animator
 * plays, so the animator needs the clips' names and lengths (the same at every height), not their
 * tracks, and its body no skeleton. Shared by every such character.
 */
function crowdClips(): THREE.AnimationClip[] {
  return (trackless ??= humanoidClips().map((c) => new THREE.AnimationClip(c.name, c.duration, [])));
}

/** The body a character's resource describes: the built-in humanoid or a loaded glTF rig, with its clips and scale. */
export async function characterBody(resource: CharacterResource): Promise<{ rig: THREE.Object3D; clips: THREE.AnimationClip[]; scale: number }> {
  const height = resource.appearance.height ?? DEFAULT_APPEARANCE.height;
  if (resource.drawnByCrowd) return { rig: new THREE.Group(), clips: crowdClips(), scale: height / REFERENCE_HEIGHT };
  const builtIn = humanoidClips(height);
  if (resource.model === undefined) {
    const h = createHumanoid(resource.appearance);
    return { rig: h.root, clips: builtIn, scale: h.scale };
  }
  const { object, animations } = await loadGltf(resource.model);
  // The rig's own clips, then the built-in ones for whatever it lacks (they bind by bone name).
  const own = new Set(animations.map((c) => clipKey(c.name)));
  return { rig: object, clips: [...animations, ...builtIn.filter((c) => !own.has(c.name))], scale: height / REFERENCE_HEIGHT };
}

/**
 * The characters, and (`navState`) the navigation they walk: two world resources. A load only
 * stages what it is given — the controllers and the crowd belong to the physics world a
 * snapshot restores after the resources — and `attach()` puts it in place once that is done;
 * each restored character then takes back its walk and animation as it is adopted.
 */
export class CharacterSystem implements WorldResource<SavedCharacters | null> {
  readonly physics: PhysicsCharacters;
  /** The world resource "nav": the bake's parameters and revisions and the crowd, as bytes (the mesh is baked again on load). */
  readonly navState: WorldResource<string | null>;
  private readonly byEntity = new Map<string, Character>();
  private readonly ids = { agents: new Uint32Array(0), states: new Float32Array(0) };
  /** The characters' body handles and their motion, read in one call each step. */
  private motion = { handles: new Uint32Array(0), out: new Float32Array(0) };
  /** What loads staged for `attach` (undefined: nothing staged); then each character's own, for `adopt`. */
  private staged: { nav?: Uint8Array; characters?: SavedCharacters | null } = {};
  private pending = new Map<string, SavedCharacters["characters"][string]>();
  private readonly emptyNav: Uint8Array;
  /**
   * Animation steps taken (each step every character's animator advances once): a change at
   * clock c happened after c steps, before step c + 1. Not world state: a watcher counts from
   * the whole states it is given.
   */
  animationClock = 0;
  /** Animation changes since the last take, by entity id (null: nobody watches). */
  private animationChanges: Map<string, ClockedChange[]> | null = null;

  constructor(private readonly entities: Entities, readonly nav: Navigation, private readonly tracer: Tracer) {
    this.physics = new PhysicsCharacters(entities.physics);
    this.emptyNav = nav.snapshot();
    this.navState = {
      save: () => (this.hasNavigation() ? base64(nav.snapshot()) : null),
      load: (saved) => {
        if (saved !== null && typeof saved !== "string") throw engineError("invalid_input", "saved navigation must be base64 bytes or null");
        this.staged.nav = saved === null ? this.emptyNav : unbase64(saved, "navigation");
      },
      digestState: () => (this.hasNavigation() ? sha256(nav.digestBytes()) : null),
    };
  }

  private hasNavigation(): boolean {
    return this.nav.counts() !== null || this.list().length > 0;
  }

  save(): SavedCharacters | null {
    const list = this.list();
    if (list.length === 0) return null;
    const characters: SavedCharacters["characters"] = {};
    for (const c of list) characters[c.entity.id] = { walk: c.walk && { ...c.walk, target: [...c.walk.target] }, animation: c.animator.save() };
    return { controllers: base64(this.physics.snapshot()), characters };
  }

  load(saved: SavedCharacters | null): void {
    if (saved !== null && (typeof saved !== "object" || typeof saved.controllers !== "string" || typeof saved.characters !== "object" || saved.characters === null)) {
      throw engineError("invalid_input", "saved characters need controllers (base64) and characters by entity id");
    }
    if (saved) unbase64(saved.controllers, "characters' controllers");
    this.staged.characters = saved;
  }

  /** The controllers' digest bytes' hash, and each character's walk target and animation (not who asked: event ids are the log's). */
  digestState(): unknown {
    const list = this.list();
    if (list.length === 0) return null;
    const characters: Record<string, unknown> = {};
    for (const c of list) characters[c.entity.id] = { walkingTo: c.walk?.target ?? null, animation: c.animator.save() };
    return { controllers: sha256(this.physics.digestBytes()), characters };
  }

  /** After a snapshot's physics world is restored: the staged crowd and controllers go in place. */
  attach(): void {
    const { nav, characters } = this.staged;
    this.staged = {};
    if (nav) this.nav.restore(nav);
    this.pending.clear();
    if (characters) {
      this.physics.restore(unbase64(characters.controllers, "characters' controllers"));
      for (const [id, state] of Object.entries(characters.characters)) this.pending.set(id, state);
    }
  }

  /** Every live character, in creation order. */
  list(): Character[] {
    this.prune();
    return [...this.byEntity.values()];
  }

  get(entity: string): Character | undefined {
    this.prune();
    return this.byEntity.get(entity);
  }

  /** The character `entity` is, or a `not_found` error. */
  require(entity: string): Character {
    const c = this.get(entity);
    if (!c) throw engineError("not_found", `${JSON.stringify(entity)} is no live character (character.spawn makes one)`);
    return c;
  }

  /** Where any entity stands (a character's feet). */
  positionOf(entity: string): Vec3 {
    return this.entities.world.position(this.entities.require(entity).eid);
  }

  /** A new character standing at `position`. */
  async spawn(o: SpawnOptions): Promise<Character> {
    const resource: CharacterResource = {
      kind: "character",
      appearance: { ...o.appearance },
      ...(o.model !== undefined ? { model: o.model } : {}),
      maxSpeed: o.maxSpeed ?? 4.5,
      ...(o.drawnByCrowd ? { drawnByCrowd: true as const } : {}),
    };
    const body = await characterBody(resource);
    return this.adopt(body, resource, o.position, o.tags ?? []);
  }

  /**
   * Makes a character of a body already built (spawn's second half). A restore passes the
   * restored entity (with its body) and the crowd agent the restored crowd already holds.
   */
  adopt(body: { rig: THREE.Object3D; clips: THREE.AnimationClip[]; scale: number }, resource: CharacterResource, position: Vec3, tags: string[], existing?: EntityEntry, agentId?: number): Character {
    const entry = existing ?? this.entities.adopt(body.rig, position, ["character", ...tags], resource);
    if (existing) {
      body.rig.name = existing.id;
      this.entities.scene.add(body.rig);
      existing.mesh = body.rig;
      existing.resource = resource;
    }
    const height = (resource.appearance.height ?? DEFAULT_APPEARANCE.height);
    try {
      const handle = existing?.body ?? this.physics.create({ position, radius: CAPSULE_RADIUS * body.scale, height, eid: entry.eid });
      entry.body = handle;
      const agent = agentId ?? this.nav.addAgent({ position, radius: AGENT_RADIUS * body.scale, maxSpeed: resource.maxSpeed, character: handle });
      const animator = new Animator(body.rig, body.clips, body.scale);
      animator.onChange = (change) => {
        const changes = this.animationChanges;
        if (!changes) return;
        const list = changes.get(entry.id);
        if (list) list.push([this.animationClock, ...change]);
        else changes.set(entry.id, [[this.animationClock, ...change]]);
      };
      const c: Character = { entity: entry, body: handle, agent, animator, rig: body.rig, resource, walk: null, speed: 0, grounded: true };
      const restored = existing && this.pending.get(entry.id);
      if (restored) {
        this.pending.delete(entry.id);
        c.walk = restored.walk && { ...restored.walk, target: [...restored.walk.target] };
        try {
          animator.load(restored.animation);
        } catch (e) {
          throw engineError("invalid_input", `saved character ${entry.id}: ${e instanceof Error ? e.message : e}`);
        }
        const s = this.physics.state(handle);
        c.speed = Math.hypot(s.velocity[0], s.velocity[2]);
        c.grounded = s.grounded;
      }
      this.byEntity.set(entry.id, c);
      return c;
    } catch (e) {
      this.entities.destroy(entry.id);
      throw e;
    }
  }

  /** Drops characters whose entity was destroyed (their bodies went with them). */
  private prune(): void {
    for (const [id, c] of this.byEntity) {
      if (!this.entities.world.entities.get(id)) {
        this.nav.removeAgent(c.agent);
        c.animator.mixer.stopAllAction();
        this.byEntity.delete(id);
      }
    }
  }

  /** Walks `entity` on the navmesh to `target` (avoiding the crowd), at up to `speed`; returns the path's length. */
  moveTo(entity: string, target: Vec3, speed: number | undefined, walk: Omit<Walk, "target">): number {
    const c = this.require(entity);
    const here = this.entities.world.position(c.entity.eid);
    const path = this.nav.findPath(here, target);
    if (!path) throw engineError("not_found", `${this.nav.counts() ? "no navmesh under" : "no navmesh (nav.build first) for"} ${JSON.stringify(path === null ? target : here)}`);
    if (!path.found) throw engineError("not_found", `no path on the navmesh from ${fmt(here)} to ${fmt(target)}`);
    this.nav.setTarget(c.agent, target, speed);
    c.walk = { target, ...walk };
    return path.length;
  }

  /** Stops a walk (or a direct move) where the character stands. */
  stop(entity: string): boolean {
    const c = this.require(entity);
    const was = c.walk !== null;
    this.nav.stopAgent(c.agent);
    this.physics.setVelocity(c.body, [0, 0]);
    c.walk = null;
    return was;
  }

  /**
   * Every character's animation changes (motion taken, emotes played, states loaded) since the
   * last call, by entity id, in order; the first call starts the watch. With the whole states
   * at some clock and these, a copy advanced once per step holds the same animation.
   */
  takeAnimationChanges(): Map<string, ClockedChange[]> {
    const taken = this.animationChanges ?? new Map();
    this.animationChanges = new Map();
    return taken;
  }

  /** Drives `entity` directly at ground velocity [x, z] (cancelling any walk). */
  move(entity: string, velocity: [number, number]): void {
    const c = this.require(entity);
    if (c.walk) {
      this.nav.stopAgent(c.agent);
      c.walk = null;
    }
    this.physics.setVelocity(c.body, velocity);
  }

  jump(entity: string, speed: number): boolean {
    return this.physics.jump(this.require(entity).body, speed);
  }

  /** Turns `entity` to face `point`; returns the facing [x, z]. */
  lookAt(entity: string, point: Vec3): [number, number] {
    const c = this.require(entity);
    const at = this.entities.world.position(c.entity.eid);
    const d: [number, number] = [point[0] - at[0], point[2] - at[2]];
    if (Math.hypot(d[0], d[1]) < 1e-6) throw engineError("invalid_input", "the point to look at is where the character stands");
    this.physics.setFacing(c.body, d);
    return this.physics.state(c.body).facing;
  }

  /** Before physics: the navmesh follows static geometry, the crowd steers, the controllers move. */
  step(dt: number): void {
    this.prune();
    if (this.nav.counts()) this.nav.refresh();
    const { Position, Rotation } = this.entities.world;
    this.nav.step(dt, Position, Rotation);
    if (this.byEntity.size > 0) this.physics.step(dt, Position, Rotation);
  }

  /** After physics: meshes follow the bodies, animation follows the motion, arrivals are logged. */
  afterStep(dt: number): void {
    if (this.byEntity.size === 0) {
      this.nav.drainEvents();
      this.animationClock++;
      return;
    }
    const list = [...this.byEntity.values()];
    if (this.motion.handles.length !== list.length) this.motion = { handles: new Uint32Array(list.length), out: new Float32Array(list.length * MOTION_FLOATS) };
    const { handles, out } = this.motion;
    list.forEach((c, i) => (handles[i] = c.body));
    this.physics.motion(handles, out);
    const motion = { speed: 0, grounded: true, vertical: 0 };
    list.forEach((c, i) => {
      this.entities.sync(c.entity);
      const o = i * MOTION_FLOATS;
      c.speed = Math.hypot(out[o], out[o + 2]);
      c.grounded = out[o + 3] === 1;
      motion.speed = c.speed;
      motion.grounded = c.grounded;
      motion.vertical = out[o + 1];
      c.animator.update(dt, motion);
    });
    this.animationClock++;
    const events = this.nav.drainEvents();
    if (events.length === 0) return;
    const byAgent = new Map(list.map((c) => [c.agent, c]));
    for (const e of events) {
      const c = byAgent.get(e.agent);
      if (!c?.walk) continue;
      const w = c.walk;
      c.walk = null;
      const opts = { actorId: w.actorId, threadId: w.threadId, causedBy: [w.cause] };
      if (e.type === "arrived") {
        this.tracer.emit("nav.arrived", { entityId: c.entity.id, target: w.target, position: e.position, distance: Math.hypot(e.position[0] - w.target[0], e.position[2] - w.target[2]) }, opts);
      } else {
        this.tracer.emit("nav.failed", { entityId: c.entity.id, target: w.target, position: e.position, reason: e.reason }, opts);
      }
    }
  }

  /** Crowd states of the given characters (position, velocity, speed, mode, facing per AGENT_STATE_FLOATS). */
  agentStates(list: Character[]): Float32Array {
    if (this.ids.agents.length !== list.length) {
      this.ids.agents = new Uint32Array(list.length);
      this.ids.states = new Float32Array(list.length * AGENT_STATE_FLOATS);
    }
    list.forEach((c, i) => (this.ids.agents[i] = c.agent));
    this.nav.agentStates(this.ids.agents, this.ids.states);
    return this.ids.states;
  }
}

/** The bytes of base64 `text`; anything else is `invalid_input` naming `what`. */
function unbase64(text: string, what: string): Uint8Array {
  try {
    return fromBase64(text);
  } catch (e) {
    throw engineError("invalid_input", `saved ${what} are not base64: ${e instanceof Error ? e.message : e}`);
  }
}

function fmt(p: Vec3): string {
  return `[${p.map((c) => Math.round(c * 100) / 100).join(", ")}]`;
}
