//! The MCP transports' native half. Network and stdio tasks only frame,
//! bound and move bytes. Inbound messages wait in their connection's queue
//! and ring the host loop's [`Arrivals`] doorbell, so the JS server applies
//! them between frames as soon as they arrive; the server takes them
//! round-robin across connections, one message per connection per turn, so
//! a busy client cannot delay a quiet one by more than one message each
//! turn. Outbound messages go into a per-connection queue drained by the
//! connection's writer task, so a slow client never blocks the simulation
//! (WebSocket writers run on a thread of their own, so a busy loop thread
//! never delays them either; see `ws`).
//!
//! Flow control is per connection: a connection stops being read while it
//! has `MAX_QUEUED` messages waiting to be applied or `PAUSE_BACKLOG`
//! outbound messages it has not read. A flooding client is thus queued
//! against itself (its socket fills) and the server's memory stays bounded.

pub mod fanout;
pub mod handshake;
pub mod http;
mod limits;
mod pipe;
pub mod stdio;
pub mod sync;
mod turns;
pub mod web;
pub mod ws;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use deno_core::{op2, OpState};
use limina_ops::{Arrivals, OpError};
use rustc_hash::FxHashMap;
use tokio::sync::{mpsc, Notify};
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// Default largest inbound message (a stdio line or a WebSocket message).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 1 << 20;
/// Queued outbound messages beyond which droppable ones (state deltas) are dropped.
pub const DROPPABLE_BACKLOG: usize = 256;
/// Unwritten outbound messages at which a connection's input is paused
/// until its client reads.
pub const PAUSE_BACKLOG: usize = 1024;
/// Messages of one connection waiting to be applied at which its input is paused.
pub const MAX_QUEUED: usize = 256;
/// Queued outbound messages beyond which the connection is closed (a
/// safety net: input pauses long before replies alone get here).
pub const MAX_BACKLOG: usize = 1 << 16;

/// What the transports tell the JS server.
#[derive(Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum HubEvent {
  /// `access`: "full", or "spectator" for a browser that presented no
  /// token (it may take only the spectator profile).
  Open { conn: u32, peer: String, transport: &'static str, access: &'static str },
  Message { conn: u32, text: String },
  /// A stdio client's first message, already answered with `reply` before
  /// the server ran (see `handshake`): the server handles it and sends nothing.
  Adopted { conn: u32, text: String, reply: String },
  /// One stateless request (MCP 2026-07-28 over HTTP): a connection of its
  /// own, opened for it and ended by its one reply, with the routing
  /// headers the server checks against the body.
  Exchange { conn: u32, peer: String, text: String, routing: http::RoutingHeaders },
  /// A message the transport refused before JS saw it (over the size limit,
  /// not UTF-8, a binary frame).
  Rejected { conn: u32, reason: String },
  Close { conn: u32, reason: String },
}

impl HubEvent {
  fn conn(&self) -> u32 {
    match self {
      HubEvent::Open { conn, .. } | HubEvent::Message { conn, .. } | HubEvent::Adopted { conn, .. } | HubEvent::Exchange { conn, .. } | HubEvent::Rejected { conn, .. } | HubEvent::Close { conn, .. } => *conn,
    }
  }

  /// Whether the event is a message to apply (it counts against the connection's queue).
  fn is_message(&self) -> bool {
    matches!(self, HubEvent::Message { .. } | HubEvent::Adopted { .. } | HubEvent::Exchange { .. })
  }
}

/// One connection's flow-control counters, shared by its transport task,
/// its writer (which may run on another thread) and the queue. Only the
/// loop thread raises them; each count is exact once its writer's decrement
/// lands, and a stale read only errs on the side of pausing.
#[derive(Default)]
struct Flow {
  /// Its messages in the shared queue.
  queued: AtomicUsize,
  /// Its outbound messages not yet written.
  backlog: AtomicUsize,
  /// Signalled when either count falls.
  room: Notify,
  /// A state delta is queued and not yet written: the next one waits (see `sync`).
  delta_pending: AtomicBool,
}

impl Flow {
  fn has_room(&self) -> bool {
    self.queued.load(Ordering::Acquire) < MAX_QUEUED && self.backlog.load(Ordering::Acquire) < PAUSE_BACKLOG
  }

  fn backlog(&self) -> usize {
    self.backlog.load(Ordering::Acquire)
  }
}

/// One outbound message.
pub enum Out {
  /// A JSON-RPC message. Its bytes are shared by every connection it is
  /// sent to: a WebSocket frame or an HTTP body is made of them as they are.
  Text(Utf8Bytes),
  /// This tick's state delta (binary, or the JSON group's), in its place
  /// among the replies; the encoder thread fills it (see `sync`).
  Delta(Arc<sync::DeltaCell>),
}

