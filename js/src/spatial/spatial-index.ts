// A world's radius queries: the native batched query (limina-ecs) over the
// world's live entities in creation order, byte-identical to the JS oracle.

import type { SpatialResults } from "../../../crates/limina-ecs/js/grid.ts";
import { NativeSpatialQuery } from "../../../crates/limina-ecs/js/native.ts";
import type { Vec3, World } from "../ecs/world.ts";

/** Frames the index is kept current after a query (about a second at 60 fps). */
const FRESH_FRAMES = 60;
const NO_QUERIES = new Float64Array(0);

export class SpatialIndex {
  private readonly native = new NativeSpatialQuery();
  /** `near`'s one query, reused (the op reads it during the call). */
  private readonly one = new Float64Array(5);
  /** Frames left in which `refresh` re-indexes; a query sets it. */
  private fresh = 0;

  /** `cellSize`: the grid's cell edge in metres (it changes cost, never results). */
  constructor(readonly world: World, readonly cellSize = 8) {}

  /**
   * Answers packed `[x, y, z, radius, selfEid] × N` queries in one native
   * call. The returned views alias internal buffers until the next call.
   */
  queryBatch(queries: Float64Array): SpatialResults {
    this.fresh = FRESH_FRAMES;
    return this.native.queryBatch(this.world.Position, this.world.liveEids(), this.cellSize, queries);
  }

  /**
   * Between frames (after the steps and their state fan-out): re-indexes
   * what moved, so the next query (often a call read before the next step)
   * finds the grid current. Only while queries come: a world nobody queries
   * pays nothing. Each query still compares the positions it indexes, so a
   * move after this is never missed.
   */
  refresh(): void {
    if (this.fresh === 0) return;
    this.fresh--;
    this.native.queryBatch(this.world.Position, this.world.liveEids(), this.cellSize, NO_QUERIES);
  }

  /** Entities within `radius` of `center` (excluding `selfEid`), nearest first. */
  near(center: Vec3, radius: number, selfEid = -1): { eid: number; distance: number }[] {
    const q = this.one;
    q[0] = center[0];
    q[1] = center[1];
    q[2] = center[2];
    q[3] = radius;
    q[4] = selfEid;
    this.fresh = FRESH_FRAMES;
    // One query: its hits read from the native buffers, with no views made over them.
    const native = this.native;
    const total = native.answer(this.world.Position, this.world.liveEids(), this.cellSize, q);
    const eids = native.hitEids;
    const distances = native.hitDistances;
    const hits: { eid: number; distance: number }[] = [];
    for (let k = 0; k < total; k++) hits.push({ eid: eids[k], distance: distances[k] });
    return hits;
  }
}
