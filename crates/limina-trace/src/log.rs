//! The durable world log: every event a Tracer emits is flushed here in
//! batches of JSON lines and appended to a spool on disk by the log's own
//! thread, so memory holds only the recent window and nothing cryptographic
//! runs on the frame loop. The spool is an unlinked temporary file that
//! vanishes with the process, sealed onto the sha256 chain lazily when it is
//! read or exported; or, when the log should outlive the process, a named
//! live trace file that the thread seals as it appends (always a verifiable
//! prefix) and ends with its `trace.sealed` terminator when the log closes.
//!
//! The newest batches stay in memory too, shared with the log thread rather
//! than copied, so the tracer can read its recent events back by number
//! without keeping them on the JS heap (where the garbage collector would
//! copy them on every scavenge).
//!
//! A tracer records each event here as it is emitted: its line is written
//! into the batch being gathered from the few fields that change from event
//! to event (id, causes, timestamp, payload text) around an envelope it
//! registered once (type, actor, thread), so no event's JSON is built or
//! joined on the JS heap. A flush hands the batch to the log thread.
//!
//! An export works from a snapshot — the log's first `len` bytes, which the
//! thread only ever appends after — on a thread of its own, streaming it
//! into a temporary file that is published atomically, so neither the loop
//! nor memory carries the history. Each log's exports are bounded by a
//! quota of files and bytes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

use deno_core::futures::channel::oneshot;
use deno_core::{op2, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::OpError;

use crate::chain::{Hash, Sealer, INTEGRITY_BYTES};
use crate::files::{create_live, ensure_trace_dir, trace_file_name, OnTaken, TempTrace, Written};

/// Batches waiting to be written before the loop waits for the log thread.
const QUEUED_BATCHES: usize = 256;

/// Bytes read and written at a time by an export.
const IO_CHUNK: usize = 1 << 20;

/// An upper bound on a terminator line's length beside its thread id.
const TERMINATOR_BYTES: u64 = 512;

enum Job {
  /// Events as JSON lines, each ending with a newline, and how many.
  Append(Arc<String>, u64),
  /// Everything before this is on disk: reply with a snapshot.
  Sync(mpsc::Sender<Result<Snapshot, OpError>>),
  /// The log is closing with everything handed to it: seal a live log.
  Seal,
}

/// The log as it stood at a sync: its first `len` bytes and `events` events.
struct Snapshot {
  file: File,
  len: u64,
  events: u64,
  /// The chain's head when the log is sealed as it is written (a live log).
  sealed: Option<Option<Hash>>,
}

/// The log thread's side: the file and what it holds.
struct Writer {
  file: File,
  len: u64,
  events: u64,
  /// A live log's chain.
  live: Option<Sealer>,
  buf: Vec<u8>,
  /// The first batch that could not be sealed or written: the log stops there.
  broken: Option<OpError>,
}

impl Writer {
  fn append(&mut self, lines: &str, events: u64) -> Result<(), OpError> {
    let write_error = |e| OpError::io("cannot append to the world log", e);
    let Some(sealer) = &mut self.live else {
      self.file.write_all(lines.as_bytes()).map_err(write_error)?;
      self.len += lines.len() as u64;
      self.events += events;
      return Ok(());
    };
    self.buf.clear();
    let mut failed = None;
    for line in lines.lines() {
      if let Err(e) = sealer.seal(line, &mut self.buf) {
        failed = Some(OpError::invalid_input(format!("world log event {} cannot be sealed: {e}", sealer.events() + 1)));
        break;
      }
    }
    // What was sealed before a bad event still goes in: the file stays a verifiable prefix.
    self.file.write_all(&self.buf).map_err(write_error)?;
    self.len += self.buf.len() as u64;
    self.events = sealer.events();
    failed.map_or(Ok(()), Err)
  }

  fn snapshot(&self) -> Result<Snapshot, OpError> {
    if let Some(e) = &self.broken {
      return Err(e.clone());
    }
    let file = self.file.try_clone().map_err(|e| OpError::io("cannot read the world log", e))?;
    Ok(Snapshot { file, len: self.len, events: self.events, sealed: self.live.as_ref().map(Sealer::head) })
  }

  /// Seals a live log for good: its terminator, then fsync.
  fn seal(&mut self, thread_id: &str) -> Result<(), OpError> {
    let (Some(sealer), None) = (&mut self.live, &self.broken) else {
      return Ok(());
    };
    self.buf.clear();
    sealer.terminate(thread_id, &iso_now(), &mut self.buf);
    self.file.write_all(&self.buf).and_then(|()| self.file.sync_data()).map_err(|e| OpError::io("cannot seal the world log", e))
  }
}

/// The log thread: appends batches, answers syncs, and seals a live log when the log closes.
fn run(mut writer: Writer, thread_id: String, jobs: mpsc::Receiver<Job>) {
  for job in jobs {
    match job {
      Job::Append(lines, events) => {
        if writer.broken.is_none() {
          writer.broken = writer.append(&lines, events).err();
        }
      }
      Job::Sync(reply) => {
        let _ = reply.send(writer.snapshot());
      }
      Job::Seal => {
        if let Err(e) = writer.seal(&thread_id) {
          eprintln!("error: {}", e.message);
        }
      }
    }
  }
}

/// Reads a snapshot's bytes by position, so the log thread's own offset is never moved.
struct SnapshotReader<'a> {
  file: &'a File,
  pos: u64,
  end: u64,
}

impl Read for SnapshotReader<'_> {
  fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
    let want = buf.len().min((self.end - self.pos) as usize);
    if want == 0 {
      return Ok(0);
    }
    let n = self.file.read_at(&mut buf[..want], self.pos)?;
    if n == 0 {
      return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the world log is shorter than its snapshot"));
    }
    self.pos += n as u64;
    Ok(n)
  }
}

/// What writing a snapshot out produced.
#[derive(Debug)]
struct Summary {
  events: u64,
  head: Option<Hash>,
}

