//! Rasterising geometry into a column grid: every triangle is clipped
//! against each cell's square (so a wall thinner than a cell still fills
//! every cell it touches), and each column keeps its solid spans, bottom to
//! top, with whether the top of each is a walkable surface.

use crate::geometry::{self, Source, SourceShape};
use crate::math::{self, V3};

const NONE: u32 = u32::MAX;

/// A solid interval of one column.
#[derive(Clone, Copy, Debug)]
pub struct Span {
  pub lo: f32,
  pub hi: f32,
  /// Whether the top is a floor shallow enough to walk on.
  pub walkable: bool,
  next: u32,
}

/// A rectangle of columns on the world grid, with each column's spans.
pub struct SpanGrid {
  /// The world grid's origin (x, z) and cell size.
  pub origin: [f32; 2],
  pub cs: f32,
  /// Global cell index of column (0, 0).
  pub gx0: i32,
  pub gz0: i32,
  pub w: usize,
  pub h: usize,
  heads: Vec<u32>,
  pool: Vec<Span>,
  /// Spans whose tops lie within this of each other merge their walkable flags.
  climb: f32,
  cos_slope: f32,
}

impl SpanGrid {
  pub fn new(origin: [f32; 2], cs: f32, gx0: i32, gz0: i32, w: usize, h: usize, climb: f32, cos_slope: f32) -> Self {
    Self { origin, cs, gx0, gz0, w, h, heads: vec![NONE; w * h], pool: Vec::with_capacity(w * h), climb, cos_slope }
  }

  /// World x of the west edge of global column `gx` (the same bits whichever tile asks).
  #[inline]
  pub fn line_x(&self, gx: i32) -> f32 {
    self.origin[0] + gx as f32 * self.cs
  }

  #[inline]
  pub fn line_z(&self, gz: i32) -> f32 {
    self.origin[1] + gz as f32 * self.cs
  }

  /// The world box the grid covers (x, z).
  pub fn world_min(&self) -> V3 {
    [self.line_x(self.gx0), f32::MIN, self.line_z(self.gz0)]
  }

  pub fn world_max(&self) -> V3 {
    [self.line_x(self.gx0 + self.w as i32), f32::MAX, self.line_z(self.gz0 + self.h as i32)]
  }

  /// The spans of column `c`, bottom to top.
  pub fn spans(&self, c: usize) -> impl Iterator<Item = &Span> {
    let mut i = self.heads[c];
    std::iter::from_fn(move || {
      if i == NONE {
        return None;
      }
      let s = &self.pool[i as usize];
      i = s.next;
      Some(s)
    })
  }

  /// Adds a solid span to column `c`, merging it with the spans it touches.
  pub fn add(&mut self, c: usize, mut lo: f32, mut hi: f32, mut walkable: bool) {
    let mut prev = NONE;
    let mut cur = self.heads[c];
    while cur != NONE {
      let s = self.pool[cur as usize];
      if s.lo > hi {
        break;
      }
      if s.hi < lo {
        prev = cur;
        cur = s.next;
        continue;
      }
      // Overlapping: the merged top keeps the flag of the higher top, or
      // either's when the two are within a step of each other.
      if s.hi > hi + self.climb {
        walkable = s.walkable;
      } else if hi <= s.hi + self.climb {
        walkable |= s.walkable;
      }
      lo = lo.min(s.lo);
      hi = hi.max(s.hi);
      let next = s.next;
      if prev == NONE {
        self.heads[c] = next;
      } else {
        self.pool[prev as usize].next = next;
      }
      cur = next;
    }
    let idx = self.pool.len() as u32;
    let next = if prev == NONE { self.heads[c] } else { self.pool[prev as usize].next };
    self.pool.push(Span { lo, hi, walkable, next });
    if prev == NONE {
      self.heads[c] = idx;
    } else {
      self.pool[prev as usize].next = idx;
    }
  }

  /// Whether a triangle with this (any-length) upward normal is walkable.
  fn walkable_normal(&self, n: V3) -> bool {
    n[1] > 0.0 && n[1] >= self.cos_slope * math::len(n)
  }

