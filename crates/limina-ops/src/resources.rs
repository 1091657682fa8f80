//! `OpState` resource conventions: host-owned state is one typed value per
//! subsystem in `OpState`, created on first use, borrowed by thin ops; a
//! subsystem with many instances (physics worlds, world logs) keeps them in
//! [`Handles`], addressed from JS by ids that are never reused.

use std::collections::HashMap;

use deno_core::OpState;

use crate::OpError;

/// Instances of `T` by `u32` id. Ids start at 1 and are never reissued, so a
/// dropped id never addresses a later instance.
pub struct Handles<T> {
  items: HashMap<u32, T>,
  next: u32,
}

impl<T> Default for Handles<T> {
  fn default() -> Self {
    Self { items: HashMap::new(), next: 0 }
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
  if !state.has::<T>() {
    state.put(T::default());
  }
  state.borrow_mut::<T>()
}