/// One connection's outbound side.
struct Outbound {
  tx: mpsc::UnboundedSender<Out>,
  flow: Arc<Flow>,
  /// A WebSocket connection's sending half, for replies written without its writer (see `ws`).
  direct: Option<Arc<ws::DirectSink>>,
}

/// The transports' shared state, in `OpState`.
pub struct McpHub {
  registry: ConnRegistry,
  /// Where a tool reply is written before it is copied out at its exact
  /// length: `Bytes` made from a `Vec` with spare room allocates a shared
  /// header as well.
  reply: Vec<u8>,
}

/// The connection table and the inbound queue, shared with the transport
/// tasks (all on the loop thread's single-threaded runtime).
#[derive(Clone)]
pub struct ConnRegistry {
  /// By connection id (the server picks them, so Fx: looked up for every message sent).
  conns: Rc<RefCell<FxHashMap<u32, Outbound>>>,
  next_conn: Rc<Cell<u32>>,
  inbound: Rc<RefCell<Inbound>>,
  arrivals: Arrivals,
  /// WebSocket clients whose close frame is not written yet.
  unclosed: Rc<Cell<usize>>,
}

/// Counts a WebSocket client among the unclosed until dropped (once its close frame is written, or it is gone).
pub struct Unclosed(Rc<Cell<usize>>);

impl Drop for Unclosed {
  fn drop(&mut self) {
    self.0.set(self.0.get() - 1);
  }
}

/// Events waiting to be applied, in round-robin turns across connections.
#[derive(Default)]
struct Inbound {
  turns: turns::Turns<HubEvent>,
  /// Messages ever read, from every connection.
  received: u64,
}

impl Inbound {
  fn push(&mut self, event: HubEvent) {
    if event.is_message() {
      self.received += 1;
    }
    self.turns.push(event.conn(), event);
  }

  fn pop(&mut self) -> Option<HubEvent> {
    self.turns.pop().map(|(_, event)| event)
  }
}

/// A transport task's ends of one connection.
pub struct ConnIo {
  pub conn: u32,
  pub inbox: Inbox,
  pub outbound: Outbox,
}

/// Where a transport puts what its connection receives.
pub struct Inbox {
  flow: Arc<Flow>,
  inbound: Rc<RefCell<Inbound>>,
  arrivals: Arrivals,
}

impl Inbox {
  /// Whether the connection may be read now.
  pub fn has_room(&self) -> bool {
    self.flow.has_room()
  }

  /// Resolves once the connection may be read again.
  pub async fn room(&self) {
    while !self.flow.has_room() {
      self.flow.room.notified().await;
    }
  }

  /// Ready once the loop has taken everything that rang: a transport that
  /// can read a message at any time checks it each time before it reads
  /// (see [`Arrivals::poll_taken`]).
  pub fn poll_loop_taken(&self, cx: &mut std::task::Context) -> std::task::Poll<()> {
    self.arrivals.poll_taken(cx)
  }

  /// Queues an event for the server and wakes the host loop. Callers read
  /// a message only when [`Inbox::has_room`]; opens, rejections and closes
  /// are always queued.
  pub fn push(&self, event: HubEvent) {
    if event.is_message() {
      self.flow.queued.fetch_add(1, Ordering::AcqRel);
    }
    self.inbound.borrow_mut().push(event);
    self.arrivals.ring();
  }
}

/// A connection's outbound queue, read by its writer.
pub struct Outbox {
  rx: mpsc::UnboundedReceiver<Out>,
  flow: Arc<Flow>,
}

impl Outbox {
  /// The next message to write, state deltas included; `None` once the
  /// server closed the connection. A delta's writer calls
  /// [`Outbox::delta_written`] once it is on the wire.
  pub async fn recv_any(&mut self) -> Option<Out> {
    self.rx.recv().await
  }

  /// The next JSON-RPC message to write (transports without state deltas);
  /// `None` once the server closed the connection.
  pub async fn recv(&mut self) -> Option<Utf8Bytes> {
    loop {
      match self.rx.recv().await? {
        Out::Text(text) => return Some(text),
        Out::Delta(_) => self.skip_delta(),
      }
    }
  }

  /// The next JSON-RPC message if one is already queued.
  pub fn try_recv(&mut self) -> Result<Utf8Bytes, mpsc::error::TryRecvError> {
    loop {
      match self.rx.try_recv()? {
        Out::Text(text) => return Ok(text),
        Out::Delta(_) => self.skip_delta(),
      }
    }
  }