/// Streams a snapshot as a whole trace — chained lines, then the terminator
/// — into `out`, sealing an unsealed spool as it goes. Memory: two chunks.
fn write_trace(snapshot: &Snapshot, thread_id: &str, out: &mut impl Write) -> Result<Summary, OpError> {
  let read_error = |e| OpError::io("cannot read the world log", e);
  let write_error = |e| OpError::io("cannot write the trace", e);
  let mut reader = BufReader::with_capacity(IO_CHUNK, SnapshotReader { file: &snapshot.file, pos: 0, end: snapshot.len });
  let mut buf = Vec::with_capacity(IO_CHUNK + IO_CHUNK / 2);
  let mut sealer = match snapshot.sealed {
    Some(head) => {
      std::io::copy(&mut reader, out).map_err(read_error)?;
      Sealer::after(head, snapshot.events)
    }
    None => {
      let mut sealer = Sealer::default();
      let mut line = Vec::new();
      while reader.read_until(b'\n', &mut line).map_err(read_error)? > 0 {
        let text = line.strip_suffix(b"\n").and_then(|l| std::str::from_utf8(l).ok());
        let sealed = text.map(|t| sealer.seal(t, &mut buf));
        match sealed {
          Some(Ok(())) => {}
          Some(Err(e)) => return Err(OpError::invalid_input(format!("world log event {} cannot be sealed: {e}", sealer.events() + 1))),
          None => return Err(OpError::internal(format!("world log event {} is not a whole UTF-8 line", sealer.events() + 1))),
        }
        line.clear();
        if buf.len() >= IO_CHUNK {
          out.write_all(&buf).map_err(write_error)?;
          buf.clear();
        }
      }
      sealer
    }
  };
  let head = sealer.head();
  sealer.terminate(thread_id, &iso_now(), &mut buf);
  out.write_all(&buf).map_err(write_error)?;
  Ok(Summary { events: sealer.events(), head })
}

/// How much a log may export: files and bytes over its lifetime.
struct Quota {
  max_files: u32,
  max_bytes: u64,
  files: u32,
  bytes: u64,
}

impl Quota {
  /// Counts an export of up to `bytes` in advance, or refuses it.
  fn reserve(&mut self, bytes: u64) -> Result<(), OpError> {
    if self.files >= self.max_files {
      return Err(OpError::capacity_exceeded(format!(
        "this world log has made {} of its {} exports (exportQuota.files)",
        self.files, self.max_files
      )));
    }
    if self.bytes + bytes > self.max_bytes {
      return Err(OpError::capacity_exceeded(format!(
        "an export of up to {bytes} bytes would take this world log's exports past its {} bytes ({} used; exportQuota.bytes)",
        self.max_bytes, self.bytes
      )));
    }
    self.files += 1;
    self.bytes += bytes;
    Ok(())
  }

  /// Settles a reservation: the bytes written, or nothing when the export failed.
  fn settle(&mut self, reserved: u64, written: Option<u64>) {
    self.bytes = self.bytes - reserved + written.unwrap_or(0);
    if written.is_none() {
      self.files -= 1;
    }
  }
}

/// The newest batches handed to a log: at least its last `keep` events.
struct Recent {
  keep: u64,
  /// Each batch with the number of its first event.
  batches: VecDeque<(u64, Arc<String>)>,
}

impl Recent {
  /// Keeps `lines` (events `first`.. as JSON lines) and lets go of batches wholly older than the last `keep` events.
  fn push(&mut self, first: u64, events: u64, lines: &Arc<String>) {
    if self.keep == 0 {
      return;
    }
    self.batches.push_back((first, Arc::clone(lines)));
    let oldest = (first + events).saturating_sub(self.keep);
    while self.batches.len() > 1 && self.batches[1].0 <= oldest {
      self.batches.pop_front();
    }
  }

  /// Events `from..to` as their JSON lines, joined by newlines, or None when
  /// some are not held: from the batches handed over (events up to `handed`),
  /// then from `pending`, the lines gathered since.
  fn read(&self, from: u64, to: u64, handed: u64, pending: &Pending) -> Option<String> {
    let held = self.batches.front().map_or(handed, |b| b.0);
    if from < held || to > handed + pending.events || from > to {
      return None;
    }
    // Each batch ends where the next begins; the last where the pending lines do.
    let batches = self.batches.iter().enumerate().map(|(i, (first, lines))| (*first, self.batches.get(i + 1).map_or(handed, |b| b.0), lines.as_str()));
    let mut out = String::new();
    for (first, end, lines) in batches.chain([(handed, handed + pending.events, pending.lines.as_str())]) {
      if end <= from || first >= to {
        continue;
      }
      for (n, line) in (first..).zip(lines.split_terminator('\n')) {
        if n >= to {
          break;
        }
        if n >= from {
          if n > from {
            out.push('\n');
          }
          out.push_str(line);
        }
      }
    }
    Some(out)
  }
}

/// The lines recorded since the last hand-over, and what writing them needs.
#[derive(Default)]
struct Pending {
  /// JSON lines, each ending with a newline.
  lines: String,
  events: u64,
  /// Envelope texts by slot (see `op_trace_log_envelope`).
  envelopes: Vec<String>,
  /// Payload templates by slot: the payload's JSON before and after its number (see `op_trace_log_template`).
  templates: Vec<(String, String)>,
  /// The last event's timestamp text.
  stamp: IsoStamp,
}

/// Writes a finite number as JS writes it. A whole number below 2^53 is its integer's digits
/// (JS writes every one in full, and -0 as "0"), without ryu's shortest-digits search (~700
/// instructions under callgrind; a template's number is a tick, always whole).
fn push_js_number(out: &mut String, n: f64) {
  const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53: every whole number below it is exact, and written exactly
  if n.trunc() == n && n.abs() < EXACT {
    out.push_str(itoa::Buffer::new().format(n as i64));
  } else {
    out.push_str(ryu_js::Buffer::new().format_finite(n));
  }
}

/// An event's payload: its JSON text ("" for none), or a registered
/// template's head and tail around a number.
enum Payload<'a> {
  Text(&'a str),
  Template(u32, f64),
}

