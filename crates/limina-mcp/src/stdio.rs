//! MCP over stdio: newline-delimited JSON-RPC on stdin, replies on stdout.
//! Lines over the size limit are skipped up to their newline and reported,
//! so one bad line never desynchronises the stream.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};

use super::pipe::Pipe;
use super::{ConnIo, HubEvent};

type Output = BufWriter<Box<dyn AsyncWrite + Unpin>>;

/// Starts the stdin reader and stdout writer tasks. At end of input the
/// JS server is told (`Close`) and decides when to exit, after its replies
/// are written. Input is read only while the connection has room (see the
/// crate's flow control), so a client that never reads its replies stops
/// being read instead of growing the server.
pub fn serve(io: ConnIo, max_bytes: usize) {
  let ConnIo { conn, inbox, mut outbound } = io;
  tokio::task::spawn_local(async move {
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
  });
  tokio::task::spawn_local(async move {
    inbox.push(HubEvent::Open { conn, peer: "stdio".to_owned(), transport: "stdio", access: "full" });
    let stdin: Box<dyn AsyncRead + Unpin> = match Pipe::new(0, None) {
      Some(pipe) => Box::new(pipe),
      None => Box::new(tokio::io::stdin()),
    };
    let mut input = BufReader::with_capacity(64 * 1024, stdin);
    let mut line: Vec<u8> = Vec::new();
    let mut oversized = false;
    let reason = loop {
      inbox.room().await;
      let buf = match input.fill_buf().await {
        Ok([]) => break "end of input".to_owned(),
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
  });
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
