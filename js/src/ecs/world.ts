// The world's state: a bitECS world whose transforms are SoA Float32Arrays
// sized MAX_ENTITIES, plus the EntityTable that names its entities.

import { $internal, addComponent, addEntity, createWorld, removeEntity, resetWorld } from "bitecs";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { Quat, QuatColumns, Vec3, Vec3Columns } from "../../../crates/limina-ops/js/soa.ts";
import { type EntityEntry, type EntityId, EntityTable, type EntityTableSnapshot } from "./entity-table.ts";

export type { Quat, QuatColumns, Vec3, Vec3Columns };

export const MAX_ENTITIES = 16384;

function vec3Columns(): Vec3Columns {
  return { x: new Float32Array(MAX_ENTITIES), y: new Float32Array(MAX_ENTITIES), z: new Float32Array(MAX_ENTITIES) };
}

export interface SpawnOptions {
  position?: Vec3;
  rotation?: Quat;
  scale?: Vec3;
  tags?: Iterable<string>;
}

export interface WorldSnapshot {
  identity: EntityTableSnapshot;
  /** Per live entity, in creation order: position, rotation, scale. */
  transforms: { position: Vec3; rotation: Quat; scale: Vec3 }[];
  /**
   * bitECS's entity index: every eid handed out (live ones first) and how many are live. Restored,
   * entities keep their eids (physics bodies and SoA slots stay bound) and later spawns recycle
   * eids in the same order as the saved world would have.
   */
  eids?: { dense: number[]; aliveCount: number; maxId: number };
}

interface EntityIndex {
  dense: number[];
  sparse: number[];
  aliveCount: number;
  maxId: number;
}

function checkVec(name: string, v: unknown, n: 3 | 4): void {
  if (!Array.isArray(v) || v.length !== n || !v.every((c) => typeof c === "number" && Number.isFinite(c))) {
    throw engineError("invalid_input", `${name} must be ${n} finite numbers, got ${JSON.stringify(v)}`);
  }
}

export class World {
  readonly ecs = createWorld();
  readonly Position: Vec3Columns = vec3Columns();
  readonly Rotation: QuatColumns = { ...vec3Columns(), w: new Float32Array(MAX_ENTITIES) };
  readonly Scale: Vec3Columns = vec3Columns();
  readonly entities = new EntityTable();

  /** Entities the world can hold at once (bitECS never hands out eid 0). */
  static readonly capacity = MAX_ENTITIES - 1;

  /**
   * Creates an entity with a transform and tags. Past capacity it throws
   * `capacity_exceeded` and leaves the world exactly as it was.
   */
  spawn(options: SpawnOptions = {}): EntityEntry {
    const { position = [0, 0, 0], rotation = [0, 0, 0, 1], scale = [1, 1, 1] } = options;
    checkVec("position", position, 3);
    checkVec("rotation", rotation, 4);
    checkVec("scale", scale, 3);
    if (this.entities.size >= World.capacity) {
      throw engineError("capacity_exceeded", `entity capacity exceeded (MAX_ENTITIES = ${MAX_ENTITIES})`);
    }
    const eid = addEntity(this.ecs);
    if (eid >= MAX_ENTITIES) {
      removeEntity(this.ecs, eid);
      throw engineError("capacity_exceeded", `entity capacity exceeded (MAX_ENTITIES = ${MAX_ENTITIES})`);
    }
    addComponent(this.ecs, eid, this.Position);
    addComponent(this.ecs, eid, this.Rotation);
    addComponent(this.ecs, eid, this.Scale);
    this.writeTransform(eid, position, rotation, scale);
    return this.entities.create(eid, options.tags);
  }

  /** Destroys `id` for good; returns whether it was live. */
  destroy(id: EntityId): boolean {
    const entry = this.entities.destroy(id);
    if (!entry) return false;
    removeEntity(this.ecs, entry.eid);
    return true;
  }

  /** The live entry for `id`, or a `not_found` error naming it. */
  require(id: unknown): EntityEntry {
    const entry = this.entities.get(id);
    if (!entry) throw engineError("not_found", `unknown entity ${JSON.stringify(id)}`);
    return entry;
  }

  position(eid: number): Vec3 {
    return [this.Position.x[eid], this.Position.y[eid], this.Position.z[eid]];
  }

  rotation(eid: number): Quat {
    return [this.Rotation.x[eid], this.Rotation.y[eid], this.Rotation.z[eid], this.Rotation.w[eid]];
  }

  scale(eid: number): Vec3 {
    return [this.Scale.x[eid], this.Scale.y[eid], this.Scale.z[eid]];
  }

