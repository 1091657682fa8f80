//! The MCP transports' native half. Network and stdio tasks only frame,
//! bound and move bytes: inbound messages go to JS through one bounded
//! event channel (the JS server applies them at tick boundaries); outbound
//! messages go into a bounded per-connection queue drained by the
//! connection's writer task, so a slow client never blocks the simulation.

pub mod stdio;
pub mod ws;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use deno_core::{op2, OpState};
use limina_ops::OpError;
use tokio::sync::mpsc;

/// Default largest inbound message (a stdio line or a WebSocket message).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 1 << 20;
/// Queued outbound messages beyond which droppable ones (state deltas) are dropped.
pub const DROPPABLE_BACKLOG: usize = 256;
/// Queued outbound messages beyond which the connection is closed: replies
/// are never dropped, so a client that sends without reading is cut off here.
pub const MAX_BACKLOG: usize = 1 << 16;
const INBOUND_QUEUE: usize = 4096;

/// What the transports tell the JS server.
#[derive(Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum HubEvent {
  Open { conn: u32, peer: String },
  Message { conn: u32, text: String },
  /// A message the transport refused before JS saw it (over the size limit,
  /// not UTF-8, a binary frame).
  Rejected { conn: u32, reason: String },
  Close { conn: u32, reason: String },
}

/// One connection's outbound side.
struct Outbound {
  tx: mpsc::UnboundedSender<Arc<str>>,
  backlog: Arc<AtomicUsize>,
}

/// The transports' shared state, in `OpState`.
pub struct McpHub {
  registry: ConnRegistry,
  events_rx: Rc<tokio::sync::Mutex<mpsc::Receiver<HubEvent>>>,
}

impl Default for McpHub {
  fn default() -> Self {
    let (events, events_rx) = mpsc::channel(INBOUND_QUEUE);
    Self {
      registry: ConnRegistry { conns: Rc::default(), next_conn: Rc::default(), events },
      events_rx: Rc::new(tokio::sync::Mutex::new(events_rx)),
    }
  }
}

/// What a transport task needs: the event sender and its connection's queue.
pub struct ConnIo {
  pub conn: u32,
  pub events: mpsc::Sender<HubEvent>,
  pub outbound: mpsc::UnboundedReceiver<Arc<str>>,
  pub backlog: Arc<AtomicUsize>,
}

/// The connection table, shared with the transport tasks (all on the main
/// thread's single-threaded runtime).
#[derive(Clone)]
pub struct ConnRegistry {
  conns: Rc<RefCell<HashMap<u32, Outbound>>>,
  next_conn: Rc<RefCell<u32>>,
  events: mpsc::Sender<HubEvent>,
}

impl ConnRegistry {
  /// Registers a new connection and returns its I/O ends.
  pub fn open(&self) -> ConnIo {
    let conn = {
      let mut n = self.next_conn.borrow_mut();
      let c = *n;
      *n += 1;
      c
    };
    let (tx, outbound) = mpsc::unbounded_channel();
    let backlog = Arc::new(AtomicUsize::new(0));
    self.conns.borrow_mut().insert(conn, Outbound { tx, backlog: backlog.clone() });
    ConnIo { conn, events: self.events.clone(), outbound, backlog }
  }

  /// Forgets a connection whose transport ended.
  pub fn forget(&self, conn: u32) {
    self.conns.borrow_mut().remove(&conn);
  }
}

/// How `--mcp-stdio` / `--mcp-ws` asked to serve.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServeConfig {
  pub transport: &'static str,
  pub host: String,
  pub port: u16,
  pub profile: String,
  pub max_message_bytes: u32,
  /// The module that builds the world, as a file URL.
  pub world_module: Option<String>,
}

/// The serve configuration, or null when not serving.
#[op2]
#[serde]
pub fn op_mcp_config(state: &mut OpState) -> Option<ServeConfig> {
  state.try_borrow::<ServeConfig>().cloned()
}

fn hub(state: &mut OpState) -> &mut McpHub {
  limina_ops::resources::resource_mut::<McpHub>(state)
}

