//! The batched uniform-grid radius query.
//!
//! Results are the brute-force answer, as the JS oracle
//! (`crates/limina-ecs/js/grid.ts`) computes them, byte for byte: an indexed
//! entity matches a query when `dx*dx + dy*dy + dz*dz <= r*r` in f64 (its
//! f32 position widened), its distance is `sqrt(dist2)`, and each query's
//! hits are sorted by distance, then insertion order. The grid only prunes:
//! a query visits the cells its sphere's bounding box, widened by
//! [`reach`], overlaps, and any monotonic cell mapping shared by the build
//! and the query puts every match there — so the cell size, the origin and
//! the arithmetic of the mapping change the work, never the results.

use std::sync::atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use limina_ops::OpError;

use crate::adaptive::{Adaptive, Mode};

/// The most cells a grid may allocate; coarser cells beyond that.
const MAX_CELLS: usize = 1 << 21;

/// How many cells along x per cell size (see `rebuild`).
const X_SPLIT: f64 = 4.0;

/// Slots past the last entity in the position columns, so that a 4-wide
/// scan may start at any slot.
const PAD: usize = 3;

/// Above this many hits, a query's ranks come from a sort.
const RANK_MAX: usize = 96;

/// The low bits of a rank key that hold the hit's position (< RANK_MAX).
const KEY_POS: u32 = 0x7f;
const _: () = assert!(RANK_MAX <= KEY_POS as usize + 1);

/// How far from a query's centre, along each axis, a match can lie. A match
/// has fl(dx²) ≤ fl(r²), so |dx| ≤ r·(1 + 2⁻⁵²) or dx² is subnormal
/// (|dx| < 2⁻⁵¹¹), and the exact offset is within 2⁻⁵³ relative of dx: the
/// margin covers both with room. When r² overflows, everything matches.
fn reach(radius: f64) -> f64 {
  const REL: f64 = 1.0 + 1.0 / (1u64 << 49) as f64;
  const ABS: f64 = f64::from_bits((1023 - 490) << 52);
  if (radius * radius).is_infinite() {
    f64::INFINITY
  } else {
    radius * REL + ABS
  }
}

/// Per 4-bit mask of hit lanes: the 32-bit lane permutation that packs
/// the hit f64 lanes first, the byte shuffle that packs the hit u32 lanes
/// first, and how many there are.
#[cfg(target_arch = "x86_64")]
const PACK: [([i32; 8], [u8; 16], usize); 16] = {
  let mut t = [([0; 8], [0; 16], 0); 16];
  let mut m = 0;
  while m < 16 {
    let mut lane = 0;
    while lane < 4 {
      if m >> lane & 1 == 1 {
        let at = t[m].2;
        t[m].0[2 * at] = 2 * lane as i32;
        t[m].0[2 * at + 1] = 2 * lane as i32 + 1;
        let mut byte = 0;
        while byte < 4 {
          t[m].1[4 * at + byte] = (4 * lane + byte) as u8;
          byte += 1;
        }
        t[m].2 += 1;
      }
      lane += 1;
    }
    m += 1;
  }
  t
};

/// One query: a sphere, and the entity to leave out of its results.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Query {
  center: [f64; 3],
  radius: f64,
  /// Never reported in this query's results (the querying entity itself).
  self_eid: Option<u32>,
}

impl Query {
  /// Decodes one packed `[x, y, z, radius, selfEid]` that `check_queries` accepted.
  fn unpack(q: &[f64]) -> Self {
    Self { center: [q[0], q[1], q[2]], radius: q[3], self_eid: (q[4] >= 0.0).then_some(q[4] as u32) }
  }
}

/// Checks a packed `[x, y, z, radius, selfEid] × N` buffer (selfEid -1 =
/// none); returns N.
fn check_queries(packed: &[f64]) -> Result<usize, OpError> {
  if packed.len() % 5 != 0 {
    return Err(OpError::invalid_input(format!(
      "query buffer must hold [x, y, z, radius, selfEid] × N, got {} numbers",
      packed.len()
    )));
  }
  for (i, q) in packed.chunks_exact(5).enumerate() {
    if !(q[0].is_finite() && q[1].is_finite() && q[2].is_finite()) {
      return Err(OpError::invalid_input(format!("query {i}: center must be finite, got {:?}", &q[..3])));
    }
    if !(q[3].is_finite() && q[3] >= 0.0) {
      return Err(OpError::invalid_input(format!("query {i}: radius must be a finite number ≥ 0, got {}", q[3])));
    }
    // `as u32` truncates (and saturates), so equality means a whole id.
    if !(q[4] == -1.0 || q[4] >= 0.0 && q[4] == (q[4] as u32) as f64) {
      return Err(OpError::invalid_input(format!("query {i}: selfEid must be an entity id or -1, got {}", q[4])));
    }
  }
  Ok(packed.len() / 5)
}

/// The grid over the last indexed entities. It keeps the eids and f32
/// positions it was built from, so an update that reads the same values
/// re-indexes nothing; its buffers are reused, so a rebuild allocates
/// nothing in steady state but its short list of parts.
#[derive(Default)]
pub struct SpatialGrid {
  /// The eids indexed (insertion order), as runs of consecutive eids
  /// (first index, first eid, length), and their positions as read.
  eids: Vec<u32>,
  runs: Vec<[usize; 3]>,
  positions: [Vec<f32>; 3],
  /// One past the largest eid indexed: the position buffers' least length.
  eid_end: usize,
  /// The cell size asked for (0 before the first update: never valid).
  cell_hint: f64,
  origin: [f64; 3],
  /// Cell of coordinate v along axis k: `floor((v - origin[k]) * inv_cell[k])`.
  inv_cell: [f64; 3],
  dims: [usize; 3],
  /// CSR: the entities of cell `c` are slots `offsets[c]..offsets[c + 1]`
  /// of the cell-ordered columns below.
  offsets: Vec<u32>,
  /// Cell-ordered positions, one column per axis, so the distance test
  /// streams over them (widened to f64, which is exact).
  xs: Vec<f32>,
  ys: Vec<f32>,
  zs: Vec<f32>,
  /// Cell-ordered eids (padded like the positions), and their insertion
  /// indices (into `eids`).
  slot_eid: Vec<u32>,
  slot_idx: Vec<u32>,
  /// Build scratch: each position's cell (u32::MAX = not indexed).
  cells: Vec<u32>,
  /// Whether a batch is split across rayon (see `adaptive`), and a re-index;
  /// made on first use.
  adaptive: Option<Adaptive>,
  reindex: Option<Adaptive>,
  /// The parts of the last split batch, kept so the next reuses their buffers.
  parts: Vec<Part>,
}

/// A part of a split batch: each query's hit count, and the hits in order
/// (the first `hits` of the buffers, which keep their length between
/// batches so that nothing is zeroed again).
#[derive(Default)]
struct Part {
  counts: Vec<u32>,
  eids: Vec<u32>,
  dist: Vec<f64>,
  hits: usize,
}

/// What an update indexes: eids (insertion order), the SoA position
/// columns they index, and the cell size asked for.
pub struct Index<'a> {
  pub eids: &'a [u32],
  pub x: &'a [f32],
  pub y: &'a [f32],
  pub z: &'a [f32],
  pub cell_hint: f64,
}

/// How long a woken pool thread waits for the grid, or for the copy to
/// begin, before it goes back to the pool (the caller then does the rest).
const WAIT: Duration = Duration::from_micros(200);

const WAITING: u8 = 0;
const READY: u8 = 1;
const CANCELLED: u8 = 2;

/// A batch split into parts of `chunk` queries. Starting it wakes every
/// pool thread at once; they wait for the grid. Then every thread, the
/// caller included, claims parts from a shared counter and answers each
/// whole into its part's buffers, so the caller waits only for parts
/// already claimed, never for a thread still waking up. The offsets are
/// summed up and the parts' hits copied to their place in the output,
/// claimed the same way: exactly what `answer` lays out, the same bytes.
struct Split {
  job: Arc<Shared>,
  parts: Vec<Part>,
}

/// A split batch as the pool's threads see it: raw views of the caller's
/// borrows, each dereferenced only by a thread that claimed a part or a
/// copy, while the caller waits for every claimed one to be done.
struct Shared {
  state: AtomicU8,
  grid: AtomicPtr<SpatialGrid>,
  queries: *const f64,
  queries_len: usize,
  parts: *mut Part,
  nparts: usize,
  chunk: usize,
  simd: bool,
  next: AtomicUsize,
  done: AtomicUsize,
  /// Threads that stopped waiting before the grid was ready.
  left: AtomicUsize,
  copies: OnceLock<Vec<Destination>>,
  copy_next: AtomicUsize,
  copy_done: AtomicUsize,
}

