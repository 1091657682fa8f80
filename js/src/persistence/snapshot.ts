// World snapshots: everything a world session needs to go on exactly where
// it was — the ECS (SoA transforms, tags, EntityTable identity with
// bitECS's eids), the physics world (Rapier's own serialization: bodies,
// colliders, joints, the kill plane), the scene graph state skills control
// (each entity's shape or glTF model, its style, materials and shadows, its
// body's description, the lighting, the view camera), the render settings
// (environment, post stack, quality tier), the world resources (prefabs,
// game state), the agent records and the tick — encoded as bytes a world
// file holds.

import * as THREE from "three";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { AgentSummary } from "../agents/directory.ts";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { Vec3, WorldSnapshot } from "../ecs/world.ts";
import type { CameraPose } from "../render/view-camera.ts";
import type { LookSettings } from "../render/look.ts";
import { createMaterial, isMaterialName, libraryMaterialOf } from "../render/materials.ts";
import type { EntityStyle } from "../scene/entities.ts";
import { materialsOf, meshesOf } from "../scene/meshes.ts";
import { applyLighting, saveLighting, type SavedLighting } from "../scene/scene-graph.ts";
import { characterBody, type CharacterResource } from "../characters/characters.ts";
import { type EntityShape, normalizeShape, primitiveMesh, ShapeError, type ShapeInput } from "../scene/shapes.ts";
import type { GltfResource } from "../skills/three.ts";
import { loadGltf } from "../skills/three.ts";
import type { WorldSession } from "../world-session.ts";

/** The snapshot layout this engine writes and reads. */
export const SNAPSHOT_VERSION = 2;

interface SavedMaterial {
  color: number | null;
  roughness: number | null;
  metalness: number | null;
  /** Set when the material is one of the look's library materials (material.apply). */
  look?: { material: string; tint: number; uvScale: number; space: "object" | "world" };
}

interface SavedMesh {
  castShadow: boolean;
  receiveShadow: boolean;
  materials: SavedMaterial[];
}

/** How the engine made an entity: its shape, style and body description (see scene/entities.ts). */
interface SavedMaking {
  shape?: EntityShape;
  style?: EntityStyle;
  bodySpec?: unknown;
  visible: boolean;
}

/** The scene object of one entity: a primitive made by scene.createEntity, a glTF model, or a character's body (and its crowd agent). */
export type SavedObject =
  | ({ kind: "primitive"; shape: Exclude<EntityShape, { shape: "mesh" }>; meshes: SavedMesh[] } & SavedMaking)
  | ({ kind: "gltf"; resource: GltfResource; meshes: SavedMesh[] } & SavedMaking)
  | { kind: "character"; resource: CharacterResource; agent: number; meshes: SavedMesh[]; style?: EntityStyle; visible: boolean };

/** What a snapshot's objects need loaded: glTF models and primitives, characters' bodies. */
type Loaded = THREE.Object3D | Awaited<ReturnType<typeof characterBody>>;

/** What a snapshot holds besides the physics bytes. */
export interface SessionSnapshot {
  version: number;
  tick: number;
  /** The digest of the world this snapshot holds. */
  digest: string;
  /** How many events the world log held when the snapshot was taken (where a replay from it resumes). */
  logSeq: number;
  world: WorldSnapshot;
  /** `[entity id, physics body handle]` for every entity with a body. */
  bodies: [string, number][];
  objects: Record<string, SavedObject>;
  lighting: SavedLighting;
  view: CameraPose;
  agents: AgentSummary[];
  /** The world resources (game state) by name; absent in snapshots made before they existed. */
  resources?: Record<string, unknown>;
  /** The render settings (environment, post stack, quality); absent in snapshots from before the look. */
  look?: LookSettings;
}

