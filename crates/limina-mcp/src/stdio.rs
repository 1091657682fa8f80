//! MCP over stdio: newline-delimited JSON-RPC on stdin, replies on stdout.
//! Lines over the size limit are skipped up to their newline and reported,
//! so one bad line never desynchronises the stream. A standard client's
//! first `initialize` may be answered before V8 has started (see
//! `handshake` and [`answer_first_line`]).

use std::io::{Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::oneshot;

use super::handshake::Handshake;
use super::pipe::Pipe;
use super::{ConnIo, HubEvent};

type Output = BufWriter<Box<dyn AsyncWrite + Unpin>>;

/// What the stdin thread read before the server took stdin over.
#[derive(Default)]
struct Early {
  /// Every byte read from stdin.
  read: Vec<u8>,
  /// The first line's length with its newline, and the reply written to it, when the thread answered it.
  answered: Option<(usize, String)>,
  /// Why input ended, when it did.
  ended: Option<String>,
}

/// The first line of stdin, being read (and answered, when it can be) by a thread of its own.
pub struct FirstLine(oneshot::Receiver<Early>);

/// Reads stdin up to its first line on a thread of its own and, when
/// `handshake` answers that line, writes the reply to stdout: the client's
/// first reply need not wait for V8. [`serve`] takes over what was read.
/// `log`: say on stderr when it answered (`LIMINA_STARTUP_LOG`).
pub fn answer_first_line(handshake: Handshake, max_bytes: usize, log: bool) -> FirstLine {
  let (tx, rx) = oneshot::channel();
  let read = move || {
    // SAFETY: the standard streams stay open for the life of the process; ManuallyDrop never closes them.
    let (mut stdin, mut stdout) = unsafe { (ManuallyDrop::new(std::fs::File::from_raw_fd(0)), ManuallyDrop::new(std::fs::File::from_raw_fd(1))) };
    let mut early = Early::default();
    let mut buf = vec![0u8; 64 * 1024];
    let newline = loop {
      if let Some(i) = early.read.iter().position(|&b| b == b'\n') {
        break Some(i);
      }
      if early.read.len() > max_bytes {
        break None;
      }
      match stdin.read(&mut buf) {
        Ok(0) => {
          early.ended = Some("end of input".to_owned());
          break None;
        }
        Ok(n) => early.read.extend_from_slice(&buf[..n]),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
        Err(e) => {
          early.ended = Some(format!("stdin failed: {e}"));
          break None;
        }
      }
    };
    let line = newline.filter(|&i| i <= max_bytes).and_then(|i| Some((i, std::str::from_utf8(&early.read[..i]).ok()?)));
    if let Some((i, line)) = line {
      if let Some(reply) = handshake.answer(line.trim_end_matches('\r')) {
        // A failed write (the client left) is found again by the writer task.
        let _ = stdout.write_all(format!("{reply}\n").as_bytes());
        early.answered = Some((i + 1, reply));
        if log {
          eprintln!("limina: the first initialize was answered on the stdin thread");
        }
      }
    }
    let _ = tx.send(early);
  };
  if std::thread::Builder::new().name("limina-stdin".to_owned()).spawn(read).is_err() {
    // No thread: nothing was read, and the server reads stdin itself.
    let (tx, rx) = oneshot::channel();
    let _ = tx.send(Early::default());
    return FirstLine(rx);
  }
  FirstLine(rx)
}

/// Starts the stdin reader and stdout writer tasks. At end of input the
/// JS server is told (`Close`) and decides when to exit, after its replies
/// are written. Input is read only while the connection has room (see the
/// crate's flow control), so a client that never reads its replies stops
/// being read instead of growing the server. `first`: the stdin thread's
/// reading, taken over once it is done (the standard streams are touched
/// here only after it).
pub fn serve(io: ConnIo, max_bytes: usize, first: Option<FirstLine>) {
  let ConnIo { conn, inbox, outbound } = io;
  tokio::task::spawn_local(async move {
    inbox.push(HubEvent::Open { conn, peer: "stdio".to_owned(), transport: "stdio", access: "full" });
    let early = match first {
      Some(FirstLine(rx)) => rx.await.unwrap_or_default(),
      None => Early::default(),
    };
    tokio::task::spawn_local(write(outbound));
    read(conn, inbox, early, max_bytes).await;
  });
}

async fn write(mut outbound: super::Outbox) {
  let stdout: Box<dyn AsyncWrite + Unpin> = match Pipe::new(1, Some(2)) {
    Some(pipe) => Box::new(pipe),
    None => Box::new(tokio::io::stdout()),
  };
  let mut out: Output = BufWriter::with_capacity(64 * 1024, stdout);
  while let Some(text) = outbound.recv().await {
    let mut written = write_line(&mut out, &text).await;
    let mut count = 1;
    // Write every reply already queued, then flush once.
    while written.is_ok() {
      let Ok(text) = outbound.try_recv() else { break };
      written = write_line(&mut out, &text).await;
      count += 1;
    }
    if written.is_ok() {
      written = out.flush().await;
    }
    // Counted as written only once flushed: the server exits when none are left.
    outbound.written(count);
    if written.is_err() {
      outbound.abandon();
      break;
    }
  }
}

async fn read(conn: u32, inbox: super::Inbox, early: Early, max_bytes: usize) {
  let Early { mut read, answered, ended } = early;
  if let Some((len, reply)) = answered {
    let rest = read.split_off(len);
    read.pop();
    if let Some(HubEvent::Message { conn, text }) = line_event(conn, std::mem::replace(&mut read, rest), false, max_bytes) {
      inbox.push(HubEvent::Adopted { conn, text, reply });
    }
  }
  // Input the thread saw end is not read again (a terminal would wait for more).
  let stdin: Box<dyn AsyncRead + Unpin> = if ended.is_some() {
    Box::new(tokio::io::empty())
  } else {
    match Pipe::new(0, None) {
      Some(pipe) => Box::new(pipe),
      None => Box::new(tokio::io::stdin()),
    }
  };
  let mut input = BufReader::with_capacity(64 * 1024, AsyncReadExt::chain(std::io::Cursor::new(read), stdin));
  let mut line: Vec<u8> = Vec::new();
  let mut oversized = false;
  let reason = loop {
    inbox.room().await;
    let buf = match input.fill_buf().await {
      Ok([]) => break ended.unwrap_or_else(|| "end of input".to_owned()),
      Ok(buf) => buf,
      Err(e) => break format!("stdin failed: {e}"),
    };
    let (chunk, ends_line) = match buf.iter().position(|&b| b == b'\n') {
      Some(i) => (&buf[..i], true),
      None => (buf, false),
    };
    if !oversized {
      if line.len() + chunk.len() > max_bytes {
        oversized = true;
        line.clear();
      } else {
        line.extend_from_slice(chunk);
      }
    }
    let consumed = chunk.len() + usize::from(ends_line);
    input.consume(consumed);
    if !ends_line {
      continue;
    }
    if let Some(event) = line_event(conn, std::mem::take(&mut line), oversized, max_bytes) {
      inbox.push(event);
    }
    oversized = false;
  };
  // A last line without a newline still counts.
  if !line.is_empty() || oversized {
    if let Some(event) = line_event(conn, line, oversized, max_bytes) {
      inbox.push(event);
    }
  }
  inbox.push(HubEvent::Close { conn, reason });
}

async fn write_line(out: &mut Output, text: &str) -> std::io::Result<()> {
  out.write_all(text.as_bytes()).await?;
  out.write_all(b"\n").await
}

/// What one complete input line is for the server (nothing for a blank line).
fn line_event(conn: u32, line: Vec<u8>, oversized: bool, max_bytes: usize) -> Option<HubEvent> {
  if oversized {
    return Some(HubEvent::Rejected { conn, reason: format!("message exceeds the {max_bytes}-byte limit") });
  }
  match String::from_utf8(line) {
    Ok(text) if text.trim().is_empty() => None,
    Ok(text) => Some(HubEvent::Message { conn, text: text.trim_end_matches('\r').to_owned() }),
    Err(_) => Some(HubEvent::Rejected { conn, reason: "message is not valid UTF-8".to_owned() }),
  }
}
