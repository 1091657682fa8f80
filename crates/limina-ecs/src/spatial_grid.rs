//! The batched uniform-grid radius query.
//!
//! The entity list is bucketed into a dense CSR grid (cell offsets + entity
//! indices) over the bounding box of the indexed positions; each query
//! visits the cells its sphere's bounding box overlaps. Results are what
//! the JS oracle (`js/src/spatial/grid.ts`) returns, byte for byte: the same
//! f64 distance math (`dx*dx + dy*dy + dz*dz <= r*r`, distance
//! `sqrt(dist2)`) over the f32 positions widened to f64, sorted by
//! distance and then by insertion order. The cell size never changes the
//! results, only the work, so the grid may coarsen it to stay small.

use limina_ops::OpError;
use rayon::prelude::*;

/// The most cells a grid may allocate; coarser cells beyond that.
const MAX_CELLS: usize = 1 << 21;

/// Below this many queries, waking the rayon pool costs more than it saves.
const PARALLEL_MIN_QUERIES: usize = 32;

/// One query: a sphere, and the entity to leave out of its results.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Query {
  pub center: [f64; 3],
  pub radius: f64,
  /// Never reported in this query's results (the querying entity itself).
  pub self_eid: Option<u32>,
}

/// Parses the packed `[x, y, z, radius, selfEid] × N` buffer (selfEid -1 = none).
pub fn parse_queries(packed: &[f64]) -> Result<Vec<Query>, OpError> {
  if packed.len() % 5 != 0 {
    return Err(OpError::invalid_input(format!(
      "query buffer must hold [x, y, z, radius, selfEid] × N, got {} numbers",
      packed.len()
    )));
  }
  packed
    .chunks_exact(5)
    .enumerate()
    .map(|(i, q)| {
      if !(q[0].is_finite() && q[1].is_finite() && q[2].is_finite()) {
        return Err(OpError::invalid_input(format!("query {i}: center must be finite, got {:?}", &q[..3])));
      }
      if !(q[3].is_finite() && q[3] >= 0.0) {
        return Err(OpError::invalid_input(format!("query {i}: radius must be a finite number ≥ 0, got {}", q[3])));
      }
      let self_eid = match q[4] {
        e if e == -1.0 => None,
        e if e >= 0.0 && e.fract() == 0.0 && e <= u32::MAX as f64 => Some(e as u32),
        e => return Err(OpError::invalid_input(format!("query {i}: selfEid must be an entity id or -1, got {e}"))),
      };
      Ok(Query { center: [q[0], q[1], q[2]], radius: q[3], self_eid })
    })
    .collect()
}

/// The grid; its buffers are reused across rebuilds, so a steady-state
/// rebuild allocates nothing.
#[derive(Default)]
pub struct SpatialGrid {
  origin: [f64; 3],
  cell: f64,
  dims: [usize; 3],
  /// CSR: entities of cell `c` are at `offsets[c]..offsets[c + 1]` in the
  /// cell-ordered arrays below (ascending insertion order within a cell).
  offsets: Vec<u32>,
  /// Insertion index of each cell-ordered entity.
  order: Vec<u32>,
  /// Position of each cell-ordered entity, widened to f64.
  sorted_pos: Vec<[f64; 3]>,
  /// Indexed eids, in insertion order.
  eids: Vec<u32>,
  positions: Vec<[f64; 3]>,
  cells: Vec<u32>,
}

/// One result: the distance's f64 bits above the insertion index. Distances
/// are ≥ 0, so their IEEE bit patterns order as the values do, and the
/// packed integer orders by distance, then insertion order.
pub type Hit = u128;

/// Insertion sort: a query's hits are few, mostly short runs of cells.
fn sort_small(v: &mut [Hit]) {
  if v.len() > 64 {
    v.sort_unstable();
    return;
  }
  for i in 1..v.len() {
    let x = v[i];
    let mut j = i;
    while j > 0 && v[j - 1] > x {
      v[j] = v[j - 1];
      j -= 1;
    }
    v[j] = x;
  }
}

impl SpatialGrid {
  /// A grid over `eids` (in insertion order) at their SoA positions.
  pub fn build(eids: &[u32], x: &[f32], y: &[f32], z: &[f32], cell_hint: f64) -> Result<Self, OpError> {
    let mut grid = Self::default();
    grid.rebuild(eids, x, y, z, cell_hint)?;
    Ok(grid)
  }

