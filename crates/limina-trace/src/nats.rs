//! The world log streamed to NATS JetStream (`--log-sink
//! nats://HOST:PORT/SUBJECT`), and read back for `limina replay nats://…`.
//! Each message is one sealed JSONL line of the chain; the stream
//! (`LIMINA_` + the subject, file storage) is created when missing. A sink
//! publishes on a task of its own and awaits every acknowledgement, so
//! what JetStream acknowledged survives the world process being killed.

use std::cell::RefCell;
use std::rc::Rc;

use async_nats::jetstream::{self, stream};
use deno_core::futures::channel::oneshot;
use deno_core::{op2, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::OpError;
use tokio::sync::mpsc;

/// Where a `nats://HOST:PORT/SUBJECT` URL points.
#[derive(Debug, PartialEq)]
pub struct NatsTarget {
  pub server: String,
  pub subject: String,
}

impl NatsTarget {
  pub fn parse(url: &str) -> Result<Self, OpError> {
    let bad = |why: &str| OpError::invalid_input(format!("{url:?} is not a NATS log address (nats://HOST:PORT/SUBJECT): {why}"));
    let rest = url.strip_prefix("nats://").ok_or_else(|| bad("it must start with nats://"))?;
    let (server, subject) = rest.split_once('/').ok_or_else(|| bad("it names no subject"))?;
    if server.is_empty() || !server.contains(':') {
      return Err(bad("it needs HOST:PORT"));
    }
    let ok = !subject.is_empty()
      && subject.len() <= 200
      && subject.split('.').all(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    if !ok {
      return Err(bad("the subject must be dot-separated tokens of letters, digits, '_' and '-' (no wildcards)"));
    }
    Ok(Self { server: format!("nats://{server}"), subject: subject.to_owned() })
  }

  /// The JetStream stream holding the subject.
  pub fn stream(&self) -> String {
    let name: String = self.subject.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c.to_ascii_uppercase() } else { '_' }).collect();
    format!("LIMINA_{name}")
  }
}

fn unavailable(what: &str, target: &NatsTarget, e: impl std::fmt::Display) -> OpError {
  OpError::unavailable(format!("NATS {what} at {} failed: {e}", target.server))
}

/// How long connecting (TCP, the server's INFO, the client's CONNECT) and
/// then each JetStream request at start may take: a port that accepts and
/// never answers is an error, not a hang.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// `step` within [`CONNECT_TIMEOUT`], or a clear error naming `what`.
async fn bounded<T>(what: &str, target: &NatsTarget, step: impl std::future::Future<Output = Result<T, OpError>>) -> Result<T, OpError> {
  tokio::time::timeout(CONNECT_TIMEOUT, step)
    .await
    .unwrap_or_else(|_| Err(unavailable(what, target, format!("no answer within {} s (is it a NATS server?)", CONNECT_TIMEOUT.as_secs()))))
}

async fn jetstream_for(target: &NatsTarget) -> Result<jetstream::Context, OpError> {
  let connect = async {
    async_nats::ConnectOptions::new()
      .connection_timeout(CONNECT_TIMEOUT)
      .connect(target.server.as_str())
      .await
      .map_err(|e| unavailable("connecting", target, e))
  };
  Ok(jetstream::new(bounded("connecting", target, connect).await?))
}

enum Command {
  Lines(String),
  Flush(oneshot::Sender<Result<u64, String>>),
}

struct Sink {
  tx: mpsc::UnboundedSender<Command>,
}

/// Publishes each line, awaiting its acknowledgement; the first failure is kept and reported by every later flush.
async fn run_sink(js: jetstream::Context, target: NatsTarget, mut rx: mpsc::UnboundedReceiver<Command>) {
  let mut acked = 0u64;
  let mut failed: Option<String> = None;
  while let Some(cmd) = rx.recv().await {
    match cmd {
      Command::Lines(text) if failed.is_none() => {
        let mut acks = Vec::new();
        for line in text.lines() {
          match js.publish(target.subject.clone(), line.to_owned().into()).await {
            Ok(ack) => acks.push(ack),
            Err(e) => {
              failed = Some(format!("publishing to {} failed: {e}", target.subject));
              break;
            }
          }
        }
        for ack in acks {
          match ack.await {
            Ok(_) => acked += 1,
            Err(e) => {
              failed.get_or_insert_with(|| format!("JetStream did not acknowledge an event on {}: {e}", target.subject));
            }
          }
        }
      }
      Command::Lines(_) => {}
      Command::Flush(reply) => {
        let _ = reply.send(failed.clone().map_or(Ok(acked), Err));
      }
    }
  }
}

