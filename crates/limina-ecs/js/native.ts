// The native batched radius query (limina-ecs), with the oracle's result
// layout. Output buffers are reused across calls and grown on demand; the
// op keeps its grid while the eids and positions it indexes are unchanged.

import type { Vec3Columns } from "../../limina-ops/js/soa.ts";
import type { SpatialResults } from "./grid.ts";

interface EcsOps {
  op_ecs_spatial_query_batch(
    x: Float32Array, y: Float32Array, z: Float32Array, eids: Uint32Array, cellSize: number,
    queries: Float64Array, offsets: Uint32Array, outEids: Uint32Array, outDistances: Float64Array,
  ): number;
}

const ops = Limina.ops as unknown as EcsOps;

export class NativeSpatialQuery {
  private offsets = new Uint32Array(1);
  private eids = new Uint32Array(1024);
  private distances = new Float64Array(1024);

  /**
   * Indexes `eids` (insertion order) at `position` and answers every packed
   * `[x, y, z, radius, selfEid]` query in one native call. The returned
   * views alias this object's buffers until the next call.
   */
  queryBatch(position: Vec3Columns, eids: Uint32Array, cellSize: number, queries: Float64Array): SpatialResults {
    const total = this.answer(position, eids, cellSize, queries);
    return {
      offsets: this.offsets.subarray(0, Math.floor(queries.length / 5) + 1),
      eids: this.eids.subarray(0, total),
      distances: this.distances.subarray(0, total),
    };
  }

  /**
   * `queryBatch` without its views: answers into this object's buffers and
   * returns how many hits there are in all, the first that many entries of
   * `hitEids` / `hitDistances` (read them after the call: a call may
   * replace them). A caller reading a few values makes no typed arrays.
   */
  answer(position: Vec3Columns, eids: Uint32Array, cellSize: number, queries: Float64Array): number {
    // Only sizes the offsets: the op checks the queries as `checkQueries` does.
    const n = Math.floor(queries.length / 5);
    if (this.offsets.length < n + 1) this.offsets = new Uint32Array(n + 1);
    let total = this.call(position, eids, cellSize, queries);
    if (total > this.eids.length) {
      const size = Math.max(total, this.eids.length * 2);
      this.eids = new Uint32Array(size);
      this.distances = new Float64Array(size);
      total = this.call(position, eids, cellSize, queries);
    }
    return total;
  }

  /** The last answer's hit eids (its first `answer()` entries). */
  get hitEids(): Uint32Array {
    return this.eids;
  }

  /** The last answer's hit distances (its first `answer()` entries). */
  get hitDistances(): Float64Array {
    return this.distances;
  }

  private call(position: Vec3Columns, eids: Uint32Array, cellSize: number, queries: Float64Array): number {
    return ops.op_ecs_spatial_query_batch(
      position.x, position.y, position.z, eids, cellSize, queries, this.offsets, this.eids, this.distances,
    );
  }
}
