//! The reference ops for the conventions: the runtime benchmark measures
//! them, subsystem crates copy their shapes. Registered only by `--bench-ops`.

use deno_core::op2;

use crate::OpError;

/// An empty fast op: the floor cost of crossing into Rust.
#[op2(fast)]
pub fn op_limina_noop() {}

/// A fast numeric op.
#[op2(fast)]
pub fn op_limina_add(a: f64, b: f64) -> f64 {
  a + b
}

/// Scales a `Float32Array` in place: the slice is the JS-owned memory, so
/// there is no copy in either direction.
#[op2(fast)]
pub fn op_limina_scale_f32(#[buffer] data: &mut [f32], factor: f32) -> Result<(), OpError> {
  if !factor.is_finite() {
    return Err(OpError::invalid_input(format!("scale factor must be finite, got {factor}")));
  }
  for v in data {
    *v *= factor;
  }
  Ok(())
}

/// Sums a `Float32Array` (accumulated in f64) read in place.
#[op2(fast)]
pub fn op_limina_sum_f32(#[buffer] data: &[f32]) -> f64 {
  data.iter().map(|&v| v as f64).sum()
}

/// Returns its JSON argument: the cost of a small structured round trip.
#[op2]
#[serde]
pub fn op_limina_echo_json(#[serde] value: serde_json::Value) -> serde_json::Value {
  value
}

