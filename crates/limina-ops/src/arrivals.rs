//! The doorbell between the transports and the host loop. A transport task
//! rings it when input arrives; the host loop, between frames, sees it rung
//! and lets JS apply that input right away instead of at the next fixed
//! step. Everything here lives on the loop's thread.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::Waker;

#[derive(Clone, Default)]
pub struct Arrivals(Rc<Inner>);

#[derive(Default)]
struct Inner {
  rung: Cell<bool>,
  waker: RefCell<Option<Waker>>,
}

impl Arrivals {
  /// Marks input as waiting and wakes the host loop.
  pub fn ring(&self) {
    if !self.0.rung.replace(true) {
      if let Some(waker) = self.0.waker.borrow().as_ref() {
        waker.wake_by_ref();
      }
    }
  }

  /// Whether input is waiting (clearing the mark); `waker` is woken at the next ring.
  pub fn take(&self, waker: &Waker) -> bool {
    let mut slot = self.0.waker.borrow_mut();
    if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
      *slot = Some(waker.clone());
    }
    self.0.rung.replace(false)
  }

  /// Whether input is waiting, leaving the mark.
  pub fn is_rung(&self) -> bool {
    self.0.rung.get()
  }
}
