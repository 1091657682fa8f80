//! Ops behind the JS Tracer's chain and trace files: sealing, verifying
//! (text, or a file off the loop), and trace files confined to the trace
//! directory.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use deno_core::futures::channel::oneshot;
use deno_core::{op2, OpState};
use limina_ops::OpError;

use crate::chain::{self, Hash, IntegrityError, Sealer, VerifiedTrace};
use crate::files::{ensure_trace_dir, trace_dir, OnTaken, TempTrace, Written};

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sealed {
  jsonl: String,
  last_hash: Option<String>,
}

/// Seals events (JSON lines) into chained JSONL after `previous_hash`
/// ("" for genesis).
#[op2]
#[serde]
pub fn op_trace_seal(#[string] lines: &str, #[string] previous_hash: &str) -> Result<Sealed, OpError> {
  let head = match previous_hash {
    "" => None,
    h => Some(Hash::parse(h).ok_or_else(|| OpError::invalid_input(format!("previousHash {h:?} is not \"sha256:\" and 64 hex digits")))?),
  };
  let mut sealer = Sealer::after(head, 0);
  let mut out = Vec::with_capacity(lines.len() + lines.len() / 2);
  for (i, line) in lines.lines().enumerate() {
    sealer.seal(line, &mut out).map_err(|e| OpError::invalid_input(format!("event {i} cannot be sealed: {e}")))?;
  }
  let last_hash = sealer.head().map(|h| h.as_str().to_owned());
  Ok(Sealed { jsonl: String::from_utf8(out).map_err(|_| OpError::internal("sealed JSONL is not UTF-8"))?, last_hash })
}

#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum Verification {
  Intact(VerifiedTrace),
  Broken(IntegrityError),
}

impl From<Result<VerifiedTrace, IntegrityError>> for Verification {
  fn from(r: Result<VerifiedTrace, IntegrityError>) -> Self {
    r.map_or_else(Verification::Broken, Verification::Intact)
  }
}

#[op2]
#[serde]
pub fn op_trace_verify(#[string] text: &str, open: bool) -> Verification {
  chain::verify(text, open).into()
}

/// Verifies a trace file on its own thread, reading it a line at a time.
#[op2]
#[serde]
pub async fn op_trace_verify_file(state: Rc<RefCell<OpState>>, #[string] path: String, open: bool) -> Result<Verification, OpError> {
  let _busy = limina_ops::Work::begin(&state.borrow());
  let (tx, rx) = oneshot::channel();
  std::thread::Builder::new()
    .name("limina-trace-verify".into())
    .spawn(move || {
      let result = chain::verify_file(std::path::Path::new(&path), open).map_err(|e| OpError::io(format!("cannot read {path}"), e));
      let _ = tx.send(result);
    })
    .map_err(|e| OpError::io("cannot start a trace verification thread", e))?;
  Ok(rx.await.map_err(|_| OpError::internal("the trace verification thread stopped"))??.into())
}

/// The trace directory, for reading back what `trace.export` wrote.
#[op2]
#[string]
pub fn op_trace_dir() -> Result<String, OpError> {
  Ok(trace_dir()?.to_string_lossy().into_owned())
}

/// Writes a new trace file in the trace directory, atomically; a taken
/// name is refused, naming the file.
#[op2]
#[serde]
pub fn op_trace_write(#[string] name: &str, #[string] content: &str) -> Result<Written, OpError> {
  let mut temp = TempTrace::create(&ensure_trace_dir()?, name)?;
  temp.file.write_all(content.as_bytes()).map_err(|e| OpError::io(format!("cannot write trace file {name}"), e))?;
  temp.publish(OnTaken::Refuse)
}

/// Reads a trace file for verification (trusted engine code only; skills
/// never pass agent-chosen paths here).
#[op2]
#[string]
pub fn op_trace_read(#[string] path: &str) -> Result<String, OpError> {
  std::fs::read_to_string(path).map_err(|e| OpError::io(format!("cannot read {path}"), e))
}