  fn skip_delta(&self) {
    self.delta_written();
    self.written(1);
  }

  /// The queued state delta is written: the connection may be given the next.
  pub fn delta_written(&self) {
    self.flow.delta_pending.store(false, Ordering::Release);
  }

  /// Gives up on the connection's output (its reader went away): what is
  /// queued is dropped and later sends find the connection closed.
  pub fn abandon(&mut self) {
    self.rx.close();
    self.flow.backlog.store(0, Ordering::Release);
    self.flow.room.notify_one();
  }

  /// Marks `count` messages written.
  pub fn written(&self, count: usize) {
    self.flow.backlog.fetch_sub(count, Ordering::AcqRel);
    self.flow.room.notify_one();
  }
}

impl ConnRegistry {
  fn new(arrivals: Arrivals) -> Self {
    Self { conns: Rc::default(), next_conn: Rc::default(), inbound: Rc::default(), arrivals, unclosed: Rc::default() }
  }

  /// Counts a WebSocket client as unclosed while the returned guard lives.
  pub fn unclosed(&self) -> Unclosed {
    self.unclosed.set(self.unclosed.get() + 1);
    Unclosed(self.unclosed.clone())
  }

  /// Registers a new connection and returns its I/O ends.
  pub fn open(&self) -> ConnIo {
    // Every stateless HTTP request takes an id, so ids wrap in a long-lived
    // server: skip the ones still in use.
    let mut conn = self.next_conn.get();
    while self.conns.borrow().contains_key(&conn) {
      conn = conn.wrapping_add(1);
    }
    self.next_conn.set(conn.wrapping_add(1));
    let (tx, rx) = mpsc::unbounded_channel();
    let flow = Arc::new(Flow::default());
    self.conns.borrow_mut().insert(conn, Outbound { tx, flow: flow.clone(), direct: None });
    ConnIo {
      conn,
      inbox: Inbox { flow: flow.clone(), inbound: self.inbound.clone(), arrivals: self.arrivals.clone() },
      outbound: Outbox { rx, flow },
    }
  }

  /// Lets the loop thread write `conn`'s messages through `direct` when nothing is queued to it.
  pub fn write_directly(&self, conn: u32, direct: Arc<ws::DirectSink>) {
    if let Some(out) = self.conns.borrow_mut().get_mut(&conn) {
      out.direct = Some(direct);
    }
  }

  /// Connections open now.
  pub fn live(&self) -> usize {
    self.conns.borrow().len()
  }

  /// Queues a state-delta placeholder for `conn` unless its last one is
  /// still unwritten (or the connection is gone or far behind): the
  /// connection's pacing. The returned reservation is filled off the loop.
  fn reserve_delta(&self, conn: u32) -> Option<sync::Reservation> {
    let conns = self.conns.borrow();
    let out = conns.get(&conn)?;
    if out.flow.delta_pending.load(Ordering::Acquire) || out.flow.backlog() >= DROPPABLE_BACKLOG {
      return None;
    }
    let (cell, reservation) = sync::DeltaCell::reserve();
    // Counted before it is queued: its writer may write it at once.
    out.flow.backlog.fetch_add(1, Ordering::AcqRel);
    out.flow.delta_pending.store(true, Ordering::Release);
    if out.tx.send(Out::Delta(cell)).is_err() {
      out.flow.backlog.fetch_sub(1, Ordering::AcqRel);
      out.flow.delta_pending.store(false, Ordering::Release);
      return None;
    }
    Some(reservation)
  }

  /// Forgets a connection whose transport ended.
  pub fn forget(&self, conn: u32) {
    self.conns.borrow_mut().remove(&conn);
  }

  /// Forgets every connection (each writer drains what is queued, then closes); returns how many.
  fn forget_all(&self) -> usize {
    std::mem::take(&mut *self.conns.borrow_mut()).len()
  }

  /// Takes up to `max` queued events, round-robin across connections,
  /// reopening the input of connections that were paused on a full queue.
  fn take(&self, max: usize) -> Vec<HubEvent> {
    let mut inbound = self.inbound.borrow_mut();
    let events: Vec<HubEvent> = std::iter::from_fn(|| inbound.pop()).take(max).collect();
    drop(inbound);
    let conns = self.conns.borrow();
    for event in &events {
      if let (true, Some(out)) = (event.is_message(), conns.get(&event.conn())) {
        out.flow.queued.fetch_sub(1, Ordering::AcqRel);
        out.flow.room.notify_one();
      }
    }
    events
  }
}