  /// Re-indexes `eids` (in insertion order) at their SoA positions. Entities
  /// whose position is not finite are not indexed.
  pub fn rebuild(&mut self, eids: &[u32], x: &[f32], y: &[f32], z: &[f32], cell_hint: f64) -> Result<(), OpError> {
    if !(cell_hint.is_finite() && cell_hint > 0.0) {
      return Err(OpError::invalid_input(format!("cell size must be a positive number, got {cell_hint}")));
    }
    let n = x.len().min(y.len()).min(z.len());
    if let Some(&bad) = eids.iter().find(|&&e| e as usize >= n) {
      return Err(OpError::invalid_input(format!("eid {bad} is outside the {n}-entity position buffers")));
    }
    self.eids.clear();
    self.positions.clear();
    let mut min = [f64::INFINITY; 3];
    let mut max = [f64::NEG_INFINITY; 3];
    for &eid in eids {
      let i = eid as usize;
      let p = [x[i] as f64, y[i] as f64, z[i] as f64];
      if p[0].is_finite() && p[1].is_finite() && p[2].is_finite() {
        for k in 0..3 {
          min[k] = min[k].min(p[k]);
          max[k] = max[k].max(p[k]);
        }
        self.eids.push(eid);
        self.positions.push(p);
      }
    }
    if self.positions.is_empty() {
      min = [0.0; 3];
      max = [0.0; 3];
    }
    let mut cell = cell_hint;
    // Extents are ≥ 0, so truncation is floor (and needs no libm call).
    let dims = loop {
      let d: [usize; 3] = std::array::from_fn(|k| ((max[k] - min[k]) / cell) as usize + 1);
      if d.iter().try_fold(1usize, |acc, &v| acc.checked_mul(v)).is_some_and(|c| c <= MAX_CELLS) {
        break d;
      }
      cell *= 2.0;
    };
    let ncells = dims[0] * dims[1] * dims[2];
    self.offsets.clear();
    self.offsets.resize(ncells + 1, 0);
    self.cells.clear();
    for p in &self.positions {
      let c: [usize; 3] = std::array::from_fn(|k| (((p[k] - min[k]) / cell) as usize).min(dims[k] - 1));
      let c = (c[2] * dims[1] + c[1]) * dims[0] + c[0];
      self.cells.push(c as u32);
      self.offsets[c + 1] += 1;
    }
    for c in 0..ncells {
      self.offsets[c + 1] += self.offsets[c];
    }
    let count = self.positions.len();
    self.order.clear();
    self.order.resize(count, 0);
    self.sorted_pos.clear();
    self.sorted_pos.resize(count, [0.0; 3]);
    // Fill each cell from its start, bumping the start offsets as we go;
    // afterwards offsets[c] is cell c's end, i.e. cell c + 1's start.
    for (i, &c) in self.cells.iter().enumerate() {
      let at = self.offsets[c as usize] as usize;
      self.order[at] = i as u32;
      self.sorted_pos[at] = self.positions[i];
      self.offsets[c as usize] += 1;
    }
    self.offsets.copy_within(0..ncells, 1);
    self.offsets[0] = 0;
    self.origin = min;
    self.cell = cell;
    self.dims = dims;
    Ok(())
  }

  pub fn len(&self) -> usize {
    self.eids.len()
  }

  pub fn is_empty(&self) -> bool {
    self.eids.is_empty()
  }

  /// Appends query `q`'s hits to `out`, sorted.
  fn query_into(&self, q: &Query, out: &mut Vec<Hit>) {
    let start_len = out.len();
    if self.eids.is_empty() {
      return;
    }
    let r = q.radius;
    let r2 = r * r;
    let mut lo = [0usize; 3];
    let mut hi = [0usize; 3];
    for k in 0..3 {
      let a = ((q.center[k] - r - self.origin[k]) / self.cell).floor();
      let b = ((q.center[k] + r - self.origin[k]) / self.cell).floor();
      let top = (self.dims[k] - 1) as f64;
      if b < 0.0 || a > top {
        return;
      }
      lo[k] = a.max(0.0) as usize;
      hi[k] = b.min(top) as usize;
    }
    for cz in lo[2]..=hi[2] {
      for cy in lo[1]..=hi[1] {
        let row = (cz * self.dims[1] + cy) * self.dims[0];
        let start = self.offsets[row + lo[0]] as usize;
        let end = self.offsets[row + hi[0] + 1] as usize;
        for (p, &i) in self.sorted_pos[start..end].iter().zip(&self.order[start..end]) {
          let dx = p[0] - q.center[0];
          let dy = p[1] - q.center[1];
          let dz = p[2] - q.center[2];
          let d2 = dx * dx + dy * dy + dz * dz;
          if d2 <= r2 && q.self_eid != Some(self.eids[i as usize]) {
            out.push(((d2.sqrt().to_bits() as u128) << 32) | i as u128);
          }
        }
      }
    }
    sort_small(&mut out[start_len..]);
  }

