// World resources: named state a world holds beside its entities — game
// rules, inventories, quests, timers — kept as plain JSON-able data so that
// the world digest hashes it, snapshots and world files save it, and a
// restore or a checkpoint load puts it back exactly. A resource's `save()`
// must be a pure function of its state (the same state, the same JSON, key
// order included): the digest is taken over it.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";

export interface WorldResource<T = unknown> {
  /** The state as plain JSON-able data (no Maps, no undefined, finite numbers). */
  save(): T;
  /**
   * Replaces the state with a saved one; `null` empties it (a snapshot from before this
   * resource existed). A malformed save is refused with `invalid_input` and changes nothing.
   */
  load(saved: T | null): void;
  /** What the digest hashes, when hashing all of `save()` would be wasteful (e.g. a content hash of large bytes). */
  digestState?(): unknown;
}

const NAME = /^[a-z][a-z0-9]*(\.[a-z][a-zA-Z0-9]*)*$/;

export class WorldResources {
  private readonly resources = new Map<string, WorldResource>();

  /** Adds a resource under a dotted lower-case `name`; a name is registered once. */
  register<T>(name: string, resource: WorldResource<T>): void {
    if (!NAME.test(name)) throw engineError("invalid_input", `bad world resource name ${JSON.stringify(name)}`);
    if (this.resources.has(name)) throw engineError("invalid_input", `world resource ${name} is already registered`);
    this.resources.set(name, resource as WorldResource);
  }

  has(name: string): boolean {
    return this.resources.has(name);
  }

  /** Registered names, sorted (the order saves and digests use). */
  names(): string[] {
    return [...this.resources.keys()].sort();
  }

  /** Every resource's saved state (but those in `exclude`), by name in sorted order. */
  save(exclude: readonly string[] = []): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of this.names()) if (!exclude.includes(name)) out[name] = this.resources.get(name)!.save();
    return out;
  }

  /**
   * What the world digest hashes of them (but those in `exclude`), with every object's keys
   * sorted: the same state hashes the same however its objects were built or loaded.
   */
  digestState(exclude: readonly string[] = []): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of this.names()) {
      if (exclude.includes(name)) continue;
      const r = this.resources.get(name)!;
      out[name] = canonical(r.digestState ? r.digestState() : r.save());
    }
    return out;
  }

  /**
   * Loads a save made by `save()`: every resource it names must be registered here (another
   * build's resource is refused before anything changes); resources it lacks are emptied, but
   * those in `keep` stay as they are.
   */
  load(saved: Record<string, unknown> | null | undefined, keep: readonly string[] = []): void {
    const state = saved ?? {};
    if (typeof state !== "object" || Array.isArray(state)) throw engineError("invalid_input", "saved world resources must be an object by name");
    const unknown = Object.keys(state).filter((n) => !this.resources.has(n));
    if (unknown.length > 0) throw engineError("invalid_input", `saved world resources this engine does not have: ${unknown.join(", ")}`);
    // All or nothing: on a refusal, the resources already loaded go back to what they held.
    const before = this.save();
    const done: string[] = [];
    try {
      for (const name of this.names()) {
        if (keep.includes(name)) continue;
        this.resources.get(name)!.load((state[name] ?? null) as unknown);
        done.push(name);
      }
    } catch (e) {
      for (const name of done) this.resources.get(name)!.load(before[name]);
      throw e;
    }
  }
}

/** `value` with every object's keys in sorted order (arrays keep theirs; undefined fields dropped). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = canonical(v);
  }
  return out;
}
