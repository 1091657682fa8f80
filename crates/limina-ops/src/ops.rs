//! The production ops every crate shares.

use deno_core::op2;

use crate::ErrorCode;

/// The error codes native ops throw, for the JS face to check its list against.
#[op2]
#[serde]
pub fn op_limina_error_codes() -> Vec<&'static str> {
  ErrorCode::ALL.iter().map(|c| c.as_str()).collect()
}

/// Base64 (standard alphabet, padded) of a typed array's bytes: compact,
/// exact binary inside JSON messages such as the world server's deltas.
#[op2]
#[string]
pub fn op_limina_base64(#[anybuffer] bytes: &[u8]) -> String {
  use base64::Engine as _;
  base64::engine::general_purpose::STANDARD.encode(bytes)
}
