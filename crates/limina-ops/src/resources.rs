//! `OpState` resource conventions: host-owned state is one typed value per
//! subsystem in `OpState`, created on first use, borrowed by thin ops; a
//! subsystem with many instances (physics worlds, world logs) keeps them in
//! [`Handles`], addressed from JS by ids that are never reused.

use deno_core::OpState;
use rustc_hash::FxHashMap;

use crate::OpError;

/// Instances of `T` by `u32` id. Ids start at 1 and are never reissued, so a
/// dropped id never addresses a later instance. Hashed with Fx: ids are small
/// ints chosen here, not by a client, and hot ops look one up every call
/// (SipHash cost ~110 instructions a lookup).
pub struct Handles<T> {
  items: FxHashMap<u32, T>,
  next: u32,
}

impl<T> Default for Handles<T> {
  fn default() -> Self {
    Self { items: FxHashMap::default(), next: 0 }
  }
}

impl<T> Handles<T> {
  /// Adds an instance; returns its new id.
  pub fn insert(&mut self, item: T) -> u32 {
    self.next += 1;
    self.items.insert(self.next, item);
    self.next
  }

  /// The instance `id`, or a `not_found` error naming it as a `what`.
  pub fn get_mut(&mut self, id: u32, what: &str) -> Result<&mut T, OpError> {
    self.items.get_mut(&id).ok_or_else(|| OpError::not_found(format!("no {what} {id} (never created or already dropped)")))
  }

  pub fn remove(&mut self, id: u32) -> Option<T> {
    self.items.remove(&id)
  }
}

/// The subsystem state of type `T`, created with `T::default()` on first use.
pub fn resource_mut<T: Default + 'static>(state: &mut OpState) -> &mut T {
  resource_or_make(state, |_| T::default())
}

/// The subsystem state of type `T`, made by `make` on first use. Found with
/// one lookup (`OpState` keeps its values in a map by type, and the hot ops
/// ask for theirs on every call).
pub fn resource_or_make<T: 'static>(state: &mut OpState, make: impl FnOnce(&mut OpState) -> T) -> &mut T {
  if let Some(found) = state.try_borrow_mut::<T>() {
    let found: *mut T = found;
    // SAFETY: `found` is the value in `state`, which stays mutably borrowed for the lifetime
    // returned; the borrow checker cannot yet tell that returning here ends the first borrow
    // before the code below borrows `state` again (the case Polonius accepts).
    return unsafe { &mut *found };
  }
  let made = make(state);
  state.put(made);
  state.borrow_mut::<T>()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_resource_is_made_once_and_found_after() {
    let mut state = OpState::new(None);
    let mut made = 0;
    for n in 1..=3u32 {
      let count = resource_or_make(&mut state, |_| {
        made += 1;
        0u32
      });
      *count += 1;
      assert_eq!(*count, n, "the same value each time");
    }
    assert_eq!(made, 1);
    // Made from what the state already holds.
    let text = resource_or_make(&mut state, |state| format!("after {}", state.borrow::<u32>()));
    assert_eq!(text, "after 3");
    assert_eq!(*resource_mut::<u32>(&mut state), 3);
    assert_eq!(*resource_mut::<u64>(&mut state), 0, "a default on first use");
  }
}
