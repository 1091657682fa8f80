//! Hydraulic (droplet) and thermal erosion, deterministic and parallel.
//!
//! Droplets run in square blocks ([`Blocks`]), each droplet in the block it
//! starts in. Blocks are coloured in a 2×2 pattern and the result is that of
//! the four colours run one after another; blocks of one colour are a whole
//! block apart. A droplet stops where it leaves its block's reach: the block
//! itself in algorithm version 1 (blocks of 64 cells), or the block and 4
//! cells around it since version 2 (blocks of 32). Its brush reaches at most
//! `radius + 1` cells further, so a block's droplets touch only its window
//! (at most half a block around it), which overlaps only its eight
//! neighbours' (all of other colours). Version 2's smaller blocks are what
//! lets a 257² tile spread over 16 cores: its 64 blocks give a critical path
//! (four neighbouring blocks, one per colour) of about a twelfth of the
//! droplets' work, where version 1's 16 blocks gave nearly a third; the
//! reach beyond the block keeps the droplets' steps as many as version 1's
//! (1.02 M against 1.07 M on the bench's tile), so one thread does no more
//! work. A block therefore runs as soon
//! as its neighbours of lower colours are done, not the whole colour before
//! it: the same result on any number of threads, without idle threads at
//! each colour's end. Inside a block, droplets run in index order. Thermal
//! erosion reads the old map and writes a new one (Jacobi), row-parallel.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::noise::{hash1, unit};

/// The largest erosion brush radius (the windows of two blocks of one colour,
/// each at least `MAX_RADIUS + 1` cells around its block, must not meet).
pub const MAX_RADIUS: u32 = 8;

/// How droplets are split into blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocks {
  /// A block's side, in cells.
  pub side: usize,
  /// How many cells beyond its block a droplet runs on (with the brush's `MAX_RADIUS + 1`,
  /// at most half a block, so that the windows of two blocks of one colour never meet).
  pub reach: usize,
}

/// The blocks of each algorithm version (1-based).
const VERSIONS: [Blocks; 2] = [Blocks { side: 64, reach: 0 }, Blocks { side: 32, reach: 4 }];
const _: () = {
  let mut v = 0;
  while v < VERSIONS.len() {
    assert!(VERSIONS[v].reach + MAX_RADIUS as usize + 1 <= VERSIONS[v].side / 2);
    v += 1;
  }
};
/// The latest algorithm version: the one a region gets unless it names another.
pub const ALGORITHM_VERSION: u32 = VERSIONS.len() as u32;

/// The blocks of `algorithm` (a version from 1 to [`ALGORITHM_VERSION`]).
pub fn blocks(algorithm: u32) -> Blocks {
  VERSIONS[algorithm as usize - 1]
}

/// Droplet erosion constants (Beyer's model); heights in metres, one cell per step.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Hydraulic {
  pub droplets: u32,
  pub inertia: f32,
  pub capacity: f32,
  pub min_capacity: f32,
  pub deposit: f32,
  pub erode: f32,
  pub evaporate: f32,
  pub gravity: f32,
  pub max_steps: u32,
  pub radius: u32,
}

impl Default for Hydraulic {
  fn default() -> Self {
    Self {
      droplets: 0,
      inertia: 0.05,
      capacity: 4.0,
      min_capacity: 0.01,
      deposit: 0.3,
      erode: 0.3,
      evaporate: 0.01,
      gravity: 4.0,
      max_steps: 30,
      radius: 3,
    }
  }
}

/// One brush cell: its offset from the droplet's node and its weight.
#[derive(Clone, Copy)]
struct BrushCell {
  dx: i32,
  dz: i32,
  w: f32,
}

/// Cells within `radius` of a node, weighted by `radius - distance`, normalised to sum 1
/// (the sum accumulated in row-major offset order).
fn brush(radius: u32) -> Vec<BrushCell> {
  let r = radius as i32;
  let rf = radius as f32;
  let mut cells = Vec::new();
  let mut sum = 0.0f32;
  for dz in -r..=r {
    for dx in -r..=r {
      let d2 = (dx * dx + dz * dz) as f32;
      let d = d2.sqrt();
      if d < rf {
        let w = rf - d;
        sum += w;
        cells.push(BrushCell { dx, dz, w });
      }
    }
  }
  for c in &mut cells {
    c.w /= sum;
  }
  cells
}

