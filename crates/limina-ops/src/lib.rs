//! The bridge conventions every Limina native crate reuses.
//!
//! - **Fast ops**: numeric ops are `#[op2(fast)]` so V8 calls them without a
//!   handle scope or argument marshalling.
//! - **Zero-copy buffers**: typed arrays arrive as `#[buffer] &mut [f32]`
//!   (or `u32`, `u8`, …) slices of the JS-owned memory, written in place.
//!   A `Float32Array` argument of another element type is a `TypeError`
//!   before the op runs.
//! - **Structured errors**: [`OpError`] reaches JS as a catchable
//!   `LiminaError` whose `code` is one of the stable [`ErrorCode`]s.
//! - **`OpState` resources**: host-owned state lives in `OpState`, fetched
//!   with [`resources::resource_mut`].

pub mod arrivals;
pub mod cache_files;
pub mod error;
pub mod resources;
pub mod whole_file;
pub mod work;

mod bench;
mod ops;

pub use arrivals::Arrivals;
pub use error::{ErrorCode, OpError};
pub use work::Work;

deno_core::extension!(
  limina_ops,
  ops = [ops::op_limina_base64, ops::op_limina_error_codes],
  esm_entry_point = "ext:limina_ops/00_ops.js",
  esm = [dir "js", "00_ops.js"],
  state = |state| {
    state.put(Arrivals::default());
    state.put(Work::default());
  },
);

// The reference ops of the conventions, for the runtime benchmark and the
// conventions' tests only: registered by `limina --bench-ops`, never otherwise.
deno_core::extension!(
  limina_bench,
  deps = [limina_ops],
  ops = [
    bench::op_limina_noop,
    bench::op_limina_add,
    bench::op_limina_scale_f32,
    bench::op_limina_sum_f32,
    bench::op_limina_echo_json,
  ],
);