/// Where a part's first `len` hits go in the output.
struct Destination {
  eids: *mut u32,
  dist: *mut f64,
  len: usize,
}

// SAFETY: see `Shared`: a pointer is dereferenced only under a claim that
// the owner of what it points to waits for.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Split {
  fn start(mut parts: Vec<Part>, simd: bool, queries: &[f64], chunk: usize) -> Self {
    let nparts = queries.len().div_ceil(chunk * 5);
    parts.resize_with(nparts.max(parts.len()), Part::default);
    let job = Arc::new(Shared {
      state: AtomicU8::new(WAITING),
      grid: AtomicPtr::new(std::ptr::null_mut()),
      queries: queries.as_ptr(),
      queries_len: queries.len(),
      parts: parts.as_mut_ptr(),
      nparts,
      chunk,
      simd,
      next: AtomicUsize::new(0),
      done: AtomicUsize::new(0),
      left: AtomicUsize::new(0),
      copies: OnceLock::new(),
      copy_next: AtomicUsize::new(0),
      copy_done: AtomicUsize::new(0),
    });
    wake(&job);
    Self { job, parts }
  }

  /// Lets the waiting threads go; the parts' buffers back.
  fn cancel(mut self) -> Vec<Part> {
    std::mem::take(&mut self.parts)
  }

  /// Answers the batch over `grid`: the total, and the parts' buffers back.
  fn answer(mut self, grid: &SpatialGrid, offsets: &mut [u32], out_eids: &mut [u32], out_dist: &mut [f64]) -> (usize, Vec<Part>) {
    let job = Arc::clone(&self.job);
    job.grid.store(grid as *const SpatialGrid as *mut SpatialGrid, Ordering::Relaxed);
    job.state.store(READY, Ordering::SeqCst);
    if job.left.load(Ordering::SeqCst) > 0 {
      wake(&job);
    }
    // SAFETY: the grid is published; this thread waits for every claimed part below.
    unsafe { job.take_parts() };
    wait_for(&job.done, job.nparts);
    // Each part's first hit in the output, and the offsets.
    let parts = std::mem::take(&mut self.parts);
    let mut starts = Vec::with_capacity(job.nparts);
    let mut total = 0usize;
    let mut q = 0;
    for part in &parts[..job.nparts] {
      starts.push(total);
      for &n in &part.counts {
        total += n as usize;
        q += 1;
        offsets[q] = total as u32;
      }
    }
    // Hits are written while their query's end fits (a prefix of the queries).
    let cap = out_eids.len().min(out_dist.len());
    let fits = if total <= cap { total } else { offsets[..=q].iter().rev().map(|&o| o as usize).find(|&o| o <= cap).unwrap_or(0) };
    let (eids, dist) = (out_eids.as_mut_ptr(), out_dist.as_mut_ptr());
    let copies: Vec<Destination> = parts[..job.nparts]
      .iter()
      .zip(&starts)
      // SAFETY: start + len <= fits <= the output's length.
      .map(|(part, &start)| unsafe { Destination { eids: eids.add(start), dist: dist.add(start), len: part.hits.min(fits.saturating_sub(start)) } })
      .collect();
    let ncopies = copies.len();
    let _ = job.copies.set(copies);
    // SAFETY: the copies are published; this thread waits for every claimed copy below.
    unsafe { job.take_copies() };
    wait_for(&job.copy_done, ncopies);
    (total, parts)
  }
}

impl Drop for Split {
  fn drop(&mut self) {
    // Not answered (an update failed, or the pool is needed elsewhere): the waiting threads go.
    let _ = self.job.state.compare_exchange(WAITING, CANCELLED, Ordering::SeqCst, Ordering::Relaxed);
  }
}

/// Wakes every pool thread to work on `job`.
fn wake(job: &Arc<Shared>) {
  let job = Arc::clone(job);
  // SAFETY: `work` dereferences nothing it has not claimed.
  rayon::spawn_broadcast(move |_| unsafe { job.work() });
}

/// Until `count` reaches `n`: the claimed work is running on other threads.
fn wait_for(count: &AtomicUsize, n: usize) {
  let mut spins = 0u32;
  while count.load(Ordering::Acquire) < n {
    spins += 1;
    if spins.is_multiple_of(1024) {
      // A claimant may have been preempted on a busy machine.
      std::thread::yield_now();
    } else {
      std::hint::spin_loop();
    }
  }
}

/// Spins until `ready` or `WAIT` has passed; whether it became ready.
fn spin_until(ready: impl Fn() -> bool) -> bool {
  let since = Instant::now();
  loop {
    for _ in 0..64 {
      if ready() {
        return true;
      }
      std::hint::spin_loop();
    }
    if since.elapsed() > WAIT {
      return ready();
    }
  }
}

impl Shared {
  /// A pool thread's share: parts, then copies, as long as there are any to claim.
  unsafe fn work(&self) {
    if !spin_until(|| self.state.load(Ordering::SeqCst) != WAITING) {
      self.left.fetch_add(1, Ordering::SeqCst);
      return;
    }
    if self.state.load(Ordering::Acquire) == CANCELLED {
      return;
    }
    self.take_parts();
    spin_until(|| self.copies.get().is_some());
    self.take_copies();
  }

  /// Answers parts until none are left to claim. Only once the grid is published.
  unsafe fn take_parts(&self) {
    loop {
      let k = self.next.fetch_add(1, Ordering::Relaxed);
      if k >= self.nparts {
        return;
      }
      let grid = &*self.grid.load(Ordering::Relaxed);
      let from = k * self.chunk * 5;
      let queries = std::slice::from_raw_parts(self.queries.add(from), (self.chunk * 5).min(self.queries_len - from));
      grid.part_for_this_cpu(self.simd, queries, &mut *self.parts.add(k));
      self.done.fetch_add(1, Ordering::Release);
    }
  }

  /// Copies parts' hits to the output until none are left to claim.
  unsafe fn take_copies(&self) {
    let Some(copies) = self.copies.get() else { return };
    loop {
      let k = self.copy_next.fetch_add(1, Ordering::Relaxed);
      if k >= copies.len() {
        return;
      }
      let (c, part) = (&copies[k], &*self.parts.add(k));
      std::ptr::copy_nonoverlapping(part.eids.as_ptr(), c.eids, c.len);
      std::ptr::copy_nonoverlapping(part.dist.as_ptr(), c.dist, c.len);
      self.copy_done.fetch_add(1, Ordering::Release);
    }
  }
}

std::thread_local! {
  /// Each thread's query scratch, kept across batches (and grids): a split
  /// batch's parts run on pool threads, and a fresh scratch per part would
  /// zero a grid-sized buffer each time.
  static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Runs `f` with this thread's scratch, fitted to a grid of `count` entities.
fn with_scratch<R>(count: usize, f: impl FnOnce(&mut Scratch) -> R) -> R {
  SCRATCH.with(|s| {
    let mut s = s.borrow_mut();
    s.fit(count);
    f(&mut s)
  })
}

/// Queries in each part of a batch split over `threads`: a few parts per
/// thread, so one slow part does not hold the rest back.
fn parallel_chunk(queries: usize, threads: usize) -> usize {
  (queries / (threads.max(1) * 4)).max(16)
}

/// One query's hits while they are found and ordered; sized for a query
/// that matches every indexed entity.
#[derive(Default)]
struct Scratch {
  /// The hits' slots, and their d² (then distances).
  slot: Vec<u32>,
  d: Vec<f64>,
  /// Rank keys (or the hits in order), and each hit's rank in the results.
  keys: Vec<u32>,
  rank: Vec<u32>,
  /// Whether the ranks were counted over keys (so may need settling).
  keyed: bool,
}

/// Counts the entities of cells `lo..lo + starts.len()` into `starts`, then
/// turns the counts into each cell's first slot, relative to the range's
/// first; returns how many entities the range holds.
#[inline(always)]
fn count_range(cells: &[u32], lo: u32, starts: &mut [u32]) -> u32 {
  for &c in cells {
    if let Some(n) = starts.get_mut(c.wrapping_sub(lo) as usize) {
      *n += 1;
    }
  }
  starts.iter_mut().fold(0, |sum, n| {
    let count = *n;
    *n = sum;
    sum + count
  })
}

/// A range of cells' slots: positions, eids and insertion indices.
type Slots<'a> = (&'a mut [f32], &'a mut [f32], &'a mut [f32], &'a mut [u32], &'a mut [u32]);

