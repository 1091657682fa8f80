//! Ops behind the JS Tracer: sealing the chain, verifying a JSONL trace,
//! and trace files confined to the trace directory.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use deno_core::op2;
use limina_ops::OpError;

use crate::chain::{self as trace_chain, IntegrityError, VerifiedTrace};

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sealed {
  jsonl: String,
  last_hash: Option<String>,
}

/// Seals a JSON array of events into chained JSONL after `previous_hash`
/// ("" for genesis).
#[op2]
#[serde]
pub fn op_trace_seal(#[string] events_json: &str, #[string] previous_hash: &str) -> Result<Sealed, OpError> {
  seal_json(events_json, previous_hash)
}

fn seal_json(events_json: &str, previous_hash: &str) -> Result<Sealed, OpError> {
  let events: Vec<serde_json::Value> = serde_json::from_str(events_json)
    .map_err(|e| OpError::invalid_input(format!("events must be a JSON array of objects: {e}")))?;
  let previous = (!previous_hash.is_empty()).then(|| previous_hash.to_owned());
  let (jsonl, last_hash) = trace_chain::seal(events, previous).map_err(OpError::invalid_input)?;
  Ok(Sealed { jsonl, last_hash })
}

#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum Verification {
  Intact(VerifiedTrace),
  Broken(IntegrityError),
}

#[op2]
#[serde]
pub fn op_trace_verify(#[string] text: &str) -> Verification {
  match trace_chain::verify(text) {
    Ok(v) => Verification::Intact(v),
    Err(e) => Verification::Broken(e),
  }
}

/// Where trace files go: `$LIMINA_TRACE_DIR`, else `traces/` in the working directory.
pub fn trace_dir() -> Result<PathBuf, OpError> {
  match std::env::var_os("LIMINA_TRACE_DIR") {
    Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
    _ => Ok(std::env::current_dir()?.join("traces")),
  }
}

/// The trace directory, for reading back what `trace.export` wrote.
#[op2]
#[string]
pub fn op_trace_dir() -> Result<String, OpError> {
  Ok(trace_dir()?.to_string_lossy().into_owned())
}

/// A trace file name: one path segment of letters, digits, `.`, `_`, `-`
/// (no leading dot), `.jsonl` added when missing. Anything else — slashes,
/// `..`, empty, absolute paths — is rejected, so nothing lands outside the
/// trace directory.
pub fn trace_file_name(name: &str) -> Result<String, OpError> {
  let ok = !name.is_empty()
    && name.len() <= 128
    && !name.starts_with('.')
    && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    && !name.contains("..");
  if !ok {
    return Err(OpError::invalid_input(format!(
      "trace name {name:?} must be 1–128 letters, digits, '.', '_' or '-', not starting with '.' and without '..'"
    )));
  }
  Ok(if name.ends_with(".jsonl") { name.to_owned() } else { format!("{name}.jsonl") })
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Written {
  pub name: String,
  pub path: String,
  pub bytes: usize,
}

/// Writes (or appends) a trace file in the trace directory.
#[op2]
#[serde]
pub fn op_trace_write(#[string] name: &str, #[string] content: &str, append: bool) -> Result<Written, OpError> {
  write_trace_file(name, content, append)
}

/// Creates (or truncates) a trace file in the trace directory for reading
/// and writing; symlinks are never followed.
pub(crate) fn create_trace_file(name: &str) -> Result<(std::fs::File, Written), OpError> {
  let file = trace_file_name(name)?;
  let dir = trace_dir()?;
  std::fs::create_dir_all(&dir)?;
  let path = dir.join(&file);
  let handle = std::fs::OpenOptions::new()
    .read(true)
    .write(true)
    .create(true)
    .truncate(true)
    .custom_flags(libc_o_nofollow())
    .open(&path)
    .map_err(|e| OpError::io(format!("cannot write {}", path.display()), e))?;
  Ok((handle, Written { name: file, path: path.to_string_lossy().into_owned(), bytes: 0 }))
}

/// Writes a trace file in the trace directory; symlinks are never followed.
fn write_trace_file(name: &str, content: &str, append: bool) -> Result<Written, OpError> {
  let file = trace_file_name(name)?;
  let dir = trace_dir()?;
  std::fs::create_dir_all(&dir)?;
  let path = dir.join(&file);
  let mut opts = std::fs::OpenOptions::new();
  opts.create(true).custom_flags(libc_o_nofollow());
  if append {
    opts.append(true);
  } else {
    opts.write(true).truncate(true);
  }
  let mut f = opts
    .open(&path)
    .map_err(|e| OpError::io(format!("cannot write {}", path.display()), e))?;
  f.write_all(content.as_bytes())?;
  Ok(Written { name: file, path: path.to_string_lossy().into_owned(), bytes: content.len() })
}

/// Reads a trace file for verification (trusted engine code only; skills
/// never pass agent-chosen paths here).
#[op2]
#[string]
pub fn op_trace_read(#[string] path: &str) -> Result<String, OpError> {
  std::fs::read_to_string(path).map_err(|e| OpError::io(format!("cannot read {path}"), e))
}

const fn libc_o_nofollow() -> i32 {
  // O_NOFOLLOW on Linux (all architectures Limina builds for).
  0o400000
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn trace_names_are_confined() {
    assert_eq!(trace_file_name("run-1").unwrap(), "run-1.jsonl");
    assert_eq!(trace_file_name("a.b_c.jsonl").unwrap(), "a.b_c.jsonl");
    for bad in ["", "../x", "a/b", "/etc/passwd", ".hidden", "a..b", "x y", "é", &"n".repeat(129)] {
      assert!(trace_file_name(bad).is_err(), "{bad:?} must be rejected");
    }
  }
}
