//! The durable world log: every event a Tracer emits is flushed here in
//! batches of JSON lines and appended to a spool on disk by the log's own
//! thread, so memory holds only the recent window and nothing cryptographic
//! runs on the frame loop. The spool is an unlinked temporary file that
//! vanishes with the process, sealed onto the sha256 chain lazily when it is
//! read or exported; or, when the log should outlive the process, a named
//! trace file that the thread seals as it appends (a live trace, always a
//! verifiable prefix).

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::sync::mpsc;
use std::thread::JoinHandle;

use deno_core::{op2, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::OpError;

use crate::chain;
use crate::ops::{create_trace_file, Written};

/// Batches waiting to be sealed before the loop waits for the log thread.
const QUEUED_BATCHES: usize = 256;

enum Job {
  /// Events as JSON lines, each ending with a newline.
  Append(String),
  /// Everything before this is on disk: reply with the spool.
  Sync(mpsc::Sender<Result<Synced, OpError>>),
}

struct Synced {
  file: File,
  events: u64,
  /// The chain's head when the spool is sealed as it is written (a live log).
  sealed: Option<Option<String>>,
}

/// Events sealed at a time when an unsealed spool is read (bounds the memory).
const SEAL_CHUNK: usize = 4096;

/// Seals a batch of JSON lines after `head`; returns the chained JSONL, the
/// event count and the new head.
fn seal_lines(lines: &str, head: Option<String>, first: u64) -> Result<(String, u64, Option<String>), OpError> {
  let mut batch = Vec::new();
  for (i, line) in lines.lines().enumerate() {
    let event = serde_json::from_str(line)
      .map_err(|e| OpError::invalid_input(format!("world log event {} cannot be sealed: {e}", first + i as u64 + 1)))?;
    batch.push(event);
  }
  let n = batch.len() as u64;
  let (jsonl, head) = chain::seal(batch, head).map_err(OpError::invalid_input)?;
  Ok((jsonl, n, head))
}

/// The log thread: appends batches, sealing them onto the chain first when `seal`.
fn run(mut file: File, seal: bool, jobs: mpsc::Receiver<Job>) {
  let mut head: Option<String> = None;
  let mut events = 0u64;
  // The first batch that could not be sealed or written: the chain stops there.
  let mut broken: Option<OpError> = None;
  for job in jobs {
    match job {
      Job::Append(lines) => {
        if broken.is_some() {
          continue;
        }
        let appended = if seal {
          seal_lines(&lines, head.clone(), events).and_then(|(jsonl, n, next)| {
            file.write_all(jsonl.as_bytes()).map_err(|e| OpError::io("cannot append to the world log", e))?;
            Ok((n, next))
          })
        } else {
          file
            .write_all(lines.as_bytes())
            .map(|()| (lines.bytes().filter(|&b| b == b'\n').count() as u64, None))
            .map_err(|e| OpError::io("cannot append to the world log", e))
        };
        match appended {
          Ok((n, next)) => {
            events += n;
            head = next;
          }
          Err(e) => broken = Some(e),
        }
      }
      Job::Sync(reply) => {
        let state = match &broken {
          Some(e) => Err(e.clone()),
          None => file
            .try_clone()
            .map_err(|e| OpError::io("cannot read the world log", e))
            .map(|file| Synced { file, events, sealed: seal.then(|| head.clone()) }),
        };
        let _ = reply.send(state);
      }
    }
  }
}

pub struct Spool {
  jobs: Option<mpsc::SyncSender<Job>>,
  thread: Option<JoinHandle<()>>,
}

impl Spool {
  fn send(&self, job: Job) -> Result<(), OpError> {
    self.jobs.as_ref().and_then(|j| j.send(job).ok()).ok_or_else(|| OpError::internal("the world log's thread has stopped"))
  }

  /// Waits until every batch sent so far is on disk.
  fn sync(&self) -> Result<Synced, OpError> {
    let (tx, rx) = mpsc::channel();
    self.send(Job::Sync(tx))?;
    rx.recv().map_err(|_| OpError::internal("the world log's thread has stopped"))?
  }
}

impl Drop for Spool {
  fn drop(&mut self) {
    self.jobs.take();
    if let Some(thread) = self.thread.take() {
      let _ = thread.join();
    }
  }
}

/// Every world log of a runtime; dropping it waits until each has written
/// what it was handed.
pub type WorldLogs = Handles<Spool>;

fn spool(state: &mut OpState, id: u32) -> Result<&mut Spool, OpError> {
  resource_mut::<WorldLogs>(state).get_mut(id, "world log")
}

fn anonymous_file() -> Result<File, OpError> {
  let dir = std::env::temp_dir();
  let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
  for attempt in 0..16u32 {
    let path = dir.join(format!("limina-log-{}-{nanos}-{attempt}", std::process::id()));
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
  let live = !name.is_empty();
  let file = if live { create_trace_file(name)?.0 } else { anonymous_file()? };
  let (jobs, rx) = mpsc::sync_channel(QUEUED_BATCHES);
  let thread = std::thread::Builder::new()
    .name("limina-world-log".into())
    .spawn(move || run(file, live, rx))
    .map_err(|e| OpError::io("cannot start the world log's thread", e))?;
  Ok(resource_mut::<WorldLogs>(state).insert(Spool { jobs: Some(jobs), thread: Some(thread) }))
}

/// Hands events (JSON lines, each ending with a newline) to the log thread.
#[op2(fast)]
pub fn op_trace_log_append(state: &mut OpState, id: u32, #[string] lines: String) -> Result<(), OpError> {
  if !lines.is_empty() && !lines.ends_with('\n') {
    return Err(OpError::invalid_input("world log lines must end with a newline"));
  }
  spool(state, id)?.send(Job::Append(lines))
}

/// The spool from its start.
fn rewound(synced: &Synced) -> Result<File, OpError> {
  let mut file = synced.file.try_clone().map_err(|e| OpError::io("cannot read the world log", e))?;
  file.seek(SeekFrom::Start(0))?;
  Ok(file)
}

/// Streams the whole log as chained JSONL into `out`, sealing an unsealed
/// spool chunk by chunk; returns the head hash.
fn chained(synced: &Synced, out: &mut impl Write) -> Result<Option<String>, OpError> {
  let mut spool = rewound(synced)?;
  if let Some(head) = &synced.sealed {
    std::io::copy(&mut spool, out).map_err(|e| OpError::io("cannot copy the world log", e))?;
    return Ok(head.clone());
  }
  let mut head = None;
  let mut chunk = String::new();
  let mut in_chunk = 0;
  let mut sealed_events = 0u64;
  let mut lines = BufReader::new(spool).lines();
  loop {
    let line = lines.next().transpose().map_err(|e| OpError::io("cannot read the world log", e))?;
    if let Some(line) = &line {
      chunk.push_str(line);
      chunk.push('\n');
      in_chunk += 1;
    }
    if in_chunk == SEAL_CHUNK || (line.is_none() && in_chunk > 0) {
      let (jsonl, n, next) = seal_lines(&chunk, head.take(), sealed_events)?;
      out.write_all(jsonl.as_bytes()).map_err(|e| OpError::io("cannot write the sealed world log", e))?;
      sealed_events += n;
      head = next;
      chunk.clear();
      in_chunk = 0;
    }
    if line.is_none() {
      return Ok(head);
    }
  }
}

/// The whole log as chained JSONL (waits for the log thread to catch up).
#[op2]
#[string]
pub fn op_trace_log_read(state: &mut OpState, id: u32) -> Result<String, OpError> {
  let mut out = Vec::new();
  chained(&spool(state, id)?.sync()?, &mut out)?;
  String::from_utf8(out).map_err(|_| OpError::internal("the world log is not UTF-8"))
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
  #[serde(flatten)]
  written: Written,
  events: u64,
  last_hash: Option<String>,
}

/// Writes the whole chained log into a trace file in the trace directory.
#[op2]
#[serde]
pub fn op_trace_log_export(state: &mut OpState, id: u32, #[string] name: &str) -> Result<Exported, OpError> {
  let synced = spool(state, id)?.sync()?;
  let (file, written) = create_trace_file(name)?;
  let mut out = CountingWriter { inner: BufWriter::new(file), bytes: 0 };
  let last_hash = chained(&synced, &mut out)?;
  out.inner.flush().map_err(|e| OpError::io(format!("cannot write {}", written.path), e))?;
  Ok(Exported { written: Written { bytes: out.bytes, ..written }, events: synced.events, last_hash })
}

struct CountingWriter<W> {
  inner: W,
  bytes: usize,
}

impl<W: Write> Write for CountingWriter<W> {
  fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
    let n = self.inner.write(buf)?;
    self.bytes += n;
    Ok(n)
  }
  fn flush(&mut self) -> std::io::Result<()> {
    self.inner.flush()
  }
}

/// Closes a log once everything handed to it is on disk, freeing its spool.
#[op2(fast)]
pub fn op_trace_log_close(state: &mut OpState, id: u32) -> bool {
  resource_mut::<WorldLogs>(state).remove(id).is_some()
}

#[cfg(test)]
mod tests {
  use super::*;

  fn lines(from: u32, n: u32) -> String {
    (from..from + n)
      .map(|seq| {
        let event = serde_json::json!({"id": format!("evt_t_{seq:012}_0000"), "type": "t", "actorId": "a", "threadId": "x", "parentEventId": null, "causedBy": [], "timestamp": "2026-01-01T00:00:00.000Z", "payload": {"seq": seq}});
        format!("{event}\n")
      })
      .collect()
  }

  fn spool(seal: bool) -> Spool {
    let (jobs, rx) = mpsc::sync_channel(2);
    let thread = std::thread::spawn(move || run(anonymous_file().unwrap(), seal, rx));
    Spool { jobs: Some(jobs), thread: Some(thread) }
  }

  fn whole(spool: &Spool) -> Result<(String, Option<String>, u64), OpError> {
    let synced = spool.sync()?;
    let mut out = Vec::new();
    let head = chained(&synced, &mut out)?;
    Ok((String::from_utf8(out).unwrap(), head, synced.events))
  }

  #[test]
  fn spooled_batches_form_one_verified_chain_sealed_lazily_or_as_they_come() {
    let mut results = Vec::new();
    for seal in [false, true] {
      let spool = spool(seal);
      for batch in 0..20u32 {
        spool.send(Job::Append(lines(batch * 500, 500))).unwrap();
      }
      let (text, head, events) = whole(&spool).unwrap();
      assert_eq!(events, 10_000);
      let verified = chain::verify(&text).unwrap();
      assert_eq!(verified.events, 10_000, "the batches chain into one (sealed as written: {seal})");
      assert_eq!(verified.last_hash, head);
      results.push(text);
    }
    assert_eq!(results[0], results[1], "both ways give the same chain");
  }

  #[test]
  fn an_event_that_cannot_be_sealed_is_named() {
    for seal in [false, true] {
      let spool = spool(seal);
      spool.send(Job::Append(lines(0, 3))).unwrap();
      spool.send(Job::Append("{\"bad\": \"\\ud800\"}\n".into())).unwrap();
      spool.send(Job::Append(lines(3, 1))).unwrap();
      let e = whole(&spool).unwrap_err();
      assert_eq!(e.code, limina_ops::ErrorCode::InvalidInput);
      assert!(e.message.contains("event 4"), "{}", e.message);
    }
  }
}