/// Fills the range's cells (`count_range`'s starts) in insertion order,
/// bumping each start as it goes, so it ends as the cell's end; then makes
/// those global by adding the range's first slot, `base`.
#[inline(always)]
fn fill_range(cells: &[u32], eids: &[u32], [px, py, pz]: [&[f32]; 3], lo: u32, starts: &mut [u32], base: u32, (xs, ys, zs, es, is): Slots) {
  // Equal lengths up front: one bounds check a slot, not five.
  let (n, m) = (xs.len(), cells.len());
  assert!(ys.len() == n && zs.len() == n && es.len() == n && is.len() == n && eids.len() == m && px.len() >= m && py.len() >= m && pz.len() >= m);
  for (i, (&c, &eid)) in cells.iter().zip(eids).enumerate() {
    if let Some(n) = starts.get_mut(c.wrapping_sub(lo) as usize) {
      let at = *n as usize;
      *n += 1;
      (xs[at], ys[at], zs[at]) = (px[i], py[i], pz[i]);
      (es[at], is[at]) = (eid, i as u32);
    }
  }
  for n in starts.iter_mut() {
    *n += base;
  }
}

impl SpatialGrid {
  /// Indexes `eids` (insertion order) at their SoA positions, unless they
  /// and their positions are exactly what the grid already indexes.
  /// Entities whose position is not finite are not indexed.
  pub fn update(&mut self, eids: &[u32], x: &[f32], y: &[f32], z: &[f32], cell_hint: f64) -> Result<(), OpError> {
    if self.take(&Index { eids, x, y, z, cell_hint })? {
      let mode = self.reindex_mode();
      self.reindex(mode);
    }
    Ok(())
  }

  /// Takes the inputs an update reads; whether they differ from what the
  /// grid indexes (then it must be re-indexed).
  fn take(&mut self, &Index { eids, x, y, z, cell_hint }: &Index<'_>) -> Result<bool, OpError> {
    if !(cell_hint.is_finite() && cell_hint > 0.0) {
      return Err(OpError::invalid_input(format!("cell size must be a positive number, got {cell_hint}")));
    }
    let n = x.len().min(y.len()).min(z.len());
    let same = cell_hint == self.cell_hint && eids == self.eids.as_slice();
    // The eids indexed were each checked when taken: now their end bounds them. New
    // eids get a branch-free pass; the culprit only when there is one.
    let outside = if same { self.eid_end > n } else { eids.iter().fold(false, |out, &e| out | (e as usize >= n)) };
    if outside {
      let bad = eids.iter().find(|&&e| e as usize >= n).unwrap();
      return Err(OpError::invalid_input(format!("eid {bad} is outside the {n}-entity position buffers")));
    }
    if !same {
      self.cell_hint = cell_hint;
      self.eids.clear();
      self.eids.extend_from_slice(eids);
      self.runs.clear();
      for (k, &e) in eids.iter().enumerate() {
        match self.runs.last_mut() {
          Some([_, first, len]) if *first + *len == e as usize => *len += 1,
          _ => self.runs.push([k, e as usize, 1]),
        }
      }
      self.eid_end = self.runs.iter().map(|&[_, first, len]| first + len).max().unwrap_or(0);
      for c in &mut self.positions {
        c.resize(eids.len(), 0.0);
      }
    }
    // Compared run by run, slice against slice: bit patterns, vectorized.
    let mut changed = !same;
    for &[start, first, len] in &self.runs {
      for (now, was) in [x, y, z].into_iter().zip(&mut self.positions) {
        let (now, was) = (&now[first..first + len], &mut was[start..start + len]);
        changed = changed || now.iter().zip(&*was).fold(0, |d, (a, b)| d | (a.to_bits() ^ b.to_bits())) != 0;
        if changed {
          was.copy_from_slice(now);
        }
      }
    }
    Ok(changed)
  }

  /// Whether the next re-index is split across rayon (see `adaptive`).
  fn reindex_mode(&mut self) -> Mode {
    let n = self.eids.len();
    self.reindex.get_or_insert_with(Adaptive::for_this_machine).choose(n)
  }

  fn reindex(&mut self, mode: Mode) {
    let started = Instant::now();
    self.rebuild_for_this_cpu(mode == Mode::Parallel);
    self.reindex.as_mut().unwrap().record(self.eids.len(), mode, started.elapsed());
  }

