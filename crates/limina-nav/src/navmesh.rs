//! The navmesh: a grid of tiles over the baked region, each tile's polygons
//! linked to their neighbours (across tile edges too) and to off-mesh
//! links; point location; and local rebuilds — a refresh compares every
//! static collider's fingerprint with the one baked and rebuilds only the
//! tiles under what appeared, moved, changed or went away.

use std::collections::BTreeMap;

use limina_ops::OpError;
use limina_physics::PhysicsWorld;
use rayon::prelude::*;

use crate::geometry::{self, Fnv, Source};
use crate::math::{self, V3};
use crate::params::{Bounds, NavParams, MAX_TILES};
use crate::tile::{self, Link, Tile, DX, DZ, NO_POLY};

/// A polygon's address: tile index (16 bits) and polygon index in it (16 bits).
pub type PolyRef = u32;

pub fn poly_ref(tile: usize, poly: u16) -> PolyRef {
  ((tile as u32) << 16) | poly as u32
}

pub fn split_ref(r: PolyRef) -> (usize, u16) {
  ((r >> 16) as usize, (r & 0xffff) as u16)
}

/// An off-mesh link placed on the mesh: the polygons at its ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedLink {
  pub from: V3,
  pub to: V3,
  pub from_poly: PolyRef,
  pub to_poly: PolyRef,
  pub cost: f32,
  pub bidirectional: bool,
}

/// Cells `a..=b` along a polygon's side whose neighbour is `to`, with the floor heights at both ends.
#[derive(Clone, Copy)]
struct Run {
  to: PolyRef,
  a: i32,
  b: i32,
  ya: f32,
  yb: f32,
}

/// What a bake saw of one collider.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Seen {
  fingerprint: u64,
  min: V3,
  max: V3,
}

/// Where a query point lies on the mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Located {
  pub poly: PolyRef,
  /// The nearest point of that polygon.
  pub point: V3,
}

pub struct NavMesh {
  pub params: NavParams,
  /// The grid's origin (x, z), a whole number of cells.
  pub origin: [f32; 2],
  pub bounds: Bounds,
  pub tiles_x: usize,
  pub tiles_z: usize,
  pub tiles: Vec<Tile>,
  pub links: Vec<PlacedLink>,
  seen: BTreeMap<u64, Seen>,
  cos_slope: f32,
  /// Bumped by every rebuild.
  pub revision: u64,
  /// The revision at which each tile was last rebuilt.
  pub tile_revision: Vec<u64>,
  /// Dense numbering of polygons for searches: tile `t`'s polygons start at `poly_base[t]`.
  pub poly_base: Vec<u32>,
  pub poly_count: u32,
  /// Islands: polygons joined by any link share a label (dense numbering).
  islands: Vec<u32>,
}

/// How far (m) off-mesh link ends and query points may lie from the mesh.
pub const LINK_REACH: f32 = 1.5;