  writeTransform(eid: number, position?: Vec3, rotation?: Quat, scale?: Vec3): void {
    if (position) [this.Position.x[eid], this.Position.y[eid], this.Position.z[eid]] = position;
    if (rotation) [this.Rotation.x[eid], this.Rotation.y[eid], this.Rotation.z[eid], this.Rotation.w[eid]] = rotation;
    if (scale) [this.Scale.x[eid], this.Scale.y[eid], this.Scale.z[eid]] = scale;
  }

  private live: { revision: number; eids: Uint32Array } | null = null;

  /**
   * Live eids in creation order (the spatial index's insertion order).
   * Cached until the entity table changes; treat it as read-only.
   */
  liveEids(): Uint32Array {
    const revision = this.entities.revision;
    if (this.live?.revision !== revision) {
      const out = new Uint32Array(this.entities.size);
      let i = 0;
      for (const e of this.entities.entries()) out[i++] = e.eid;
      this.live = { revision, eids: out };
    }
    return this.live.eids;
  }

  private get entityIndex(): EntityIndex {
    return (this.ecs as unknown as Record<symbol, { entityIndex: EntityIndex }>)[$internal].entityIndex;
  }

  snapshot(): WorldSnapshot {
    const identity = this.entities.snapshot();
    const transforms = identity.entries.map((e) => ({
      position: this.position(e.eid),
      rotation: this.rotation(e.eid),
      scale: this.scale(e.eid),
    }));
    const { dense, aliveCount, maxId } = this.entityIndex;
    return { identity, transforms, eids: { dense: [...dense], aliveCount, maxId } };
  }

  /** Forgets every entity, id and eid: the world is as if new (what loading a checkpoint in place starts from). */
  clear(): void {
    resetWorld(this.ecs);
    this.entities.clear();
  }

  /** A new world holding the snapshot's entities, ids, counter and version. */
  static restore(snap: WorldSnapshot): World {
    const world = new World();
    world.load(snap);
    return world;
  }

  /**
   * Fills this empty world with a snapshot's entities, transforms, ids, counter and version
   * (with the saved eids when the snapshot has bitECS's index). Validated whole first: a
   * refused snapshot leaves the world empty and untouched.
   */
  load(snap: WorldSnapshot): void {
    if (this.entities.size > 0 || this.entityIndex.maxId > 0) throw engineError("invalid_input", "a snapshot loads only into a world that never held an entity");
    if (!snap?.identity || !Array.isArray(snap.transforms) || snap.transforms.length !== snap.identity.entries?.length) {
      throw engineError("invalid_input", "world snapshot must pair identity entries with transforms");
    }
    const n = snap.identity.entries.length;
    if (n > World.capacity) {
      throw engineError("capacity_exceeded", `snapshot holds ${n} entities, more than ${World.capacity}`);
    }
    for (const t of snap.transforms) {
      checkVec("position", t.position, 3);
      checkVec("rotation", t.rotation, 4);
      checkVec("scale", t.scale, 3);
    }
    const index = snap.eids;
    if (index) {
      const { dense, aliveCount, maxId } = index;
      const ok = Array.isArray(dense) && Number.isInteger(maxId) && maxId < MAX_ENTITIES && dense.length === maxId && aliveCount === n &&
        new Set(dense).size === maxId && dense.every((e) => Number.isInteger(e) && e >= 1 && e <= maxId);
      const live = new Set(ok ? dense.slice(0, aliveCount) : []);
      if (!ok || !snap.identity.entries.every((e) => live.has(e.eid))) {
        throw engineError("invalid_input", "world snapshot eids must list each eid 1..maxId once, the live entities' eids first");
      }
    }
    this.entities.restore(snap.identity, index ? undefined : (() => {
      let next = 1;
      return () => next++;
    })());
    // Allocate eids 1..maxId, drop the dead ones, then put bitECS's recycling order back as saved.
    const maxId = index?.maxId ?? n;
    const live = new Set<number>();
    for (const e of this.entities.entries()) live.add(e.eid);
    for (let eid = 1; eid <= maxId; eid++) addEntity(this.ecs);
    for (let eid = 1; eid <= maxId; eid++) if (!live.has(eid)) removeEntity(this.ecs, eid);
    let i = 0;
    for (const entry of this.entities.entries()) {
      addComponent(this.ecs, entry.eid, this.Position);
      addComponent(this.ecs, entry.eid, this.Rotation);
      addComponent(this.ecs, entry.eid, this.Scale);
      const t = snap.transforms[i++];
      this.writeTransform(entry.eid, t.position, t.rotation, t.scale);
    }
    if (index) {
      const ix = this.entityIndex;
      ix.dense = [...index.dense];
      ix.sparse = [];
      ix.dense.forEach((eid, k) => (ix.sparse[eid] = k));
      ix.aliveCount = index.aliveCount;
      ix.maxId = index.maxId;
    }
  }
}