  fn rebuild_for_this_cpu(&mut self, split: bool) {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
      // SAFETY: AVX2 is detected.
      return unsafe { self.rebuild_avx2(split) };
    }
    self.rebuild(split);
  }

  /// `rebuild`, compiled for AVX2 (its per-entity passes vectorize).
  #[cfg(target_arch = "x86_64")]
  #[target_feature(enable = "avx2")]
  unsafe fn rebuild_avx2(&mut self, split: bool) {
    self.rebuild(split);
  }

  /// Re-indexes the positions read; `split` spreads the sort by cell over
  /// rayon's pool (the same layout).
  #[inline(always)]
  fn rebuild(&mut self, split: bool) {
    use rayon::prelude::*;
    let [px, py, pz] = self.positions.each_ref().map(Vec::as_slice);
    let finite = |i: usize| px[i].is_finite() & py[i].is_finite() & pz[i].is_finite();
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for i in 0..px.len() {
      let f = finite(i);
      for (k, v) in [px[i], py[i], pz[i]].into_iter().enumerate() {
        (lo[k], hi[k]) = (if f & (v < lo[k]) { v } else { lo[k] }, if f & (v > hi[k]) { v } else { hi[k] });
      }
    }
    if lo[0] > hi[0] {
      (lo, hi) = ([0.0; 3], [0.0; 3]);
    }
    // Widening is exact and monotonic: these are the f64 extremes.
    let (origin, hi) = (lo.map(f64::from), hi.map(f64::from));
    let mut cell = self.cell_hint;
    // Coordinates are ≥ origin, so truncation is floor; the extremes map to
    // the first and last cells, so every entity's cell is in range.
    // Cells are X_SPLIT times finer along x: a query scans whole rows of
    // cells along x, so finer ones trim the row to the sphere's extent.
    let (inv, dims) = loop {
      let inv = [X_SPLIT / cell, 1.0 / cell, 1.0 / cell];
      let d: [usize; 3] = std::array::from_fn(|k| ((hi[k] - origin[k]) * inv[k]).min(MAX_CELLS as f64) as usize + 1);
      if inv.iter().all(|v| v.is_finite()) && d.iter().try_fold(1usize, |acc, &v| acc.checked_mul(v)).is_some_and(|c| c <= MAX_CELLS) {
        break (inv, d);
      }
      cell *= 2.0;
    };
    let ncells = dims[0] * dims[1] * dims[2];
    self.offsets.clear();
    self.offsets.resize(ncells + 1, 0);
    self.cells.clear();
    self.cells.resize(px.len(), u32::MAX);
    let offsets = self.offsets.as_mut_slice();
    // Cells are < MAX_CELLS, so i32 casts hold them (and vectorize).
    let cell_of = |v: f32, k: usize| ((v as f64 - origin[k]) * inv[k]) as i32;
    let (dx, dy) = (dims[0] as i32, dims[1] as i32);
    for (i, c) in self.cells[..px.len()].iter_mut().enumerate() {
      let cell = (cell_of(pz[i], 2) * dy + cell_of(py[i], 1)) * dx + cell_of(px[i], 0);
      *c = if finite(i) { cell as u32 } else { u32::MAX };
    }
    // A counting sort of the entities by cell, stable (insertion order within
    // a cell), over `parts` ranges of cells: each range counts and fills its
    // own cells and slots, in parallel when split. One range is the plain
    // sort; any number lays out the same bytes.
    let parts = if split { rayon::current_num_threads().clamp(1, ncells) } else { 1 };
    let cells = &self.cells[..px.len()];
    // offsets[c + 1] is range-relative while the range counts and fills (cell
    // c's start, then its end), then made global (cell c's end, c + 1's start).
    let mut ranges: Vec<(u32, &mut [u32])> = Vec::with_capacity(parts);
    let mut rest = &mut offsets[1..];
    for p in 0..parts {
      let (lo, hi) = (ncells * p / parts, ncells * (p + 1) / parts);
      let (mine, more) = std::mem::take(&mut rest).split_at_mut(hi - lo);
      ranges.push((lo as u32, mine));
      rest = more;
    }
    // One range calls the range functions directly, so they inline (and compile for AVX2 with `rebuild_avx2`).
    let sizes: Vec<u32> = if parts > 1 {
      ranges.par_iter_mut().map(|(lo, starts)| count_range(cells, *lo, starts)).collect()
    } else {
      vec![count_range(cells, 0, &mut ranges[0].1)]
    };
    let total: usize = sizes.iter().map(|&n| n as usize).sum();
    // NaN padding: a SIMD scan may read a block past the last slot.
    for v in [&mut self.xs, &mut self.ys, &mut self.zs] {
      v.resize(total + PAD, f32::NAN);
      v[total..].fill(f32::NAN);
    }
    self.slot_eid.resize(total + PAD, 0);
    self.slot_idx.resize(total, 0);
    let eids = &self.eids[..px.len()];
    let mut slots = (&mut self.xs[..total], &mut self.ys[..total], &mut self.zs[..total], &mut self.slot_eid[..total], &mut self.slot_idx[..]);
    let mut base = 0;
    let mut work = Vec::with_capacity(parts);
    for ((lo, starts), &size) in ranges.into_iter().zip(&sizes) {
      let n = size as usize;
      let (xs, ys, zs, es, is) = std::mem::take(&mut slots);
      let ((x, xr), (y, yr), (z, zr), (e, er), (i, ir)) = (xs.split_at_mut(n), ys.split_at_mut(n), zs.split_at_mut(n), es.split_at_mut(n), is.split_at_mut(n));
      slots = (xr, yr, zr, er, ir);
      work.push((lo, starts, base, (x, y, z, e, i)));
      base += size;
    }
    if parts > 1 {
      work.into_par_iter().for_each(|(lo, starts, base, slots)| fill_range(cells, eids, [px, py, pz], lo, starts, base, slots));
    } else {
      for (lo, starts, base, slots) in work {
        fill_range(cells, eids, [px, py, pz], lo, starts, base, slots);
      }
    }
    (self.origin, self.inv_cell, self.dims) = (origin, inv, dims);
  }

  /// How many entities are indexed.
  pub fn len(&self) -> usize {
    self.slot_idx.len()
  }

  pub fn is_empty(&self) -> bool {
    self.slot_idx.is_empty()
  }

  /// Finds query `q`'s hits and their order into `s`; returns how many.
  #[inline(always)]
  fn find<const SIMD: bool>(&self, q: &Query, s: &mut Scratch) -> usize {
    if self.is_empty() {
      return 0;
    }
    let reach = reach(q.radius);
    let mut lo = [0usize; 3];
    let mut hi = [0usize; 3];
    for k in 0..3 {
      let a = (q.center[k] - reach - self.origin[k]) * self.inv_cell[k];
      let b = (q.center[k] + reach - self.origin[k]) * self.inv_cell[k];
      // Floors without libm: below 0 is before the first cell; `as`
      // truncates (floor, for ≥ 0) and saturates. NaN (∞ · 0) is cell 0.
      let top = self.dims[k] - 1;
      lo[k] = if a > 0.0 { a as usize } else { 0 };
      if b < 0.0 || lo[k] > top {
        return 0;
      }
      hi[k] = (b as usize).min(top);
    }
    let r2 = q.radius * q.radius;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SIMD is only set where AVX2 is detected.
    let simd = SIMD.then(|| unsafe { Avx2Scan::new(q, r2) });
    let mut n = 0;
    // Rows come in slot order; a SIMD scan may run past a row's end (into
    // slots it then owns: extra candidates change no result), so the next
    // row starts after whatever was scanned.
    let mut next = 0;
    for iz in lo[2]..=hi[2] {
      for iy in lo[1]..=hi[1] {
        let row = (iz * self.dims[1] + iy) * self.dims[0];
        let from = (self.offsets[row + lo[0]] as usize).max(next);
        let to = self.offsets[row + hi[0] + 1] as usize;
        if from >= to {
          continue;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(scan) = &simd {
          // SAFETY: as above.
          (n, next) = unsafe { scan.run(self, from, to, s, n) };
          continue;
        }
        (n, next) = (self.scan(from, to, q, r2, s, n), to);
      }
    }
    s.order::<SIMD>(n, &self.slot_idx);
    n
  }

  /// Appends the hits among slots `from..to` (d² and slot) to `s` at `n`;
  /// returns the new n.
  #[inline(always)]
  fn scan(&self, from: usize, to: usize, q: &Query, r2: f64, s: &mut Scratch, mut n: usize) -> usize {
    let [cx, cy, cz] = q.center;
    // u32::MAX + 1 is no eid.
    let skip = q.self_eid.map_or(1 << 32, u64::from);
    let (xs, ys, zs, es) = (&self.xs[from..to], &self.ys[from..to], &self.zs[from..to], &self.slot_eid[from..to]);
    for k in 0..xs.len() {
      let dx = xs[k] as f64 - cx;
      let dy = ys[k] as f64 - cy;
      let dz = zs[k] as f64 - cz;
      let d2 = dx * dx + dy * dy + dz * dz;
      // Branch-free append: always write, advance only on a hit.
      s.d[n] = d2;
      s.slot[n] = (from + k) as u32;
      n += ((d2 <= r2) & (u64::from(es[k]) != skip)) as usize;
    }
    n
  }

  /// Writes the `n` hits in `s` at their ranks, as eids and distances:
  /// exactly `eids.len()` = `dist.len()` = n of them.
  #[inline(always)]
  fn emit(&self, s: &mut Scratch, eids: &mut [u32], dist: &mut [f64]) {
    let n = eids.len();
    self.write_ranked(s, eids, dist);
    // Counted ranks order hits by their keys: where two adjacent hits' keys
    // share a distance prefix, order them all exactly.
    let prefix = |d: &f64| (*d as f32).to_bits() & !KEY_POS;
    if s.keyed && n > 1 && dist.iter().zip(&dist[1..]).fold(false, |near, (a, b)| near | (prefix(a) == prefix(b))) {
      s.rank_exactly(n, &self.slot_idx);
      self.write_ranked(s, eids, dist);
    }
  }

  #[inline(always)]
  fn write_ranked(&self, s: &Scratch, eids: &mut [u32], dist: &mut [f64]) {
    let n = eids.len();
    for ((&r, &slot), &d) in s.rank[..n].iter().zip(&s.slot[..n]).zip(&s.d[..n]) {
      (eids[r as usize], dist[r as usize]) = (self.slot_eid[slot as usize], d);
    }
  }

  /// Indexes `index` (see `update`), then answers packed queries (checked
  /// by `check_queries`) into the packed layout the op returns: query q's
  /// hits are `out_eids` / `out_dist` at `offsets[q]..offsets[q + 1]`,
  /// sorted by distance, then insertion order. Returns the total number of
  /// hits; when that exceeds the output capacity, the hits are incomplete
  /// and the caller grows its buffers and asks again.
  pub fn query_batch(&mut self, index: &Index<'_>, queries: &[f64], offsets: &mut [u32], out_eids: &mut [u32], out_dist: &mut [f64]) -> Result<usize, OpError> {
    check_queries(queries)?;
    #[cfg(target_arch = "x86_64")]
    let simd = is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let simd = false;
    self.query_batch_with(simd, Some(index), queries, offsets, out_eids, out_dist)
  }

  /// `query_batch` of checked queries (over the grid as it is without an
  /// `index`), scanning with AVX2 if `simd` (only where it is detected).
  fn query_batch_with(&mut self, simd: bool, index: Option<&Index<'_>>, queries: &[f64], offsets: &mut [u32], out_eids: &mut [u32], out_dist: &mut [f64]) -> Result<usize, OpError> {
    let nq = queries.len() / 5;
    if offsets.len() < nq + 1 {
      return Err(OpError::invalid_input(format!("offsets needs {} entries for {nq} queries, got {}", nq + 1, offsets.len())));
    }
    offsets[0] = 0;
    let adaptive = self.adaptive.get_or_insert_with(Adaptive::for_this_machine);
    let mode = adaptive.considers(nq).then(|| adaptive.choose(nq));
    // A split batch wakes the pool first, so its threads come up while this
    // one checks (or rebuilds) the index.
    let chunk = parallel_chunk(nq, rayon::current_num_threads());
    let start = |grid: &mut SpatialGrid| (mode == Some(Mode::Parallel)).then(|| Split::start(std::mem::take(&mut grid.parts), simd, queries, chunk));
    let mut split = start(self);
    if let Some(index) = index {
      if self.take(index)? {
        let reindex = self.reindex_mode();
        if reindex == Mode::Parallel {
          // The re-index needs the pool's threads: they let go, then are woken again.
          if let Some(waiting) = split.take() {
            self.parts = waiting.cancel();
          }
          self.reindex(reindex);
          split = start(self);
        } else {
          self.reindex(reindex);
        }
      }
    }
    let started = Instant::now();
    let total = match split {
      Some(split) => {
        let (total, parts) = split.answer(self, offsets, out_eids, out_dist);
        self.parts = parts;
        total
      }
      None => self.answer_serial(simd, queries, offsets, out_eids, out_dist),
    };
    if let Some(mode) = mode {
      self.adaptive.as_mut().unwrap().record(nq, mode, started.elapsed());
    }
    Ok(total)
  }

  /// The batch on the calling thread.
  fn answer_serial(&self, simd: bool, queries: &[f64], offsets: &mut [u32], out_eids: &mut [u32], out_dist: &mut [f64]) -> usize {
    with_scratch(self.len(), |s| {
      #[cfg(target_arch = "x86_64")]
      if simd {
        // SAFETY: `simd` is only set where AVX2 is detected.
        return unsafe { self.answer_avx2(queries, s, offsets, out_eids, out_dist) };
      }
      self.answer::<false>(queries, s, offsets, out_eids, out_dist)
    })
  }

  /// Some of a batch's queries, answered into their part's buffers, with
  /// AVX2 if `simd` (only where it is detected).
  fn part_for_this_cpu(&self, simd: bool, queries: &[f64], part: &mut Part) {
    with_scratch(self.len(), |s| {
      #[cfg(target_arch = "x86_64")]
      if simd {
        // SAFETY: `simd` is only set where AVX2 is detected.
        return unsafe { self.part_avx2(queries, s, part) };
      }
      self.part::<false>(queries, s, part)
    })
  }

  #[cfg(target_arch = "x86_64")]
  #[target_feature(enable = "avx2")]
  unsafe fn part_avx2(&self, queries: &[f64], s: &mut Scratch, part: &mut Part) {
    self.part::<true>(queries, s, part)
  }

  /// Some of a batch's queries, answered into their part's buffers.
  #[inline(always)]
  fn part<const SIMD: bool>(&self, queries: &[f64], s: &mut Scratch, p: &mut Part) {
    p.counts.clear();
    p.hits = 0;
    for q in queries.chunks_exact(5) {
      let n = self.find::<SIMD>(&Query::unpack(q), s);
      let (at, end) = (p.hits, p.hits + n);
      if p.eids.len() < end {
        let grown = end.max(2 * p.eids.len());
        p.eids.resize(grown, 0);
        p.dist.resize(grown, 0.0);
      }
      self.emit(s, &mut p.eids[at..end], &mut p.dist[at..end]);
      p.counts.push(n as u32);
      p.hits = end;
    }
  }

  /// `answer`, compiled for AVX2 throughout (scan, square roots, ranks).
  #[cfg(target_arch = "x86_64")]
  #[target_feature(enable = "avx2")]
  unsafe fn answer_avx2(&self, queries: &[f64], s: &mut Scratch, offsets: &mut [u32], out_eids: &mut [u32], out_dist: &mut [f64]) -> usize {
    self.answer::<true>(queries, s, offsets, out_eids, out_dist)
  }

  /// The batch, one query after another: `offsets[q + 1]` gets the running
  /// hit count after query q, whose hits go straight to the output buffers
  /// while they fit. Returns the count.
  #[inline(always)]
  fn answer<const SIMD: bool>(&self, queries: &[f64], s: &mut Scratch, offsets: &mut [u32], out_eids: &mut [u32], out_dist: &mut [f64]) -> usize {
    let cap = out_eids.len().min(out_dist.len());
    let mut total = 0;
    for (q, o) in queries.chunks_exact(5).zip(&mut offsets[1..]) {
      let n = self.find::<SIMD>(&Query::unpack(q), s);
      if total + n <= cap {
        self.emit(s, &mut out_eids[total..total + n], &mut out_dist[total..total + n]);
      }
      total += n;
      *o = total as u32;
    }
    total
  }
}

