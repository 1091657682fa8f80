// EntityTable: opaque `ent_` ids over bitECS eids. Ids are monotonic and
// never reused, so a destroyed id resolves to nothing forever — even after
// bitECS recycles its eid for a new entity.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";

export type EntityId = string;

export interface EntityEntry {
  readonly id: EntityId;
  readonly eid: number;
  /** How many entities have held this eid, this one included. */
  readonly generation: number;
  readonly tags: Set<string>;
  /** Optional bindings the world attaches: a scene object, a physics body, loaded resources. */
  mesh?: unknown;
  body?: number;
  resource?: unknown;
  /** How the engine made it (scene/entities.ts): its shape, its style, its body's description. */
  shape?: unknown;
  style?: unknown;
  bodySpec?: unknown;
}

export interface EntityTableSnapshot {
  /** Live entries in creation order. */
  entries: { id: EntityId; eid: number; generation: number; tags: string[] }[];
  /** The next id number to allocate. */
  nextId: number;
  version: number;
  /** `[eid, generation]` for every eid ever held, so a recycled eid goes on counting its holders. */
  generations?: [number, number][];
}

const ID_PREFIX = "ent_";

export class EntityTable {
  private readonly byId = new Map<EntityId, EntityEntry>();
  private readonly byEid = new Map<number, EntityEntry>();
  private readonly generations = new Map<number, number>();
  private nextId = 1;
  private _version = 0;
  private _revision = 0;

  /** Bumped by every create, destroy and restore. */
  get version(): number {
    return this._version;
  }

  get size(): number {
    return this.byId.size;
  }

  /** The number the next `ent_` id will carry. */
  get nextIdNumber(): number {
    return this.nextId;
  }

  /** Bumped by every change to the table, restores included (unlike `version`, which a restore sets). */
  get revision(): number {
    return this._revision;
  }

  /** Registers a new entity for `eid` under the next `ent_` id. */
  create(eid: number, tags: Iterable<string> = []): EntityEntry {
    if (!Number.isInteger(eid) || eid < 0) throw engineError("invalid_input", `eid must be a whole number ≥ 0, got ${eid}`);
    if (this.byEid.has(eid)) throw engineError("internal", `eid ${eid} is already bound to ${this.byEid.get(eid)!.id}`);
    const generation = (this.generations.get(eid) ?? 0) + 1;
    const entry: EntityEntry = { id: `${ID_PREFIX}${this.nextId++}`, eid, generation, tags: new Set(tags) };
    this.generations.set(eid, generation);
    this.byId.set(entry.id, entry);
    this.byEid.set(eid, entry);
    this._version++;
    this._revision++;
    return entry;
  }

  /** The live entry for `id`, or undefined (unknown, destroyed, or not an id at all). */
  get(id: unknown): EntityEntry | undefined {
    return typeof id === "string" ? this.byId.get(id) : undefined;
  }

  /** The entry currently holding `eid`. */
  getByEid(eid: number): EntityEntry | undefined {
    return this.byEid.get(eid);
  }

  has(id: unknown): boolean {
    return this.get(id) !== undefined;
  }

  /** Retires `id` forever; returns its entry, or undefined when it was not live. */
  destroy(id: EntityId): EntityEntry | undefined {
    const entry = this.byId.get(id);
    if (!entry) return undefined;
    this.byId.delete(id);
    this.byEid.delete(entry.eid);
    this._version++;
    this._revision++;
    return entry;
  }

  /** Forgets every entry and eid generation and starts ids over, as a new table. */
  clear(): void {
    this.byId.clear();
    this.byEid.clear();
    this.generations.clear();
    this.nextId = 1;
    this._version = 0;
    this._revision++;
  }

  /** Live entries in creation order. */
  entries(): IterableIterator<EntityEntry> {
    return this.byId.values();
  }

  snapshot(): EntityTableSnapshot {
    return {
      entries: [...this.byId.values()].map((e) => ({ id: e.id, eid: e.eid, generation: e.generation, tags: [...e.tags] })),
      nextId: this.nextId,
      version: this._version,
      generations: [...this.generations],
    };
  }

  /**
   * Replaces the table's contents with a snapshot. `eidFor` maps each saved
   * entry to its eid in the restored ECS world (eids need not survive).
   * Validated whole before anything changes.
   */
  restore(snap: EntityTableSnapshot, eidFor: (saved: EntityTableSnapshot["entries"][number]) => number = (s) => s.eid): void {
    if (!snap || !Array.isArray(snap.entries) || !Number.isInteger(snap.nextId) || !Number.isInteger(snap.version)) {
      throw engineError("invalid_input", "entity table snapshot must have entries[], nextId and version");
    }
    const seen = new Set<string>();
    for (const e of snap.entries) {
      const n = typeof e?.id === "string" && e.id.startsWith(ID_PREFIX) ? Number(e.id.slice(ID_PREFIX.length)) : NaN;
      if (!Number.isInteger(n) || n < 1 || n >= snap.nextId || seen.has(e.id)) {
        throw engineError("invalid_input", `snapshot entry ${JSON.stringify(e?.id)} is not a unique ent_ id below nextId ${snap.nextId}`);
      }
      seen.add(e.id);
    }
    const eids = snap.entries.map(eidFor);
    if (new Set(eids).size !== eids.length) throw engineError("invalid_input", "snapshot entries map to duplicate eids");
    if (snap.generations !== undefined && !(Array.isArray(snap.generations) && snap.generations.every((g) => Array.isArray(g) && g.length === 2 && g.every((n) => Number.isInteger(n) && n >= 0)))) {
      throw engineError("invalid_input", "entity table snapshot generations must be [eid, generation] pairs of whole numbers");
    }
    this.byId.clear();
    this.byEid.clear();
    if (snap.generations) for (const [eid, generation] of snap.generations) this.generations.set(eid, generation);
    snap.entries.forEach((saved, i) => {
      const entry: EntityEntry = { id: saved.id, eid: eids[i], generation: saved.generation, tags: new Set(saved.tags) };
      this.byId.set(entry.id, entry);
      this.byEid.set(entry.eid, entry);
      this.generations.set(entry.eid, Math.max(this.generations.get(entry.eid) ?? 0, saved.generation));
    });
    this.nextId = snap.nextId;
    this._version = snap.version;
    this._revision++;
  }
}
