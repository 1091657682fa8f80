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

pub struct SpatialGrid {
  origin: [f64; 3],
  cell: f64,
  dims: [usize; 3],
  /// CSR: entities of cell `c` are `entries[offsets[c]..offsets[c + 1]]`.
  offsets: Vec<u32>,
  /// Insertion indices, ascending within each cell.
  entries: Vec<u32>,
  eids: Vec<u32>,
  positions: Vec<[f64; 3]>,
}

/// One result: insertion index and distance.
type Hit = (f64, u32);

impl SpatialGrid {
  /// Indexes `eids` (in insertion order) at their SoA positions. Entities
  /// whose position is not finite are not indexed.
  pub fn build(eids: &[u32], x: &[f32], y: &[f32], z: &[f32], cell_hint: f64) -> Result<Self, OpError> {
    if !(cell_hint.is_finite() && cell_hint > 0.0) {
      return Err(OpError::invalid_input(format!("cell size must be a positive number, got {cell_hint}")));
    }
    let n = x.len().min(y.len()).min(z.len());
    let mut kept_eids = Vec::with_capacity(eids.len());
    let mut positions = Vec::with_capacity(eids.len());
    for &eid in eids {
      let i = eid as usize;
      if i >= n {
        return Err(OpError::invalid_input(format!("eid {eid} is outside the {n}-entity position buffers")));
      }
      let p = [x[i] as f64, y[i] as f64, z[i] as f64];
      if p.iter().all(|v| v.is_finite()) {
        kept_eids.push(eid);
        positions.push(p);
      }
    }
    let mut min = [f64::INFINITY; 3];
    let mut max = [f64::NEG_INFINITY; 3];
    for p in &positions {
      for k in 0..3 {
        min[k] = min[k].min(p[k]);
        max[k] = max[k].max(p[k]);
      }
    }
    if positions.is_empty() {
      min = [0.0; 3];
      max = [0.0; 3];
    }
    let mut cell = cell_hint;
    let dims = loop {
      let d: [usize; 3] = std::array::from_fn(|k| ((max[k] - min[k]) / cell).floor() as usize + 1);
      if d.iter().try_fold(1usize, |acc, &v| acc.checked_mul(v)).is_some_and(|c| c <= MAX_CELLS) {
        break d;
      }
      cell *= 2.0;
    };
    let cell_of = |p: &[f64; 3]| -> usize {
      let c: [usize; 3] = std::array::from_fn(|k| (((p[k] - min[k]) / cell).floor() as usize).min(dims[k] - 1));
      (c[2] * dims[1] + c[1]) * dims[0] + c[0]
    };
    let ncells = dims[0] * dims[1] * dims[2];
    let mut offsets = vec![0u32; ncells + 1];
    let cells: Vec<usize> = positions.iter().map(cell_of).collect();
    for &c in &cells {
      offsets[c + 1] += 1;
    }
    for c in 0..ncells {
      offsets[c + 1] += offsets[c];
    }
    let mut fill = offsets.clone();
    let mut entries = vec![0u32; positions.len()];
    for (i, &c) in cells.iter().enumerate() {
      entries[fill[c] as usize] = i as u32;
      fill[c] += 1;
    }
    Ok(Self { origin: min, cell, dims, offsets, entries, eids: kept_eids, positions })
  }

  pub fn len(&self) -> usize {
    self.eids.len()
  }

  pub fn is_empty(&self) -> bool {
    self.eids.is_empty()
  }