/// One query's `scan`, four slots at a time: the same f64 arithmetic (no
/// FMA), the hits packed by a lane permutation.
#[cfg(target_arch = "x86_64")]
struct Avx2Scan {
  center: [std::arch::x86_64::__m256d; 3],
  r2: std::arch::x86_64::__m256d,
  me: std::arch::x86_64::__m128i,
  /// Lane mask of `me` matches that are excluded (none without a self eid).
  me_bits: usize,
}

#[cfg(target_arch = "x86_64")]
impl Avx2Scan {
  #[target_feature(enable = "avx2")]
  #[inline]
  unsafe fn new(q: &Query, r2: f64) -> Self {
    use std::arch::x86_64::*;
    Self {
      center: q.center.map(|v| _mm256_set1_pd(v)),
      r2: _mm256_set1_pd(r2),
      me: _mm_set1_epi32(q.self_eid.unwrap_or(0) as i32),
      me_bits: if q.self_eid.is_some() { 0xf } else { 0 },
    }
  }

  /// `scan` of slots `from..to` in whole blocks, so up to 3 slots past
  /// `to` (the columns are padded and the scratch sized for it); returns
  /// the new n and the end of the slots scanned.
  #[target_feature(enable = "avx2")]
  #[inline]
  unsafe fn run(&self, grid: &SpatialGrid, from: usize, to: usize, s: &mut Scratch, mut n: usize) -> (usize, usize) {
    use std::arch::x86_64::*;
    let end = from + (to - from).div_ceil(4) * 4;
    assert!(end <= grid.xs.len() && n + (end - from) <= s.d.len().min(s.slot.len()));
    let (xs, ys, zs, es) = (grid.xs.as_ptr(), grid.ys.as_ptr(), grid.zs.as_ptr(), grid.slot_eid.as_ptr());
    let (d2_out, slot_out) = (s.d.as_mut_ptr(), s.slot.as_mut_ptr());
    let [cx, cy, cz] = self.center;
    let mut slots = _mm_add_epi32(_mm_set1_epi32(from as i32), _mm_setr_epi32(0, 1, 2, 3));
    let mut k = from;
    while k < end {
      // Widening is exact: the same f64 values the scalar scan uses.
      let dx = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(xs.add(k))), cx);
      let dy = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(ys.add(k))), cy);
      let dz = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(zs.add(k))), cz);
      let d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
      let within = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(d2, self.r2)) as usize;
      let is_me = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128(es.add(k).cast()), self.me))) as usize;
      let (perm, lanes, count) = &PACK[within & !(is_me & self.me_bits)];
      let packed = _mm256_permutevar8x32_ps(_mm256_castpd_ps(d2), _mm256_loadu_si256(perm.as_ptr().cast()));
      _mm256_storeu_pd(d2_out.add(n), _mm256_castps_pd(packed));
      _mm_storeu_si128(slot_out.add(n).cast(), _mm_shuffle_epi8(slots, _mm_loadu_si128(lanes.as_ptr().cast())));
      slots = _mm_add_epi32(slots, _mm_set1_epi32(4));
      n += count;
      k += 4;
    }
    (n, end)
  }
}

impl Scratch {
  /// Grows the buffers to fit a query that matches all `count` entities: a
  /// 4-wide scan writes whole blocks past the hits, ranks read whole
  /// blocks of 8 keys. Never shrinks (grids of several sizes share it).
  fn fit(&mut self, count: usize) {
    if self.keys.len() < count + 8 {
      self.slot.resize(count + 4, 0);
      self.d.resize(count + 4, 0.0);
      self.keys.resize(count + 8, 0);
      self.rank.resize(count + 8, 0);
    }
  }

  /// Turns hits `0..n`'s d² into distances and ranks them: counted over
  /// keys (see `rank_avx2`), or sorted by distance, then insertion index.
  #[inline(always)]
  fn order<const SIMD: bool>(&mut self, n: usize, slot_idx: &[u32]) {
    // Passes of their own, so they vectorize.
    for d in &mut self.d[..n] {
      *d = d.sqrt();
    }
    #[cfg(target_arch = "x86_64")]
    if SIMD && n <= RANK_MAX {
      // Distinct keys that order as the distances do, but for ties within
      // the last bits of their f32 rounding (a monotonic one), which hold
      // the hit's position instead; `emit` settles those.
      for (i, (k, d)) in self.keys[..n].iter_mut().zip(&self.d[..n]).enumerate() {
        *k = ((*d as f32).to_bits() & !KEY_POS) | i as u32;
      }
      // SAFETY: SIMD is only set where AVX2 is detected.
      unsafe { self.rank_avx2(n) };
      self.keyed = true;
      return;
    }
    self.rank_exactly(n, slot_idx);
  }

  /// Ranks hits `0..n` by distance, then insertion index.
  fn rank_exactly(&mut self, n: usize, slot_idx: &[u32]) {
    let by = |i: u32| (self.d[i as usize], slot_idx[self.slot[i as usize] as usize]);
    let order = &mut self.keys[..n];
    for (i, k) in order.iter_mut().enumerate() {
      *k = i as u32;
    }
    order.sort_unstable_by(|&a, &b| by(a).partial_cmp(&by(b)).unwrap());
    for (r, &i) in order.iter().enumerate() {
      self.rank[i as usize] = r as u32;
    }
    self.keyed = false;
  }