/**
 * A field of a saved mesh or material: its saved value (undefined: left out) and, where that value is
 * derived, the raw values it is written from (else its saved value is its raw value). `saveMeshes`
 * writes these fields and the digest's `MeshProbe` compares their raw values, both from these lists,
 * so a field cannot be saved yet go unchecked by the digest.
 */
export interface MeshField<T> {
  key: string;
  save(of: T): unknown;
  raw?(of: T, leaf: (v: unknown) => void): void;
}

/** Marks, in a field's raw values, what is absent (no value equals it). */
const ABSENT = Symbol("absent");

/** A saved mesh's fields besides its `materials`, in the order they are written. */
export const MESH_FIELDS: MeshField<THREE.Mesh>[] = [
  { key: "castShadow", save: (mesh) => mesh.castShadow },
  { key: "receiveShadow", save: (mesh) => mesh.receiveShadow },
];

const LOOK_KEYS = ["material", "tint", "uvScale", "space"] as const;

/** A saved material's fields, in the order they are written. */
export const MATERIAL_FIELDS: MeshField<THREE.MeshStandardMaterial>[] = [
  {
    key: "color",
    save: (m) => (m.color ? m.color.getHex() : null),
    // The components `getHex` follows from (with the colour management, which the digest watches).
    raw: (m, leaf) => {
      const c = m.color;
      if (!c) leaf(null);
      else if (c.isColor !== true) leaf(Number.NaN);
      else {
        leaf(c.r);
        leaf(c.g);
        leaf(c.b);
      }
    },
  },
  { key: "roughness", save: (m) => ("roughness" in m ? m.roughness : null) },
  { key: "metalness", save: (m) => ("metalness" in m ? m.metalness : null) },
  {
    // Set when the material is one of the look's library materials (material.apply).
    key: "look",
    save: (m) => {
      const look = libraryMaterialOf(m);
      if (!look) return undefined;
      const saved: Record<string, unknown> = {};
      for (const k of LOOK_KEYS) saved[k] = look[k];
      return saved;
    },
    raw: (m, leaf) => {
      const look = libraryMaterialOf(m);
      if (!look) leaf(ABSENT);
      else for (const k of LOOK_KEYS) leaf(look[k]);
    },
  },
];

function saveFields<T>(of: T, fields: MeshField<T>[]): Record<string, unknown> {
  const saved: Record<string, unknown> = {};
  for (const f of fields) {
    const v = f.save(of);
    if (v !== undefined) saved[f.key] = v;
  }
  return saved;
}

/** Each mesh of `object`: its shadow flags and materials (what snapshots save and digests hash). */
export function saveMeshes(object: THREE.Object3D): SavedMesh[] {
  return meshesOf(object).map((mesh) => {
    const saved = saveFields(mesh, MESH_FIELDS);
    saved.materials = materialsOf(mesh).map((m) => saveFields(m, MATERIAL_FIELDS));
    return saved as unknown as SavedMesh;
  });
}

function applyMeshes(object: THREE.Object3D, saved: SavedMesh[], id: string): void {
  const meshes = meshesOf(object);
  if (meshes.length !== saved.length) throw engineError("invalid_input", `snapshot of ${id} has ${saved.length} meshes, its model has ${meshes.length}`);
  meshes.forEach((mesh, i) => {
    mesh.castShadow = saved[i].castShadow;
    mesh.receiveShadow = saved[i].receiveShadow;
    const dressed = saved[i].materials[0]?.look;
    if (dressed) {
      if (!isMaterialName(dressed.material)) throw engineError("invalid_input", `snapshot of ${id} names an unknown library material ${JSON.stringify(dressed.material)}`);
      mesh.material = createMaterial(dressed.material, dressed);
      return;
    }
    materialsOf(mesh).forEach((m, j) => {
      const s = saved[i].materials[j];
      if (!s) return;
      if (s.color !== null && m.color) m.color.setHex(s.color);
      if (s.roughness !== null && "roughness" in m) m.roughness = s.roughness;
      if (s.metalness !== null && "metalness" in m) m.metalness = s.metalness;
      m.needsUpdate = true;
    });
  });
}