impl Pending {
  /// Writes one event's line (see `op_trace_log_event`, and `op_trace_log_event_templated` for a `Payload::Template`).
  fn event(&mut self, id: &str, envelope: u32, causes: &str, ms: f64, payload: Payload<'_>) -> Result<(), OpError> {
    let Some(middle) = self.envelopes.get(envelope as usize) else {
      return Err(OpError::invalid_input(format!("world log envelope {envelope} was never registered")));
    };
    let (head, number, tail) = match payload {
      Payload::Text(text) => (text, None, ""),
      Payload::Template(slot, value) => {
        let Some((head, tail)) = self.templates.get(slot as usize) else {
          return Err(OpError::invalid_input(format!("world log payload template {slot} was never registered")));
        };
        (head.as_str(), Some(value), tail.as_str())
      }
    };
    // A newline would split the line (JSON text never holds one raw; a template was checked when registered).
    if [id, causes, head].iter().any(|t| memchr::memchr(b'\n', t.as_bytes()).is_some()) {
      return Err(OpError::invalid_input("a world log event's id, causes and payload cannot hold a newline"));
    }
    // `new Date(ms)`'s time value: whole milliseconds, within ±8.64e15.
    let ms = ms.trunc();
    if !(ms.abs() <= 8.64e15) {
      return Err(OpError::invalid_input(format!("an event's time {ms} is not a valid date")));
    }
    let stamp = self.stamp.format(ms as i64);
    let l = &mut self.lines;
    l.reserve(id.len() + middle.len() + causes.len() + head.len() + tail.len() + 96);
    l.push_str("{\"id\":\"");
    l.push_str(id);
    l.push('"');
    l.push_str(middle);
    l.push_str(if causes.is_empty() { "[]" } else { causes });
    l.push_str(",\"timestamp\":\"");
    l.push_str(stamp);
    l.push('"');
    if !head.is_empty() {
      l.push_str(",\"payload\":");
      l.push_str(head);
      // As JSON.stringify writes a number: JS's own formatting, and null when not finite.
      match number {
        Some(n) if n.is_finite() => push_js_number(l, n),
        Some(_) => l.push_str("null"),
        None => {}
      }
      l.push_str(tail);
    }
    l.push_str("}\n");
    self.events += 1;
    Ok(())
  }

  /// Adds whole lines (joined by newlines, none after the last).
  fn lines(&mut self, lines: &str, events: u64) -> Result<(), OpError> {
    if lines.is_empty() || lines.ends_with('\n') {
      return Err(OpError::invalid_input("world log lines must be joined by newlines, with none after the last"));
    }
    self.lines.push_str(lines);
    self.lines.push('\n');
    self.events += events;
    Ok(())
  }
}

pub struct Spool {
  jobs: Option<mpsc::SyncSender<Job>>,
  thread: Option<JoinHandle<()>>,
  thread_id: String,
  /// Bytes and events handed to the log thread so far.
  handed_bytes: u64,
  handed_events: u64,
  recent: Recent,
  /// Lines recorded and not yet handed over.
  pending: Pending,
  quota: Quota,
  /// Exports still writing; a closing log waits for them.
  exports: Vec<JoinHandle<()>>,
  /// Whether dropping the log seals a live file: only a close from JS, which
  /// has handed over every event first (at process exit it may not have).
  seal_on_drop: bool,
}

impl Spool {
  fn send(&self, job: Job) -> Result<(), OpError> {
    self.jobs.as_ref().and_then(|j| j.send(job).ok()).ok_or_else(|| OpError::internal("the world log's thread has stopped"))
  }

  /// Hands the lines recorded since the last hand-over to the log thread.
  fn hand_over(&mut self) -> Result<(), OpError> {
    let events = self.pending.events;
    if events == 0 {
      return Ok(());
    }
    // The next batch starts with all the room this one had (as much as the largest batch needed), so
    // gathering it rarely grows it; this one is trimmed to its length in place, as `recent` keeps it.
    let next = String::with_capacity(self.pending.lines.capacity());
    let mut lines = std::mem::replace(&mut self.pending.lines, next);
    lines.shrink_to_fit();
    self.pending.events = 0;
    let lines = Arc::new(lines);
    self.recent.push(self.handed_events, events, &lines);
    self.handed_bytes += lines.len() as u64;
    self.handed_events += events;
    self.send(Job::Append(lines, events))
  }

  /// A snapshot of everything sent so far, once it is on disk.
  fn snapshot(&self) -> Result<mpsc::Receiver<Result<Snapshot, OpError>>, OpError> {
    let (tx, rx) = mpsc::channel();
    self.send(Job::Sync(tx))?;
    Ok(rx)
  }

  /// An upper bound on the size of an export of everything handed so far
  /// (canonical lines are as long as `JSON.stringify`'s; sealing adds the integrity).
  fn export_bound(&self) -> u64 {
    self.handed_bytes + self.handed_events * INTEGRITY_BYTES + TERMINATOR_BYTES + 6 * self.thread_id.len() as u64
  }
}

fn received(rx: mpsc::Receiver<Result<Snapshot, OpError>>) -> Result<Snapshot, OpError> {
  rx.recv().map_err(|_| OpError::internal("the world log's thread has stopped"))?
}

impl Drop for Spool {
  fn drop(&mut self) {
    if self.seal_on_drop {
      let _ = self.send(Job::Seal);
    }
    self.jobs.take();
    for thread in self.thread.take().into_iter().chain(self.exports.drain(..)) {
      let _ = thread.join();
    }
  }
}

/// Every world log of a runtime; dropping it waits until each has written
/// what it was handed and finished its exports (a live file not closed by
/// its tracer stays open: events the tracer had not handed over are not in it).
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

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogOptions {
  /// A live trace file's name; empty for an anonymous spool.
  name: String,
  /// The thread the log's terminator is recorded on.
  thread_id: String,
  max_export_files: u32,
  max_export_bytes: u64,
  /// Events to keep in memory for `op_trace_log_recent`.
  recent: u32,
}