/// A block's window of the map: the block plus a margin, copied out and written back.
struct Window {
  x0: usize,
  z0: usize,
  w: usize,
  h: usize,
  data: Vec<f32>,
}

/// Height and gradient at (u, v) inside the cell whose corner is node (x, z), window-relative.
#[inline]
fn height_grad(m: &[f32], w: usize, x: usize, z: usize, u: f32, v: f32) -> (f32, f32, f32) {
  let i = z * w + x;
  let h00 = m[i];
  let h10 = m[i + 1];
  let h01 = m[i + w];
  let h11 = m[i + w + 1];
  let iu = 1.0 - u;
  let iv = 1.0 - v;
  let gx = (h10 - h00) * iv + (h11 - h01) * v;
  let gz = (h01 - h00) * iu + (h11 - h10) * u;
  let h = h00 * iu * iv + h10 * u * iv + h01 * iu * v + h11 * u * v;
  (h, gx, gz)
}

/// Runs the droplets `ids` of one block on its window of a `size`² map; a droplet stops
/// when it leaves `bounds`, its reach ([bx0, bx1) × [bz0, bz1), global, all below `size - 1`).
fn run_block(win: &mut Window, size: usize, bounds: [usize; 4], ids: &[u32], seed: u32, p: &Hydraulic, brush: &[BrushCell]) {
  let [bx0, bx1, bz0, bz1] = bounds;
  let (lo_x, hi_x, lo_z, hi_z) = (bx0 as f32, bx1 as f32, bz0 as f32, bz1 as f32);
  let span = (size - 1) as f32;
  let ww = win.w;
  let m = &mut win.data;
  let one_minus_inertia = 1.0 - p.inertia;
  let keep_water = 1.0 - p.evaporate;
  // The brush as offsets into the window from its bounding square's corner.
  let r = brush.iter().map(|c| c.dx.unsigned_abs().max(c.dz.unsigned_abs())).max().unwrap_or(0) as usize;
  let offsets: Vec<(usize, f32)> = brush.iter().map(|c| ((c.dz + r as i32) as usize * ww + (c.dx + r as i32) as usize, c.w)).collect();
  for &id in ids {
    let mut px = unit(hash1(id.wrapping_mul(2), seed)) * span;
    let mut pz = unit(hash1(id.wrapping_mul(2).wrapping_add(1), seed)) * span;
    let (mut dx, mut dz) = (0.0f32, 0.0f32);
    let mut speed = 1.0f32;
    let mut water = 1.0f32;
    let mut sediment = 0.0f32;
    for _ in 0..p.max_steps {
      // px, pz ≥ 0 here, so truncation is the floor (exact, and no libm call).
      let nx = px as usize;
      let nz = pz as usize;
      let fx = nx as f32;
      let fz = nz as f32;
      let u = px - fx;
      let v = pz - fz;
      let lx = nx - win.x0;
      let lz = nz - win.z0;
      let (h, gx, gz) = height_grad(m, ww, lx, lz, u, v);
      dx = dx * p.inertia - gx * one_minus_inertia;
      dz = dz * p.inertia - gz * one_minus_inertia;
      let len = (dx * dx + dz * dz).sqrt();
      if len == 0.0 {
        break;
      }
      dx /= len;
      dz /= len;
      px += dx;
      pz += dz;
      if !(px >= lo_x && px < hi_x && pz >= lo_z && pz < hi_z) {
        break;
      }
      let (qx, qz) = (px as usize, pz as usize);
      let (nh, _, _) = height_grad(m, ww, qx - win.x0, qz - win.z0, px - qx as f32, pz - qz as f32);
      let dh = nh - h;
      let mut cap = -dh * speed * water * p.capacity;
      if cap < p.min_capacity {
        cap = p.min_capacity;
      }
      if sediment > cap || dh > 0.0 {
        let amount = if dh > 0.0 {
          if dh < sediment { dh } else { sediment }
        } else {
          (sediment - cap) * p.deposit
        };
        sediment -= amount;
        let i = lz * ww + lx;
        let iu = 1.0 - u;
        let iv = 1.0 - v;
        m[i] += amount * iu * iv;
        m[i + 1] += amount * u * iv;
        m[i + ww] += amount * iu * v;
        m[i + ww + 1] += amount * u * v;
      } else {
        let want = (cap - sediment) * p.erode;
        let amount = if want < -dh { want } else { -dh };
        if nx >= r && nz >= r && nx + r < size && nz + r < size {
          // The whole brush is on the map (and so in the window): fixed offsets, same cell order.
          let patch = &mut m[(lz - r) * ww + lx - r..];
          for &(at, w) in &offsets {
            let take = amount * w;
            patch[at] -= take;
            sediment += take;
          }
        } else {
          for c in brush {
            let gxp = nx as i32 + c.dx;
            let gzp = nz as i32 + c.dz;
            if gxp < 0 || gzp < 0 || gxp >= size as i32 || gzp >= size as i32 {
              continue;
            }
            let i = (gzp as usize - win.z0) * ww + (gxp as usize - win.x0);
            let take = amount * c.w;
            m[i] -= take;
            sediment += take;
          }
        }
      }
      let s2 = speed * speed - dh * p.gravity;
      speed = if s2 > 0.0 { s2.sqrt() } else { 0.0 };
      water *= keep_water;
    }
  }
}

