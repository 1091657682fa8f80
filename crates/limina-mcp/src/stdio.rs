//! MCP over stdio: newline-delimited JSON-RPC on stdin, replies on stdout.
//! Lines over the size limit are skipped up to their newline and reported,
//! so one bad line never desynchronises the stream.

use std::sync::atomic::Ordering;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::{ConnIo, HubEvent};

/// Starts the stdin reader and stdout writer tasks. At end of input the
/// JS server is told (`Close`) and decides when to exit, after its replies
/// are written.
pub fn serve(io: ConnIo, max_bytes: usize) {
  let ConnIo { conn, events, mut outbound, backlog } = io;
  tokio::task::spawn_local(async move {
    let mut out = tokio::io::stdout();
    while let Some(text) = outbound.recv().await {
      let written = async {
        out.write_all(text.as_bytes()).await?;
        out.write_all(b"\n").await?;
        out.flush().await
      }
      .await;
      backlog.fetch_sub(1, Ordering::Relaxed);
      if written.is_err() {
        break;
      }
    }
  });
  tokio::task::spawn_local(async move {
    let _ = events.send(HubEvent::Open { conn, peer: "stdio".to_owned() }).await;
    let mut input = BufReader::with_capacity(64 * 1024, tokio::io::stdin());
    let mut line: Vec<u8> = Vec::new();
    let mut oversized = false;
    let reason = loop {
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
      let event = if oversized {
        HubEvent::Rejected { conn, reason: format!("message exceeds the {max_bytes}-byte limit") }
      } else {
        match String::from_utf8(std::mem::take(&mut line)) {
          Ok(text) if text.trim().is_empty() => continue,
          Ok(text) => HubEvent::Message { conn, text: text.trim_end_matches('\r').to_owned() },
          Err(_) => HubEvent::Rejected { conn, reason: "message is not valid UTF-8".to_owned() },
        }
      };
      oversized = false;
      if events.send(event).await.is_err() {
        break "server stopped".to_owned();
      }
    };
    if !line.is_empty() && !oversized {
      // A last line without a newline still counts.
      if let Ok(text) = String::from_utf8(std::mem::take(&mut line)) {
        let _ = events.send(HubEvent::Message { conn, text }).await;
      }
    }
    let _ = events.send(HubEvent::Close { conn, reason }).await;
  });
}