  /// Clips `tri` against every cell it overlaps; calls `f(column, ymin, ymax)`.
  pub fn clip_triangle(&self, tri: &[V3; 3], mut f: impl FnMut(usize, f32, f32)) {
    let (mut lo, mut hi) = (tri[0], tri[0]);
    for v in &tri[1..] {
      for k in 0..3 {
        lo[k] = lo[k].min(v[k]);
        hi[k] = hi[k].max(v[k]);
      }
    }
    let wmin = self.world_min();
    let wmax = self.world_max();
    if hi[0] < wmin[0] || lo[0] > wmax[0] || hi[2] < wmin[2] || lo[2] > wmax[2] {
      return;
    }
    let inv = 1.0 / self.cs;
    let gz_lo = ((lo[2] - self.origin[1]) * inv).floor() as i64;
    let gz_hi = ((hi[2] - self.origin[1]) * inv).floor() as i64;
    let z0 = (gz_lo - self.gz0 as i64).clamp(-1, self.h as i64 - 1);
    let z1 = (gz_hi - self.gz0 as i64).clamp(0, self.h as i64 - 1);
    // The part above the last cut, in one of two buffers (no copies of whole polygons per cell).
    let mut rest = [Poly::from(tri), Poly::EMPTY];
    let mut rest_at = 0;
    let mut row = Poly::EMPTY;
    let mut row_rest = [Poly::EMPTY, Poly::EMPTY];
    let mut cell = Poly::EMPTY;
    for z in z0..=z1 {
      let cut = self.line_z(self.gz0 + z as i32 + 1);
      let [a, b] = &mut rest;
      let (from, into) = if rest_at == 0 { (&*a, b) } else { (&*b, a) };
      from.split(cut, 2, &mut row, into);
      rest_at ^= 1;
      if row.n < 3 || z < 0 {
        continue;
      }
      let (rlo, rhi) = row.range(0);
      let gx_lo = ((rlo - self.origin[0]) * inv).floor() as i64;
      let gx_hi = ((rhi - self.origin[0]) * inv).floor() as i64;
      let x0 = (gx_lo - self.gx0 as i64).clamp(-1, self.w as i64 - 1);
      let x1 = (gx_hi - self.gx0 as i64).clamp(0, self.w as i64 - 1);
      row_rest[0] = row;
      let mut row_at = 0;
      for x in x0..=x1 {
        let cut = self.line_x(self.gx0 + x as i32 + 1);
        let [a, b] = &mut row_rest;
        let (from, into) = if row_at == 0 { (&*a, b) } else { (&*b, a) };
        from.split(cut, 0, &mut cell, into);
        row_at ^= 1;
        if cell.n < 3 || x < 0 {
          continue;
        }
        let (ymin, ymax) = cell.range(1);
        f(z as usize * self.w + x as usize, ymin, ymax);
      }
    }
  }

  /// Rasterises one source.
  pub fn rasterize(&mut self, source: &Source<'_>) {
    match &source.shape {
      SourceShape::Convex { triangles, center } => self.rasterize_convex(triangles, *center),
      SourceShape::TriMesh { .. } => {
        let mut tris = Vec::new();
        geometry::surface_triangles(&source.shape, self.world_min(), self.world_max(), |t| tris.push(t));
        let mut cells = Vec::new();
        for tri in &tris {
          let n = math::cross(math::sub(tri[1], tri[0]), math::sub(tri[2], tri[0]));
          let walkable = self.walkable_normal(n);
          cells.clear();
          self.clip_triangle(tri, |c, lo, hi| cells.push((c, lo, hi)));
          for &(c, lo, hi) in &cells {
            self.add(c, lo, hi, walkable);
          }
        }
      }
      SourceShape::HeightField { bottom, .. } => {
        let mut tris = Vec::new();
        geometry::surface_triangles(&source.shape, self.world_min(), self.world_max(), |t| tris.push(t));
        let bottom = *bottom;
        let mut cells = Vec::new();
        for tri in &tris {
          let mut n = math::cross(math::sub(tri[1], tri[0]), math::sub(tri[2], tri[0]));
          // A terrain's surface faces up, whatever its triangles' winding.
          if n[1] < 0.0 {
            n = math::scale(n, -1.0);
          }
          let walkable = self.walkable_normal(n);
          cells.clear();
          self.clip_triangle(tri, |c, _, hi| cells.push((c, hi)));
          for &(c, hi) in &cells {
            self.add(c, bottom.min(hi), hi, walkable);
          }
        }
      }
      SourceShape::HalfSpace { point, normal } => {
        if normal[1] <= 0.0 {
          return;
        }
        let walkable = self.walkable_normal(*normal);
        // Solid below the plane: each column's top is the plane's highest point over the cell.
        for z in 0..self.h {
          for x in 0..self.w {
            let mut top = f32::MIN;
            for (dx, dz) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
              let px = self.line_x(self.gx0 + (x + dx) as i32);
              let pz = self.line_z(self.gz0 + (z + dz) as i32);
              let y = point[1] - (normal[0] * (px - point[0]) + normal[2] * (pz - point[2])) / normal[1];
              top = top.max(y);
            }
            if top.is_finite() {
              self.add(z * self.w + x, top - 1e4, top, walkable);
            }
          }
        }
      }
    }
  }

  /// A convex solid fills, in each column it touches, one interval from its
  /// lowest to its highest point over the cell.
  fn rasterize_convex(&mut self, triangles: &[[V3; 3]], center: V3) {
    let mut cells: Vec<(usize, f32, f32, f32)> = Vec::new();
    let mut slot = std::collections::HashMap::<usize, usize>::new();
    for tri in triangles {
      let mut n = math::cross(math::sub(tri[1], tri[0]), math::sub(tri[2], tri[0]));
      let c = math::scale(math::add(math::add(tri[0], tri[1]), tri[2]), 1.0 / 3.0);
      if math::dot(n, math::sub(c, center)) < 0.0 {
        n = math::scale(n, -1.0);
      }
      let walkable = self.walkable_normal(n);
      self.clip_triangle(tri, |col, lo, hi| {
        let i = *slot.entry(col).or_insert_with(|| {
          cells.push((col, f32::MAX, f32::MIN, f32::MIN));
          cells.len() - 1
        });
        let e = &mut cells[i];
        e.1 = e.1.min(lo);
        e.2 = e.2.max(hi);
        if walkable {
          e.3 = e.3.max(hi);
        }
      });
    }
    for (col, lo, hi, walk_hi) in cells {
      self.add(col, lo, hi, walk_hi >= hi - self.climb);
    }
  }
}