/// Serves MCP on stdin/stdout as connection 0.
#[op2(fast)]
pub fn op_mcp_listen_stdio(state: &mut OpState, max_message_bytes: u32) -> u32 {
  let registry = hub(state).registry.clone();
  let io = registry.open();
  let conn = io.conn;
  stdio::serve(io, max_message_bytes as usize);
  conn
}

/// Listens for WebSocket clients on `host:port` (0 = any free port); returns the bound port.
#[op2]
pub async fn op_mcp_listen_ws(
  state: Rc<RefCell<OpState>>,
  #[string] host: String,
  port: u16,
  max_message_bytes: u32,
) -> Result<u16, OpError> {
  let registry = hub(&mut state.borrow_mut()).registry.clone();
  ws::listen(&host, port, max_message_bytes as usize, registry).await
}

/// The next transport event; never resolves while nothing happens.
#[op2]
#[serde]
pub async fn op_mcp_next(state: Rc<RefCell<OpState>>) -> Option<HubEvent> {
  let rx = hub(&mut state.borrow_mut()).events_rx.clone();
  let mut rx = rx.lock().await;
  rx.recv().await
}

/// Send outcomes.
const SENT: u32 = 0;
const DROPPED: u32 = 1;
const CLOSED: u32 = 2;

/// Queues `text`. A droppable message (a state delta) is dropped while the
/// client is `DROPPABLE_BACKLOG` behind; anything else is always queued,
/// and a client `MAX_BACKLOG` behind is disconnected.
fn send_to(registry: &ConnRegistry, conn: u32, text: &Arc<str>, droppable: bool) -> u32 {
  let mut conns = registry.conns.borrow_mut();
  let Some(out) = conns.get(&conn) else { return CLOSED };
  let backlog = out.backlog.load(Ordering::Relaxed);
  if droppable && backlog >= DROPPABLE_BACKLOG {
    return DROPPED;
  }
  if backlog >= MAX_BACKLOG {
    // Dropping the sender ends the writer, which closes the connection.
    conns.remove(&conn);
    return CLOSED;
  }
  if out.tx.send(text.clone()).is_err() {
    return CLOSED;
  }
  out.backlog.fetch_add(1, Ordering::Relaxed);
  SENT
}

/// Queues one message: 0 sent, 1 dropped (droppable and the client is behind), 2 closed.
#[op2(fast)]
pub fn op_mcp_send(state: &mut OpState, conn: u32, #[string] text: &str, droppable: bool) -> u32 {
  let text: Arc<str> = Arc::from(text);
  send_to(&hub(state).registry, conn, &text, droppable)
}

/// Queues the same message to many connections; returns each outcome.
#[op2]
#[serde]
pub fn op_mcp_broadcast(state: &mut OpState, #[serde] conns: Vec<u32>, #[string] text: &str, droppable: bool) -> Vec<u32> {
  let text: Arc<str> = Arc::from(text);
  let registry = &hub(state).registry;
  conns.into_iter().map(|c| send_to(registry, c, &text, droppable)).collect()
}

/// Messages queued to a connection and not yet written.
#[op2(fast)]
pub fn op_mcp_backlog(state: &mut OpState, conn: u32) -> u32 {
  hub(state).registry.conns.borrow().get(&conn).map_or(0, |o| o.backlog.load(Ordering::Relaxed) as u32)
}

/// Closes a connection after its queued messages are written.
#[op2(fast)]
pub fn op_mcp_close(state: &mut OpState, conn: u32) {
  hub(state).registry.forget(conn);
}

deno_core::extension!(
  limina_mcp,
  deps = [limina_ops],
  ops = [
    op_mcp_config,
    op_mcp_listen_stdio,
    op_mcp_listen_ws,
    op_mcp_next,
    op_mcp_send,
    op_mcp_broadcast,
    op_mcp_backlog,
    op_mcp_close,
  ],
  options = { serve: Option<ServeConfig> },
  state = |state, options| {
    if let Some(serve) = options.serve {
      state.put(serve);
    }
  },
);