function saveObject(entry: EntityEntry, session: WorldSession): SavedObject | null {
  const object = entry.mesh as THREE.Object3D | undefined;
  if (!object) return null;
  const character = session.characters.get(entry.id);
  if (character) {
    const style = entry.style ? { style: entry.style as EntityStyle } : {};
    return { kind: "character", resource: character.resource, agent: character.agent, meshes: saveMeshes(object), ...style, visible: object.visible };
  }
  const making: SavedMaking = {
    ...(entry.shape ? { shape: entry.shape as EntityShape } : {}),
    ...(entry.style ? { style: entry.style as EntityStyle } : {}),
    ...(entry.bodySpec ? { bodySpec: entry.bodySpec } : {}),
    visible: object.visible,
  };
  const resource = entry.resource as GltfResource | undefined;
  if (resource?.kind === "gltf") return { kind: "gltf", resource, meshes: saveMeshes(object), ...making };
  const shape = entry.shape as EntityShape | undefined;
  if (shape && shape.shape !== "mesh") return { kind: "primitive", ...making, shape, meshes: saveMeshes(object) };
  throw engineError("unavailable", `entity ${entry.id} holds a scene object snapshots cannot save (neither a shape the engine made nor a glTF model)`);
}

/** A saved primitive's shape, checked as a new one would be. */
function checkedShape(id: string, shape: unknown): Exclude<EntityShape, { shape: "mesh" }> {
  try {
    const s = normalizeShape(shape as ShapeInput);
    if (s.shape !== "mesh") return s;
  } catch (e) {
    if (!(e instanceof ShapeError)) throw e;
    throw engineError("invalid_input", `snapshot object of ${id}: ${e.message}`);
  }
  throw engineError("invalid_input", `snapshot object of ${id} is a primitive without a primitive shape`);
}

export interface SnapshotOptions {
  /** World resources to leave out (a checkpoint leaves out the checkpoints); the digest leaves them out too. */
  exclude?: readonly string[];
  /** Leave UI containers out instead of refusing (in-world checkpoints: presentation is not world state). */
  withoutUi?: boolean;
}