  /// Each key's rank, counted: how many of the others are smaller, for
  /// eight keys an instruction. Quadratic, but branch-free and cheaper than
  /// a sort at a query's usual few dozen hits.
  #[cfg(target_arch = "x86_64")]
  #[target_feature(enable = "avx2")]
  #[inline]
  unsafe fn rank_avx2(&mut self, n: usize) {
    let blocks = n.div_ceil(8);
    assert!(blocks * 8 <= self.keys.len().min(self.rank.len()));
    // Padding: above every key (whose top bit is clear), ranked but unread.
    self.keys[n..blocks * 8].fill(i32::MAX as u32);
    let mut b = 0;
    while b + 4 <= blocks {
      self.rank_blocks::<4>(b, n);
      b += 4;
    }
    while b < blocks {
      self.rank_blocks::<1>(b, n);
      b += 1;
    }
  }

  /// Ranks the G blocks of eight keys from block `b`, each other key
  /// loaded once for all of them.
  #[cfg(target_arch = "x86_64")]
  #[target_feature(enable = "avx2")]
  #[inline]
  unsafe fn rank_blocks<const G: usize>(&mut self, b: usize, n: usize) {
    use std::arch::x86_64::*;
    let keys = self.keys.as_ptr().add(8 * b).cast::<__m256i>();
    let mine: [__m256i; G] = std::array::from_fn(|g| _mm256_loadu_si256(keys.add(g)));
    let mut below = [_mm256_setzero_si256(); G];
    for &other in &self.keys[..n] {
      let other = _mm256_set1_epi32(other as i32);
      for g in 0..G {
        // Lanes are -1 where the key is greater.
        below[g] = _mm256_sub_epi32(below[g], _mm256_cmpgt_epi32(mine[g], other));
      }
    }
    let rank = self.rank.as_mut_ptr().add(8 * b).cast::<__m256i>();
    for (g, below) in below.iter().enumerate() {
      _mm256_storeu_si256(rank.add(g), *below);
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  struct World {
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
    eids: Vec<u32>,
  }

  impl World {
    fn new(points: &[[f32; 3]]) -> Self {
      let eids = (0..points.len() as u32).collect();
      Self { x: points.iter().map(|p| p[0]).collect(), y: points.iter().map(|p| p[1]).collect(), z: points.iter().map(|p| p[2]).collect(), eids }
    }

    fn grid(&self, cell: f64) -> SpatialGrid {
      let mut g = SpatialGrid::default();
      g.update(&self.eids, &self.x, &self.y, &self.z, cell).unwrap();
      g
    }

    /// The contract, literally: every indexed entity passing the f64 test,
    /// sorted by distance, then insertion order.
    fn brute(&self, q: &Query) -> Vec<(u32, f64)> {
      let mut v: Vec<(f64, usize, u32)> = self
        .eids
        .iter()
        .enumerate()
        .filter_map(|(i, &e)| {
          let p = [self.x[e as usize] as f64, self.y[e as usize] as f64, self.z[e as usize] as f64];
          let d = [p[0] - q.center[0], p[1] - q.center[1], p[2] - q.center[2]];
          let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
          let indexed = p.iter().all(|c| c.is_finite());
          (indexed && d2 <= q.radius * q.radius && q.self_eid != Some(e)).then(|| (d2.sqrt(), i, e))
        })
        .collect();
      v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
      v.into_iter().map(|(d, _, e)| (e, d)).collect()
    }
  }

  fn pack(queries: &[Query]) -> Vec<f64> {
    let packed: Vec<f64> = queries.iter().flat_map(|q| [q.center[0], q.center[1], q.center[2], q.radius, q.self_eid.map_or(-1.0, f64::from)]).collect();
    assert_eq!(check_queries(&packed).unwrap(), queries.len());
    packed
  }

  impl SpatialGrid {
    /// A batch split in parts of `chunk` queries over the grid as it is (on
    /// the current rayon pool), whatever the adaptive policy would choose.
    fn answer_parallel(&mut self, simd: bool, queries: &[f64], offsets: &mut [u32], out_eids: &mut [u32], out_dist: &mut [f64], chunk: usize) -> usize {
      offsets[0] = 0;
      let split = Split::start(std::mem::take(&mut self.parts), simd, queries, chunk);
      let (total, parts) = split.answer(self, offsets, out_eids, out_dist);
      self.parts = parts;
      total
    }
  }

  /// Per query, the (eid, distance) hits, scanned with AVX2 if `simd`.
  fn batch(g: &mut SpatialGrid, simd: bool, queries: &[Query]) -> Vec<Vec<(u32, f64)>> {
    let mut offsets = vec![0; queries.len() + 1];
    let (mut eids, mut dist) = (vec![0; g.len() * queries.len()], vec![0.0; g.len() * queries.len()]);
    let total = g.query_batch_with(simd, None, &pack(queries), &mut offsets, &mut eids, &mut dist).unwrap();
    assert_eq!(offsets[queries.len()] as usize, total);
    offsets.windows(2).map(|w| (w[0] as usize..w[1] as usize).map(|k| (eids[k], dist[k])).collect()).collect()
  }

  /// Every way a batch may be scanned here: scalar, and AVX2 if detected.
  fn scans() -> Vec<bool> {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
      return vec![false, true];
    }
    vec![false]
  }

  /// The scan `query_batch` picks.
  fn best() -> bool {
    *scans().last().unwrap()
  }

  fn rng(mut seed: u64) -> impl FnMut() -> f32 {
    move || {
      seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
      ((seed >> 33) as f64 / (1u64 << 31) as f64) as f32
    }
  }

  #[test]
  fn every_scan_and_cell_size_gives_the_brute_force_answer() {
    let mut rnd = rng(12345);
    for world in 0..60 {
      let cell = [0.5, 1.0, 2.5, 15.0, 1000.0][world % 5];
      // Scattered points, points on cell edges, duplicates (distance ties).
      let mut points: Vec<[f32; 3]> = Vec::new();
      for _ in 0..1 + (rnd() * 300.0) as usize {
        let pick = rnd();
        points.push(if pick < 0.2 {
          [(rnd() * 8.0).round() * cell as f32, (rnd() * 3.0).round() * cell as f32, (rnd() * 8.0).round() * cell as f32]
        } else if pick < 0.3 && !points.is_empty() {
          points[(rnd() * points.len() as f32) as usize % points.len()]
        } else {
          [rnd() * 100.0 - 50.0, rnd() * 10.0, rnd() * 100.0 - 50.0]
        });
      }
      let w = World::new(&points);
      let queries: Vec<Query> = (0..1 + (rnd() * 40.0) as usize)
        .map(|k| {
          let at = points[(rnd() * points.len() as f32) as usize % points.len()];
          let radius = [0.0, cell, (rnd() * 30.0) as f64, 1e9][k % 4];
          let center = if k % 3 == 0 { [rnd() as f64 * 120.0 - 60.0, 5.0, rnd() as f64 * 120.0 - 60.0] } else { at.map(f64::from) };
          Query { center, radius, self_eid: (k % 5 != 0).then_some(k as u32 % points.len() as u32) }
        })
        .collect();
      let want: Vec<_> = queries.iter().map(|q| w.brute(q)).collect();
      let mut g = w.grid(cell);
      for simd in scans() {
        assert_eq!(batch(&mut g, simd, &queries), want, "world {world}, cell {cell}, simd {simd}");
      }
    }
  }

  #[test]
  fn a_batch_split_across_threads_is_byte_identical_to_one_thread() {
    let mut rnd = rng(777);
    let points: Vec<[f32; 3]> = (0..3000).map(|_| [rnd() * 200.0 - 100.0, rnd() * 10.0, rnd() * 200.0 - 100.0]).collect();
    let w = World::new(&points);
    let queries: Vec<Query> = (0..700)
      .map(|k| Query { center: points[k * 4].map(f64::from), radius: [15.0, 0.0, 40.0][k % 3], self_eid: Some(k as u32 * 4) })
      .collect();
    let packed = pack(&queries);
    let mut g = w.grid(8.0);
    // Room for all hits, and too little (results past the capacity are left out the same way).
    for cap in [points.len() * queries.len(), 5000] {
      for simd in scans() {
        let run = |g: &mut SpatialGrid, split: Option<usize>| {
          let mut offsets = vec![0u32; queries.len() + 1];
          let (mut eids, mut dist) = (vec![0u32; cap], vec![0f64; cap]);
          let total = match split {
            None => g.answer_serial(simd, &packed, &mut offsets, &mut eids, &mut dist),
            Some(chunk) => {
              offsets[0] = 0;
              let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
              pool.install(|| g.answer_parallel(simd, &packed, &mut offsets, &mut eids, &mut dist, chunk))
            }
          };
          (total, offsets, eids.iter().map(|e| e.to_le_bytes()).collect::<Vec<_>>(), dist.iter().map(|d| d.to_bits()).collect::<Vec<_>>())
        };
        let one = run(&mut g, None);
        assert!(one.0 > 1000, "the queries find things: {}", one.0);
        // Fewer, then more parts than the batch before: parts' buffers are reused.
        for chunk in [16, 33, 700, 16] {
          assert!(run(&mut g, Some(chunk)) == one, "split in parts of {chunk}, capacity {cap}, simd {simd}");
        }
      }
    }
    // A smaller grid after it: the threads' scratch (fitted to the larger) is reused.
    let small = World::new(&points[..200]);
    let mut g = small.grid(8.0);
    let want: Vec<_> = queries.iter().map(|q| small.brute(q)).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for simd in scans() {
      let (mut offsets, mut eids, mut dist) = (vec![0u32; queries.len() + 1], vec![0u32; 200 * queries.len()], vec![0f64; 200 * queries.len()]);
      pool.install(|| g.answer_parallel(simd, &packed, &mut offsets, &mut eids, &mut dist, 16));
      let got: Vec<Vec<(u32, f64)>> = offsets.windows(2).map(|w| (w[0] as usize..w[1] as usize).map(|k| (eids[k], dist[k])).collect()).collect();
      assert_eq!(got, want, "simd {simd}");
    }
  }

  /// The op's path on a pool of more than two threads: the policy runs
  /// both modes; batches split while the pool waits for the index to be
  /// checked, re-indexed (one thread, or split after the waiting threads
  /// let go) or rejected, and every answer is the brute-force one.
  #[test]
  fn batches_answered_while_the_index_changes_or_is_rejected_on_a_pool() {
    let mut rnd = rng(4242);
    let mut points: Vec<[f32; 3]> = (0..3000).map(|_| [rnd() * 200.0 - 100.0, rnd() * 10.0, rnd() * 200.0 - 100.0]).collect();
    let queries: Vec<Query> = (0..300).map(|k| Query { center: points[k * 9].map(f64::from), radius: [15.0, 4.0][k % 2], self_eid: Some(k as u32 * 9) }).collect();
    let packed = pack(&queries);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let mut g = SpatialGrid::default();
    let (mut offsets, mut eids, mut dist) = (vec![0u32; queries.len() + 1], vec![0u32; 1 << 16], vec![0f64; 1 << 16]);
    let mut modes = [0usize; 2];
    for round in 0..120 {
      // Unchanged, moved (every third round), or a rejected update (every seventh).
      if round % 3 == 1 {
        for p in &mut points {
          p[0] += rnd() - 0.5;
        }
      }
      let w = World::new(&points);
      if round % 7 == 3 {
        let bad = [0, points.len() as u32];
        let index = Index { eids: &bad, x: &w.x, y: &w.y, z: &w.z, cell_hint: 8.0 };
        let err = pool.install(|| g.query_batch(&index, &packed, &mut offsets, &mut eids, &mut dist)).unwrap_err();
        assert!(err.message.contains("outside"), "{}", err.message);
        continue;
      }
      let index = Index { eids: &w.eids, x: &w.x, y: &w.y, z: &w.z, cell_hint: 8.0 };
      let total = pool.install(|| g.query_batch(&index, &packed, &mut offsets, &mut eids, &mut dist)).unwrap();
      assert!(total <= eids.len());
      let got: Vec<Vec<(u32, f64)>> = offsets.windows(2).map(|o| (o[0] as usize..o[1] as usize).map(|k| (eids[k], dist[k])).collect()).collect();
      let want: Vec<_> = queries.iter().map(|q| w.brute(q)).collect();
      assert!(got == want, "round {round}");
      modes[usize::from(g.parts.iter().any(|p| !p.counts.is_empty()))] += 1;
    }
    assert!(modes[1] > 0, "some batches were split: {modes:?}");
  }

  #[test]
  fn a_split_reindex_lays_out_the_same_grid() {
    let mut rnd = rng(99);
    for (world, cell) in [0.5, 4.0, 15.0, 1e6].into_iter().enumerate() {
      // Clustered and scattered points, duplicates, and a few not finite.
      let mut points: Vec<[f32; 3]> = (0..2000 + world * 500).map(|_| [rnd() * 300.0 - 150.0, rnd() * 10.0, (rnd() * 6.0).round() * 20.0]).collect();
      points[7] = [f32::NAN, 0.0, 0.0];
      points[500] = points[9];
      let w = World::new(&points);
      let mut one = w.grid(cell);
      one.rebuild_for_this_cpu(false);
      let bits = |v: &[f32]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
      let layout = |g: &SpatialGrid| (g.offsets.clone(), [&g.xs, &g.ys, &g.zs].map(|c| bits(c)), g.slot_eid.clone(), g.slot_idx.clone(), g.dims);
      for threads in [2, 3, 8] {
        let mut g = w.grid(cell);
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| g.rebuild_for_this_cpu(true));
        assert!(layout(&g) == layout(&one), "cell {cell}, {threads} threads");
      }
    }
  }