  /// Answers `queries` into one flat hit list with per-query offsets.
  fn answer(&self, queries: &[Query]) -> BatchResults {
    let mut hits = Vec::with_capacity(queries.len() * 16);
    let mut offsets = Vec::with_capacity(queries.len() + 1);
    offsets.push(0);
    for q in queries {
      self.query_into(q, &mut hits);
      offsets.push(hits.len() as u32);
    }
    BatchResults { offsets, hits }
  }

  /// Answers every query (split across the rayon pool when there are
  /// enough to pay for waking it): per query, hits sorted by distance then
  /// insertion order.
  pub fn query_batch(&self, queries: &[Query]) -> BatchResults {
    if queries.len() < PARALLEL_MIN_QUERIES {
      return self.answer(queries);
    }
    let chunk = queries.len().div_ceil(rayon::current_num_threads() * 2);
    let parts: Vec<BatchResults> = queries.par_chunks(chunk).map(|c| self.answer(c)).collect();
    let mut all = BatchResults { offsets: vec![0], hits: Vec::with_capacity(parts.iter().map(|p| p.hits.len()).sum()) };
    for part in parts {
      let base = all.hits.len() as u32;
      all.offsets.extend(part.offsets[1..].iter().map(|o| o + base));
      all.hits.extend(part.hits);
    }
    all
  }

  /// The eid and distance of one hit.
  pub fn resolve(&self, hit: Hit) -> (u32, f64) {
    (self.eids[(hit as u32) as usize], f64::from_bits((hit >> 32) as u64))
  }
}

/// Hits of a batch: query `q`'s are `hits[offsets[q]..offsets[q + 1]]`.
pub struct BatchResults {
  pub offsets: Vec<u32>,
  pub hits: Vec<Hit>,
}

/// Writes batch results in the packed layout the op returns: `offsets`
/// (N + 1 entries) into `out_eids` / `out_dist`. Returns the total number
/// of results; when that exceeds the output capacity nothing but the count
/// is written, so the caller can grow its buffers and ask again.
pub fn write_results(
  grid: &SpatialGrid,
  results: &BatchResults,
  offsets: &mut [u32],
  out_eids: &mut [u32],
  out_dist: &mut [f64],
) -> Result<usize, OpError> {
  let n = results.offsets.len();
  if offsets.len() < n {
    return Err(OpError::invalid_input(format!(
      "offsets needs {n} entries for {} queries, got {}",
      n - 1,
      offsets.len()
    )));
  }
  let total = results.hits.len();
  if total > out_eids.len() || total > out_dist.len() {
    return Ok(total);
  }
  offsets[..n].copy_from_slice(&results.offsets);
  for (k, &hit) in results.hits.iter().enumerate() {
    (out_eids[k], out_dist[k]) = grid.resolve(hit);
  }
  Ok(total)
}

#[cfg(test)]
mod tests {
  use super::*;
  fn grid(points: &[[f32; 3]], cell: f64) -> SpatialGrid {
    let x: Vec<f32> = points.iter().map(|p| p[0]).collect();
    let y: Vec<f32> = points.iter().map(|p| p[1]).collect();
    let z: Vec<f32> = points.iter().map(|p| p[2]).collect();
    let eids: Vec<u32> = (0..points.len() as u32).collect();
    SpatialGrid::build(&eids, &x, &y, &z, cell).unwrap()
  }

  /// Per query, the resolved (eid, distance) hits.
  fn batch(g: &SpatialGrid, queries: &[Query]) -> Vec<Vec<(u32, f64)>> {
    let r = g.query_batch(queries);
    r.offsets.windows(2).map(|w| r.hits[w[0] as usize..w[1] as usize].iter().map(|&h| g.resolve(h)).collect()).collect()
  }

  fn brute(points: &[[f32; 3]], q: &Query) -> Vec<(u32, f64)> {
    let mut v: Vec<(f64, u32)> = points
      .iter()
      .enumerate()
      .filter_map(|(i, p)| {
        let d = [p[0] as f64 - q.center[0], p[1] as f64 - q.center[1], p[2] as f64 - q.center[2]];
        let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        (d2 <= q.radius * q.radius && q.self_eid != Some(i as u32)).then(|| (d2.sqrt(), i as u32))
      })
      .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    v.into_iter().map(|(d, i)| (i, d)).collect()
  }

