//! `OpState` resource conventions: host-owned state is one typed value per
//! subsystem in `OpState`, created on first use, borrowed by thin ops.

use deno_core::OpState;

/// The subsystem state of type `T`, created with `T::default()` on first use.
pub fn resource_mut<T: Default + 'static>(state: &mut OpState) -> &mut T {
  if !state.has::<T>() {
    state.put(T::default());
  }
  state.borrow_mut::<T>()
}