/// How `--mcp-stdio`, `--mcp-ws` and `--mcp-http` asked to serve.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServeConfig {
  pub stdio: bool,
  pub ws: bool,
  pub http: bool,
  pub host: String,
  /// The WebSocket port.
  pub port: u16,
  /// The Streamable HTTP port.
  pub http_port: u16,
  /// The Streamable HTTP endpoint's path.
  pub path: String,
  /// `--token` / `LIMINA_MCP_TOKEN`: network clients must present it. It
  /// stays on the Rust side; JS only learns whether one is set.
  #[serde(skip)]
  pub token: Option<String>,
  pub profile: String,
  pub max_message_bytes: u32,
  /// `--max-clients`: WebSocket connections, and HTTP sessions, served at once.
  pub max_clients: u32,
  /// `--idle-timeout`: seconds of silence after which a network client is closed.
  pub idle_timeout: u32,
  /// `--dev`: `dev.reload` may swap skill handlers.
  pub dev: bool,
  /// `--verbose`, or stderr is a terminal: say at start what is served (an
  /// MCP client would only log it as noise).
  pub verbose: bool,
  /// The module that builds the world, as a file URL.
  pub world_module: Option<String>,
  /// `--world-file`: the durable world's file (restored at start, saved as it runs and on stop).
  pub world_file: Option<String>,
  /// `--save-every`: seconds between saves of the world file.
  pub save_every: u32,
  /// `--log-sink`: where the world log streams too (`nats://HOST:PORT/SUBJECT`).
  pub log_sink: Option<String>,
  /// `--tools-page-size`: tools per page of a standard `tools/list` (0: one page).
  pub tools_page_size: u32,
  /// `--tools-listing`: `full` or `core`, the listing standard clients get by default.
  pub tools_listing: String,
  /// `--spectator-sink`: where the state stream is published for relays (`nats://HOST:PORT/SUBJECT`).
  pub spectator_sink: Option<String>,
  /// `limina relay URL`: this process relays a world's state stream from NATS to browsers.
  pub relay: Option<String>,
}

/// The serve configuration, or null when not serving.
#[op2]
#[serde]
pub fn op_mcp_config(state: &mut OpState) -> Option<ServeConfig> {
  state.try_borrow::<ServeConfig>().cloned()
}

pub(crate) fn hub(state: &mut OpState) -> &mut McpHub {
  limina_ops::resources::resource_or_make(state, |state| McpHub { registry: ConnRegistry::new(state.borrow::<Arrivals>().clone()), reply: Vec::new() })
}

/// Serves MCP on stdin/stdout as connection 0.
#[op2(fast)]
pub fn op_mcp_listen_stdio(state: &mut OpState, max_message_bytes: u32) -> u32 {
  let first = state.try_take::<stdio::FirstLine>();
  let registry = hub(state).registry.clone();
  let io = registry.open();
  let conn = io.conn;
  stdio::serve(io, max_message_bytes as usize, first);
  conn
}

/// Accepts connections on `listener` forever, handing each to `on_accept`.
/// Accept errors (out of file descriptors, say) repeat while their cause
/// lasts, so the loop waits, doubling up to a second, instead of spinning.
pub(crate) async fn accept_loop(listener: tokio::net::TcpListener, mut on_accept: impl FnMut(tokio::net::TcpStream, std::net::SocketAddr)) {
  const FIRST_BACKOFF: std::time::Duration = std::time::Duration::from_millis(10);
  const MAX_BACKOFF: std::time::Duration = std::time::Duration::from_secs(1);
  let mut backoff = FIRST_BACKOFF;
  loop {
    match listener.accept().await {
      Ok((stream, peer)) => {
        backoff = FIRST_BACKOFF;
        let _ = stream.set_nodelay(true);
        on_accept(stream, peer);
      }
      Err(_) => {
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
      }
    }
  }
}

/// Whether the first request on `stream` has already arrived whole, looked
/// at without reading it or waiting (see `limits::Gate::admit`): one
/// syscall a connection. A request longer than the look is not told apart.
pub(crate) fn first_request_arrived(stream: &tokio::net::TcpStream) -> bool {
  use std::os::fd::AsRawFd;
  let mut buf = [0u8; 16 * 1024];
  // SAFETY: recv writes at most buf.len() bytes into buf; MSG_PEEK leaves them queued and MSG_DONTWAIT never blocks.
  let n = unsafe { libc::recv(stream.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), libc::MSG_PEEK | libc::MSG_DONTWAIT) };
  n > 0 && limits::request_is_whole(&buf[..n as usize])
}