/// Droplet erosion of a `size`² row-major map, in place, in `blocks` (those of the
/// region's algorithm version).
pub fn hydraulic(map: &mut [f32], size: usize, seed: u32, p: &Hydraulic, blocks: Blocks) {
  if p.droplets == 0 || size < 3 {
    return;
  }
  let dag = &Dag::new(map, size, seed, p, blocks);
  rayon::scope(|s| {
    for b in (0..dag.owned.len()).filter(|&b| !dag.owned[b].is_empty() && dag.waits[b].load(Ordering::Relaxed) == 0) {
      s.spawn(move |s| dag.run(s, b));
    }
  });
}

/// The map while its blocks run: each block copies its window out when the
/// neighbours it waits for have written theirs back, and writes it back when
/// done. Windows overlap only between neighbours, which never run at once.
#[derive(Clone, Copy)]
struct SharedMap(*mut f32);
// SAFETY: blocks in flight touch disjoint windows; a block's wait for its
// neighbours (an atomic count, then a spawn) orders their writes before its reads.
unsafe impl Send for SharedMap {}
unsafe impl Sync for SharedMap {}

/// Droplet erosion's blocks as a dependency graph over rayon.
struct Dag<'a> {
  map: SharedMap,
  _map: std::marker::PhantomData<&'a mut [f32]>,
  size: usize,
  block: usize,
  seed: u32,
  p: &'a Hydraulic,
  /// How many cells beyond its block a droplet runs on.
  reach: usize,
  brush: Vec<BrushCell>,
  /// Per block, row-major: the droplets that start in it, in index order.
  owned: Vec<Vec<u32>>,
  /// Per block: how many neighbours it still waits for, and who waits for it.
  waits: Vec<AtomicUsize>,
  then: Vec<Vec<usize>>,
  margin: usize,
}

impl<'a> Dag<'a> {
  fn new(map: &'a mut [f32], size: usize, seed: u32, p: &'a Hydraulic, Blocks { side: block, reach }: Blocks) -> Self {
    let blocks = (size - 1).div_ceil(block);
    let span = (size - 1) as f32;
    // Each droplet belongs to the block it starts in.
    let mut owned: Vec<Vec<u32>> = vec![Vec::new(); blocks * blocks];
    for id in 0..p.droplets {
      let px = unit(hash1(id.wrapping_mul(2), seed)) * span;
      let pz = unit(hash1(id.wrapping_mul(2).wrapping_add(1), seed)) * span;
      let bx = (px as usize / block).min(blocks - 1);
      let bz = (pz as usize / block).min(blocks - 1);
      owned[bz * blocks + bx].push(id);
    }
    let colour = |b: usize| colour(blocks, b);
    // A block's neighbours (the only blocks whose windows its own overlaps)
    // that have droplets: it runs after those of lower colours and before
    // those of higher colours, as colour-by-colour order would have it.
    let neighbours = |b: usize| {
      let (bx, bz) = (b % blocks, b / blocks);
      (bz.saturating_sub(1)..(bz + 2).min(blocks))
        .flat_map(move |z| (bx.saturating_sub(1)..(bx + 2).min(blocks)).map(move |x| z * blocks + x))
        .filter(move |&n| n != b)
        .filter(|&n| !owned[n].is_empty())
    };
    let waits = (0..blocks * blocks).map(|b| AtomicUsize::new(neighbours(b).filter(|&n| colour(n) < colour(b)).count())).collect();
    let then = (0..blocks * blocks).map(|b| neighbours(b).filter(|&n| colour(n) > colour(b)).collect()).collect();
    let radius = p.radius.clamp(1, MAX_RADIUS);
    let margin = radius as usize + 1;
    let map = SharedMap(map.as_mut_ptr());
    Dag { map, _map: std::marker::PhantomData, size, block, seed, p, reach, brush: brush(radius), owned, waits, then, margin }
  }

