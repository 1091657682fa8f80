// The JS uniform-grid spatial index: the determinism oracle that the native
// `op_ecs_spatial_query_batch` must match byte for byte.
//
// Contract (shared with crates/limina-ecs/src/spatial_grid.rs):
// - entities are indexed in the given (insertion) order; an entity whose
//   position is not finite is not indexed;
// - a query [x, y, z, radius, selfEid] matches every indexed entity with
//   dx*dx + dy*dy + dz*dz <= radius*radius in f64 (positions are the f32
//   SoA values), excluding selfEid; its distance is Math.sqrt(dist2);
// - each query's results are sorted by distance, then insertion order.
// The grid only prunes: a query visits the cells its bounding box, widened
// by `reach`, overlaps, which holds every match despite rounding. So the
// results are the brute-force ones, whatever the cell size or grid layout.

import { engineError } from "../../limina-ops/js/errors.ts";
import type { Vec3Columns } from "../../limina-ops/js/soa.ts";

const MAX_CELLS = 1 << 21;

/** Packed batch results: query q's hits are [offsets[q], offsets[q + 1]). */
export interface SpatialResults {
  offsets: Uint32Array;
  eids: Uint32Array;
  distances: Float64Array;
}

export interface Hit {
  eid: number;
  distance: number;
}

/** Validates a packed `[x, y, z, radius, selfEid] × N` query buffer. */
export function checkQueries(queries: Float64Array): number {
  if (!(queries instanceof Float64Array) || queries.length % 5 !== 0) {
    throw engineError("invalid_input", `query buffer must hold [x, y, z, radius, selfEid] × N, got ${queries?.length} numbers`);
  }
  const n = queries.length / 5;
  for (let q = 0; q < n; q++) {
    const b = q * 5;
    if (!(Number.isFinite(queries[b]) && Number.isFinite(queries[b + 1]) && Number.isFinite(queries[b + 2]))) {
      throw engineError("invalid_input", `query ${q}: center must be finite`);
    }
    if (!(Number.isFinite(queries[b + 3]) && queries[b + 3] >= 0)) {
      throw engineError("invalid_input", `query ${q}: radius must be a finite number ≥ 0, got ${queries[b + 3]}`);
    }
    const self = queries[b + 4];
    if (self !== -1 && !(Number.isInteger(self) && self >= 0 && self <= 0xffffffff)) {
      throw engineError("invalid_input", `query ${q}: selfEid must be an entity id or -1, got ${self}`);
    }
  }
  return n;
}

/**
 * How far from a query's centre, along each axis, a match can lie: a match
 * has fl(dx²) ≤ fl(r²), so |dx| ≤ r·(1 + 2⁻⁵²) or dx² is subnormal, and the
 * exact offset is within 2⁻⁵³ relative of dx; the margin covers both with
 * room. When r² overflows, everything matches.
 */
function reach(radius: number): number {
  return radius * radius === Infinity ? Infinity : radius * (1 + 2 ** -49) + 2 ** -490;
}

export class SpatialGrid {
  private origin = [0, 0, 0];
  private cell = 1;
  private dims = [1, 1, 1];
  private offsets = new Uint32Array(2);
  private entries = new Uint32Array(0);
  private eids = new Uint32Array(0);
  private px = new Float64Array(0);
  private py = new Float64Array(0);
  private pz = new Float64Array(0);