/// Connections being refused: each is answered with a short HTTP error and
/// drained for a moment, so its client reads the answer instead of a reset;
/// past `MAX_REFUSING` at once, or a quarter of them from one peer address,
/// further ones are just closed (see `limits::RefusalBudget`).
#[derive(Clone)]
pub(crate) struct Refusals(Rc<limits::RefusalBudget>);

impl Default for Refusals {
  fn default() -> Self {
    Self(limits::RefusalBudget::new(Self::MAX_REFUSING, Self::MAX_REFUSING / 4))
  }
}

impl Refusals {
  const MAX_REFUSING: usize = 64;
  const LINGER: std::time::Duration = std::time::Duration::from_secs(1);

  /// Answers `stream` (from `peer`) with 503 and a JSON-RPC `capacity_exceeded` error saying `why`, then closes it.
  pub(crate) fn refuse(&self, stream: tokio::net::TcpStream, peer: std::net::IpAddr, why: &str) {
    let Some(answering) = self.0.take(peer) else {
      return; // dropping the stream closes it
    };
    let json = serde_json::json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32002, "message": format!("Service Unavailable: {why}; retry later") } }).to_string();
    let response = format!(
      "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{json}",
      json.len()
    );
    tokio::task::spawn_local(async move {
      use tokio::io::{AsyncReadExt, AsyncWriteExt};
      let mut stream = stream;
      let answer = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await?;
        let mut buf = [0u8; 4096];
        while stream.read(&mut buf).await? > 0 {}
        Ok::<_, std::io::Error>(())
      };
      let _ = tokio::time::timeout(Self::LINGER, answer).await;
      drop(answering);
    });
  }
}

/// Whether `headers` present `token` as `Authorization: Bearer …`, compared
/// in constant time.
pub(crate) fn bearer_matches(headers: &hyper::header::HeaderMap, token: &str) -> bool {
  let Some(given) = headers.get(hyper::header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer ")) else {
    return false;
  };
  given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

fn token(state: &OpState) -> Option<String> {
  state.try_borrow::<ServeConfig>().and_then(|c| c.token.clone())
}

/// Listens for WebSocket clients on `host:port` (0 = any free port), serving
/// at most `max_clients` at once and closing those silent for
/// `idle_timeout_s`; returns the bound port. With a serve token, the
/// handshake must present it, except a browser's, which then gets only the
/// spectator profile. `GET` requests that are no WebSocket handshake get
/// the spectator page (`relay`: as served by a relay).
#[op2]
pub async fn op_mcp_listen_ws(
  state: Rc<RefCell<OpState>>,
  #[string] host: String,
  port: u16,
  max_message_bytes: u32,
  max_clients: u32,
  idle_timeout_s: u32,
  relay: bool,
) -> Result<u16, OpError> {
  let (registry, token) = {
    let mut state = state.borrow_mut();
    (hub(&mut state).registry.clone(), token(&state))
  };
  let idle = std::time::Duration::from_secs(u64::from(idle_timeout_s.max(1)));
  let limits = ws::Limits { max_bytes: max_message_bytes as usize, max_clients: max_clients as usize, idle };
  let server = if relay { "relay" } else { "world" };
  ws::listen(&host, port, limits, token, server, registry).await
}

/// Serves MCP Streamable HTTP at `http://host:port{path}` (0 = any free
/// port), at most `max_sessions` sessions, ending those idle for
/// `idle_timeout_s`; `versions` are the session revisions clients may
/// name, `modern_versions` the stateless ones; other paths serve the
/// spectator page, which connects to `ws_port` (0: none). Returns the bound
/// port. With a serve token, every MCP request must present it.
#[op2]
#[allow(clippy::too_many_arguments)]
pub async fn op_mcp_listen_http(
  state: Rc<RefCell<OpState>>,
  #[string] host: String,
  port: u16,
  #[string] path: String,
  max_message_bytes: u32,
  max_sessions: u32,
  idle_timeout_s: u32,
  #[serde] (versions, modern_versions): (Vec<String>, Vec<String>),
  ws_port: u16,
) -> Result<u16, OpError> {
  let (registry, token) = {
    let mut state = state.borrow_mut();
    (hub(&mut state).registry.clone(), token(&state))
  };
  let config = http::Config {
    host,
    port,
    path,
    token,
    max_bytes: max_message_bytes as usize,
    max_sessions: max_sessions as usize,
    idle: std::time::Duration::from_secs(u64::from(idle_timeout_s.max(1))),
    versions,
    modern_versions,
    ws_port: (ws_port != 0).then_some(ws_port),
  };
  http::listen(config, registry).await
}

/// Up to `max` transport events, round-robin across connections, each
/// connection's in the order they arrived (none: nothing is waiting).
/// The host loop calls the server when the doorbell rings; the server takes
/// events as it applies them, so unapplied input stays queued here, under
/// flow control.
#[op2]
#[serde]
pub fn op_mcp_take(state: &mut OpState, max: u32) -> Vec<Taken> {
  let events = hub(state).registry.take(max as usize);
  events.into_iter().map(|e| if let HubEvent::Message { conn, text } = e { Taken::Message(conn, text) } else { Taken::Other(e) }).collect()
}

/// An event as `op_mcp_take` hands it to JS: a message as `[conn, text]`,
/// an array V8 makes at once (an object from serde_v8 is a dictionary-mode
/// object with a map of its own, slow to make and to read); any other as
/// its object.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum Taken {
  Message(u32, String),
  Other(HubEvent),
}