/// Opens a new, empty world log; returns its id. With a `name` the log is
/// also a trace file in the trace directory, growing as events are flushed
/// (a live log); without one it is an anonymous spool.
#[op2]
pub fn op_trace_log_open(state: &mut OpState, #[serde] options: LogOptions) -> Result<u32, OpError> {
  let live = !options.name.is_empty();
  let file = if live { create_live(&ensure_trace_dir()?, &options.name)?.0 } else { anonymous_file()? };
  let writer = Writer { file, len: 0, events: 0, live: live.then(Sealer::default), buf: Vec::new(), broken: None };
  let (jobs, rx) = mpsc::sync_channel(QUEUED_BATCHES);
  let thread_id = options.thread_id.clone();
  let thread = std::thread::Builder::new()
    .name("limina-world-log".into())
    .spawn(move || run(writer, thread_id, rx))
    .map_err(|e| OpError::io("cannot start the world log's thread", e))?;
  Ok(resource_mut::<WorldLogs>(state).insert(Spool {
    jobs: Some(jobs),
    thread: Some(thread),
    thread_id: options.thread_id,
    handed_bytes: 0,
    handed_events: 0,
    recent: Recent { keep: u64::from(options.recent), batches: VecDeque::new() },
    pending: Pending::default(),
    quota: Quota { max_files: options.max_export_files, max_bytes: options.max_export_bytes, files: 0, bytes: 0 },
    exports: Vec::new(),
    seal_on_drop: false,
  }))
}

/// Hands `events` events (as many JSON lines, joined by newlines, none after
/// the last) to the log thread, after any recorded before them.
#[op2(fast)]
pub fn op_trace_log_append(state: &mut OpState, id: u32, #[string] lines: &str, events: u32) -> Result<(), OpError> {
  let spool = spool(state, id)?;
  spool.pending.lines(lines, u64::from(events))?;
  spool.hand_over()
}

/// Registers the text an event's line has between its id and its causes
/// (`,"type":…,"actorId":…,"threadId":…,"parentEventId":null,"causedBy":`)
/// as envelope `slot`: a new slot is the next one; a used one is replaced.
#[op2(fast)]
pub fn op_trace_log_envelope(state: &mut OpState, id: u32, slot: u32, #[string] text: String) -> Result<(), OpError> {
  if text.contains('\n') {
    return Err(OpError::invalid_input("a world log envelope cannot hold a newline"));
  }
  let envelopes = &mut spool(state, id)?.pending.envelopes;
  let next = envelopes.len();
  match envelopes.get_mut(slot as usize) {
    Some(old) => *old = text,
    None if slot as usize == next => envelopes.push(text),
    None => return Err(OpError::invalid_input(format!("world log envelope {slot} skips slots (the next is {next})"))),
  }
  Ok(())
}

/// Records one event, its line written here exactly as `JSON.stringify`
/// writes the event: `{"id":"<id>"<envelope><causes>,"timestamp":"<ms as
/// toISOString writes it>","payload":<payload>}`. `id` is the id as JSON
/// writes it between its quotes; `causes` the causes' JSON, "" for none;
/// `payload` the payload's JSON, "" for none (undefined).
#[op2(fast)]
pub fn op_trace_log_event(state: &mut OpState, id: u32, #[string] event_id: &str, envelope: u32, #[string] causes: &str, ms: f64, #[string] payload: &str) -> Result<(), OpError> {
  spool(state, id)?.pending.event(event_id, envelope, causes, ms, Payload::Text(payload))
}

/// Registers payload template `slot`: the JSON text of a payload that
/// differs between events only by one number, before it (`head`, not empty)
/// and after it (`tail`). A new slot is the next one; a used one is replaced.
#[op2(fast)]
pub fn op_trace_log_template(state: &mut OpState, id: u32, slot: u32, #[string] head: String, #[string] tail: String) -> Result<(), OpError> {
  if head.is_empty() || head.contains('\n') || tail.contains('\n') {
    return Err(OpError::invalid_input("a world log payload template needs a head, and neither part can hold a newline"));
  }
  let templates = &mut spool(state, id)?.pending.templates;
  let next = templates.len();
  match templates.get_mut(slot as usize) {
    Some(old) => *old = (head, tail),
    None if slot as usize == next => templates.push((head, tail)),
    None => return Err(OpError::invalid_input(format!("world log payload template {slot} skips slots (the next is {next})"))),
  }
  Ok(())
}

/// Records one event as `op_trace_log_event` does, its payload template
/// `template`'s head, `value` as JSON writes it (null when not finite),
/// then its tail: no payload text crosses from JS.
#[op2(fast)]
pub fn op_trace_log_event_templated(state: &mut OpState, id: u32, #[string] event_id: &str, envelope: u32, #[string] causes: &str, ms: f64, template: u32, value: f64) -> Result<(), OpError> {
  spool(state, id)?.pending.event(event_id, envelope, causes, ms, Payload::Template(template, value))
}

/// Records one event given as its whole JSON line (no newline).
#[op2(fast)]
pub fn op_trace_log_line(state: &mut OpState, id: u32, #[string] line: &str) -> Result<(), OpError> {
  if line.contains('\n') {
    return Err(OpError::invalid_input("a world log line cannot hold a newline"));
  }
  spool(state, id)?.pending.lines(line, 1)
}

/// Hands the events recorded since the last flush to the log thread.
#[op2(fast)]
pub fn op_trace_log_flush(state: &mut OpState, id: u32) -> Result<(), OpError> {
  spool(state, id)?.hand_over()
}

/// Events `from..from + count` (numbered from 0 in the order they were
/// recorded) as their JSON lines joined by newlines, from the recent ones
/// the log keeps in memory and those not yet handed over.
#[op2]
#[string]
pub fn op_trace_log_recent(state: &mut OpState, id: u32, #[number] from: u64, count: u32) -> Result<String, OpError> {
  let spool = spool(state, id)?;
  let held = spool.recent.batches.front().map_or(spool.handed_events, |b| b.0);
  let recorded = spool.handed_events + spool.pending.events;
  spool.recent.read(from, from + u64::from(count), spool.handed_events, &spool.pending).ok_or_else(|| {
    OpError::invalid_input(format!("world log events {from}..{} are not in memory (it holds {held}..{recorded})", from + u64::from(count)))
  })
}

/// The whole log as a trace — chained JSONL ending with its terminator, what
/// was recorded since the last flush handed over first
/// (waits for the log thread to catch up; the text is in memory: for audits and tests).
#[op2]
#[string]
pub fn op_trace_log_read(state: &mut OpState, id: u32) -> Result<String, OpError> {
  let spool = spool(state, id)?;
  spool.hand_over()?;
  let snapshot = received(spool.snapshot()?)?;
  let mut out = Vec::new();
  write_trace(&snapshot, &spool.thread_id, &mut out)?;
  String::from_utf8(out).map_err(|_| OpError::internal("the world log is not UTF-8"))
}

