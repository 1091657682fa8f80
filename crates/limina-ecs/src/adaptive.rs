//! When a batch of spatial queries is split across rayon: decided by
//! measurement, per batch size, on the machine it runs on.
//!
//! On two cores a split never beat one thread (measured at 200 to 8192
//! queries on the reference VM: p50 1.0–1.5× slower), so with two threads
//! or fewer every batch runs on the calling thread. With more, each batch
//! size (by powers of two) keeps the per-query cost it measured both ways
//! and runs the cheaper one, re-measuring the other every `REPROBE` batches
//! so a machine that gets busier or quieter is followed. Results never
//! depend on the choice: each query is answered whole by one thread, and
//! the parts are laid out in query order. A grid keeps a second policy for
//! its re-index, by entity count (its split lays out the same grid).

use std::time::Duration;

/// Batches smaller than this stay on the calling thread: a few µs of work, less than waking the pool.
pub const MIN_PARALLEL_QUERIES: usize = 32;
/// Every this many batches of a size, the mode not chosen is measured again.
const REPROBE: u32 = 32;
/// Weight of the newest measurement in a size's running cost.
const NEWEST: f64 = 0.25;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
  Serial,
  Parallel,
}

#[derive(Clone, Copy, Default)]
struct Costs {
  /// Running ns per query, one thread and split; None until measured.
  serial: Option<f64>,
  parallel: Option<f64>,
  batches: u32,
}

pub struct Adaptive {
  threads: usize,
  /// By log2 of the batch's query count.
  sizes: [Costs; 32],
}

impl Adaptive {
  pub fn new(threads: usize) -> Self {
    Self { threads, sizes: [Costs::default(); 32] }
  }

  /// The pool rayon would split over (`RAYON_NUM_THREADS`, else one per core).
  pub fn for_this_machine() -> Self {
    Self::new(rayon::current_num_threads())
  }

  /// Whether a batch of `queries` is worth measuring at all (false: always serial, untimed).
  pub fn considers(&self, queries: usize) -> bool {
    self.threads > 2 && queries >= MIN_PARALLEL_QUERIES
  }

  /// How to run a batch of `queries`.
  pub fn choose(&mut self, queries: usize) -> Mode {
    if !self.considers(queries) {
      return Mode::Serial;
    }
    let c = &mut self.sizes[size_class(queries)];
    c.batches = c.batches.wrapping_add(1);
    match (c.serial, c.parallel) {
      (None, _) => Mode::Serial,
      (_, None) => Mode::Parallel,
      (Some(s), Some(p)) => {
        let faster = if p < s { Mode::Parallel } else { Mode::Serial };
        let other = if faster == Mode::Parallel { Mode::Serial } else { Mode::Parallel };
        if c.batches % REPROBE == 0 { other } else { faster }
      }
    }
  }

  /// Records what a batch of `queries` run in `mode` took.
  pub fn record(&mut self, queries: usize, mode: Mode, took: Duration) {
    if !self.considers(queries) {
      return;
    }
    let per_query = took.as_nanos() as f64 / queries as f64;
    let c = &mut self.sizes[size_class(queries)];
    let slot = match mode {
      Mode::Serial => &mut c.serial,
      Mode::Parallel => &mut c.parallel,
    };
    *slot = Some(slot.map_or(per_query, |old| old + NEWEST * (per_query - old)));
  }
}

fn size_class(queries: usize) -> usize {
  (usize::BITS - 1 - queries.max(1).leading_zeros()) as usize
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn two_cores_or_fewer_never_split() {
    let mut a = Adaptive::new(2);
    for n in [1, 200, 2000, 1 << 20] {
      assert_eq!(a.choose(n), Mode::Serial);
      a.record(n, Mode::Serial, Duration::from_millis(5));
    }
  }

  #[test]
  fn with_more_cores_the_measured_cheaper_mode_wins_and_the_other_is_reprobed() {
    let mut a = Adaptive::new(16);
    assert_eq!(a.choose(8), Mode::Serial, "tiny batches stay serial");
    // First both are measured, then the cheaper runs, except every REPROBE-th batch.
    assert_eq!(a.choose(2000), Mode::Serial);
    a.record(2000, Mode::Serial, Duration::from_micros(600));
    assert_eq!(a.choose(2000), Mode::Parallel);
    a.record(2000, Mode::Parallel, Duration::from_micros(100));
    let modes: Vec<Mode> = (0..2 * REPROBE).map(|_| a.choose(2000)).collect();
    assert_eq!(modes.iter().filter(|&&m| m == Mode::Serial).count(), 2, "{modes:?}");
    // A machine that got busy: split batches slow down, and serial wins again.
    for _ in 0..20 {
      a.record(2000, Mode::Parallel, Duration::from_micros(2000));
    }
    assert_eq!(a.choose(2000), Mode::Serial);
    // Sizes are measured apart: 200 queries have not been tried split yet.
    assert_eq!(a.choose(200), Mode::Serial);
    a.record(200, Mode::Serial, Duration::from_micros(60));
    assert_eq!(a.choose(200), Mode::Parallel);
  }
}