/** A session's snapshot and its physics world's bytes; `unavailable` for a world holding state snapshots cannot save. */
export function snapshotSession(session: WorldSession, options: SnapshotOptions = {}): { snapshot: SessionSnapshot; physics: Uint8Array } {
  const exclude = options.exclude ?? [];
  const ui = session.ui.handles().length;
  if (ui > 0 && !options.withoutUi) throw engineError("unavailable", `snapshots do not hold UI containers yet, and this world has ${ui} (ui.remove them before saving)`);
  const objects: Record<string, SavedObject> = {};
  const bodies: [string, number][] = [];
  for (const entry of session.world.entities.entries()) {
    const saved = saveObject(entry, session);
    if (saved) objects[entry.id] = saved;
    if (entry.body !== undefined) bodies.push([entry.id, entry.body]);
  }
  const snapshot: SessionSnapshot = {
    version: SNAPSHOT_VERSION,
    tick: session.tick,
    digest: session.digest(exclude),
    logSeq: session.tracer.size,
    world: session.world.snapshot(),
    bodies,
    objects,
    lighting: saveLighting(session.lighting),
    view: session.view.get(),
    agents: session.agents.list(),
    resources: session.resources.save(exclude),
    look: session.look.settings(),
  };
  return { snapshot, physics: session.physics.snapshot() };
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** The bytes of a snapshot: a little-endian u32 length, the snapshot's JSON, then the physics bytes. */
export function encodeSnapshot({ snapshot, physics }: { snapshot: SessionSnapshot; physics: Uint8Array }): Uint8Array {
  const json = utf8.encode(JSON.stringify(snapshot));
  const out = new Uint8Array(4 + json.length + physics.length);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  out.set(physics, 4 + json.length);
  return out;
}

/** The snapshot and physics bytes `encodeSnapshot` wrote; anything else is `invalid_input`. */
export function decodeSnapshot(bytes: Uint8Array): { snapshot: SessionSnapshot; physics: Uint8Array } {
  if (bytes.length < 4) throw engineError("invalid_input", "a world snapshot is at least 4 bytes");
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (4 + n > bytes.length) throw engineError("invalid_input", `world snapshot says its JSON is ${n} bytes, only ${bytes.length - 4} follow`);
  let snapshot: SessionSnapshot;
  try {
    snapshot = JSON.parse(utf8Decoder.decode(bytes.subarray(4, 4 + n)));
  } catch (e) {
    throw engineError("invalid_input", `world snapshot JSON is malformed: ${e instanceof Error ? e.message : e}`);
  }
  if (snapshot?.version !== SNAPSHOT_VERSION) {
    throw engineError("invalid_input", `world snapshot version ${JSON.stringify(snapshot?.version)} is not supported (this engine reads version ${SNAPSHOT_VERSION})`);
  }
  for (const key of ["world", "bodies", "objects", "lighting", "view", "agents"] as const) {
    if (snapshot[key] === undefined || snapshot[key] === null) throw engineError("invalid_input", `world snapshot lacks ${key}`);
  }
  if (!Number.isInteger(snapshot.tick) || snapshot.tick < 0) throw engineError("invalid_input", `world snapshot tick must be a whole number ≥ 0, got ${snapshot.tick}`);
  return { snapshot, physics: bytes.slice(4 + n) };
}

/**
 * Restores a snapshot into `session`, which must be new (no entity ever, no body): ECS,
 * physics, scene objects (glTF models are loaded again from their asset ids), lighting,
 * view camera and tick; the session is then marked `restored`. Its digest is checked
 * against the saved one: a mismatch is an `internal` error.
 */
export async function restoreSession(session: WorldSession, snap: { snapshot: SessionSnapshot; physics: Uint8Array }): Promise<void> {
  if (session.physics.bodyCount() > 0) throw engineError("invalid_input", "a snapshot restores only into a new world session");
  const { snapshot } = snap;
  // Models first: a missing asset refuses the snapshot before the world changes.
  const models = await loadModels(snapshot);
  // The look next (an HDRI it names must load): still before the world changes. The saved
  // lights go first: the sky's light is baked from the sun light as weather dimmed it.
  applyLighting(session.lighting, snapshot.lighting);
  if (snapshot.look) await session.look.restore(snapshot.look);
  // World resources then: all or nothing, so a malformed one also refuses before the world changes.
  session.resources.load(snapshot.resources);
  build(session, snap, models);
  session.view.set(snapshot.view);
  session.resume(snapshot.tick, snapshot.agents);
  const digest = session.digest();
  if (digest !== snapshot.digest) throw engineError("internal", `the restored world's digest ${digest} differs from the saved ${snapshot.digest}`);
  // Where this world's log picks up: a replay of it starts from the same snapshot, after this event.
  session.tracer.emit("world.restored", { tick: snapshot.tick, digest });
}

/**
 * The scene objects a snapshot's entities need: glTF models loaded again from their asset ids,
 * primitives made from their shapes, characters' bodies. A missing model or a bad shape refuses the snapshot.
 */
async function loadModels(snapshot: SessionSnapshot): Promise<Map<string, Loaded>> {
  const models = new Map<string, Loaded>();
  for (const [id, saved] of Object.entries(snapshot.objects)) {
    if (saved.kind === "gltf") models.set(id, (await loadGltf(saved.resource.assetId)).object);
    else if (saved.kind === "primitive") models.set(id, primitiveMesh(checkedShape(id, saved.shape), 0xffffff));
    else if (saved.kind === "character") models.set(id, await characterBody(saved.resource));
    else throw engineError("invalid_input", `snapshot object of ${id} has unknown kind ${JSON.stringify((saved as { kind: unknown }).kind)}`);
  }
  return models;
}

/** Fills an empty world from a snapshot (its world resources already loaded): ECS, physics, scene objects, lighting. */
function build(session: WorldSession, { snapshot, physics }: { snapshot: SessionSnapshot; physics: Uint8Array }, models: Map<string, Loaded>): void {
  session.world.load(snapshot.world);
  session.physics.restore(physics);
  session.terrain.attach();
  session.characters.attach();
  const bodies = new Map(snapshot.bodies);
  for (const entry of session.world.entities.entries()) {
    const body = bodies.get(entry.id);
    if (body !== undefined) entry.body = body;
    const saved = snapshot.objects[entry.id];
    if (!saved) continue;
    if (saved.kind === "character") {
      const loaded = models.get(entry.id) as Awaited<ReturnType<typeof characterBody>>;
      session.characters.adopt(loaded, saved.resource, session.world.position(entry.eid), [], entry, saved.agent);
      applyMeshes(loaded.rig, saved.meshes, entry.id);
      loaded.rig.visible = saved.visible;
      if (saved.style) entry.style = saved.style;
      session.entities.sync(entry);
      continue;
    }
    const object = models.get(entry.id) as THREE.Object3D;
    if (saved.kind === "gltf") entry.resource = saved.resource;
    if (saved.shape) entry.shape = saved.shape;
    if (saved.style) entry.style = saved.style;
    if (saved.bodySpec) entry.bodySpec = saved.bodySpec;
    applyMeshes(object, saved.meshes, entry.id);
    object.visible = saved.visible;
    object.name = entry.id;
    session.scene.add(object);
    entry.mesh = object;
    session.entities.sync(entry);
    session.entities.touch(entry);
  }
  applyLighting(session.lighting, snapshot.lighting);
}

/** Empties a live world: every entity (scene object, body) destroyed and the ECS as if new. */
function clear(session: WorldSession): void {
  for (const entry of [...session.world.entities.entries()]) session.entities.destroy(entry.id);
  session.world.clear();
}

/**
 * Replaces a live session's world with a snapshot's — ECS, physics, scene objects, lighting,
 * render settings and world resources, but those named in `keep` (a checkpoint load keeps the checkpoints) —
 * in place: the tick, the view, the agents and the world log go on. All or nothing: on any
 * refusal the world is put back as it was. The snapshot's digest (taken without `keep`) is
 * checked; resolves to it.
 */
export async function replaceWorld(session: WorldSession, snap: { snapshot: SessionSnapshot; physics: Uint8Array }, keep: readonly string[] = []): Promise<string> {
  const models = await loadModels(snap.snapshot);
  const backup = snapshotSession(session, { exclude: keep, withoutUi: true });
  const backupModels = await loadModels(backup.snapshot);
  // The look, then the world (the world resources are loaded before: all or nothing).
  const put = async (from: { snapshot: SessionSnapshot; physics: Uint8Array }, fromModels: Map<string, Loaded>) => {
    applyLighting(session.lighting, from.snapshot.lighting);
    if (from.snapshot.look) await session.look.restore(from.snapshot.look);
    clear(session);
    build(session, from, fromModels);
  };
  const putBack = async () => {
    session.resources.load(backup.snapshot.resources, keep);
    await put(backup, backupModels);
  };
  // The world resources first: a snapshot holding state this build does not know, or malformed
  // state, is refused before anything changes.
  session.resources.load(snap.snapshot.resources, keep);
  try {
    await put(snap, models);
  } catch (e) {
    await putBack();
    throw e;
  }
  const digest = session.digest(keep);
  if (digest !== snap.snapshot.digest) {
    await putBack();
    throw engineError("invalid_input", `the loaded world's digest ${digest} differs from the one saved with it (${snap.snapshot.digest}): refused, the world is as it was`);
  }
  return digest;
}