/// Send outcomes.
const SENT: u32 = 0;
const DROPPED: u32 = 1;
const CLOSED: u32 = 2;

/// Queues `text`. A droppable message (a state delta) is dropped while the
/// client is `DROPPABLE_BACKLOG` behind; anything else is always queued,
/// and a client `MAX_BACKLOG` behind is disconnected.
/// A reply to a WebSocket with nothing queued or being written to it is
/// written right away when the socket takes it (see `ws`); state (droppable
/// messages, some large) stays off the loop thread. `text` is moved, not
/// cloned, to where it is written: the first clone of a `Bytes` made at its
/// exact length allocates a shared header.
fn send_to(registry: &ConnRegistry, conn: u32, mut text: Utf8Bytes, droppable: bool) -> u32 {
  if let (false, Some(out)) = (droppable, registry.conns.borrow().get(&conn)) {
    if let (0, Some(direct)) = (out.flow.backlog(), out.direct.as_ref()) {
      match direct.try_write(text) {
        Ok(()) => return SENT,
        Err(back) => text = back,
      }
    }
  }
  queue(registry, conn, droppable, || Out::Text(text))
}

/// Queues the message `make` gives, as [`send_to`] does a text.
pub(crate) fn queue(registry: &ConnRegistry, conn: u32, droppable: bool, make: impl FnOnce() -> Out) -> u32 {
  let mut conns = registry.conns.borrow_mut();
  let Some(out) = conns.get(&conn) else { return CLOSED };
  let backlog = out.flow.backlog();
  if droppable && backlog >= DROPPABLE_BACKLOG {
    return DROPPED;
  }
  if backlog >= MAX_BACKLOG {
    // Dropping the sender ends the writer, which closes the connection.
    conns.remove(&conn);
    return CLOSED;
  }
  // Counted before it is queued: its writer may write it at once.
  out.flow.backlog.fetch_add(1, Ordering::AcqRel);
  if out.tx.send(make()).is_err() {
    out.flow.backlog.fetch_sub(1, Ordering::AcqRel);
    return CLOSED;
  }
  SENT
}

/// Queues one message: 0 sent, 1 dropped (droppable and the client is behind), 2 closed.
#[op2(fast)]
pub fn op_mcp_send(state: &mut OpState, conn: u32, #[string] text: &str, droppable: bool) -> u32 {
  send_to(&hub(state).registry, conn, Utf8Bytes::from(text), droppable)
}

/// Queues a standard client's successful tools/call reply, written here
/// around the result's one JSON text `json` exactly as `JSON.stringify` of
/// `{ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: json }],
/// structuredContent: plain ? result : { result }, isError: false } }`
/// writes it; `id` is the id's JSON. The text is escaped here, not in JS.
#[op2(fast)]
pub fn op_mcp_send_tool_text(state: &mut OpState, conn: u32, #[string] id: &str, #[string] json: &str, plain: bool) -> u32 {
  let hub = hub(state);
  let text = Utf8Bytes::from(tool_text_reply(&mut hub.reply, id, json, plain));
  send_to(&hub.registry, conn, text, false)
}

