//! One tile of the navmesh, baked: the static geometry under it (and a
//! border round it) rasterised into solid spans; the tops with headroom and
//! a shallow slope become floors; floors within a step of their neighbours
//! connect; floors nearer than the agent's radius to a wall or a ledge are
//! eroded away; what is left is covered with rectangles — the tile's convex
//! polygons. A tile is a pure function of its coordinates, the parameters
//! and the geometry, so rebuilding one alone gives what a whole bake gives.

use crate::geometry::Source;
use crate::math::V3;
use crate::params::NavParams;
use crate::raster::SpanGrid;

pub const NO_POLY: u16 = u16::MAX;
/// A rectangle's longest side in cells, so corridors through open ground
/// have enough polygons for A*'s distance estimates to mean something.
const MAX_RECT: usize = 32;

/// Neighbour directions: -x, +z, +x, -z.
pub const DX: [i32; 4] = [-1, 0, 1, 0];
pub const DZ: [i32; 4] = [0, 1, 0, -1];

/// A walkable floor of one column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Floor {
  pub y: f32,
  /// The underside of whatever is above (f32::MAX: open sky).
  pub ceil: f32,
  pub poly: u16,
  pub area: u8,
}

/// A polygon: a rectangle of cells (tile-local, inclusive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Poly {
  pub x0: u16,
  pub z0: u16,
  pub x1: u16,
  pub z1: u16,
  pub area: u8,
  /// Its links: `links[link_start .. link_start + link_count]` of its tile.
  pub link_start: u32,
  pub link_count: u32,
}

/// A way out of a polygon: across a shared edge (the portal `left`–`right`,
/// as seen going out) or along an off-mesh link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
  pub to: u32,
  pub left: V3,
  pub right: V3,
  /// The off-mesh link taken (`u16::MAX`: an ordinary edge).
  pub offmesh: u16,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tile {
  /// Global cell index of the tile's first column.
  pub gx0: i32,
  pub gz0: i32,
  /// Cells per side.
  pub size: usize,
  /// `floors[cols[c] .. cols[c + 1]]` are column `c`'s floors, bottom to top.
  pub cols: Vec<u32>,
  pub floors: Vec<Floor>,
  pub polys: Vec<Poly>,
  pub links: Vec<Link>,
}

impl Tile {
  pub fn column(&self, x: usize, z: usize) -> &[Floor] {
    let c = z * self.size + x;
    &self.floors[self.cols[c] as usize..self.cols[c + 1] as usize]
  }

  /// The floor of column (x, z) that belongs to `poly`.
  pub fn floor_of(&self, x: usize, z: usize, poly: u16) -> Option<&Floor> {
    self.column(x, z).iter().find(|f| f.poly == poly)
  }
}

/// Whether an agent of `params` steps from floor `a` onto floor `b` of a neighbouring column.
pub fn connects(params: &NavParams, a_y: f32, a_ceil: f32, b_y: f32, b_ceil: f32) -> bool {
  (a_y - b_y).abs() <= params.max_climb && a_ceil.min(b_ceil) - a_y.max(b_y) >= params.agent_height
}

struct Work {
  y: f32,
  ceil: f32,
  con: [u32; 4],
  dist: u16,
  area: u8,
  open: bool,
  poly: u16,
}

const NONE: u32 = u32::MAX;