  /// Runs block `b`, then each block that waited only for it.
  fn run<'s>(&'s self, s: &rayon::Scope<'s>, b: usize) {
    self.run_block(b);
    for &n in &self.then[b] {
      // AcqRel: the last neighbour to finish sees every other's write-back before the next block reads.
      if self.waits[n].fetch_sub(1, Ordering::AcqRel) == 1 {
        s.spawn(move |s| self.run(s, n));
      }
    }
  }

  /// Runs block `b`'s droplets on a copy of its window, then writes the window back.
  fn run_block(&self, b: usize) {
    let (size, block) = (self.size, self.block);
    let blocks = (size - 1).div_ceil(block);
    let (bx, bz) = (b % blocks, b / blocks);
    let reach = self.reach;
    let bounds = [(bx * block).saturating_sub(reach), ((bx + 1) * block + reach).min(size - 1), (bz * block).saturating_sub(reach), ((bz + 1) * block + reach).min(size - 1)];
    let x0 = bounds[0].saturating_sub(self.margin);
    let z0 = bounds[2].saturating_sub(self.margin);
    let x1 = (bounds[1] + self.margin).min(size - 1);
    let z1 = (bounds[3] + self.margin).min(size - 1);
    let (w, h) = (x1 - x0 + 1, z1 - z0 + 1);
    let mut data = Vec::with_capacity(w * h);
    for z in z0..=z1 {
      // SAFETY: this window's rows, which no block in flight writes (see `SharedMap`).
      data.extend_from_slice(unsafe { std::slice::from_raw_parts(self.map.0.add(z * size + x0), w) });
    }
    let mut win = Window { x0, z0, w, h, data };
    run_block(&mut win, size, bounds, &self.owned[b], self.seed, self.p, &self.brush);
    for r in 0..win.h {
      // SAFETY: as above; no other block in flight reads or writes these cells.
      unsafe { std::slice::from_raw_parts_mut(self.map.0.add((win.z0 + r) * size + win.x0), win.w) }.copy_from_slice(&win.data[r * win.w..(r + 1) * win.w]);
    }
  }
}

/// Block `b`'s colour (0 to 3) in a row of `blocks` blocks: its column's and its row's parity.
pub(crate) fn colour(blocks: usize, b: usize) -> usize {
  (b % blocks & 1) + 2 * (b / blocks & 1)
}

/// Thermal erosion: material above the talus slope slides to lower 4-neighbours, `rate` of
/// the excess per iteration. `talus` is in metres per cell. Mass is conserved exactly per pair.
pub fn thermal(map: &mut [f32], size: usize, iterations: u32, talus: f32, rate: f32) {
  let mut next = vec![0.0f32; map.len()];
  for _ in 0..iterations {
    let old: &[f32] = map;
    next.par_chunks_mut(size).enumerate().for_each(|(z, row)| {
      for (x, out) in row.iter_mut().enumerate() {
        let h = old[z * size + x];
        let mut moved_out = 0.0f32;
        let mut moved_in = 0.0f32;
        let neighbours = [(x > 0, z * size + x.wrapping_sub(1)), (x + 1 < size, z * size + x + 1), (z > 0, z.wrapping_sub(1).wrapping_mul(size).wrapping_add(x)), (z + 1 < size, (z + 1) * size + x)];
        for (ok, j) in neighbours {
          if !ok {
            continue;
          }
          let hn = old[j];
          let d = h - hn;
          if d > talus {
            moved_out += (d - talus) * rate;
          }
          let e = hn - h;
          if e > talus {
            moved_in += (e - talus) * rate;
          }
        }
        *out = (h - moved_out) + moved_in;
      }
    });
    map.copy_from_slice(&next);
  }
}