/// Connects to the NATS server, makes sure the stream exists, and starts a sink; returns its id.
#[op2]
pub async fn op_nats_sink_open(state: Rc<RefCell<OpState>>, #[string] url: String) -> Result<u32, OpError> {
  let target = NatsTarget::parse(&url)?;
  let js = jetstream_for(&target).await?;
  let config = stream::Config {
    name: target.stream(),
    subjects: vec![target.subject.clone()],
    storage: stream::StorageType::File,
    ..Default::default()
  };
  bounded("creating the stream", &target, async { js.get_or_create_stream(config).await.map_err(|e| unavailable("creating the stream", &target, e)) }).await?;
  let (tx, rx) = mpsc::unbounded_channel();
  tokio::spawn(run_sink(js, target, rx));
  Ok(resource_mut::<Handles<Sink>>(&mut state.borrow_mut()).insert(Sink { tx }))
}

/// Hands sealed JSONL lines to sink `id` to publish, in order.
#[op2(fast)]
pub fn op_nats_sink_append(state: &mut OpState, id: u32, #[string] lines: String) -> Result<(), OpError> {
  let sink = resource_mut::<Handles<Sink>>(state).get_mut(id, "NATS log sink")?;
  sink.tx.send(Command::Lines(lines)).map_err(|_| OpError::unavailable("the NATS log sink stopped"))
}

/// Resolves when JetStream has acknowledged every line handed over so far, to how many were; rejects naming the first failure.
#[op2]
#[number]
pub async fn op_nats_sink_flush(state: Rc<RefCell<OpState>>, id: u32) -> Result<u64, OpError> {
  let (tx, rx) = oneshot::channel();
  {
    let mut state = state.borrow_mut();
    let sink = resource_mut::<Handles<Sink>>(&mut state).get_mut(id, "NATS log sink")?;
    sink.tx.send(Command::Flush(tx)).map_err(|_| OpError::unavailable("the NATS log sink stopped"))?;
  }
  rx.await.map_err(|_| OpError::unavailable("the NATS log sink stopped"))?.map_err(OpError::unavailable)
}

/// Every message of the stream holding the URL's subject, in order, as JSONL text.
#[op2]
#[string]
pub async fn op_nats_log_read(#[string] url: String) -> Result<String, OpError> {
  let target = NatsTarget::parse(&url)?;
  let js = jetstream_for(&target).await?;
  let found = bounded("reading the stream", &target, async { Ok(js.get_stream(target.stream()).await) }).await?;
  let mut stream = found.map_err(|e| match e.kind() {
    jetstream::context::GetStreamErrorKind::JetStream(j) if j.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND => {
      OpError::not_found(format!("NATS server {} has no stream {} (nothing was logged to {})", target.server, target.stream(), target.subject))
    }
    _ => unavailable("reading the stream", &target, e),
  })?;
  let state = stream.info().await.map_err(|e| unavailable("reading the stream", &target, e))?.state.clone();
  let mut out = String::new();
  if state.messages > 0 {
    for seq in state.first_sequence..=state.last_sequence {
      let message = stream.get_raw_message(seq).await.map_err(|e| unavailable(&format!("reading message {seq}"), &target, e))?;
      let line = std::str::from_utf8(&message.payload).map_err(|_| OpError::invalid_input(format!("message {seq} of {} is not UTF-8", target.stream())))?;
      out.push_str(line);
      out.push('\n');
    }
  }
  Ok(out)
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn nats_addresses_name_a_server_and_a_plain_subject() {
    let t = NatsTarget::parse("nats://127.0.0.1:4222/limina.world-1").unwrap();
    assert_eq!(t, NatsTarget { server: "nats://127.0.0.1:4222".into(), subject: "limina.world-1".into() });
    assert_eq!(t.stream(), "LIMINA_LIMINA_WORLD-1");
    for bad in ["http://h:1/s", "nats://h:1", "nats://h/s", "nats://h:1/a.*", "nats://h:1/a..b", "nats://h:1/a b"] {
      assert_eq!(NatsTarget::parse(bad).unwrap_err().code, limina_ops::ErrorCode::InvalidInput, "{bad}");
    }
  }
}
