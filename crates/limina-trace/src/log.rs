//! The durable world log: every event a Tracer emits is sealed into the
//! sha256 chain and appended to a spool file as it is flushed, so memory
//! holds only the recent window while the full history stays on disk,
//! ready to export. The spool is an unlinked temporary file that vanishes
//! with the process, or a named trace file when the log should outlive it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use deno_core::{op2, OpState};
use limina_ops::OpError;

use crate::chain;
use crate::ops::{write_trace_file, Written};

struct Spool {
  file: File,
  head: Option<String>,
  events: u64,
  bytes: u64,
}

#[derive(Default)]
pub struct WorldLogs {
  logs: HashMap<u32, Spool>,
  next: u32,
}

fn spool(state: &mut OpState, id: u32) -> Result<&mut Spool, OpError> {
  limina_ops::resources::resource_mut::<WorldLogs>(state)
    .logs
    .get_mut(&id)
    .ok_or_else(|| OpError::not_found(format!("no world log {id}")))
}

fn anonymous_file() -> Result<File, OpError> {
  let dir = std::env::temp_dir();
  for attempt in 0..16u32 {
    let path = dir.join(format!("limina-log-{}-{}-{attempt}", std::process::id(), std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())));
    match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
      Ok(file) => {
        std::fs::remove_file(&path).map_err(|e| OpError::io("cannot unlink the world log spool", e))?;
        return Ok(file);
      }
      Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
      Err(e) => return Err(OpError::io(format!("cannot create the world log spool in {}", dir.display()), e)),
    }
  }
  Err(OpError::internal("cannot create a unique world log spool"))
}

/// Opens a new, empty world log; returns its id. With a `name` the log is
/// also a trace file in the trace directory, growing as events are flushed
/// (a live log); without one it is an anonymous spool.
#[op2(fast)]
pub fn op_trace_log_open(state: &mut OpState, #[string] name: &str) -> Result<u32, OpError> {
  let file = if name.is_empty() { anonymous_file()? } else { crate::ops::create_trace_file(name)? };
  let logs = limina_ops::resources::resource_mut::<WorldLogs>(state);
  logs.next += 1;
  logs.logs.insert(logs.next, Spool { file, head: None, events: 0, bytes: 0 });
  Ok(logs.next)
}

/// Seals a JSON array of events onto the chain and appends them.
#[op2(fast)]
pub fn op_trace_log_append(state: &mut OpState, id: u32, #[string] events_json: &str) -> Result<(), OpError> {
  let spool = spool(state, id)?;
  let events: Vec<serde_json::Value> = serde_json::from_str(events_json)
    .map_err(|e| OpError::invalid_input(format!("events must be a JSON array of objects: {e}")))?;
  let n = events.len() as u64;
  let (jsonl, head) = chain::seal(events, spool.head.clone()).map_err(OpError::invalid_input)?;
  spool.file.seek(SeekFrom::End(0))?;
  spool.file.write_all(jsonl.as_bytes()).map_err(|e| OpError::io("cannot append to the world log", e))?;
  spool.head = head;
  spool.events += n;
  spool.bytes += jsonl.len() as u64;
  Ok(())
}

fn read_all(spool: &mut Spool) -> Result<String, OpError> {
  let mut text = String::with_capacity(spool.bytes as usize);
  spool.file.seek(SeekFrom::Start(0))?;
  spool.file.read_to_string(&mut text).map_err(|e| OpError::io("cannot read the world log", e))?;
  Ok(text)
}

/// The whole log as chained JSONL.
#[op2]
#[string]
pub fn op_trace_log_read(state: &mut OpState, id: u32) -> Result<String, OpError> {
  read_all(spool(state, id)?)
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
  #[serde(flatten)]
  written: Written,
  events: u64,
  last_hash: Option<String>,
}

/// Writes the whole log to a trace file in the trace directory.
#[op2]
#[serde]
pub fn op_trace_log_export(state: &mut OpState, id: u32, #[string] name: &str) -> Result<Exported, OpError> {
  let spool = spool(state, id)?;
  let text = read_all(spool)?;
  let written = write_trace_file(name, &text, false)?;
  Ok(Exported { written, events: spool.events, last_hash: spool.head.clone() })
}

/// Closes a log, freeing its spool.
#[op2(fast)]
pub fn op_trace_log_close(state: &mut OpState, id: u32) -> bool {
  limina_ops::resources::resource_mut::<WorldLogs>(state).logs.remove(&id).is_some()
}
