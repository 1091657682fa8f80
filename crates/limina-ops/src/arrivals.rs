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
//! the loop is polled again). Each take lets one waiting transport read
//! (the one waiting longest): waking them all would have every other one
//! find the doorbell rung again and wait anew — a 16-message burst polled
//! them 136 times instead of 31. A transport let read that reads no
//! message hands the turn on ([`Arrivals::pass`]), as does one that stops
//! reading ([`Arrivals::leave`]).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Clone, Default)]
pub struct Arrivals(Rc<Inner>);

#[derive(Default)]
struct Inner {
  rung: Cell<bool>,
  waker: RefCell<Option<Waker>>,
  /// Transports waiting for the loop to take what rang, longest first.
  readers: RefCell<VecDeque<Waker>>,
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
    let rung = self.0.rung.replace(false);
    // It runs after the loop's turn, by when what was taken has been applied.
    self.pass();
    rung
  }

  /// Lets the transport waiting longest read, if nothing rang: called by
  /// one that was let read and read no message (so rang nothing), lest the
  /// others wait for a take that never comes.
  pub fn pass(&self) {
    if self.0.rung.get() {
      return;
    }
    let next = self.0.readers.borrow_mut().pop_front();
    if let Some(reader) = next {
      reader.wake();
    }
  }

  /// A transport (its task's `waker`) stops reading: it waits no more, and
  /// the turn it may have been given goes on.
  pub fn leave(&self, waker: &Waker) {
    self.0.readers.borrow_mut().retain(|r| !r.will_wake(waker));
    self.pass();
  }

  /// Ready once nothing that rang is waiting for the loop to take it; a
  /// transport reads its next message only then, and hands the turn on
  /// when there was none (see the module's notes).
  pub fn poll_taken(&self, cx: &mut Context) -> Poll<()> {
    let mut readers = self.0.readers.borrow_mut();
    if !self.0.rung.get() {
      // Let read by another way (its socket, say): a turn handed to it later would be lost.
      readers.retain(|r| !r.will_wake(cx.waker()));
      return Poll::Ready(());
    }
    if !readers.iter().any(|r| r.will_wake(cx.waker())) {
      readers.push_back(cx.waker().clone());
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

  fn reader() -> (Arc<Count>, Waker) {
    let count = Arc::new(Count(AtomicUsize::new(0)));
    (count.clone(), Waker::from(count))
  }

  fn woken(readers: &[&Arc<Count>]) -> Vec<usize> {
    readers.iter().map(|r| r.0.load(Ordering::SeqCst)).collect()
  }

  #[test]
  fn each_take_lets_one_reader_read_longest_waiting_first_and_one_that_reads_nothing_hands_the_turn_on() {
    let arrivals = Arrivals::default();
    let ((a, a_waker), (b, b_waker), (c, c_waker)) = (reader(), reader(), reader());
    arrivals.ring();
    for waker in [&a_waker, &b_waker, &c_waker] {
      assert!(arrivals.poll_taken(&mut Context::from_waker(waker)).is_pending());
    }
    assert!(arrivals.take(Waker::noop()));
    assert_eq!(woken(&[&a, &b, &c]), [1, 0, 0], "only the first waiting is let read");
    assert!(arrivals.poll_taken(&mut Context::from_waker(&a_waker)).is_ready());
    // `a` read a message: it rang, and the next take lets `b` read.
    arrivals.ring();
    assert!(arrivals.take(Waker::noop()));
    assert_eq!(woken(&[&a, &b, &c]), [1, 1, 0]);
    assert!(arrivals.poll_taken(&mut Context::from_waker(&b_waker)).is_ready());
    // `b` found no message: it hands the turn on.
    arrivals.pass();
    assert_eq!(woken(&[&a, &b, &c]), [1, 1, 1]);
    arrivals.pass();
    assert_eq!(woken(&[&a, &b, &c]), [1, 1, 1], "nobody is left waiting");
  }

  #[test]
  fn a_reader_that_stops_reading_is_not_let_read_and_hands_on_a_turn_it_was_given() {
    let arrivals = Arrivals::default();
    let ((a, a_waker), (b, b_waker), (c, c_waker)) = (reader(), reader(), reader());
    arrivals.ring();
    for waker in [&a_waker, &b_waker, &c_waker] {
      assert!(arrivals.poll_taken(&mut Context::from_waker(waker)).is_pending());
    }
    // `b` ends while waiting: it is not let read later.
    arrivals.leave(&b_waker);
    assert!(arrivals.take(Waker::noop()));
    assert_eq!(woken(&[&a, &b, &c]), [1, 0, 0]);
    // `a` ends with the turn it was given: `c` reads instead.
    arrivals.leave(&a_waker);
    assert_eq!(woken(&[&a, &b, &c]), [1, 0, 1]);
  }

  #[test]
  fn a_waiting_reader_let_read_another_way_waits_no_more() {
    let arrivals = Arrivals::default();
    let ((a, a_waker), (b, b_waker)) = (reader(), reader());
    arrivals.ring();
    assert!(arrivals.poll_taken(&mut Context::from_waker(&a_waker)).is_pending());
    assert!(arrivals.poll_taken(&mut Context::from_waker(&b_waker)).is_pending());
    assert!(arrivals.take(Waker::noop()));
    // Before `a` runs, `b` (woken by its socket) finds nothing rung and reads; then `a` does.
    assert!(arrivals.poll_taken(&mut Context::from_waker(&b_waker)).is_ready());
    assert!(arrivals.poll_taken(&mut Context::from_waker(&a_waker)).is_ready());
    arrivals.ring();
    // Nobody waits now: the turn is not given to `b` (it would be lost on a reader not waiting).
    assert!(arrivals.take(Waker::noop()));
    assert_eq!(woken(&[&a, &b]), [1, 0]);
  }

}