  fn query_hits(&self, q: &Query) -> Vec<Hit> {
    let mut hits = Vec::new();
    if self.eids.is_empty() {
      return hits;
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
        return hits;
      }
      lo[k] = a.max(0.0) as usize;
      hi[k] = b.min(top) as usize;
    }
    for cz in lo[2]..=hi[2] {
      for cy in lo[1]..=hi[1] {
        let row = (cz * self.dims[1] + cy) * self.dims[0];
        let start = self.offsets[row + lo[0]] as usize;
        let end = self.offsets[row + hi[0] + 1] as usize;
        for &i in &self.entries[start..end] {
          let p = self.positions[i as usize];
          let dx = p[0] - q.center[0];
          let dy = p[1] - q.center[1];
          let dz = p[2] - q.center[2];
          let d2 = dx * dx + dy * dy + dz * dz;
          if d2 <= r2 && q.self_eid != Some(self.eids[i as usize]) {
            hits.push((d2.sqrt(), i));
          }
        }
      }
    }
    hits.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    hits
  }

  /// Answers every query in parallel; per query, `(eid, distance)` sorted
  /// by distance then insertion order.
  pub fn query_batch(&self, queries: &[Query]) -> Vec<Vec<(u32, f64)>> {
    queries
      .par_iter()
      .map(|q| self.query_hits(q).into_iter().map(|(d, i)| (self.eids[i as usize], d)).collect())
      .collect()
  }
}

/// Writes batch results in the packed layout the op returns: `offsets`
/// (N + 1 entries) into `out_eids` / `out_dist`. Returns the total number
/// of results; when that exceeds the output capacity nothing but the count
/// is written, so the caller can grow its buffers and ask again.
pub fn write_results(
  results: &[Vec<(u32, f64)>],
  offsets: &mut [u32],
  out_eids: &mut [u32],
  out_dist: &mut [f64],
) -> Result<usize, OpError> {
  if offsets.len() < results.len() + 1 {
    return Err(OpError::invalid_input(format!(
      "offsets needs {} entries for {} queries, got {}",
      results.len() + 1,
      results.len(),
      offsets.len()
    )));
  }
  let total: usize = results.iter().map(Vec::len).sum();
  if total > out_eids.len() || total > out_dist.len() {
    return Ok(total);
  }
  let mut at = 0usize;
  offsets[0] = 0;
  for (q, hits) in results.iter().enumerate() {
    for &(eid, d) in hits {
      out_eids[at] = eid;
      out_dist[at] = d;
      at += 1;
    }
    offsets[q + 1] = at as u32;
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
      let got = g.query_batch(&queries);
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
    assert_eq!(g.query_batch(&[q])[0], vec![(0, 1.0), (1, 1.0), (2, 1.0)]);
    let q0 = Query { center: [0.0; 3], radius: 0.0, self_eid: None };
    assert_eq!(g.query_batch(&[q0])[0], vec![(3, 0.0)], "radius 0 finds only coincident entities");
  }

  #[test]
  fn huge_radii_and_far_queries_stay_cheap_and_correct() {
    let points = [[0.0, 0.0, 0.0], [1e6, 0.0, 0.0]];
    let g = grid(&points, 0.001);
    assert!(g.dims.iter().product::<usize>() <= MAX_CELLS);
    let all = Query { center: [0.0; 3], radius: 1e9, self_eid: None };
    assert_eq!(g.query_batch(&[all])[0].len(), 2);
    let far = Query { center: [-1e7, 0.0, 0.0], radius: 1.0, self_eid: None };
    assert!(g.query_batch(&[far])[0].is_empty());
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
    let results = vec![vec![(1, 0.5), (2, 0.7)], vec![(3, 1.0)]];
    let mut offsets = [9u32; 3];
    let mut eids = [0u32; 2];
    let mut dist = [0f64; 2];
    assert_eq!(write_results(&results, &mut offsets, &mut eids, &mut dist).unwrap(), 3);
    assert_eq!(eids, [0, 0], "nothing written when it does not fit");
    let mut eids = [0u32; 3];
    let mut dist = [0f64; 3];
    assert_eq!(write_results(&results, &mut offsets, &mut eids, &mut dist).unwrap(), 3);
    assert_eq!((offsets, eids, dist), ([0, 2, 3], [1, 2, 3], [0.5, 0.7, 1.0]));
  }
}