  #[test]
  fn matches_brute_force_whatever_the_cell_size() {
    let mut seed = 12345u64;
    let mut rnd = move || {
      seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
      ((seed >> 33) as f64 / (1u64 << 31) as f64) as f32
    };
    let points: Vec<[f32; 3]> = (0..500).map(|_| [rnd() * 100.0 - 50.0, rnd() * 10.0, rnd() * 100.0 - 50.0]).collect();
    let queries: Vec<Query> = (0..50)
      .map(|i| Query { center: [points[i][0] as f64, 5.0, points[i][2] as f64], radius: (i % 20) as f64, self_eid: Some(i as u32) })
      .collect();
    for cell in [0.5, 3.0, 15.0, 1000.0] {
      let g = grid(&points, cell);
      let got = batch(&g, &queries);
      for (q, hits) in queries.iter().zip(&got) {
        assert_eq!(hits, &brute(&points, q), "cell {cell}");
      }
    }
  }

  #[test]
  fn ties_break_by_insertion_order_and_self_is_excluded() {
    let points = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]];
    let g = grid(&points, 1.0);
    let q = Query { center: [0.0; 3], radius: 1.0, self_eid: Some(3) };
    assert_eq!(batch(&g, &[q])[0], vec![(0, 1.0), (1, 1.0), (2, 1.0)]);
    let q0 = Query { center: [0.0; 3], radius: 0.0, self_eid: None };
    assert_eq!(batch(&g, &[q0])[0], vec![(3, 0.0)], "radius 0 finds only coincident entities");
  }

  #[test]
  fn huge_radii_and_far_queries_stay_cheap_and_correct() {
    let points = [[0.0, 0.0, 0.0], [1e6, 0.0, 0.0]];
    let g = grid(&points, 0.001);
    assert!(g.dims.iter().product::<usize>() <= MAX_CELLS);
    let all = Query { center: [0.0; 3], radius: 1e9, self_eid: None };
    assert_eq!(batch(&g, &[all])[0].len(), 2);
    let far = Query { center: [-1e7, 0.0, 0.0], radius: 1.0, self_eid: None };
    assert!(batch(&g, &[far])[0].is_empty());
  }

  #[test]
  fn bad_queries_are_rejected_precisely() {
    assert!(parse_queries(&[0.0; 4]).unwrap_err().message.contains("× N"));
    assert!(parse_queries(&[0.0, 0.0, 0.0, -1.0, -1.0]).unwrap_err().message.contains("radius"));
    assert!(parse_queries(&[f64::NAN, 0.0, 0.0, 1.0, -1.0]).unwrap_err().message.contains("center"));
    assert!(parse_queries(&[0.0, 0.0, 0.0, 1.0, 2.5]).unwrap_err().message.contains("selfEid"));
    assert_eq!(parse_queries(&[1.0, 2.0, 3.0, 4.0, 7.0]).unwrap()[0].self_eid, Some(7));
  }

  #[test]
  fn non_finite_positions_are_not_indexed() {
    let g = grid(&[[f32::NAN, 0.0, 0.0], [0.0, 0.0, 0.0]], 1.0);
    assert_eq!(g.len(), 1);
  }

  #[test]
  fn results_that_do_not_fit_report_the_needed_size() {
    let g = grid(&[[0.5, 0.0, 0.0], [0.7, 0.0, 0.0], [5.0, 0.0, 0.0], [6.0, 0.0, 0.0]], 1.0);
    let queries = [
      Query { center: [0.0; 3], radius: 1.0, self_eid: None },
      Query { center: [6.0, 0.0, 0.0], radius: 0.5, self_eid: None },
    ];
    let results = g.query_batch(&queries);
    let mut offsets = [9u32; 3];
    let mut eids = [0u32; 2];
    let mut dist = [0f64; 2];
    assert_eq!(write_results(&g, &results, &mut offsets, &mut eids, &mut dist).unwrap(), 3);
    assert_eq!((offsets, eids), ([9, 9, 9], [0, 0]), "nothing written when it does not fit");
    let mut eids = [0u32; 3];
    let mut dist = [0f64; 3];
    assert_eq!(write_results(&g, &results, &mut offsets, &mut eids, &mut dist).unwrap(), 3);
    assert_eq!((offsets, eids, dist), ([0, 2, 3], [0, 1, 3], [0.5, 0.699999988079071, 0.0]));
    assert!(write_results(&g, &results, &mut [0u32; 2], &mut eids, &mut dist).is_err());
  }

  #[test]
  fn parallel_and_sequential_batches_agree() {
    let points: Vec<[f32; 3]> = (0..300).map(|i| [(i % 17) as f32, (i % 5) as f32, (i / 17) as f32]).collect();
    let g = grid(&points, 2.0);
    let queries: Vec<Query> = (0..100).map(|i| Query { center: [(i % 17) as f64, 2.0, (i % 13) as f64], radius: 3.0, self_eid: Some(i) }).collect();
    let par = g.query_batch(&queries);
    let seq = g.answer(&queries);
    assert!(queries.len() >= PARALLEL_MIN_QUERIES);
    assert_eq!((par.offsets, par.hits), (seq.offsets, seq.hits));
  }
}
