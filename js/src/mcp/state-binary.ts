// The binary state stream (`state/subscribe` with `encoding: "binary"`):
// what the loop tells limina-mcp's encoder thread each step. The encoding
// happens off the loop (crates/limina-mcp/src/sync.rs over
// crates/limina-delta); this module keeps the encoder told of the live
// entities and their styles (tags and look) and hands it the SoA transform
// columns once per step. Pacing is per connection, in the encoder: a client
// whose last delta is not written yet skips steps, and its next delta takes
// it from what it holds to the current state in one message.

import { setAoi, setEntities, streamFrame, subscribe, unsubscribe, type EntityStyle } from "../../../crates/limina-mcp/js/sync.ts";
import { entityLook } from "../scene/describe.ts";
import type { Entities } from "../scene/entities.ts";

/** The binary encoding's name and version (its first bytes say "LD", 1). */
export const BINARY_FORMAT = "limina-delta/1";
/** Positions travel as integers of this many metres. */
export const POSITION_STEP = 1 / 1024;
const STEPS_PER_SECOND = 60;

export interface BinaryAoi {
  center: [number, number, number];
  radius: number;
}

export class BinaryStreams {
  private readonly conns = new Set<number>();
  /** The entity table's and the styles' revisions the encoder last heard of. */
  private tableRevision = -1;
  private styleRevision = -1;
  /** Style revisions the encoder holds, by `ent_` number. */
  private told = new Map<number, number>();

  constructor(private readonly entities: Entities) {}

  get size(): number {
    return this.conns.size;
  }

  has(conn: number): boolean {
    return this.conns.has(conn);
  }

  /** Subscribes `conn` at up to `maxRate` deltas per second; its snapshot comes on the next step. Returns the rate granted. */
  subscribe(conn: number, maxRate: number, aoi: BinaryAoi | null): number {
    const every = Math.max(1, Math.round(STEPS_PER_SECOND / maxRate));
    this.conns.add(conn);
    subscribe(conn, every);
    if (aoi) setAoi(conn, aoi);
    return STEPS_PER_SECOND / every;
  }

  unsubscribe(conn: number): boolean {
    if (!this.conns.delete(conn)) return false;
    unsubscribe(conn);
    return true;
  }

  setAoi(conn: number, aoi: BinaryAoi | null): void {
    setAoi(conn, aoi);
  }

  /** Tells the encoder the live entities, and the styles of those it has not seen or that were restyled. */
  private tellEntities(): void {
    const table = this.entities.world.entities;
    const eids = new Uint32Array(table.size);
    const ids = new Float64Array(table.size);
    const styles: EntityStyle[] = [];
    const told = new Map<number, number>();
    let i = 0;
    for (const e of table.entries()) {
      const id = Number(e.id.slice(4));
      // Made and never restyled is revision 0; the encoder counts from 1.
      const revision = this.entities.styleRevisionOf(e.id) + 1;
      eids[i] = e.eid;
      ids[i++] = id;
      if (this.told.get(id) !== revision) {
        const look = entityLook(e);
        styles.push({ id, revision, tags: [...e.tags], look: look ? JSON.stringify(look) : null });
      }
      told.set(id, revision);
    }
    this.told = told;
    this.tableRevision = table.revision;
    this.styleRevision = this.entities.styleRevision;
    setEntities(eids, ids, styles);
  }

  /** Streams this step's transforms to the binary subscribers. */
  tick(step: number): void {
    if (this.conns.size === 0) return;
    if (this.entities.world.entities.revision !== this.tableRevision || this.entities.styleRevision !== this.styleRevision) this.tellEntities();
    streamFrame(step, this.entities.world);
  }
}