#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
  #[serde(flatten)]
  written: Written,
  events: u64,
  head_hash: Option<String>,
}

/// Writes a snapshot into a new trace file and publishes it (the export thread).
fn export(snapshot: mpsc::Receiver<Result<Snapshot, OpError>>, dir: PathBuf, name: String, thread_id: String) -> Result<Exported, OpError> {
  let snapshot = received(snapshot)?;
  let temp = TempTrace::create(&dir, &name)?;
  let summary = write_trace(&snapshot, &thread_id, &mut &temp.file)?;
  let written = temp.publish(OnTaken::NextFree)?;
  Ok(Exported { written, events: summary.events, head_hash: summary.head.map(|h| h.as_str().to_owned()) })
}

/// Exports everything recorded in the log so far into a new trace file in
/// the trace directory, on a thread of its own; resolves when the file is
/// published. A taken name gets the first free `NAME-N.jsonl`.
#[op2]
#[serde]
pub async fn op_trace_log_export(state: Rc<RefCell<OpState>>, id: u32, #[string] name: String) -> Result<Exported, OpError> {
  let _busy = limina_ops::Work::begin(&state.borrow());
  let (reserved, done) = {
    let mut state = state.borrow_mut();
    let spool = spool(&mut state, id)?;
    trace_file_name(&name)?;
    spool.hand_over()?;
    let dir = ensure_trace_dir()?;
    let reserved = spool.export_bound();
    spool.quota.reserve(reserved)?;
    let (tx, done) = oneshot::channel();
    let thread_id = spool.thread_id.clone();
    let started = spool.snapshot().and_then(|snapshot| {
      std::thread::Builder::new()
        .name("limina-trace-export".into())
        .spawn(move || {
          let _ = tx.send(export(snapshot, dir, name, thread_id));
        })
        .map_err(|e| OpError::io("cannot start a trace export thread", e))
    });
    match started {
      Ok(thread) => {
        spool.exports.retain(|t| !t.is_finished());
        spool.exports.push(thread);
      }
      Err(e) => {
        spool.quota.settle(reserved, None);
        return Err(e);
      }
    }
    (reserved, done)
  };
  let result = done.await.unwrap_or_else(|_| Err(OpError::internal("the trace export thread stopped")));
  if let Ok(spool) = spool(&mut state.borrow_mut(), id) {
    spool.quota.settle(reserved, result.as_ref().ok().map(|e| e.written.bytes));
  }
  result
}

/// Closes a log whose tracer has handed it every event: waits until they
/// are on disk, a live log is sealed and its exports are done, then frees
/// its spool.
#[op2(fast)]
pub fn op_trace_log_close(state: &mut OpState, id: u32) -> bool {
  let Some(mut spool) = resource_mut::<WorldLogs>(state).remove(id) else {
    return false;
  };
  spool.seal_on_drop = true;
  true
}

/// Now as `Date.prototype.toISOString` writes it.
fn iso_now() -> String {
  let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
  IsoStamp::default().format(ms).to_owned()
}

/// Times as `Date.prototype.toISOString` writes them: `YYYY-MM-DDTHH:MM:SS.sssZ`
/// (proleptic Gregorian, UTC), a year outside 0..=9999 as a sign and six
/// digits. The last time's text is kept: the same millisecond again costs
/// nothing, a later one in the same second rewrites only its milliseconds.
#[derive(Default)]
struct IsoStamp {
  /// The millisecond `text` holds, None before the first.
  ms: Option<i64>,
  /// The second `digits` holds the date and time of.
  second: i64,
  /// The text being written: the longest has a signed six-digit year.
  digits: [u8; 27],
  text: String,
}

impl IsoStamp {
  /// Milliseconds since the epoch as text.
  fn format(&mut self, ms: i64) -> &str {
    if self.ms != Some(ms) {
      let (second, milli) = (ms.div_euclid(1000), ms.rem_euclid(1000));
      let len = if self.ms.is_none() || self.second != second { write_second(&mut self.digits, second) } else { self.text.len() };
      self.ms = Some(ms);
      self.second = second;
      write_digits(&mut self.digits[len - 4..len - 1], milli);
      self.text.clear();
      self.text.push_str(std::str::from_utf8(&self.digits[..len]).expect("ASCII digits and separators"));
    }
    &self.text
  }
}

/// Writes the text of a second since the epoch, milliseconds and `Z` left
/// as `.000Z`, into `text`; returns its length.
fn write_second(text: &mut [u8; 27], second: i64) -> usize {
  let (days, t) = (second.div_euclid(86_400), second.rem_euclid(86_400));
  let (year, month, day) = civil_date(days);
  let y = if (0..=9999).contains(&year) {
    write_digits(&mut text[..4], year);
    4
  } else {
    text[0] = if year < 0 { b'-' } else { b'+' };
    write_digits(&mut text[1..7], year.abs());
    7
  };
  let rest = &mut text[y..y + 20];
  rest.copy_from_slice(b"-MM-DDTHH:MM:SS.000Z");
  for (at, n) in [(1, month), (4, day), (7, t / 3600), (10, t / 60 % 60), (13, t % 60)] {
    write_digits(&mut rest[at..at + 2], n);
  }
  y + 20
}

