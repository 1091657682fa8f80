// The world digest: sha256 over what makes two worlds the same world — the
// EntityTable's identity (ids, eids, generations, tags, counter, version),
// every live entity's SoA transform bytes (in creation order), the physics
// state (each body's handle, binding, pose, motion, sleep flag and colliders,
// the joints, gravity and the kill plane) and the rest of the world skills
// change: each entity's scene object (meshes, materials, shadows) and how the
// engine made it (shape, style, body description), the lighting, the world
// resources (prefabs, game state) and the render settings (environment, post
// stack; not the quality tier, which the engine may pick for its adapter:
// snapshots keep it, replay re-applies it).
// Replay compares it at checkpoints; a restored world must give the digest
// that was saved; a denied call must leave it as it was. Not hashed:
// presentation (the view camera and UI containers, which module code also
// steers — an orbit control, a HUD — unrecorded by the world log) and the
// agents' own state (their walks, queues and decisions).

import type * as THREE from "three";
import { ColorManagement } from "three";
import type { PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import { sha256 } from "../../../crates/limina-trace/js/world-file.ts";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { World } from "../ecs/world.ts";
import type { WorldSession } from "../world-session.ts";
import { materialsOf } from "../scene/meshes.ts";
import { saveLighting } from "../scene/scene-graph.ts";
import { MATERIAL_FIELDS, MESH_FIELDS, type MeshField, saveMeshes } from "./snapshot.ts";

const utf8 = new TextEncoder();

/** `"sha256:…"` of the world's identity, transforms and physics state, then `state` (any JSON) when given. */
export function worldDigest(world: World, physics: PhysicsWorld, state?: unknown): string {
  const table = world.entities;
  const entries: unknown[] = new Array(table.size);
  let n = 0;
  for (const e of table.entries()) entries[n++] = [e.id, e.eid, e.generation, [...e.tags]];
  const identity = JSON.stringify({ nextId: table.nextIdNumber, version: table.version, entries });
  return digestOf(world, physics, identity, state === undefined ? undefined : JSON.stringify(state));
}

/** The bytes a digest hashes, kept between a session's digests (written over each time). */
class DigestBuffer {
  bytes = new Uint8Array(0);
  transforms = new Float32Array(0);

  /** `bytes` at least `n` long; `transforms` at least `floats`. */
  reserve(n: number, floats: number): void {
    if (this.bytes.length < n) this.bytes = new Uint8Array(n + (n >> 2));
    if (this.transforms.length < floats) this.transforms = new Float32Array(floats + (floats >> 2));
  }
}

function digestOf(world: World, physics: PhysicsWorld, identityJson: string, stateJson: string | undefined, buffer = new DigestBuffer()): string {
  const table = world.entities;
  const identity = utf8.encode(identityJson);
  const body = physics.digestBytes();
  const rest = stateJson === undefined ? undefined : utf8.encode(stateJson);
  const floats = table.size * 10;
  buffer.reserve(4 + identity.length + 4 * floats + body.length + (rest?.length ?? 0), floats);
  const { bytes, transforms } = buffer;
  const { Position: p, Rotation: r, Scale: s } = world;
  let i = 0;
  for (const e of table.entries()) {
    const k = e.eid;
    transforms[i] = p.x[k];
    transforms[i + 1] = p.y[k];
    transforms[i + 2] = p.z[k];
    transforms[i + 3] = r.x[k];
    transforms[i + 4] = r.y[k];
    transforms[i + 5] = r.z[k];
    transforms[i + 6] = r.w[k];
    transforms[i + 7] = s.x[k];
    transforms[i + 8] = s.y[k];
    transforms[i + 9] = s.z[k];
    i += 10;
  }
  new DataView(bytes.buffer).setUint32(0, identity.length, true);
  bytes.set(identity, 4);
  let at = 4 + identity.length;
  bytes.set(new Uint8Array(transforms.buffer, 0, 4 * floats), at);
  at += 4 * floats;
  bytes.set(body, at);
  at += body.length;
  if (rest) {
    bytes.set(rest, at);
    at += rest.length;
  }
  return sha256(bytes.subarray(0, at));
}

/** Marks an array and an object in a `Tape`. */
const ARRAY = {};
const OBJECT = {};

/**
 * A JSON value laid out flat, in the order JSON.stringify writes it: a leaf as itself, an array as
 * ARRAY, its length and its items, an object as OBJECT, its key count and each key and value.
 */
type Tape = unknown[];

function record(parsed: unknown, tape: Tape): void {
  if (typeof parsed !== "object" || parsed === null) tape.push(parsed);
  else if (Array.isArray(parsed)) {
    tape.push(ARRAY, parsed.length);
    for (const v of parsed) record(v, tape);
  } else {
    const keys = Object.keys(parsed);
    tape.push(OBJECT, keys.length);
    for (const k of keys) {
      tape.push(k);
      record((parsed as Record<string, unknown>)[k], tape);
    }
  }
}

/**
 * Whether JSON.stringify(value) writes what `tape` (from position `at`) records; returns the
 * position after it, or -1 where it differs or where unsure (a `toJSON`, a class instance, a
 * bigint: the caller then serialises again).
 */
function matches(value: unknown, tape: Tape, at: number): number {
  switch (typeof value) {
    case "string":
    case "boolean":
      return tape[at] === value ? at + 1 : -1;
    case "number":
      return tape[at] === (Number.isFinite(value) ? value : null) ? at + 1 : -1;
    case "object":
      break;
    default:
      return -1;
  }
  if (value === null) return tape[at] === null ? at + 1 : -1;
  if (Array.isArray(value)) {
    if (tape[at] !== ARRAY || tape[at + 1] !== value.length) return -1;
    at += 2;
    for (let i = 0; i < value.length && at >= 0; i++) {
      const v: unknown = value[i];
      at = skipped(v) ? (tape[at] === null ? at + 1 : -1) : matches(v, tape, at);
    }
    return at;
  }
  const proto = Object.getPrototypeOf(value);
  if (tape[at] !== OBJECT || (proto !== Object.prototype && proto !== null) || "toJSON" in value) return -1;
  const count = tape[at + 1];
  at += 2;
  let n = 0;
  const object = value as Record<string, unknown>;
  for (const k in object) {
    if (!Object.hasOwn(object, k)) continue;
    const v = object[k];
    if (skipped(v)) continue;
    if (tape[at] !== k) return -1;
    at = matches(v, tape, at + 1);
    if (at < 0) return -1;
    n++;
  }
  return n === count ? at : -1;
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function skipped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

interface Kept {
  id: string;
  eid: number;
  generation: number;
  tags: string[];
  identity: string;
  /** The scene object's part; null without one. */
  object: string | null;
  /** What that part was made from: its plain JSON values, recorded as a `Tape`… */
  made: Tape;
  /** …and its meshes' values, in `MeshProbe`'s order. */
  meshes: unknown[];
}

/** Marks, in `Kept.meshes`, a mesh. */
const MESH = {};

/**
 * Walks a scene object's meshes and materials in `saveMeshes`'s order, either recording the raw values
 * of every field that part of the JSON is written from (`MESH_FIELDS`, `MATERIAL_FIELDS`) or comparing
 * them with a recording, so an unchanged scene object is recognised without building its JSON (colour
 * as raw components, from which `getHex` follows). A value that is not a primitive records as NaN,
 * which nothing equals: that entity's part is then rebuilt each time.
 */
class MeshProbe {
  private values: unknown[] = [];
  private at = 0;
  private recording = false;
  private same = true;
  private readonly leaf = (v: unknown): void => {
    this.mark(v === null || (typeof v !== "object" && typeof v !== "function") ? v : NaN);
  };
  private readonly visit = (o: THREE.Object3D) => {
    if (!(o as THREE.Mesh).isMesh || !this.same) return;
    const mesh = o as THREE.Mesh;
    this.mark(MESH);
    for (const f of MESH_FIELDS) this.field(f, mesh);
    const materials = materialsOf(mesh);
    this.leaf(materials.length);
    for (const m of materials) for (const f of MATERIAL_FIELDS) this.field(f, m);
  };

  /** Records `object`'s mesh values into `into` (emptied first). */
  record(object: THREE.Object3D, into: unknown[]): void {
    into.length = 0;
    this.walk(object, into, true);
  }

  /** Whether `object`'s mesh values are those `recorded`. */
  matches(object: THREE.Object3D, recorded: unknown[]): boolean {
    return this.walk(object, recorded, false) && this.at === recorded.length;
  }

  private walk(object: THREE.Object3D, values: unknown[], recording: boolean): boolean {
    this.values = values;
    this.at = 0;
    this.recording = recording;
    this.same = true;
    object.traverse(this.visit);
    this.values = [];
    return this.same;
  }

  private field<T>(f: MeshField<T>, of: T): void {
    if (f.raw) f.raw(of, this.leaf);
    else this.leaf(f.save(of));
  }

  private mark(v: unknown): void {
    if (this.recording) this.values.push(v);
    else if (this.values[this.at++] !== v) this.same = false;
  }
}

/**
 * A session's digest, the same value as `worldDigest(world, physics, worldState(session, exclude))`,
 * with each entity's parts of the JSON (its identity; its scene object and making) kept from the
 * last digest while what they are made from is unchanged. Nothing invalidates them: each part is
 * checked against a record of what it was made from, so every path that changes an entity (skills,
 * module code, restores) is covered; what is saved is formatting numbers and building strings (and
 * for a scene object, building the values it is written from) for unchanged parts.
 */
export class WorldDigestCache {
  private kept = new WeakMap<EntityEntry, Kept>();
  private buffer = new DigestBuffer();
  private probe = new MeshProbe();
  /** The colour management `getHex` converts with when the kept parts were made. */
  private colors = colorManagement();

  digest(session: WorldSession, exclude: readonly string[] = []): string {
    const colors = colorManagement();
    if (colors !== this.colors) {
      this.kept = new WeakMap();
      this.colors = colors;
    }
    const table = session.world.entities;
    const entries: string[] = new Array(table.size);
    const objects: string[] = [];
    let n = 0;
    for (const e of table.entries()) {
      let kept = this.kept.get(e);
      if (!kept || !sameIdentity(e, kept)) {
        const tags = [...e.tags];
        kept = { id: e.id, eid: e.eid, generation: e.generation, tags, identity: JSON.stringify([e.id, e.eid, e.generation, tags]), object: null, made: [], meshes: [] };
        this.kept.set(e, kept);
      }
      entries[n++] = kept.identity;
      const object = e.mesh as THREE.Object3D | undefined;
      if (!object) continue;
      const made = makingOf(e, object);
      if (kept.object === null || matches(made, kept.made, 0) !== kept.made.length || !this.probe.matches(object, kept.meshes)) {
        kept.object = JSON.stringify(objectState(e));
        kept.made = [];
        record(JSON.parse(JSON.stringify(made)), kept.made);
        this.probe.record(object, kept.meshes);
      }
      objects.push(kept.object);
    }
    const identity = `{"nextId":${JSON.stringify(table.nextIdNumber)},"version":${JSON.stringify(table.version)},"entries":[${entries.join(",")}]}`;
    const tail = JSON.stringify(stateBesideObjects(session, exclude));
    const state = `{"objects":[${objects.join(",")}]${tail === "{}" ? "}" : `,${tail.slice(1)}`}`;
    return digestOf(session.world, session.physics, identity, state, this.buffer);
  }
}

/** What `getHex` depends on beyond a colour's components. */
function colorManagement(): string {
  return `${ColorManagement.enabled} ${ColorManagement.workingColorSpace}`;
}

function sameIdentity(e: EntityEntry, kept: Kept): boolean {
  if (kept.id !== e.id || kept.eid !== e.eid || kept.generation !== e.generation || kept.tags.length !== e.tags.size) return false;
  let i = 0;
  for (const t of e.tags) if (t !== kept.tags[i++]) return false;
  return true;
}

/** The world state a session holds beyond the ECS and physics (the `state` its digest hashes), less the resources in `exclude`. */
export function worldState(session: WorldSession, exclude: readonly string[] = []): unknown {
  const objects: unknown[] = [];
  for (const e of session.world.entities.entries()) {
    const item = objectState(e);
    if (item) objects.push(item);
  }
  return { objects, ...stateBesideObjects(session, exclude) };
}

function stateBesideObjects(session: WorldSession, exclude: readonly string[]) {
  return { lighting: saveLighting(session.lighting), resources: session.resources.digestState(exclude), look: { ...session.look.settings(), quality: undefined } };
}

/** An entity's scene object and how the engine made it, as the digest hashes it; null without one. */
function objectState(e: EntityEntry): unknown[] | null {
  const object = e.mesh as THREE.Object3D | undefined;
  if (!object) return null;
  const [visible, geometry, shape, style, bodySpec] = makingOf(e, object);
  return [e.id, visible, geometry, saveMeshes(object), shape, style, bodySpec];
}

/** The parts of `objectState` besides its id and meshes. */
function makingOf(e: EntityEntry, object: THREE.Object3D): unknown[] {
  const geometry = (object as THREE.Mesh).geometry as (THREE.BufferGeometry & { parameters?: unknown }) | undefined;
  return [object.visible, geometry ? [geometry.type, geometry.parameters ?? null] : null, e.shape ?? null, e.style ?? null, e.bodySpec ?? null];
}