/// Writes the reply `op_mcp_send_tool_text` sends into `out` (emptied first); returns it.
fn tool_text_reply<'a>(out: &'a mut Vec<u8>, id: &str, json: &str, plain: bool) -> &'a str {
  out.clear();
  out.reserve(3 * json.len() + id.len() + 128);
  out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
  out.extend_from_slice(id.as_bytes());
  out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
  write_json_string(out, json);
  out.extend_from_slice(br#"}],"structuredContent":"#);
  if plain {
    out.extend_from_slice(json.as_bytes());
  } else {
    out.extend_from_slice(br#"{"result":"#);
    out.extend_from_slice(json.as_bytes());
    out.push(b'}');
  }
  out.extend_from_slice(br#","isError":false}}"#);
  std::str::from_utf8(out).expect("UTF-8 text around UTF-8 text")
}

/// How `JSON.stringify` escapes each byte of a string: 0 not at all, a short
/// escape's letter, or `u` for `\u00xx` (the other control characters).
const ESCAPES: [u8; 256] = {
  let mut table = [0; 256];
  let mut b = 0;
  while b < 0x20 {
    table[b] = b'u';
    b += 1;
  }
  table[0x08] = b'b';
  table[0x09] = b't';
  table[0x0a] = b'n';
  table[0x0c] = b'f';
  table[0x0d] = b'r';
  table[b'"' as usize] = b'"';
  table[b'\\' as usize] = b'\\';
  table
};

/// Writes `text` as a JSON string, escaped as `JSON.stringify` escapes one:
/// the short escapes, other control characters as lowercase `\u00xx`, nothing
/// else (a &str holds no lone surrogate to escape). It goes a word of 8 bytes
/// at a time, each copied whole, up to the first byte that needs an escape.
fn write_json_string(out: &mut Vec<u8>, text: &str) {
  let bytes = text.as_bytes();
  let n = bytes.len();
  let mut j = out.len();
  // Room, at every step, for the rest escaped two bytes a byte, a word's overrun and the closing
  // quote; only a `\u00xx` (six bytes) makes more.
  out.resize(j + 2 * n + 10, 0);
  out[j] = b'"';
  j += 1;
  let mut i = 0;
  loop {
    let byte = if i + 8 <= n {
      let word: [u8; 8] = bytes[i..i + 8].try_into().expect("8 bytes");
      out[j..j + 8].copy_from_slice(&word);
      let found = first_escape(u64::from_le_bytes(word));
      if found == 0 {
        i += 8;
        j += 8;
        continue;
      }
      let clean = (found.trailing_zeros() / 8) as usize;
      i += clean;
      j += clean;
      bytes[i]
    } else if i < n {
      let byte = bytes[i];
      if ESCAPES[usize::from(byte)] == 0 {
        out[j] = byte;
        i += 1;
        j += 1;
        continue;
      }
      byte
    } else {
      break;
    };
    match ESCAPES[usize::from(byte)] {
      b'u' => j = write_unicode_escape(out, j, byte, n - i - 1),
      letter => {
        out[j..j + 2].copy_from_slice(&[b'\\', letter]);
        j += 2;
      }
    }
    i += 1;
  }
  out[j] = b'"';
  out.truncate(j + 1);
}

/// The high bit of the first byte of 8 (little-endian) that needs an escape
/// — a control character, a quote or a backslash — or 0 when none does. Bits
/// above the first may be set wrongly (a borrow from it), so only it counts.
fn first_escape(word: u64) -> u64 {
  const ONES: u64 = 0x0101_0101_0101_0101;
  const HIGH: u64 = 0x8080_8080_8080_8080;
  let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH;
  below(word, 0x20) | below(word ^ (ONES * u64::from(b'"')), 1) | below(word ^ (ONES * u64::from(b'\\')), 1)
}

/// Writes a control character's `\u00xx` at `out[j..]`, with room made for
/// the `rest` bytes after it (see `write_json_string`); returns where the next
/// goes. Rare in JSON text (JSON.stringify escapes them inside strings), so
/// kept out of the loop.
#[cold]
fn write_unicode_escape(out: &mut Vec<u8>, j: usize, byte: u8, rest: usize) -> usize {
  const HEX: &[u8; 16] = b"0123456789abcdef";
  out.resize(out.len().max(j + 6 + 2 * rest + 9), 0);
  out[j..j + 6].copy_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 15)]]);
  j + 6
}

/// Queues the same message to many connections; returns each outcome.
#[op2]
#[serde]
pub fn op_mcp_broadcast(state: &mut OpState, #[serde] conns: Vec<u32>, #[string] text: String, droppable: bool) -> Vec<u32> {
  // Copied out of V8 once; every connection's queue then holds the same bytes.
  let text = Utf8Bytes::from(text);
  let registry = &hub(state).registry;
  conns.into_iter().map(|c| send_to(registry, c, text.clone(), droppable)).collect()
}

/// Messages queued to a connection and not yet written.
#[op2(fast)]
pub fn op_mcp_backlog(state: &mut OpState, conn: u32) -> u32 {
  hub(state).registry.conns.borrow().get(&conn).map_or(0, |o| o.flow.backlog() as u32)
}