  /// 16,383 entities × 2,000 queries (js/bench/spatial.ts's largest batch), one thread and split
  /// over the pool (`RAYON_NUM_THREADS`, else one per core), without linking V8.
  /// `cargo test --release -p limina-ecs -- --ignored --nocapture bench_`
  #[test]
  #[ignore]
  fn bench_split_batches() {
    let mut rnd = rng(42);
    let (entities, extent) = (16383, 200.0 * (16383.0f32 / 2000.0).sqrt());
    let points: Vec<[f32; 3]> = (0..entities).map(|_| [(rnd() - 0.5) * extent, rnd() * 10.0, (rnd() - 0.5) * extent]).collect();
    let w = World::new(&points);
    let mut g = w.grid(15.0);
    let threads = rayon::current_num_threads();
    for nq in [200, 2000] {
      let queries: Vec<Query> = (0..nq).map(|k| Query { center: points[(k * 7919) % entities].map(f64::from), radius: 15.0, self_eid: Some(((k * 7919) % entities) as u32) }).collect();
      let packed = pack(&queries);
      let (mut offsets, mut eids, mut dist) = (vec![0u32; nq + 1], vec![0u32; 64 * nq], vec![0f64; 64 * nq]);
      let mut p50 = |g: &mut SpatialGrid, split: bool| {
        let mut t: Vec<f64> = (0..400)
          .map(|_| {
            let at = std::time::Instant::now();
            if split {
              g.answer_parallel(best(), &packed, &mut offsets, &mut eids, &mut dist, parallel_chunk(nq, threads));
            } else {
              g.answer_serial(best(), &packed, &mut offsets, &mut eids, &mut dist);
            }
            at.elapsed().as_secs_f64() * 1e3
          })
          .collect();
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
      };
      let (serial, split) = (p50(&mut g, false), p50(&mut g, true));
      println!("{{\"entities\":{entities},\"queries\":{nq},\"threads\":{threads},\"serialP50Ms\":{serial:.4},\"splitP50Ms\":{split:.4},\"ratio\":{:.2}}}", serial / split);
    }
    // A whole re-index (what every entity moving costs), one thread and split.
    let mut reindex = |split: bool| {
      let mut t: Vec<f64> = (0..400)
        .map(|_| {
          let at = std::time::Instant::now();
          g.rebuild_for_this_cpu(split);
          at.elapsed().as_secs_f64() * 1e3
        })
        .collect();
      t.sort_by(f64::total_cmp);
      t[t.len() / 2]
    };
    let (serial, split) = (reindex(false), reindex(true));
    println!("{{\"entities\":{entities},\"threads\":{threads},\"reindexSerialP50Ms\":{serial:.4},\"reindexSplitP50Ms\":{split:.4},\"ratio\":{:.2}}}", serial / split);
  }