/// Days since the epoch as a proleptic Gregorian (year, month, day) (Howard Hinnant's algorithm).
fn civil_date(days: i64) -> (i64, i64, i64) {
  let z = days + 719_468;
  let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
  let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
  let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  let mp = (5 * doy + 2) / 153;
  let day = doy - (153 * mp + 2) / 5 + 1;
  let month = if mp < 10 { mp + 3 } else { mp - 9 };
  (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Writes `n` (not negative) as decimal digits filling `out`, leading zeros included.
fn write_digits(out: &mut [u8], mut n: i64) {
  for digit in out.iter_mut().rev() {
    *digit = b'0' + (n % 10) as u8;
    n /= 10;
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::chain::{verify, TraceStatus};

  fn lines(from: u32, n: u32) -> String {
    (from..from + n)
      .map(|seq| {
        let event = serde_json::json!({"id": format!("evt_t_{seq:012}_0000"), "type": "t", "actorId": "a", "threadId": "x", "parentEventId": null, "causedBy": [], "timestamp": "2026-01-01T00:00:00.000Z", "payload": {"seq": seq, "s": "é\u{1F600}"}});
        format!("{event}\n")
      })
      .collect()
  }

  fn spool(live: bool) -> Spool {
    let (jobs, rx) = mpsc::sync_channel(2);
    let writer = Writer { file: anonymous_file().unwrap(), len: 0, events: 0, live: live.then(Sealer::default), buf: Vec::new(), broken: None };
    let thread = std::thread::spawn(move || run(writer, "thread_test".into(), rx));
    Spool {
      jobs: Some(jobs),
      thread: Some(thread),
      thread_id: "thread_test".into(),
      handed_bytes: 0,
      handed_events: 0,
      recent: Recent { keep: 0, batches: VecDeque::new() },
      pending: Pending::default(),
      quota: Quota { max_files: 1, max_bytes: 0, files: 0, bytes: 0 },
      exports: Vec::new(),
      seal_on_drop: false,
    }
  }

  fn append(spool: &mut Spool, lines: String) {
    let events = lines.lines().count() as u64;
    spool.handed_bytes += lines.len() as u64;
    spool.handed_events += events;
    spool.send(Job::Append(Arc::new(lines), events)).unwrap();
  }

  fn whole(spool: &Spool) -> Result<(String, Summary), OpError> {
    let snapshot = received(spool.snapshot()?)?;
    let mut out = Vec::new();
    let summary = write_trace(&snapshot, &spool.thread_id, &mut out)?;
    Ok((String::from_utf8(out).unwrap(), summary))
  }

  #[test]
  fn spooled_batches_form_one_sealed_trace_sealed_lazily_or_as_they_come() {
    let mut results = Vec::new();
    for live in [false, true] {
      let mut spool = spool(live);
      for batch in 0..20u32 {
        append(&mut spool, lines(batch * 500, 500));
      }
      let (text, summary) = whole(&spool).unwrap();
      assert_eq!(summary.events, 10_000);
      let verified = verify(&text, false).unwrap();
      assert_eq!((verified.status, verified.events), (TraceStatus::Sealed, 10_000), "the batches chain into one (live: {live})");
      assert_eq!(verified.head_hash, summary.head.map(|h| h.as_str().to_owned()));
      assert!(text.len() as u64 <= spool.export_bound(), "the quota's bound holds");
      // Everything but the terminator's timestamp is the same either way.
      results.push(text.rsplit_once("\"timestamp\"").unwrap().0.to_owned());
    }
    assert_eq!(results[0], results[1], "both ways give the same chain");
  }

  #[test]
  fn a_snapshot_is_immutable_while_the_log_grows() {
    let mut spool = spool(false);
    append(&mut spool, lines(0, 100));
    let snapshot = received(spool.snapshot().unwrap()).unwrap();
    append(&mut spool, lines(100, 100));
    let mut out = Vec::new();
    let summary = write_trace(&snapshot, "t", &mut out).unwrap();
    assert_eq!(summary.events, 100, "later appends are not in an earlier snapshot");
    assert_eq!(whole(&spool).unwrap().1.events, 200);
    assert_eq!(verify(std::str::from_utf8(&out).unwrap(), false).unwrap().events, 100);
  }

  #[test]
  fn a_live_log_is_an_open_prefix_until_it_closes_sealed() {
    // Dropped without a close (the process ending): it stays open.
    let mut unclosed = spool(true);
    append(&mut unclosed, lines(0, 3));
    let file = received(unclosed.snapshot().unwrap()).unwrap().file;
    drop(unclosed);
    let mut text = String::new();
    SnapshotReader { file: &file, pos: 0, end: file.metadata().unwrap().len() }.read_to_string(&mut text).unwrap();
    assert_eq!(verify(&text, true).unwrap().status, TraceStatus::Open);

    let mut spool = spool(true);
    append(&mut spool, lines(0, 3));
    let snapshot = received(spool.snapshot().unwrap()).unwrap();
    let file = snapshot.file.try_clone().unwrap();
    let read = || {
      let mut text = String::new();
      SnapshotReader { file: &file, pos: 0, end: file.metadata().unwrap().len() }.read_to_string(&mut text).unwrap();
      text
    };
    let open = read();
    assert!(verify(&open, false).is_err_and(|e| e.reason == crate::IntegrityReason::Truncated));
    assert_eq!(verify(&open, true).unwrap().status, TraceStatus::Open);
    spool.seal_on_drop = true;
    drop(spool);
    let closed = read();
    let v = verify(&closed, false).unwrap();
    assert_eq!((v.status, v.events), (TraceStatus::Sealed, 3), "closing writes the terminator");
    assert!(closed.starts_with(&open));
  }

  #[test]
  fn an_event_that_cannot_be_sealed_is_named_and_the_live_file_keeps_its_prefix() {
    for live in [false, true] {
      let mut spool = spool(live);
      append(&mut spool, lines(0, 3));
      append(&mut spool, format!("{}{{\"bad\": 1e999}}\n", lines(3, 1)));
      append(&mut spool, lines(4, 1));
      let e = whole(&spool).unwrap_err();
      assert_eq!(e.code, limina_ops::ErrorCode::InvalidInput);
      assert_eq!(e.message, "world log event 5 cannot be sealed: number out of range at column 9", "live: {live}");
    }
  }

  #[test]
  fn the_recent_window_reads_back_whole_lines_across_batches_and_lets_old_batches_go() {
    let mut recent = Recent { keep: 250, batches: VecDeque::new() };
    let mut handed = 0;
    for n in [100u32, 1, 150, 99, 200] {
      recent.push(handed, u64::from(n), &Arc::new(lines(handed as u32, n)));
      handed += u64::from(n);
    }
    // 550 handed: the batches from 251 hold the last 250 (and more); the older ones went.
    assert_eq!(recent.batches.iter().map(|b| b.0).collect::<Vec<_>>(), vec![251, 350]);
    let all = lines(0, 550);
    let expected = |from: usize, to: usize| all.lines().skip(from).take(to - from).collect::<Vec<_>>().join("\n");
    let nothing = Pending::default();
    for (from, to) in [(251, 550), (300, 301), (349, 351), (549, 550), (400, 400)] {
      assert_eq!(recent.read(from, to, handed, &nothing).unwrap(), expected(from as usize, to as usize), "{from}..{to}");
    }
    assert_eq!(recent.read(250, 260, handed, &nothing), None, "older than the window");
    assert_eq!(recent.read(540, 551, handed, &nothing), None, "not recorded yet");
    // Lines recorded and not yet handed over read on from the last batch.
    let mut pending = Pending::default();
    let more = lines(550, 30);
    pending.lines(more.strip_suffix('\n').unwrap(), 30).unwrap();
    let all = lines(0, 580);
    let expected = |from: usize, to: usize| all.lines().skip(from).take(to - from).collect::<Vec<_>>().join("\n");
    for (from, to) in [(251, 580), (549, 551), (550, 580), (560, 561), (580, 580)] {
      assert_eq!(recent.read(from, to, handed, &pending).unwrap(), expected(from as usize, to as usize), "{from}..{to} with 30 pending");
    }
    assert_eq!(recent.read(570, 581, handed, &pending), None, "not recorded yet");
    let none = Recent { keep: 0, batches: VecDeque::new() };
    assert_eq!(none.read(0, 1, 5, &nothing), None);
    assert_eq!(none.read(5, 5, 5, &nothing).as_deref(), Some(""));
    assert_eq!(none.read(5, 35, 5, &pending).unwrap(), lines(550, 30).strip_suffix('\n').unwrap(), "only the pending lines");
  }

  #[test]
  fn an_event_is_written_around_its_registered_envelope() {
    let mut spool = spool(false);
    spool.pending.envelopes.push(r#","type":"t","actorId":"a","threadId":"x","parentEventId":null,"causedBy":"#.to_owned());
    let p = &mut spool.pending;
    p.event("evt_a_000000000000_1f2e", 0, "", 1_767_225_599_999.0, Payload::Text(r#"{"n":1,"s":"é"}"#)).unwrap();
    p.event("evt_a_000000000001_0a0b", 0, r#"["evt_a_000000000000_1f2e"]"#, 1_767_225_600_000.0, Payload::Text("")).unwrap();
    assert_eq!(
      p.lines,
      concat!(
        r#"{"id":"evt_a_000000000000_1f2e","type":"t","actorId":"a","threadId":"x","parentEventId":null,"causedBy":[],"timestamp":"2025-12-31T23:59:59.999Z","payload":{"n":1,"s":"é"}}"#,
        "\n",
        r#"{"id":"evt_a_000000000001_0a0b","type":"t","actorId":"a","threadId":"x","parentEventId":null,"causedBy":["evt_a_000000000000_1f2e"],"timestamp":"2026-01-01T00:00:00.000Z"}"#,
        "\n"
      )
    );
    let e = p.event("evt_a_000000000002_0000", 1, "", 0.0, Payload::Text("1")).unwrap_err();
    assert_eq!(e.message, "world log envelope 1 was never registered");
    let e = p.event("evt_a_000000000002_0000", 0, "", f64::NAN, Payload::Text("1")).unwrap_err();
    assert_eq!(e.message, "an event's time NaN is not a valid date");
    let e = p.event("evt_a_000000000002_0000", 0, "", 0.0, Payload::Text("\"a\nb\"")).unwrap_err();
    assert_eq!(e.message, "a world log event's id, causes and payload cannot hold a newline");
    assert_eq!(p.events, 2, "a refused event records nothing");
    spool.hand_over().unwrap();
    assert_eq!((spool.pending.events, spool.pending.lines.as_str(), spool.handed_events), (0, "", 2));
    let (text, summary) = whole(&spool).unwrap();
    assert_eq!(summary.events, 2);
    assert_eq!(verify(&text, false).unwrap().events, 2, "the lines seal into a trace");
  }

  #[test]
  fn a_batch_starts_with_the_largest_room_and_is_kept_trimmed() {
    let mut spool = spool(false);
    spool.recent.keep = 1000;
    spool.pending.envelopes.push(r#","type":"t","actorId":"a","threadId":"x","parentEventId":null,"causedBy":"#.to_owned());
    let mut room = 0;
    for n in [40, 3, 1, 25, 40, 2] {
      for _ in 0..n {
        spool.pending.event("evt_a_000000000000_1f2e", 0, "", 0.0, Payload::Text(r#"{"n":1}"#)).unwrap();
      }
      assert!(spool.pending.lines.capacity() >= room, "a batch of {n} starts with the room of the largest");
      if n < 40 {
        assert_eq!(spool.pending.lines.capacity(), room, "a batch of {n} after one of 40 does not grow");
      }
      room = spool.pending.lines.capacity();
      spool.hand_over().unwrap();
      let (_, kept) = spool.recent.batches.back().unwrap();
      assert_eq!((kept.len(), kept.capacity()), (n * 165, n * 165), "the kept batch of {n} holds its lines and no more");
      assert_eq!((spool.pending.lines.len(), spool.pending.lines.capacity()), (0, room), "the next batch's room");
    }
    let (text, summary) = whole(&spool).unwrap();
    assert_eq!(summary.events, 111);
    assert_eq!(verify(&text, false).unwrap().events, 111);
  }

  #[test]
  fn a_templated_payload_is_its_head_the_number_as_js_writes_it_and_its_tail() {
    let mut spool = spool(false);
    let p = &mut spool.pending;
    p.envelopes.push(r#","type":"t","actorId":"a","threadId":"x","parentEventId":null,"causedBy":"#.to_owned());
    p.templates.push((r#"{"k":"é","tick":"#.to_owned(), r#","z":[]}"#.to_owned()));
    p.templates.push(("[".to_owned(), String::new()));
    let numbers = [(0.0, "0"), (-0.0, "0"), (7.0, "7"), (-3.0, "-3"), (2.5, "2.5"), (9_007_199_254_740_993.0, "9007199254740992"), (1e21, "1e+21"), (1.5e-7, "1.5e-7"), (f64::NAN, "null"), (f64::INFINITY, "null"), (f64::NEG_INFINITY, "null")];
    for (n, text) in numbers {
      p.event("evt_a_000000000000_1f2e", 0, "", 0.0, Payload::Template(0, n)).unwrap();
      let line = p.lines.lines().last().unwrap().to_owned();
      assert_eq!(line, format!(r#"{{"id":"evt_a_000000000000_1f2e","type":"t","actorId":"a","threadId":"x","parentEventId":null,"causedBy":[],"timestamp":"1970-01-01T00:00:00.000Z","payload":{{"k":"é","tick":{text},"z":[]}}}}"#), "{n}");
    }
    p.event("evt_a_000000000001_0a0b", 0, "", 0.0, Payload::Template(1, 4.0)).unwrap();
    assert!(p.lines.ends_with(",\"payload\":[4}\n"), "an empty tail");
    let e = p.event("evt_a_000000000002_0000", 0, "", 0.0, Payload::Template(2, 1.0)).unwrap_err();
    assert_eq!(e.message, "world log payload template 2 was never registered");
    assert_eq!(p.events, numbers.len() as u64 + 1, "a refused event records nothing");
  }

  #[test]
  fn the_quota_counts_files_and_bytes_and_gives_back_what_failed() {
    let mut q = Quota { max_files: 2, max_bytes: 1000, files: 0, bytes: 0 };
    q.reserve(600).unwrap();
    let e = q.reserve(500).unwrap_err();
    assert_eq!(e.code, limina_ops::ErrorCode::CapacityExceeded);
    assert_eq!(e.message, "an export of up to 500 bytes would take this world log's exports past its 1000 bytes (600 used; exportQuota.bytes)");
    q.settle(600, Some(450));
    q.reserve(500).unwrap();
    q.settle(500, None);
    assert_eq!((q.files, q.bytes), (1, 450), "a failed export costs nothing");
    q.reserve(10).unwrap();
    let e = q.reserve(1).unwrap_err();
    assert_eq!(e.message, "this world log has made 2 of its 2 exports (exportQuota.files)");
  }

  /// `Date.prototype.toISOString` written with `format!`, the plainest way: what `IsoStamp` must match
  /// (the date from `civil_date`, which the fixed dates below pin).
  fn iso_reference(ms: i64) -> String {
    let (days, t) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_date(days);
    let year = match year {
      0..=9999 => format!("{year:04}"),
      _ => format!("{}{:06}", if year < 0 { '-' } else { '+' }, year.abs()),
    };
    format!("{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", t / 3_600_000, t / 60_000 % 60, t / 1000 % 60, t % 1000)
  }

  #[test]
  fn numbers_are_written_as_js_writes_them() {
    // ryu_js is JS's own formatting: whole numbers around 0, the 2^53 bound and past it (where JS
    // writes the shortest digits, not the integer's: 2^55 is 36028797018963970), -0, fractions,
    // exponents, and pseudo-random doubles of every magnitude.
    let two53 = 9_007_199_254_740_992.0f64;
    let mut numbers: Vec<f64> = (-100_000..100_000).map(f64::from).collect();
    for k in 0..64 {
      let p = 2f64.powi(k);
      numbers.extend([p, p - 1.0, p + 1.0, -p, 10f64.powi(k / 2), -(10f64.powi(k / 2))]);
    }
    numbers.extend([two53 - 2.0, two53 - 1.0, two53, two53 + 2.0, -two53 + 1.0, -two53, 1e21, 1e22, -0.0, 0.5, -0.5, 1.5, 1e-7, 123.456, f64::MAX, f64::MIN_POSITIVE]);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200_000 {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      let n = f64::from_bits(x);
      if n.is_finite() {
        numbers.extend([n, n.trunc(), (x >> 11) as f64, -((x >> 9) as f64)]);
      }
    }
    for n in numbers {
      let mut out = String::new();
      push_js_number(&mut out, n);
      assert_eq!(out, ryu_js::Buffer::new().format_finite(n), "{n:e}");
    }
  }

  #[test]
  fn timestamps_are_written_as_js_writes_them() {
    let iso = |ms| IsoStamp::default().format(ms).to_owned();
    assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(iso(951_782_400_000), "2000-02-29T00:00:00.000Z");
    assert_eq!(iso(1_767_225_599_999), "2025-12-31T23:59:59.999Z");
    assert_eq!(iso(-1), "1969-12-31T23:59:59.999Z");
    assert_eq!(iso(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
    assert_eq!(iso(253_402_300_800_000), "+010000-01-01T00:00:00.000Z");
    assert_eq!(iso(-62_167_219_200_000), "0000-01-01T00:00:00.000Z");
    assert_eq!(iso(-62_167_219_200_001), "-000001-12-31T23:59:59.999Z");
    assert_eq!(iso(8_640_000_000_000_000), "+275760-09-13T00:00:00.000Z");
    assert_eq!(iso(-8_640_000_000_000_000), "-271821-04-20T00:00:00.000Z");
    assert_eq!(iso_now().len(), 24);
  }

  #[test]
  fn a_reused_stamp_writes_every_time_as_the_reference_does() {
    // Every day from 1890 to 2110 (1900 and 2100 are not leap years, 2000 is) at its first and the
    // day before's last millisecond; days across the whole range of dates; pseudo-random times.
    let day = 86_400_000i64;
    let mut times: Vec<i64> = (-29_220..51_500).flat_map(|d| [d * day, d * day - 1, d * day + 999, d * day + 1000]).collect();
    times.extend((-100_000_000i64..=100_000_000).step_by(997).map(|d| d * day + d.rem_euclid(day)));
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..100_000 {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      times.push((x % 17_280_000_000_000_001) as i64 - 8_640_000_000_000_000);
    }
    let mut stamp = IsoStamp::default();
    for &ms in &times {
      assert_eq!(stamp.format(ms), iso_reference(ms), "{ms}");
    }
    // Times a few milliseconds apart, forwards and back: the kept second is reused only within it.
    let mut ms = 1_767_225_598_000i64;
    for step in [1, 998, 1, 1, 999, 1000, -1, -1000, 1, 0, 1001, -2001, 86_400_000, 3] {
      ms += step;
      assert_eq!(stamp.format(ms), iso_reference(ms), "{ms} after a step of {step}");
    }
    for ms in [-2, -1, 0, 999, 1000, -1001, -1000, -999] {
      assert_eq!(stamp.format(ms), iso_reference(ms), "{ms}");
    }
  }
}