  /** Indexes `eids` (insertion order) at their positions in `position`. */
  constructor(eids: ArrayLike<number>, position: Vec3Columns, cellSize: number) {
    if (!(Number.isFinite(cellSize) && cellSize > 0)) {
      throw engineError("invalid_input", `cell size must be a positive number, got ${cellSize}`);
    }
    const n = Math.min(position.x.length, position.y.length, position.z.length);
    const kept: number[] = [];
    const xs: number[] = [];
    const ys: number[] = [];
    const zs: number[] = [];
    for (let k = 0; k < eids.length; k++) {
      const eid = eids[k];
      if (eid >= n) throw engineError("invalid_input", `eid ${eid} is outside the ${n}-entity position buffers`);
      const x = position.x[eid], y = position.y[eid], z = position.z[eid];
      if (Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)) {
        kept.push(eid);
        xs.push(x);
        ys.push(y);
        zs.push(z);
      }
    }
    this.eids = Uint32Array.from(kept);
    this.px = Float64Array.from(xs);
    this.py = Float64Array.from(ys);
    this.pz = Float64Array.from(zs);
    const count = kept.length;
    const min = [Infinity, Infinity, Infinity];
    const max = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < count; i++) {
      const p = [this.px[i], this.py[i], this.pz[i]];
      for (let k = 0; k < 3; k++) {
        if (p[k] < min[k]) min[k] = p[k];
        if (p[k] > max[k]) max[k] = p[k];
      }
    }
    if (count === 0) {
      min.fill(0);
      max.fill(0);
    }
    let cell = cellSize;
    let dims: number[];
    for (;;) {
      dims = [0, 1, 2].map((k) => Math.floor((max[k] - min[k]) / cell) + 1);
      if (dims[0] * dims[1] * dims[2] <= MAX_CELLS) break;
      cell *= 2;
    }
    this.origin = min;
    this.cell = cell;
    this.dims = dims;
    const ncells = dims[0] * dims[1] * dims[2];
    const cells = new Uint32Array(count);
    const offsets = new Uint32Array(ncells + 1);
    for (let i = 0; i < count; i++) {
      const cx = Math.min(Math.floor((this.px[i] - min[0]) / cell), dims[0] - 1);
      const cy = Math.min(Math.floor((this.py[i] - min[1]) / cell), dims[1] - 1);
      const cz = Math.min(Math.floor((this.pz[i] - min[2]) / cell), dims[2] - 1);
      const c = (cz * dims[1] + cy) * dims[0] + cx;
      cells[i] = c;
      offsets[c + 1]++;
    }
    for (let c = 0; c < ncells; c++) offsets[c + 1] += offsets[c];
    const fill = offsets.slice();
    const entries = new Uint32Array(count);
    for (let i = 0; i < count; i++) entries[fill[cells[i]]++] = i;
    this.offsets = offsets;
    this.entries = entries;
  }

  get size(): number {
    return this.eids.length;
  }

  /** Insertion indices and distances of the entities within `radius`, sorted. */
  private hits(x: number, y: number, z: number, radius: number, selfEid: number): { idx: number[]; dist: number[] } {
    const idx: number[] = [];
    const dist: number[] = [];
    if (this.eids.length === 0) return { idx, dist };
    const q = [x, y, z];
    const lo = [0, 0, 0];
    const hi = [0, 0, 0];
    const r = reach(radius);
    for (let k = 0; k < 3; k++) {
      const a = Math.floor((q[k] - r - this.origin[k]) / this.cell);
      const b = Math.floor((q[k] + r - this.origin[k]) / this.cell);
      const top = this.dims[k] - 1;
      if (b < 0 || a > top) return { idx, dist };
      lo[k] = Math.max(a, 0);
      hi[k] = Math.min(b, top);
    }
    const r2 = radius * radius;
    const [dx0, dy0] = this.dims;
    for (let cz = lo[2]; cz <= hi[2]; cz++) {
      for (let cy = lo[1]; cy <= hi[1]; cy++) {
        const row = (cz * dy0 + cy) * dx0;
        const end = this.offsets[row + hi[0] + 1];
        for (let e = this.offsets[row + lo[0]]; e < end; e++) {
          const i = this.entries[e];
          const dx = this.px[i] - x;
          const dy = this.py[i] - y;
          const dz = this.pz[i] - z;
          const d2 = dx * dx + dy * dy + dz * dz;
          if (d2 <= r2 && this.eids[i] !== selfEid) {
            idx.push(i);
            dist.push(Math.sqrt(d2));
          }
        }
      }
    }
    const order = idx.map((_, k) => k);
    order.sort((a, b) => dist[a] - dist[b] || idx[a] - idx[b]);
    return { idx: order.map((k) => idx[k]), dist: order.map((k) => dist[k]) };
  }

  /** Entities within `radius` of a point, nearest first (selfEid -1 = none). */
  query(x: number, y: number, z: number, radius: number, selfEid = -1): Hit[] {
    checkQueries(Float64Array.of(x, y, z, radius, selfEid));
    const { idx, dist } = this.hits(x, y, z, radius, selfEid);
    return idx.map((i, k) => ({ eid: this.eids[i], distance: dist[k] }));
  }

  /** Every query of a packed buffer, in the native op's result layout. */
  queryBatch(queries: Float64Array): SpatialResults {
    const n = checkQueries(queries);
    const offsets = new Uint32Array(n + 1);
    const eids: number[] = [];
    const distances: number[] = [];
    for (let q = 0; q < n; q++) {
      const b = q * 5;
      const { idx, dist } = this.hits(queries[b], queries[b + 1], queries[b + 2], queries[b + 3], queries[b + 4]);
      for (let k = 0; k < idx.length; k++) {
        eids.push(this.eids[idx[k]]);
        distances.push(dist[k]);
      }
      offsets[q + 1] = eids.length;
    }
    return { offsets, eids: Uint32Array.from(eids), distances: Float64Array.from(distances) };
  }
}