/// Messages read so far from every connection: a test's world holds a call
/// until the calls sent behind it have all been read, so they are applied
/// together however loaded the machine is.
#[op2(fast)]
pub fn op_mcp_received(state: &mut OpState) -> f64 {
  hub(state).registry.inbound.borrow().received as f64
}

/// Closes a connection after its queued messages are written.
#[op2(fast)]
pub fn op_mcp_close(state: &mut OpState, conn: u32) {
  hub(state).registry.forget(conn);
}

/// Closes every connection after its queued messages are written, those whose opening the loop has
/// not taken yet included (a server stopping closes them too); returns how many.
#[op2(fast)]
pub fn op_mcp_close_all(state: &mut OpState) -> u32 {
  hub(state).registry.forget_all() as u32
}

/// WebSocket clients whose close frame is not written yet: a stopping server waits for none left.
#[op2(fast)]
pub fn op_mcp_unclosed(state: &mut OpState) -> u32 {
  hub(state).registry.unclosed.get() as u32
}

deno_core::extension!(
  limina_mcp,
  deps = [limina_ops],
  ops = [
    op_mcp_config,
    op_mcp_listen_stdio,
    op_mcp_listen_ws,
    op_mcp_listen_http,
    op_mcp_take,
    op_mcp_send,
    op_mcp_send_tool_text,
    op_mcp_broadcast,
    op_mcp_backlog,
    op_mcp_close,
    op_mcp_close_all,
    op_mcp_unclosed,
    op_mcp_received,
    fanout::op_mcp_fanout_publisher,
    fanout::op_mcp_fanout_publish,
    fanout::op_mcp_fanout_subscribe,
    fanout::op_mcp_fanout_next,
    sync::op_sync_subscribe,
    sync::op_sync_unsubscribe,
    sync::op_sync_aoi,
    sync::op_sync_entities,
    sync::op_sync_frame,
    sync::op_sync_json_entities,
    sync::op_sync_json_frame,
    web::op_mcp_web_export,
  ],
  options = { serve: Option<ServeConfig>, first_line: Option<stdio::FirstLine> },
  state = |state, options| {
    if let Some(serve) = options.serve {
      state.put(serve);
    }
    if let Some(first) = options.first_line {
      state.put(first);
    }
  },
);

#[cfg(test)]
mod tests {
  use super::{tool_text_reply, write_json_string};

  #[test]
  fn a_string_is_escaped_as_serde_json_escapes_it() {
    // serde_json escapes as JSON.stringify does. The alphabet holds every kind of escape, the bytes
    // either side of the control characters' bound, and '#' and ']' (a quote's and a backslash's
    // neighbours, which a borrow in the word test would wrongly flag), at every offset in a word.
    let alphabet = ['"', '\\', '\u{0}', '\u{1}', '\u{8}', '\t', '\n', '\u{c}', '\r', '\u{1f}', ' ', '!', '#', ']', 'a', '\u{7f}', 'é', '\u{2028}', '😀'];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      x
    };
    for round in 0..20_000 {
      let len = (next() % 40) as usize;
      // Mostly plain letters, as real JSON text is, so clean words occur too.
      let text: String = (0..len).map(|_| if next() % 3 == 0 { alphabet[(next() % alphabet.len() as u64) as usize] } else { 'a' }).collect();
      let mut out = b"[".to_vec();
      write_json_string(&mut out, &text);
      assert_eq!(out, [b"[".as_slice(), serde_json::to_string(&text).unwrap().as_bytes()].concat(), "round {round}: {text:?}");
    }
  }

  #[test]
  fn a_tool_text_reply_is_written_as_json_stringify_writes_it() {
    // The result's JSON as JSON.stringify gives it: quotes, a backslash, an escaped control
    // character and a lone surrogate (JSON.stringify escapes both), non-ASCII and U+2028 raw.
    let json = r#"{"s":"a\"b\\c\n\ud800 é  ✓"}"#;
    let mut out = Vec::new();
    assert_eq!(
      tool_text_reply(&mut out, "7", json, true),
      r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"s\":\"a\\\"b\\\\c\\n\\ud800 é  ✓\"}"}],"structuredContent":{"s":"a\"b\\c\n\ud800 é  ✓"},"isError":false}}"#
    );
    // The same buffer again: the reply alone, nothing of the one before.
    assert_eq!(
      tool_text_reply(&mut out, r#""x\"y""#, "[1,\"\u{1}\"]", false),
      "{\"jsonrpc\":\"2.0\",\"id\":\"x\\\"y\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"[1,\\\"\\u0001\\\"]\"}],\"structuredContent\":{\"result\":[1,\"\u{1}\"]},\"isError\":false}}"
    );
  }
}
