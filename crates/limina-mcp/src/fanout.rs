//! Spectators beyond one machine: the world server publishes its state
//! stream (the full-view group's deltas and a snapshot every second) to
//! core NATS (`--spectator-sink nats://HOST:PORT/SUBJECT`) once a tick, and
//! each `limina relay` subscribes and fans it out to its own browsers. Every
//! message carries a `Limina-Seq` header, so a relay that missed one (a
//! slow consumer, a reconnect) knows to wait for the next snapshot instead
//! of applying a delta to the wrong state.

use std::cell::RefCell;
use std::rc::Rc;

use async_nats::HeaderMap;
use deno_core::futures::StreamExt;
use deno_core::{op2, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::OpError;
use limina_trace::nats::NatsTarget;
use tokio::sync::mpsc;

const SEQ_HEADER: &str = "Limina-Seq";
/// Messages a publisher holds for NATS before it drops (the relays then resync from the next snapshot).
const PUBLISH_QUEUE: usize = 4096;

async fn connect(target: &NatsTarget) -> Result<async_nats::Client, OpError> {
  async_nats::ConnectOptions::new()
    .connection_timeout(std::time::Duration::from_secs(5))
    .connect(target.server.as_str())
    .await
    .map_err(|e| OpError::unavailable(format!("NATS connecting at {} failed: {e}", target.server)))
}

struct Publisher {
  tx: mpsc::Sender<(u64, String)>,
  seq: u64,
}

/// Connects a publisher of the state stream; returns its id.
#[op2]
pub async fn op_mcp_fanout_publisher(state: Rc<RefCell<OpState>>, #[string] url: String) -> Result<u32, OpError> {
  let target = NatsTarget::parse(&url)?;
  let client = connect(&target).await?;
  let (tx, mut rx) = mpsc::channel::<(u64, String)>(PUBLISH_QUEUE);
  tokio::spawn(async move {
    while let Some((seq, text)) = rx.recv().await {
      let mut headers = HeaderMap::new();
      headers.insert(SEQ_HEADER, seq.to_string().as_str());
      if client.publish_with_headers(target.subject.clone(), headers, text.into()).await.is_err() {
        break;
      }
    }
  });
  Ok(resource_mut::<Handles<Publisher>>(&mut state.borrow_mut()).insert(Publisher { tx, seq: 0 }))
}

/// Publishes one message (never waits: with NATS that far behind, it is dropped); returns whether it was queued.
#[op2(fast)]
pub fn op_mcp_fanout_publish(state: &mut OpState, id: u32, #[string] text: String) -> Result<bool, OpError> {
  let p = resource_mut::<Handles<Publisher>>(state).get_mut(id, "spectator sink")?;
  p.seq += 1;
  Ok(p.tx.try_send((p.seq, text)).is_ok())
}

struct Subscriber {
  rx: Rc<tokio::sync::Mutex<mpsc::UnboundedReceiver<(u64, String)>>>,
}

/// Subscribes to a world's state stream; returns its id.
#[op2]
pub async fn op_mcp_fanout_subscribe(state: Rc<RefCell<OpState>>, #[string] url: String) -> Result<u32, OpError> {
  let target = NatsTarget::parse(&url)?;
  let client = connect(&target).await?;
  let mut sub = client.subscribe(target.subject.clone()).await.map_err(|e| OpError::unavailable(format!("NATS subscribing to {} failed: {e}", target.subject)))?;
  let (tx, rx) = mpsc::unbounded_channel();
  tokio::spawn(async move {
    let _client = client;
    while let Some(m) = sub.next().await {
      let seq = m.headers.as_ref().and_then(|h| h.get(SEQ_HEADER)).and_then(|v| v.as_str().parse().ok()).unwrap_or(0);
      let Ok(text) = String::from_utf8(m.payload.to_vec()) else { continue };
      if tx.send((seq, text)).is_err() {
        break;
      }
    }
  });
  Ok(resource_mut::<Handles<Subscriber>>(&mut state.borrow_mut()).insert(Subscriber { rx: Rc::new(tokio::sync::Mutex::new(rx)) }))
}

/// The next messages of a subscription, oldest first, as `[seq, text]` pairs (waits for at least one; empty: it ended).
#[op2]
#[serde]
pub async fn op_mcp_fanout_next(state: Rc<RefCell<OpState>>, id: u32) -> Result<Vec<(u64, String)>, OpError> {
  let rx = resource_mut::<Handles<Subscriber>>(&mut state.borrow_mut()).get_mut(id, "spectator stream")?.rx.clone();
  let mut rx = rx.lock().await;
  let Some(first) = rx.recv().await else { return Ok(Vec::new()) };
  let mut out = vec![first];
  while let Ok(m) = rx.try_recv() {
    out.push(m);
    if out.len() >= 256 {
      break;
    }
  }
  Ok(out)
}
