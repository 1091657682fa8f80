//! Structured errors: every native failure reaches JS as a `LiminaError`
//! with a stable machine-readable `code` next to its human message.

use std::borrow::Cow;
use std::fmt;

use deno_error::{AdditionalProperties, JsErrorClass, PropertyValue};

/// The JS class name registered by `00_ops.js`.
pub const ERROR_CLASS: &str = "LiminaError";

/// Stable error codes. The wire names match the skill registry's and MCP's
/// error vocabulary so a native failure maps onto it without translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
  InvalidInput,
  NotFound,
  Forbidden,
  CapacityExceeded,
  HandlerError,
  Io,
  Unavailable,
  Internal,
}

impl ErrorCode {
  /// Every code, in the order the JS face lists them.
  pub const ALL: [ErrorCode; 8] = [
    ErrorCode::InvalidInput,
    ErrorCode::NotFound,
    ErrorCode::Forbidden,
    ErrorCode::CapacityExceeded,
    ErrorCode::HandlerError,
    ErrorCode::Io,
    ErrorCode::Unavailable,
    ErrorCode::Internal,
  ];

  pub const fn as_str(self) -> &'static str {
    match self {
      ErrorCode::InvalidInput => "invalid_input",
      ErrorCode::NotFound => "not_found",
      ErrorCode::Forbidden => "forbidden",
      ErrorCode::CapacityExceeded => "capacity_exceeded",
      ErrorCode::HandlerError => "handler_error",
      ErrorCode::Io => "io_error",
      ErrorCode::Unavailable => "unavailable",
      ErrorCode::Internal => "internal",
    }
  }
}

impl fmt::Display for ErrorCode {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str(self.as_str())
  }
}

/// An op failure: thrown into JS as `LiminaError { code, message }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpError {
  pub code: ErrorCode,
  pub message: String,
}

impl OpError {
  pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
    Self { code, message: message.into() }
  }
  pub fn invalid_input(message: impl Into<String>) -> Self {
    Self::new(ErrorCode::InvalidInput, message)
  }
  pub fn not_found(message: impl Into<String>) -> Self {
    Self::new(ErrorCode::NotFound, message)
  }
  pub fn capacity_exceeded(message: impl Into<String>) -> Self {
    Self::new(ErrorCode::CapacityExceeded, message)
  }
  pub fn unavailable(message: impl Into<String>) -> Self {
    Self::new(ErrorCode::Unavailable, message)
  }
  pub fn internal(message: impl Into<String>) -> Self {
    Self::new(ErrorCode::Internal, message)
  }
}

impl fmt::Display for OpError {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{}", self.message)
  }
}

impl std::error::Error for OpError {}

impl OpError {
  /// An I/O failure with what was being done: `"{context}: {e}"`, coded by its kind.
  pub fn io(context: impl fmt::Display, e: std::io::Error) -> Self {
    Self::new(io_code(&e), format!("{context}: {e}"))
  }
}

fn io_code(e: &std::io::Error) -> ErrorCode {
  match e.kind() {
    std::io::ErrorKind::NotFound => ErrorCode::NotFound,
    std::io::ErrorKind::PermissionDenied => ErrorCode::Forbidden,
    std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => ErrorCode::InvalidInput,
    _ => ErrorCode::Io,
  }
}

impl From<std::io::Error> for OpError {
  fn from(e: std::io::Error) -> Self {
    Self::new(io_code(&e), e.to_string())
  }
}

impl JsErrorClass for OpError {
  fn get_class(&self) -> Cow<'static, str> {
    Cow::Borrowed(ERROR_CLASS)
  }
  fn get_message(&self) -> Cow<'static, str> {
    Cow::Owned(self.message.clone())
  }
  fn get_additional_properties(&self) -> AdditionalProperties {
    Box::new(std::iter::once((
      Cow::Borrowed("code"),
      PropertyValue::String(Cow::Borrowed(self.code.as_str())),
    )))
  }
  fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
    self
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn error_carries_class_code_and_message() {
    let e = OpError::not_found("no body 7");
    assert_eq!(e.get_class(), "LiminaError");
    assert_eq!(e.get_message(), "no body 7");
    let props: Vec<_> = e.get_additional_properties().collect();
    assert_eq!(props.len(), 1);
    assert_eq!(props[0].0, "code");
    match &props[0].1 {
      PropertyValue::String(s) => assert_eq!(s, "not_found"),
      PropertyValue::Number(_) => panic!("code must be a string"),
    }
  }

  #[test]
  fn io_errors_map_to_codes() {
    let e: OpError = std::io::Error::from(std::io::ErrorKind::NotFound).into();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e: OpError = std::io::Error::other("disk on fire").into();
    assert_eq!(e.code, ErrorCode::Io);
    assert_eq!(e.message, "disk on fire");
    let e = OpError::io("cannot read x.ts", std::io::Error::from(std::io::ErrorKind::PermissionDenied));
    assert_eq!(e.code, ErrorCode::Forbidden);
    assert!(e.message.starts_with("cannot read x.ts: "), "{}", e.message);
  }
}
