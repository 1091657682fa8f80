//! The doorbell between the transports and the host loop. A transport task
//! rings it when input arrives; the host loop, between frames, sees it rung
//! and lets JS apply that input right away instead of at the next fixed
//! step. Everything here lives on the loop's thread.
//!
//! A transport reads its next message only once the loop has taken what
//! rang ([`Arrivals::poll_taken`]): a burst of messages across connections
//! is then applied one by one as each is read, so the first call's reply
//! does not wait for every other connection's message to be read first
//! (transport tasks all run in one turn of the thread's task set before
//! the loop is polled again).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Clone, Default)]
pub struct Arrivals(Rc<Inner>);

#[derive(Default)]
struct Inner {
  rung: Cell<bool>,
  waker: RefCell<Option<Waker>>,
  /// Transports waiting for the loop to take what rang.
  readers: RefCell<Vec<Waker>>,
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
    drop(slot);
    // They run after the loop's turn, by when what was taken has been applied.
    for reader in self.0.readers.take() {
      reader.wake();
    }
    self.0.rung.replace(false)
  }

  /// Ready once nothing that rang is waiting for the loop to take it; a
  /// transport reads its next message only then (see the module's notes).
  pub fn poll_taken(&self, cx: &mut Context) -> Poll<()> {
    if !self.0.rung.get() {
      return Poll::Ready(());
    }
    let mut readers = self.0.readers.borrow_mut();
    if !readers.iter().any(|r| r.will_wake(cx.waker())) {
      readers.push(cx.waker().clone());
    }
    Poll::Pending
  }

  /// Whether input is waiting, leaving the mark.
  pub fn is_rung(&self) -> bool {
    self.0.rung.get()
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::sync::atomic::{AtomicUsize, Ordering};
  use std::sync::Arc;
  use std::task::Wake;

  struct Count(AtomicUsize);

  impl Wake for Count {
    fn wake(self: Arc<Self>) {
      self.0.fetch_add(1, Ordering::SeqCst);
    }
  }

  #[test]
  fn a_reader_waits_while_what_rang_is_untaken_and_is_woken_when_the_loop_takes_it() {
    let arrivals = Arrivals::default();
    let reader = Arc::new(Count(AtomicUsize::new(0)));
    let reader_waker = Waker::from(reader.clone());
    let mut cx = Context::from_waker(&reader_waker);
    assert!(arrivals.poll_taken(&mut cx).is_ready(), "nothing rang: read at once");
    arrivals.ring();
    assert!(arrivals.poll_taken(&mut cx).is_pending());
    assert!(arrivals.poll_taken(&mut cx).is_pending(), "polled twice, registered once");
    assert_eq!(reader.0.load(Ordering::SeqCst), 0);
    assert!(arrivals.take(Waker::noop()));
    assert_eq!(reader.0.load(Ordering::SeqCst), 1, "woken once when the loop took it");
    assert!(arrivals.poll_taken(&mut cx).is_ready());
    // Rung again (the loop left work over): the reader waits for the next take.
    arrivals.ring();
    assert!(arrivals.poll_taken(&mut cx).is_pending());
    assert!(arrivals.take(Waker::noop()));
    assert_eq!(reader.0.load(Ordering::SeqCst), 2);
  }
}
