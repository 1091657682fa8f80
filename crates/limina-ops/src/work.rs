//! Bounded work in flight that a deterministic run waits for. An async op
//! that does a bounded piece of work — reading an asset, writing a file,
//! a provider's HTTP call — holds a [`Busy`] guard while it runs; under the
//! virtual clock (`--deterministic`) the host loop runs no frame while any
//! guard is held, so that work completes at the same tick on every run,
//! however slow or loaded the machine. Everything here lives on the loop's
//! thread.

use std::cell::Cell;
use std::rc::Rc;

use deno_core::OpState;

#[derive(Clone, Default)]
pub struct Work(Rc<Cell<usize>>);

/// One piece of work in flight, until dropped.
pub struct Busy(Rc<Cell<usize>>);

impl Work {
  /// Marks a piece of work as started in `state`'s runtime.
  pub fn begin(state: &OpState) -> Busy {
    let count = state.borrow::<Work>().0.clone();
    count.set(count.get() + 1);
    Busy(count)
  }

  /// Pieces of work in flight now.
  pub fn in_flight(&self) -> usize {
    self.0.get()
  }
}

impl Drop for Busy {
  fn drop(&mut self) {
    self.0.set(self.0.get() - 1);
  }
}