/// A convex polygon of at most 12 vertices (a triangle clipped by two strips has at most 7).
#[derive(Clone, Copy)]
struct Poly {
  v: [V3; 12],
  n: usize,
}

impl Poly {
  const EMPTY: Poly = Poly { v: [[0.0; 3]; 12], n: 0 };

  fn from(tri: &[V3; 3]) -> Self {
    let mut v = [[0.0; 3]; 12];
    v[..3].copy_from_slice(tri);
    Poly { v, n: 3 }
  }

  fn range(&self, axis: usize) -> (f32, f32) {
    let mut lo = f32::MAX;
    let mut hi = f32::MIN;
    for p in &self.v[..self.n] {
      lo = lo.min(p[axis]);
      hi = hi.max(p[axis]);
    }
    (lo, hi)
  }

  /// The parts below and above `at` on `axis`, written into `below` and `above`.
  fn split(&self, at: f32, axis: usize, below: &mut Poly, above: &mut Poly) {
    below.n = 0;
    above.n = 0;
    if self.n == 0 {
      return;
    }
    let d: [f32; 12] = std::array::from_fn(|i| if i < self.n { at - self.v[i][axis] } else { 0.0 });
    let mut j = self.n - 1;
    for i in 0..self.n {
      let (a, b) = (self.v[j], self.v[i]);
      if (d[j] >= 0.0) != (d[i] >= 0.0) {
        let p = math::lerp(a, b, d[j] / (d[j] - d[i]));
        below.push(p);
        above.push(p);
        // A vertex on the line was just added to both sides as the crossing.
        if d[i] > 0.0 {
          below.push(b);
        } else if d[i] < 0.0 {
          above.push(b);
        }
      } else if d[i] >= 0.0 {
        below.push(b);
        if d[i] == 0.0 {
          above.push(b);
        }
      } else {
        above.push(b);
      }
      j = i;
    }
  }

  fn push(&mut self, p: V3) {
    if self.n < 12 {
      self.v[self.n] = p;
      self.n += 1;
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_thin_wall_fills_every_cell_it_crosses() {
    let mut g = SpanGrid::new([0.0, 0.0], 1.0, 0, 0, 4, 4, 0.4, 0.7);
    // A wall 0.1 m thick at x = 1.45..1.55, from z = 0 to 4, 2 m high: only column x = 1 holds it.
    let mut tris = Vec::new();
    let pose = crate::geometry::PoseF { rotation: [0.0, 0.0, 0.0, 1.0], translation: [1.5, 1.0, 2.0] };
    crate::geometry::cuboid(&pose, [0.05, 1.0, 2.0], &mut tris);
    g.rasterize_convex(&tris, [1.5, 1.0, 2.0]);
    for z in 0..4 {
      for x in 0..4 {
        let spans: Vec<_> = g.spans(z * 4 + x).map(|s| (s.lo, s.hi, s.walkable)).collect();
        if x == 1 {
          assert_eq!(spans, vec![(0.0, 2.0, true)], "column {x},{z}");
        } else {
          assert!(spans.is_empty(), "column {x},{z}: {spans:?}");
        }
      }
    }
  }

  #[test]
  fn spans_merge_and_keep_the_higher_tops_flag() {
    let mut g = SpanGrid::new([0.0, 0.0], 1.0, 0, 0, 1, 1, 0.4, 0.7);
    g.add(0, 0.0, 1.0, true);
    g.add(0, 3.0, 4.0, true);
    assert_eq!(g.spans(0).count(), 2);
    g.add(0, 0.5, 2.0, false);
    let s: Vec<_> = g.spans(0).map(|s| (s.lo, s.hi, s.walkable)).collect();
    assert_eq!(s, vec![(0.0, 2.0, false), (3.0, 4.0, true)]);
    g.add(0, 1.0, 2.2, true);
    let s: Vec<_> = g.spans(0).map(|s| (s.lo, s.hi, s.walkable)).collect();
    assert_eq!(s, vec![(0.0, 2.2, true), (3.0, 4.0, true)], "tops within a step share walkability");
  }
}