/// Each block's one-thread time in ms (its droplets run colour by colour on this thread)
/// and its dependents, the graph the pool runs: for the schedule estimate in
/// `region`'s bench.
#[cfg(test)]
pub(crate) fn block_costs(map: &mut [f32], size: usize, seed: u32, p: &Hydraulic, layout: Blocks) -> (Vec<f64>, Vec<Vec<usize>>) {
  let dag = Dag::new(map, size, seed, p, layout);
  let blocks = (size - 1).div_ceil(layout.side);
  let mut ms = vec![0.0; blocks * blocks];
  for c in 0..4 {
    for b in (0..blocks * blocks).filter(|&b| colour(blocks, b) == c && !dag.owned[b].is_empty()) {
      let t = std::time::Instant::now();
      dag.run_block(b);
      ms[b] = t.elapsed().as_secs_f64() * 1e3;
    }
  }
  let then = dag.then.clone();
  (ms, then)
}

#[cfg(test)]
mod tests {
  use super::*;

  fn slope(size: usize) -> Vec<f32> {
    (0..size * size).map(|i| ((i % size) as f32 * 0.5 + (i / size) as f32 * 0.25) + crate::noise::gradient(i as f32 * 0.37, 0.5, 3) * 2.0).collect()
  }

  #[test]
  fn brush_weights_sum_to_one() {
    for r in 1..=MAX_RADIUS {
      let s: f32 = brush(r).iter().map(|c| c.w).sum();
      assert!((s - 1.0).abs() < 1e-5, "{r}: {s}");
    }
  }

  #[test]
  fn droplets_change_the_map_and_thread_counts_agree() {
    let size = 193;
    let base = slope(size);
    let p = Hydraulic { droplets: 20_000, ..Hydraulic::default() };
    let run = |threads: usize| {
      let mut m = base.clone();
      rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| hydraulic(&mut m, size, 9, &p, blocks(ALGORITHM_VERSION)));
      m
    };
    let one = run(1);
    assert_ne!(one, base, "erosion changed nothing");
    for threads in [2, 3, 8] {
      assert!(run(threads).iter().zip(&one).all(|(a, b)| a.to_bits() == b.to_bits()), "{threads} threads differ");
    }
  }

  /// Blocks 8×8 (the last row and column part-sized) on 1, 3 and 16 threads, pinned per
  /// algorithm version (version 1's from a run that finished each colour's blocks before
  /// starting the next colour's).
  fn many_blocks_give_pinned_heights_on_any_thread_count(algorithm: u32, pinned: &str) {
    let size = 8 * blocks(algorithm).side - 20 + 1;
    let base = slope(size);
    let p = Hydraulic { droplets: 150_000 >> (2 * (algorithm - 1)), radius: 5, ..Hydraulic::default() };
    for threads in [1, 3, 16] {
      let mut m = base.clone();
      rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| hydraulic(&mut m, size, 4242, &p, blocks(algorithm)));
      assert_eq!(crate::region::digest(&m), pinned, "version {algorithm}, {threads} threads");
    }
  }

  #[test]
  fn version_1_blocks_give_the_colour_by_colour_result_on_any_thread_count() {
    many_blocks_give_pinned_heights_on_any_thread_count(1, "sha256:d25916bc9b441734058b521884c490f1afcd8bcbf481b04b6b1e027b8db1b445");
  }

  #[test]
  fn version_2_blocks_give_pinned_heights_on_any_thread_count() {
    many_blocks_give_pinned_heights_on_any_thread_count(2, "sha256:9d9d995f2233f9c28d95ab1720d200f4a0537cf2aeac9fbdc249f50d6b59f923");
  }

  #[test]
  fn thermal_erosion_conserves_mass_and_lowers_peaks() {
    let size = 33;
    let mut m = vec![0.0f32; size * size];
    m[16 * size + 16] = 64.0;
    let before: f64 = m.iter().map(|&v| v as f64).sum();
    thermal(&mut m, size, 50, 0.5, 0.1);
    let after: f64 = m.iter().map(|&v| v as f64).sum();
    assert!((before - after).abs() < 1e-3, "{before} {after}");
    assert!(m[16 * size + 16] < 20.0 && m[16 * size + 17] > 0.0);
  }
}