  #[test]
  fn ties_break_by_insertion_order_and_self_is_excluded() {
    let w = World::new(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]);
    let mut g = w.grid(1.0);
    for simd in scans() {
      let q = Query { center: [0.0; 3], radius: 1.0, self_eid: Some(3) };
      let q0 = Query { center: [0.0; 3], radius: 0.0, self_eid: None };
      assert_eq!(batch(&mut g, simd, &[q, q0]), [vec![(0, 1.0), (1, 1.0), (2, 1.0)], vec![(3, 0.0)]]);
    }
  }

  #[test]
  fn distances_within_a_rank_key_are_ordered_exactly() {
    // From 2⁻⁴⁰: eid 0 at 1 + 2⁻⁴⁰ and eid 1 at 1 - 2⁻⁴⁰, one f32 distance;
    // eid 0 comes first in insertion order and in the grid's slots.
    let w = World::new(&[[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]]);
    let q = Query { center: [2f64.powi(-40), 0.0, 0.0], radius: 2.0, self_eid: None };
    // Eid 0 at 1 + 2⁻²⁰, eid 1 at 1: two f32 distances, one key prefix.
    let near = World::new(&[[-1.0 - 2f32.powi(-20), 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]]);
    let q_near = Query { center: [0.0; 3], radius: 2.0, self_eid: None };
    for (w, q) in [(w, q), (near, q_near)] {
      let mut g = w.grid(1.0);
      for simd in scans() {
        let got = batch(&mut g, simd, &[q]);
        assert_eq!(got[0], w.brute(&q));
        assert_eq!(got[0].iter().map(|h| h.0).collect::<Vec<_>>(), [2, 1, 0]);
      }
    }
  }

  #[test]
  fn huge_radii_and_far_queries_stay_cheap_and_correct() {
    let w = World::new(&[[0.0, 0.0, 0.0], [1e6, 0.0, 0.0], [-3e38, 3e38, 0.0]]);
    let mut g = w.grid(0.001);
    assert!(g.dims.iter().product::<usize>() <= MAX_CELLS);
    let all = Query { center: [0.0; 3], radius: 1e9, self_eid: None };
    let far = Query { center: [-1e7, 0.0, 0.0], radius: 1.0, self_eid: None };
    // r² overflows: everything matches, whatever the distance.
    let overflow = Query { center: [1e300, 0.0, 0.0], radius: 1e160, self_eid: None };
    for simd in scans() {
      let got = batch(&mut g, simd, &[all, far, overflow]);
      assert_eq!(got, [all, far, overflow].map(|q| w.brute(&q)));
      assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [2, 0, 3]);
    }
  }

  #[test]
  fn bad_queries_are_rejected_precisely() {
    assert!(check_queries(&[0.0; 4]).unwrap_err().message.contains("× N"));
    assert!(check_queries(&[0.0, 0.0, 0.0, -1.0, -1.0]).unwrap_err().message.contains("radius"));
    assert!(check_queries(&[f64::NAN, 0.0, 0.0, 1.0, -1.0]).unwrap_err().message.contains("center"));
    assert!(check_queries(&[0.0, 0.0, 0.0, 1.0, 2.5]).unwrap_err().message.contains("selfEid"));
    assert!(check_queries(&[0.0, 0.0, 0.0, 1.0, 5e9]).unwrap_err().message.contains("selfEid"));
    assert!(check_queries(&[0.0, 0.0, 0.0, 1.0, -2.0]).unwrap_err().message.contains("selfEid"));
    assert_eq!(Query::unpack(&[1.0, 2.0, 3.0, 4.0, 7.0]).self_eid, Some(7));
    assert_eq!(Query::unpack(&[1.0, 2.0, 3.0, 4.0, -1.0]).self_eid, None);
    let w = World::new(&[[0.0; 3]]);
    let mut g = SpatialGrid::default();
    assert!(g.update(&[1], &w.x, &w.y, &w.z, 1.0).unwrap_err().message.contains("outside"));
    assert!(g.update(&[0], &w.x, &w.y, &w.z, 0.0).unwrap_err().message.contains("cell size"));
  }

  #[test]
  fn non_finite_positions_are_not_indexed() {
    let w = World::new(&[[f32::NAN, 0.0, 0.0], [0.0, f32::INFINITY, 0.0], [0.0, 0.0, 0.0]]);
    let mut g = w.grid(1.0);
    assert_eq!(g.len(), 1);
    let q = Query { center: [0.0; 3], radius: 1e9, self_eid: None };
    assert_eq!(batch(&mut g, best(), &[q])[0], [(2, 0.0)]);
  }

  #[test]
  fn the_grid_follows_every_change_to_its_inputs() {
    let mut w = World::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
    let q = [Query { center: [0.0; 3], radius: 1.5, self_eid: None }];
    let mut g = w.grid(1.0);
    let eids = |g: &mut SpatialGrid| batch(g, best(), &q)[0].iter().map(|h| h.0).collect::<Vec<_>>();
    assert_eq!(eids(&mut g), [0, 1]);
    // Moved in place, in the SoA the grid reads: the next update sees it.
    w.x[2] = -0.5;
    g.update(&w.eids, &w.x, &w.y, &w.z, 1.0).unwrap();
    assert_eq!(eids(&mut g), [0, 2, 1]);
    // Other entities, other order.
    g.update(&[1, 0], &w.x, &w.y, &w.z, 1.0).unwrap();
    assert_eq!(eids(&mut g), [0, 1]);
    // A changed cell size changes nothing visible.
    g.update(&[1, 0], &w.x, &w.y, &w.z, 0.25).unwrap();
    assert_eq!(eids(&mut g), [0, 1]);
    g.update(&[], &w.x, &w.y, &w.z, 1.0).unwrap();
    assert_eq!(eids(&mut g), [0u32; 0]);
  }

  #[test]
  fn positions_count_as_unchanged_only_bit_for_bit_and_eids_stay_within_the_buffers() {
    let points: Vec<[f32; 3]> = (0..37).map(|i| [i as f32, 0.5, -(i as f32)]).collect();
    let w = World::new(&points);
    // Two runs of eids, so a change is looked for in each run and axis.
    let eids: Vec<u32> = (0..20).chain(25..37).collect();
    let mut g = SpatialGrid::default();
    let index = |g: &mut SpatialGrid, w: &World| g.take(&Index { eids: &eids, x: &w.x, y: &w.y, z: &w.z, cell_hint: 1.0 }).unwrap();
    assert!(index(&mut g, &w), "the first update indexes");
    assert!(!index(&mut g, &w), "the same values: nothing to re-index");
    for (axis, at, value) in [(0, 36, 36.0001), (1, 0, 0.5000001), (2, 0, 0.0), (2, 19, f32::from_bits((-19.0f32).to_bits() ^ 1)), (1, 30, f32::NAN)] {
      let mut moved = World::new(&points);
      [&mut moved.x, &mut moved.y, &mut moved.z][axis][at] = value;
      assert!(index(&mut g, &moved), "axis {axis}, eid {at}: a changed bit re-indexes (-0 and 0 differ)");
      assert!(!index(&mut g, &moved), "axis {axis}, eid {at}: the change was taken");
      assert!(index(&mut g, &w), "axis {axis}, eid {at}: back again");
    }
    // Outside the eids indexed, nothing counts.
    let mut beside = World::new(&points);
    beside.x[22] = 1e9;
    assert!(!index(&mut g, &beside));
    // The same eids over buffers too short for the last of them are refused, and the grid is kept.
    let short = g.take(&Index { eids: &eids, x: &w.x, y: &w.y, z: &w.z[..36], cell_hint: 1.0 }).unwrap_err();
    assert!(format!("{short:?}").contains("eid 36 is outside the 36-entity position buffers"), "{short:?}");
    assert!(!index(&mut g, &w));
  }

  #[test]
  fn results_that_do_not_fit_report_the_needed_size() {
    let w = World::new(&[[0.5, 0.0, 0.0], [0.7, 0.0, 0.0], [5.0, 0.0, 0.0], [6.0, 0.0, 0.0]]);
    let mut g = w.grid(1.0);
    let queries = [
      Query { center: [0.0; 3], radius: 1.0, self_eid: None },
      Query { center: [6.0, 0.0, 0.0], radius: 0.5, self_eid: None },
    ];
    for simd in scans() {
      let mut offsets = [9u32; 3];
      let (mut eids, mut dist) = ([0u32; 2], [0f64; 2]);
      assert_eq!(g.query_batch_with(simd, None, &pack(&queries), &mut offsets, &mut eids, &mut dist).unwrap(), 3);
      let (mut eids, mut dist) = ([0u32; 3], [0f64; 3]);
      assert_eq!(g.query_batch_with(simd, None, &pack(&queries), &mut offsets, &mut eids, &mut dist).unwrap(), 3);
      assert_eq!((offsets, eids, dist), ([0, 2, 3], [0, 1, 3], [0.5, 0.699999988079071, 0.0]));
      assert!(g.query_batch_with(simd, None, &pack(&queries), &mut [0u32; 2], &mut eids, &mut dist).is_err());
    }
  }
}