fn seen_of(sources: &[Source<'_>]) -> BTreeMap<u64, Seen> {
  let mut out: BTreeMap<u64, Seen> = BTreeMap::new();
  for s in sources {
    out
      .entry(s.key)
      .and_modify(|e| {
        let mut h = Fnv(e.fingerprint);
        h.word(s.fingerprint as u32);
        h.word((s.fingerprint >> 32) as u32);
        e.fingerprint = h.0;
        for k in 0..3 {
          e.min[k] = e.min[k].min(s.min[k]);
          e.max[k] = e.max[k].max(s.max[k]);
        }
      })
      .or_insert(Seen { fingerprint: s.fingerprint, min: s.min, max: s.max });
  }
  out
}

impl NavMesh {
  /// Bakes a whole navmesh over `world`'s static colliders.
  pub fn bake(world: &PhysicsWorld, params: NavParams) -> Result<NavMesh, OpError> {
    Self::bake_from(&geometry::static_sources(world, true), params)
  }

  /// Bakes a whole navmesh over `sources`.
  pub fn bake_from(sources: &[Source<'_>], params: NavParams) -> Result<NavMesh, OpError> {
    params.validate()?;
    let bounds = match params.bounds {
      Some(b) => b,
      None => {
        let mut b = Bounds { min: [f32::MAX; 3], max: [f32::MIN; 3] };
        for s in sources.iter().filter(|s| s.min.iter().chain(s.max.iter()).all(|c| c.is_finite() && c.abs() < 1e5)) {
          for k in 0..3 {
            b.min[k] = b.min[k].min(s.min[k]);
            b.max[k] = b.max[k].max(s.max[k]);
          }
        }
        if b.min[0] > b.max[0] {
          return Err(OpError::invalid_input("nothing to bake: the world has no static colliders (give bounds to bake a region anyway)"));
        }
        // Room to stand on the highest floor.
        b.max[1] += params.agent_height;
        b
      }
    };
    let cs = params.cell_size;
    let origin = [(bounds.min[0] / cs).floor() * cs, (bounds.min[2] / cs).floor() * cs];
    let span = params.tile_size as f32 * cs;
    let tiles_x = (((bounds.max[0] - origin[0]) / span).ceil() as usize).max(1);
    let tiles_z = (((bounds.max[2] - origin[1]) / span).ceil() as usize).max(1);
    if tiles_x.saturating_mul(tiles_z) > MAX_TILES {
      return Err(OpError::capacity_exceeded(format!(
        "a {tiles_x}×{tiles_z}-tile navmesh is more than {MAX_TILES} tiles: bake a smaller region or use larger cells or tiles"
      )));
    }
    let mut mesh = NavMesh {
      cos_slope: math::cos_degrees(params.max_slope),
      params,
      origin,
      bounds,
      tiles_x,
      tiles_z,
      tiles: vec![Tile::default(); tiles_x * tiles_z],
      links: Vec::new(),
      seen: seen_of(sources),
      revision: 1,
      tile_revision: vec![1; tiles_x * tiles_z],
      poly_base: Vec::new(),
      poly_count: 0,
      islands: Vec::new(),
    };
    let all: Vec<usize> = (0..mesh.tiles.len()).collect();
    mesh.tiles = mesh.build_tiles(&all, sources);
    for t in 0..mesh.tiles.len() {
      mesh.link_tile(t);
    }
    mesh.finish();
    Ok(mesh)
  }

  /// Builds tiles `ts` on the rayon pool. Each tile is a pure function of the sources and its
  /// index, and the results come back in `ts`'s order: the same bits as building them one by one.
  fn build_tiles(&self, ts: &[usize], sources: &[Source<'_>]) -> Vec<Tile> {
    ts.par_iter().map(|&t| self.build_tile(t, sources)).collect()
  }

  fn build_tile(&self, t: usize, sources: &[Source<'_>]) -> Tile {
    let (tx, tz) = ((t % self.tiles_x) as i32, (t / self.tiles_x) as i32);
    tile::build(&self.params, self.origin, (self.bounds.min[1], self.bounds.max[1]), tx, tz, sources, self.cos_slope)
  }

  /// The tile index under a world point, if inside the grid.
  pub fn tile_at(&self, x: f32, z: f32) -> Option<usize> {
    let span = self.params.tile_size as f32 * self.params.cell_size;
    let tx = ((x - self.origin[0]) / span).floor();
    let tz = ((z - self.origin[1]) / span).floor();
    if tx < 0.0 || tz < 0.0 || tx >= self.tiles_x as f32 || tz >= self.tiles_z as f32 {
      return None;
    }
    Some(tz as usize * self.tiles_x + tx as usize)
  }

  /// The global cell under a world point.
  pub fn cell_at(&self, x: f32, z: f32) -> (i32, i32) {
    let cs = self.params.cell_size;
    (((x - self.origin[0]) / cs).floor() as i32, ((z - self.origin[1]) / cs).floor() as i32)
  }

  /// Tile index and local column of global cell (gx, gz), if inside the grid.
  pub fn cell_home(&self, gx: i32, gz: i32) -> Option<(usize, usize, usize)> {
    let t = self.params.tile_size as i32;
    if gx < 0 || gz < 0 {
      return None;
    }
    let (tx, tz) = ((gx / t) as usize, (gz / t) as usize);
    if tx >= self.tiles_x || tz >= self.tiles_z {
      return None;
    }
    Some((tz * self.tiles_x + tx, (gx % t) as usize, (gz % t) as usize))
  }

  pub fn line_x(&self, gx: i32) -> f32 {
    self.origin[0] + gx as f32 * self.params.cell_size
  }

  pub fn line_z(&self, gz: i32) -> f32 {
    self.origin[1] + gz as f32 * self.params.cell_size
  }

  /// Links every polygon of tile `t` to its neighbours (in `t` or the next tiles).
  fn link_tile(&mut self, t: usize) {
    let mut links: Vec<Link> = Vec::new();
    let mut ranges = Vec::with_capacity(self.tiles[t].polys.len());
    let tile = &self.tiles[t];
    for (p, poly) in tile.polys.iter().enumerate() {
      let start = links.len();
      for d in 0..4 {
        // The cells along side d, in increasing x or z.
        let (fixed, lo, hi) = match d {
          0 => (poly.x0 as i32, poly.z0 as i32, poly.z1 as i32),
          2 => (poly.x1 as i32, poly.z0 as i32, poly.z1 as i32),
          1 => (poly.z1 as i32, poly.x0 as i32, poly.x1 as i32),
          _ => (poly.z0 as i32, poly.x0 as i32, poly.x1 as i32),
        };
        // Consecutive cells with the same neighbour polygon share one portal.
        let mut run: Option<Run> = None;
        for k in lo..=hi {
          let (x, z) = if d == 0 || d == 2 { (fixed, k) } else { (k, fixed) };
          let here = tile.floor_of(x as usize, z as usize, p as u16).copied();
          match here.and_then(|f| self.neighbour(t, x, z, d, f.y, f.ceil)) {
            Some((to, y)) => {
              if let Some(r) = run.as_mut() {
                if r.to == to {
                  r.b = k;
                  r.yb = y;
                  continue;
                }
                links.push(self.portal(t, d, fixed, r));
              }
              run = Some(Run { to, a: k, b: k, ya: y, yb: y });
            }
            None => {
              if let Some(r) = run.take() {
                links.push(self.portal(t, d, fixed, &r));
              }
            }
          }
        }
        if let Some(r) = run.take() {
          links.push(self.portal(t, d, fixed, &r));
        }
      }
      ranges.push((start as u32, (links.len() - start) as u32));
    }
    let tile = &mut self.tiles[t];
    for (poly, (s, c)) in tile.polys.iter_mut().zip(ranges) {
      poly.link_start = s;
      poly.link_count = c;
    }
    tile.links = links;
  }

  /// The polygon and floor height across side `d` of local cell (x, z) of tile `t`, from a floor at `y`.
  fn neighbour(&self, t: usize, x: i32, z: i32, d: usize, y: f32, ceil: f32) -> Option<(PolyRef, f32)> {
    let tile = &self.tiles[t];
    let (gx, gz) = (tile.gx0 + x + DX[d], tile.gz0 + z + DZ[d]);
    let (nt, nx, nz) = self.cell_home(gx, gz)?;
    let mut best: Option<(PolyRef, f32)> = None;
    for f in self.tiles[nt].column(nx, nz) {
      if f.poly != NO_POLY && tile::connects(&self.params, y, ceil, f.y, f.ceil) && best.is_none_or(|b| (f.y - y).abs() < (b.1 - y).abs()) {
        best = Some((poly_ref(nt, f.poly), f.y));
      }
    }
    best.map(|(r, fy)| (r, (fy + y) * 0.5))
  }

  /// The portal of side `d` over cells `a..=b` along it, as seen going out.
  fn portal(&self, t: usize, d: usize, fixed: i32, run: &Run) -> Link {
    let Run { to, a, b, ya, yb } = *run;
    let tile = &self.tiles[t];
    let (p, q) = match d {
      0 | 2 => {
        let x = self.line_x(tile.gx0 + fixed + if d == 2 { 1 } else { 0 });
        ([x, ya, self.line_z(tile.gz0 + a)], [x, yb, self.line_z(tile.gz0 + b + 1)])
      }
      _ => {
        let z = self.line_z(tile.gz0 + fixed + if d == 1 { 1 } else { 0 });
        ([self.line_x(tile.gx0 + a), ya, z], [self.line_x(tile.gx0 + b + 1), yb, z])
      }
    };
    // p is the low end along the side. Facing out across -x, +z is on the
    // left; across +x, -z; across +z, +x; across -z, -x.
    let (left, right) = match d {
      0 => (q, p),
      2 => (p, q),
      1 => (q, p),
      _ => (p, q),
    };
    Link { to, left, right, offmesh: u16::MAX }
  }

  /// After tiles change: dense numbering, off-mesh links placed anew, islands.
  fn finish(&mut self) {
    self.poly_base.clear();
    let mut n = 0u32;
    for tile in &self.tiles {
      self.poly_base.push(n);
      n += tile.polys.len() as u32;
    }
    self.poly_count = n;
    self.place_links();
    self.label_islands();
  }

  fn place_links(&mut self) {
    // Remove the previous placement's off-mesh links from the tiles first.
    for tile in &mut self.tiles {
      if tile.links.iter().any(|l| l.offmesh != u16::MAX) {
        let mut rebuilt = Vec::with_capacity(tile.links.len());
        for p in tile.polys.iter_mut() {
          let start = rebuilt.len() as u32;
          rebuilt.extend(tile.links[p.link_start as usize..(p.link_start + p.link_count) as usize].iter().filter(|l| l.offmesh == u16::MAX));
          p.link_start = start;
          p.link_count = rebuilt.len() as u32 - start;
        }
        tile.links = rebuilt;
      }
    }
    self.links.clear();
    let reach = [LINK_REACH, LINK_REACH * 2.0, LINK_REACH];
    let mut extra: BTreeMap<PolyRef, Vec<Link>> = BTreeMap::new();
    for (i, l) in self.params.links.clone().iter().enumerate() {
      let (Some(a), Some(b)) = (self.locate(l.from, reach), self.locate(l.to, reach)) else { continue };
      let cost = l.cost.unwrap_or_else(|| math::dist(a.point, b.point));
      self.links.push(PlacedLink { from: a.point, to: b.point, from_poly: a.poly, to_poly: b.poly, cost, bidirectional: l.bidirectional });
      extra.entry(a.poly).or_default().push(Link { to: b.poly, left: a.point, right: a.point, offmesh: i as u16 });
      if l.bidirectional {
        extra.entry(b.poly).or_default().push(Link { to: a.poly, left: b.point, right: b.point, offmesh: i as u16 });
      }
    }
    if extra.is_empty() {
      return;
    }
    // Append each polygon's off-mesh links after its edges, keeping the order fixed.
    for (t, tile) in self.tiles.iter_mut().enumerate() {
      if !extra.keys().any(|&r| split_ref(r).0 == t) {
        continue;
      }
      let mut rebuilt = Vec::with_capacity(tile.links.len() + 4);
      for (p, poly) in tile.polys.iter_mut().enumerate() {
        let start = rebuilt.len() as u32;
        rebuilt.extend_from_slice(&tile.links[poly.link_start as usize..(poly.link_start + poly.link_count) as usize]);
        if let Some(more) = extra.get(&poly_ref(t, p as u16)) {
          rebuilt.extend_from_slice(more);
        }
        poly.link_start = start;
        poly.link_count = rebuilt.len() as u32 - start;
      }
      tile.links = rebuilt;
    }
  }

  fn label_islands(&mut self) {
    let n = self.poly_count as usize;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(p: &mut [u32], mut i: u32) -> u32 {
      while p[i as usize] != i {
        p[i as usize] = p[p[i as usize] as usize];
        i = p[i as usize];
      }
      i
    }
    for (t, tile) in self.tiles.iter().enumerate() {
      for (p, poly) in tile.polys.iter().enumerate() {
        let a = self.poly_base[t] + p as u32;
        for l in &tile.links[poly.link_start as usize..(poly.link_start + poly.link_count) as usize] {
          let (bt, bp) = split_ref(l.to);
          let b = self.poly_base[bt] + bp as u32;
          let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
          if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            parent[hi as usize] = lo;
          }
        }
      }
    }
    self.islands = (0..n as u32).map(|i| find(&mut parent, i)).collect();
  }

  /// Dense index of a polygon reference.
  pub fn dense(&self, r: PolyRef) -> usize {
    let (t, p) = split_ref(r);
    (self.poly_base[t] + p as u32) as usize
  }

  /// Whether some chain of links joins the two polygons.
  pub fn same_island(&self, a: PolyRef, b: PolyRef) -> bool {
    self.islands[self.dense(a)] == self.islands[self.dense(b)]
  }

  pub fn poly(&self, r: PolyRef) -> Option<&tile::Poly> {
    let (t, p) = split_ref(r);
    self.tiles.get(t)?.polys.get(p as usize)
  }

  pub fn links_of(&self, r: PolyRef) -> &[Link] {
    let (t, p) = split_ref(r);
    let tile = &self.tiles[t];
    let poly = &tile.polys[p as usize];
    &tile.links[poly.link_start as usize..(poly.link_start + poly.link_count) as usize]
  }

  /// The world rectangle (x0, z0, x1, z1) of a polygon.
  pub fn rect(&self, r: PolyRef) -> [f32; 4] {
    let (t, p) = split_ref(r);
    let tile = &self.tiles[t];
    let poly = &tile.polys[p as usize];
    [
      self.line_x(tile.gx0 + poly.x0 as i32),
      self.line_z(tile.gz0 + poly.z0 as i32),
      self.line_x(tile.gx0 + poly.x1 as i32 + 1),
      self.line_z(tile.gz0 + poly.z1 as i32 + 1),
    ]
  }

  /// The floor height of polygon `r` at (x, z) (clamped into it).
  pub fn height(&self, r: PolyRef, x: f32, z: f32) -> f32 {
    let (t, p) = split_ref(r);
    let tile = &self.tiles[t];
    let poly = &tile.polys[p as usize];
    let (gx, gz) = self.cell_at(x, z);
    let lx = (gx - tile.gx0).clamp(poly.x0 as i32, poly.x1 as i32) as usize;
    let lz = (gz - tile.gz0).clamp(poly.z0 as i32, poly.z1 as i32) as usize;
    tile.floor_of(lx, lz, p).map_or(0.0, |f| f.y)
  }

  /// The polygon nearest `p` within `reach` (half extents x, y, z), and its nearest point.
  pub fn locate(&self, p: V3, reach: [f32; 3]) -> Option<Located> {
    let cs = self.params.cell_size;
    let (cx, cz) = self.cell_at(p[0], p[2]);
    let rings = (reach[0].max(reach[2]) / cs).ceil() as i32;
    let mut best: Option<(f32, PolyRef)> = None;
    for ring in 0..=rings {
      // Once a hit is nearer than this ring could be, stop.
      if let Some((d2, _)) = best {
        let gap = (ring - 1).max(0) as f32 * cs;
        if gap * gap > d2 {
          break;
        }
      }
      for gz in cz - ring..=cz + ring {
        for gx in cx - ring..=cx + ring {
          if (gx - cx).abs() != ring && (gz - cz).abs() != ring {
            continue;
          }
          let Some((t, lx, lz)) = self.cell_home(gx, gz) else { continue };
          let x0 = self.line_x(gx);
          let z0 = self.line_z(gz);
          let qx = p[0].clamp(x0, x0 + cs);
          let qz = p[2].clamp(z0, z0 + cs);
          // Every floor of this column is at least this far (squared) from p:
          // when that is already beyond the best, none of them can win.
          let h2 = (qx - p[0]) * (qx - p[0]) + (qz - p[2]) * (qz - p[2]);
          if best.is_some_and(|(bd, _)| h2 > bd) {
            continue;
          }
          for f in self.tiles[t].column(lx, lz) {
            let dy = f.y - p[1];
            if dy.abs() > reach[1] {
              continue;
            }
            let d2 = (qx - p[0]) * (qx - p[0]) + (qz - p[2]) * (qz - p[2]) + dy * dy;
            let r = poly_ref(t, f.poly);
            if best.is_none_or(|(bd, br)| d2 < bd || (d2 == bd && r < br)) {
              best = Some((d2, r));
            }
          }
        }
      }
    }
    let (_, poly) = best?;
    let [x0, z0, x1, z1] = self.rect(poly);
    // Just inside the rectangle, so the point's own cell is the polygon's.
    let e = cs * 1e-3;
    let x = p[0].clamp(x0 + e, x1 - e);
    let z = p[2].clamp(z0 + e, z1 - e);
    Some(Located { poly, point: [x, self.height(poly, x, z), z] })
  }

  /// Rebuilds the tiles under every static collider that changed since the
  /// last bake or refresh. Returns the rebuilt tiles, in index order.
  pub fn refresh(&mut self, world: &PhysicsWorld) -> Vec<usize> {
    self.refresh_from(&geometry::static_sources(world, false), || geometry::static_sources(world, true))
  }

  /// `refresh` over sources: `probe` for the comparison (fingerprints and
  /// bounds), `full` (tessellated) only when something changed.
  pub fn refresh_from<'a>(&mut self, probe: &[Source<'_>], full: impl FnOnce() -> Vec<Source<'a>>) -> Vec<usize> {
    let now = seen_of(probe);
    if now == self.seen {
      return Vec::new();
    }
    let mut boxes: Vec<(V3, V3)> = Vec::new();
    for (k, s) in &now {
      match self.seen.get(k) {
        Some(old) if old == s => {}
        Some(old) => {
          boxes.push((old.min, old.max));
          boxes.push((s.min, s.max));
        }
        None => boxes.push((s.min, s.max)),
      }
    }
    for (k, old) in &self.seen {
      if !now.contains_key(k) {
        boxes.push((old.min, old.max));
      }
    }
    self.seen = now;
    let margin = self.params.border_cells() as f32 * self.params.cell_size;
    let span = self.params.tile_size as f32 * self.params.cell_size;
    let mut dirty = vec![false; self.tiles.len()];
    for (min, max) in boxes {
      let lo_x = (((min[0] - margin - self.origin[0]) / span).floor().max(0.0)) as usize;
      let lo_z = (((min[2] - margin - self.origin[1]) / span).floor().max(0.0)) as usize;
      let hi_x = ((max[0] + margin - self.origin[0]) / span).floor();
      let hi_z = ((max[2] + margin - self.origin[1]) / span).floor();
      if hi_x < 0.0 || hi_z < 0.0 {
        continue;
      }
      let hi_x = (hi_x as usize).min(self.tiles_x - 1);
      let hi_z = (hi_z as usize).min(self.tiles_z - 1);
      for tz in lo_z..=hi_z {
        for tx in lo_x..=hi_x {
          dirty[tz * self.tiles_x + tx] = true;
        }
      }
    }
    let rebuilt: Vec<usize> = (0..self.tiles.len()).filter(|&t| dirty[t]).collect();
    if rebuilt.is_empty() {
      return rebuilt;
    }
    let sources = full();
    self.revision += 1;
    for (&t, tile) in rebuilt.iter().zip(self.build_tiles(&rebuilt, &sources)) {
      self.tiles[t] = tile;
      self.tile_revision[t] = self.revision;
    }
    let mut relink = vec![false; self.tiles.len()];
    for &t in &rebuilt {
      relink[t] = true;
      let (tx, tz) = (t % self.tiles_x, t / self.tiles_x);
      for d in 0..4 {
        let (nx, nz) = (tx as i32 + DX[d], tz as i32 + DZ[d]);
        if nx >= 0 && nz >= 0 && (nx as usize) < self.tiles_x && (nz as usize) < self.tiles_z {
          relink[nz as usize * self.tiles_x + nx as usize] = true;
        }
      }
    }
    for t in 0..self.tiles.len() {
      if relink[t] {
        self.link_tile(t);
      }
    }
    self.finish();
    rebuilt
  }

  /// Polygon and tile counts.
  pub fn counts(&self) -> (u32, u32) {
    (self.poly_count, self.tiles.iter().filter(|t| !t.polys.is_empty()).count() as u32)
  }

  /// The mesh's shape as bytes for the world digest: every tile's polygons and floors.
  pub fn digest_into(&self, out: &mut Vec<u8>) {
    out.extend((self.tiles_x as u32).to_le_bytes());
    out.extend((self.tiles_z as u32).to_le_bytes());
    for tile in &self.tiles {
      out.extend((tile.polys.len() as u32).to_le_bytes());
      for p in &tile.polys {
        for v in [p.x0, p.z0, p.x1, p.z1] {
          out.extend(v.to_le_bytes());
        }
        out.push(p.area);
      }
      let mut h = Fnv::new();
      for f in &tile.floors {
        h.f(f.y);
        h.word(f.poly as u32);
      }
      out.extend(h.0.to_le_bytes());
    }
  }
}