/// Bakes tile (`tx`, `tz`) of a grid starting at `origin`, over `sources`.
pub fn build(params: &NavParams, origin: [f32; 2], ylim: (f32, f32), tx: i32, tz: i32, sources: &[Source<'_>], cos_slope: f32) -> Tile {
  let t = params.tile_size as usize;
  let b = params.border_cells() as usize;
  let n = t + 2 * b;
  let gx0 = tx * t as i32;
  let gz0 = tz * t as i32;
  let mut grid = SpanGrid::new(origin, params.cell_size, gx0 - b as i32, gz0 - b as i32, n, n, params.max_climb, cos_slope);
  let (wmin, wmax) = (grid.world_min(), grid.world_max());
  for s in sources {
    if s.max[0] >= wmin[0] && s.min[0] <= wmax[0] && s.max[2] >= wmin[2] && s.min[2] <= wmax[2] {
      grid.rasterize(s);
    }
  }

  // Floors: span tops with headroom, inside the baked height range.
  let mut cols = vec![0u32; n * n + 1];
  let mut work: Vec<Work> = Vec::new();
  let cs = params.cell_size;
  let mut spans = Vec::new();
  for c in 0..n * n {
    cols[c] = work.len() as u32;
    spans.clear();
    spans.extend(grid.spans(c).copied());
    for (i, s) in spans.iter().enumerate() {
      let ceil = spans.get(i + 1).map_or(f32::MAX, |a| a.lo);
      if !s.walkable || ceil - s.hi < params.agent_height || s.hi < ylim.0 || s.hi > ylim.1 {
        continue;
      }
      let (x, z) = (c % n, c / n);
      let p = [grid.line_x(grid.gx0 + x as i32) + cs * 0.5, s.hi, grid.line_z(grid.gz0 + z as i32) + cs * 0.5];
      let mut area = 0u8;
      let mut open = true;
      for (k, a) in params.areas.iter().enumerate() {
        if p[0] >= a.min[0] && p[0] <= a.max[0] && p[2] >= a.min[2] && p[2] <= a.max[2] && p[1] >= a.min[1] && p[1] <= a.max[1] {
          if a.cost.is_none() {
            open = false;
          }
          area = (k + 1) as u8;
        }
      }
      work.push(Work { y: s.hi, ceil, con: [NONE; 4], dist: u16::MAX, area, open, poly: NO_POLY });
    }
  }
  cols[n * n] = work.len() as u32;
  // Blocked floors take no part: they bound the walkable ones like walls.
  let open_of = |work: &Vec<Work>, i: u32| work[i as usize].open;

  // Connections to the neighbouring columns' floors.
  for z in 0..n {
    for x in 0..n {
      let c = z * n + x;
      for i in cols[c]..cols[c + 1] {
        if !work[i as usize].open {
          continue;
        }
        for d in 0..4 {
          let (nx, nz) = (x as i32 + DX[d], z as i32 + DZ[d]);
          if nx < 0 || nz < 0 || nx >= n as i32 || nz >= n as i32 {
            continue;
          }
          let nc = nz as usize * n + nx as usize;
          let (ay, ac) = (work[i as usize].y, work[i as usize].ceil);
          let mut best = NONE;
          let mut best_dy = f32::MAX;
          for j in cols[nc]..cols[nc + 1] {
            let w = &work[j as usize];
            if w.open && connects(params, ay, ac, w.y, w.ceil) && (w.y - ay).abs() < best_dy {
              best = j;
              best_dy = (w.y - ay).abs();
            }
          }
          work[i as usize].con[d] = best;
        }
      }
    }
  }

  // Erosion: chamfer distance (2 per side step, 3 per diagonal) to the
  // nearest floor that lacks a neighbour; nearer than the radius goes.
  for w in work.iter_mut() {
    if w.open && w.con.contains(&NONE) {
      w.dist = 0;
    }
  }
  let relax = |work: &mut Vec<Work>, i: u32, j: u32, cost: u16| {
    let v = work[j as usize].dist.saturating_add(cost);
    if v < work[i as usize].dist {
      work[i as usize].dist = v;
    }
  };
  for z in 0..n {
    for x in 0..n {
      let c = z * n + x;
      for i in cols[c]..cols[c + 1] {
        if !open_of(&work, i) {
          continue;
        }
        for (d, diag) in [(0usize, 3usize), (3, 2)] {
          let a = work[i as usize].con[d];
          if a != NONE {
            relax(&mut work, i, a, 2);
            let aa = work[a as usize].con[diag];
            if aa != NONE {
              relax(&mut work, i, aa, 3);
            }
          }
        }
      }
    }
  }
  for z in (0..n).rev() {
    for x in (0..n).rev() {
      let c = z * n + x;
      for i in cols[c]..cols[c + 1] {
        if !open_of(&work, i) {
          continue;
        }
        for (d, diag) in [(2usize, 1usize), (1, 0)] {
          let a = work[i as usize].con[d];
          if a != NONE {
            relax(&mut work, i, a, 2);
            let aa = work[a as usize].con[diag];
            if aa != NONE {
              relax(&mut work, i, aa, 3);
            }
          }
        }
      }
    }
  }
  let keep = (params.erode_cells() * 2).min(u16::MAX as u32) as u16;
  let walk = |w: &Work| w.open && w.dist >= keep;

  // Rectangles over the tile proper, greedily: along +x, then rows along +z.
  let mut polys: Vec<Poly> = Vec::new();
  for z in 0..t {
    for x in 0..t {
      let c = (z + b) * n + x + b;
      for i in cols[c]..cols[c + 1] {
        let w = &work[i as usize];
        if !walk(w) || w.poly != NO_POLY {
          continue;
        }
        let area = w.area;
        let free = |work: &Vec<Work>, j: u32| j != NONE && walk(&work[j as usize]) && work[j as usize].poly == NO_POLY && work[j as usize].area == area;
        let mut row = vec![i];
        while x + row.len() < t && row.len() < MAX_RECT {
          let next = work[*row.last().unwrap() as usize].con[2];
          if !free(&work, next) {
            break;
          }
          row.push(next);
        }
        let mut rows = vec![row];
        'grow: while z + rows.len() < t && rows.len() < MAX_RECT {
          let above = rows.last().unwrap();
          let mut next_row = Vec::with_capacity(above.len());
          for (k, &cell) in above.iter().enumerate() {
            let g = work[cell as usize].con[1];
            if !free(&work, g) || (k > 0 && work[next_row[k - 1] as usize].con[2] != g) {
              break 'grow;
            }
            next_row.push(g);
          }
          rows.push(next_row);
        }
        let id = polys.len() as u16;
        for r in &rows {
          for &j in r {
            work[j as usize].poly = id;
          }
        }
        polys.push(Poly {
          x0: x as u16,
          z0: z as u16,
          x1: (x + rows[0].len() - 1) as u16,
          z1: (z + rows.len() - 1) as u16,
          area,
          link_start: 0,
          link_count: 0,
        });
        if polys.len() >= NO_POLY as usize {
          break;
        }
      }
    }
  }

  // Keep the tile proper's floors that carry a polygon.
  let mut tile = Tile { gx0, gz0, size: t, cols: vec![0; t * t + 1], floors: Vec::new(), polys, links: Vec::new() };
  for z in 0..t {
    for x in 0..t {
      tile.cols[z * t + x] = tile.floors.len() as u32;
      let c = (z + b) * n + x + b;
      for i in cols[c]..cols[c + 1] {
        let w = &work[i as usize];
        if w.poly != NO_POLY {
          tile.floors.push(Floor { y: w.y, ceil: w.ceil, poly: w.poly, area: w.area });
        }
      }
    }
  }
  tile.cols[t * t] = tile.floors.len() as u32;
  tile
}
