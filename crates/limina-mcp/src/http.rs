//! MCP Streamable HTTP on hyper, in both revisions the server speaks. One
//! MCP session (revision 2025-11-25) is one hub connection, and so is each
//! stateless request (2026-07-28), so HTTP clients share the world, its
//! total order and its round-robin turns with WebSocket and stdio clients.
//!
//! - `POST` carries one JSON-RPC message. A request is answered with its
//!   reply (JSON, or a one-event SSE stream for a client that accepts only
//!   SSE); a notification or a response gets 202.
//! - `GET` opens a server-to-client SSE stream: notifications the server
//!   sends outside a reply go to one open stream each (round-robin).
//! - `initialize` without a session id opens a session; its reply carries
//!   `Mcp-Session-Id`, which every later request must send (400 without,
//!   404 once the session ended). `DELETE` ends it.
//! - A `POST` without a session id whose `MCP-Protocol-Version` is not a
//!   session revision is stateless: one request in, one reply out, no
//!   session. The JS server checks its routing headers (`Mcp-Method`,
//!   `Mcp-Name`) against its body; the reply's error code picks the status.
//!
//! Every request is checked before it reaches the world: the bearer token
//! when one is set, Host and Origin against DNS rebinding, the content
//! type, `MCP-Protocol-Version`, the body size, and the envelope itself.
//!
//! Every resource a client can hold is bounded: a request's headers and
//! then its body must each arrive within the request timeout (10 s, or the
//! idle timeout when shorter; 408 for a body); connections that have not
//! finished their first request have a cap of their own and a cap per peer
//! address (see `limits.rs`); when every connection slot is taken the
//! longest-idle keep-alive connection is closed to make room, and only then
//! is a client refused, with a 503 it can read; sessions are counted when
//! granted, so concurrent `initialize`s cannot overshoot `--max-clients`;
//! open streams (GET and stateless listen) may take at most half of the
//! connection slots.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Read;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderMap, HeaderValue, ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN, RETRY_AFTER, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use limina_ops::OpError;
use serde::de::IgnoredAny;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::limits::{Admitted, Gate, GateLimits, InFlight};
use super::{accept_loop, bearer_matches, first_request_arrived, ConnRegistry, HubEvent, Inbox, Outbox, Refusals};

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
/// A client has this long to send a request's headers, and then its body
/// (the idle timeout when that is shorter).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Open GET streams per session; each message goes to one of them.
const MAX_STREAMS: usize = 8;
/// Notifications buffered for a stream whose client is not reading; beyond
/// this they are dropped (a notification is never worth stalling the world).
const STREAM_BUFFER: usize = 256;
/// TCP connections per allowed session (a client may hold a GET stream and
/// several POSTs at once).
const CONNECTIONS_PER_SESSION: usize = 4;
/// JSON-RPC codes the transport answers with itself.
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const FORBIDDEN: i32 = -32001;
const CAPACITY_EXCEEDED: i32 = -32002;
const UNAVAILABLE: i32 = -32003;
const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;

/// What `--mcp-http` serves and how it is bounded.
#[derive(Debug, Clone)]
pub struct Config {
  pub host: String,
  pub port: u16,
  /// The endpoint's path, e.g. `/mcp`.
  pub path: String,
  /// Required as `Authorization: Bearer …` on every request when set.
  pub token: Option<String>,
  pub max_bytes: usize,
  pub max_sessions: usize,
  /// A session with no request, no reply pending and no open stream for
  /// this long is ended.
  pub idle: Duration,
  /// The session revisions `MCP-Protocol-Version` may name.
  pub versions: Vec<String>,
  /// The stateless revisions.
  pub modern_versions: Vec<String>,
  /// The world server's WebSocket port, which the spectator page served here connects to.
  pub ws_port: Option<u16>,
}

/// A stateless POST's routing headers, for the JS server to check against
/// the body (None: absent).
#[derive(Debug, serde::Serialize)]
pub struct RoutingHeaders {
  version: Option<String>,
  method: Option<String>,
  name: Option<String>,
  /// A routing header sent more than once (first-copy and last-copy readers would disagree).
  duplicated: Option<&'static str>,
}

impl RoutingHeaders {
  fn of(headers: &HeaderMap) -> Self {
    let one = |name: &str| headers.get(name).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let duplicated = [VERSION_HEADER, METHOD_HEADER, NAME_HEADER].into_iter().find(|name| headers.get_all(*name).iter().count() > 1);
    Self { version: one(VERSION_HEADER), method: one(METHOD_HEADER), name: one(NAME_HEADER), duplicated }
  }
}

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// One MCP session: its hub connection and where its outbound messages go.
struct Session {
  id: String,
  conn: u32,
  inbox: Inbox,
  /// POSTs waiting for their reply, by request id (each with its own serial).
  pending: RefCell<HashMap<String, (u64, oneshot::Sender<Utf8Bytes>)>>,
  /// The serial of the last POST that waited.
  posts: Cell<u64>,
  /// Open GET streams.
  streams: RefCell<Vec<mpsc::Sender<Bytes>>>,
  turn: Cell<usize>,
  last_active: Cell<Instant>,
  ended: Cell<bool>,
}

impl Session {
  fn touch(&self) {
    self.last_active.set(Instant::now());
  }

  /// Routes one outbound message: a reply to the POST that asked for it,
  /// anything else to one open stream (none open: it is dropped, as the
  /// transport allows).
  fn deliver(&self, text: Utf8Bytes) {
    #[derive(serde::Deserialize)]
    struct Peek {
      #[serde(default)]
      id: Option<Value>,
      #[serde(default)]
      method: Option<IgnoredAny>,
    }
    let peek: Option<Peek> = serde_json::from_str(&text).ok();
    if let Some(Peek { id: Some(id), method: None }) = &peek {
      if let Some((_, waiter)) = id_key(id).and_then(|key| self.pending.borrow_mut().remove(&key)) {
        let _ = waiter.send(text);
        return;
      }
    }
    self.stream_send(sse_event(&text));
  }

  fn stream_send(&self, event: Bytes) {
    let mut streams = self.streams.borrow_mut();
    streams.retain(|s| !s.is_closed());
    if streams.is_empty() {
      return;
    }
    let turn = self.turn.get() % streams.len();
    self.turn.set(turn + 1);
    let _ = streams[turn].try_send(event);
  }

  fn live_streams(&self) -> usize {
    let mut streams = self.streams.borrow_mut();
    streams.retain(|s| !s.is_closed());
    streams.len()
  }
}

struct Server {
  registry: ConnRegistry,
  config: Config,
  /// Whether the server is bound to a loopback address: then Host must be a
  /// loopback name (DNS rebinding protection).
  loopback: bool,
  sessions: RefCell<HashMap<String, Rc<Session>>>,
  /// Sessions granted whose `initialize` has not been answered yet: they count against the cap.
  opening: Cell<usize>,
  /// Open streams: GET streams and stateless listen streams (shared with their bodies, which must be `Send`).
  streams: Arc<AtomicUsize>,
  gate: Rc<Gate>,
  request_timeout: Duration,
}

/// Binds and starts serving; returns the bound port.
pub async fn listen(config: Config, registry: ConnRegistry) -> Result<u16, OpError> {
  let listener = TcpListener::bind((config.host.as_str(), config.port))
    .await
    .map_err(|e| OpError::io(format!("cannot listen on {}:{}", config.host, config.port), e))?;
  let local = listener.local_addr().map_err(|e| OpError::io("cannot read the bound address", e))?;
  let connections = config.max_sessions.saturating_mul(CONNECTIONS_PER_SESSION).max(2);
  let unfinished = connections / 2;
  let gate = Gate::new(GateLimits::new(connections, unfinished));
  let request_timeout = REQUEST_TIMEOUT.min(config.idle);
  let server = Rc::new(Server {
    registry,
    loopback: local.ip().is_loopback(),
    config,
    sessions: RefCell::default(),
    opening: Cell::new(0),
    streams: Arc::default(),
    gate,
    request_timeout,
  });
  tokio::task::spawn_local(sweep(server.clone()));
  let refusals = Refusals::default();
  tokio::task::spawn_local(accept_loop(listener, move |stream, peer| {
    let admitted = match server.gate.admit(peer.ip(), first_request_arrived(&stream)) {
      Ok(admitted) => Rc::new(admitted),
      Err(why) => {
        refusals.refuse(stream, peer.ip(), &why.to_string());
        return;
      }
    };
    tokio::task::spawn_local(serve_connection(server.clone(), stream, peer.to_string(), admitted));
  }));
  Ok(local.port())
}

/// Serves one TCP connection until it closes, or until the gate asks for
/// its slot while it is idle.
async fn serve_connection(server: Rc<Server>, stream: tokio::net::TcpStream, peer: String, admitted: Rc<Admitted>) {
  let service = hyper::service::service_fn(|req| {
    let server = server.clone();
    let peer = peer.clone();
    let admitted = admitted.clone();
    async move {
      let in_flight = admitted.request();
      let response = server.handle(req, peer, &admitted).await;
      Ok::<_, Infallible>(response.map(|body| Tracked { body, _in_flight: in_flight }))
    }
  });
  let conn = hyper::server::conn::http1::Builder::new()
    .timer(TokioTimer::new())
    .header_read_timeout(server.request_timeout)
    .serve_connection(TokioIo::new(stream), service);
  tokio::pin!(conn);
  let evicted = admitted.evicted.clone();
  tokio::select! {
    _ = conn.as_mut() => {}
    () = evicted.notified() => {
      // Idle: closes now (a request that just started still gets its response).
      conn.as_mut().graceful_shutdown();
      let _ = conn.await;
    }
  }
}

/// A response body that keeps its connection counted busy until it is
/// written whole (or the client goes away).
struct Tracked {
  body: Body,
  _in_flight: InFlight,
}

impl hyper::body::Body for Tracked {
  type Data = Bytes;
  type Error = Infallible;

  fn poll_frame(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Result<Frame<Bytes>, Infallible>>> {
    std::pin::Pin::new(&mut self.body).poll_frame(cx)
  }

  fn is_end_stream(&self) -> bool {
    self.body.is_end_stream()
  }

  fn size_hint(&self) -> hyper::body::SizeHint {
    self.body.size_hint()
  }
}

/// Keeps a session counted from the moment it is granted until its
/// `initialize` is answered; a session whose initialize failed, or whose
/// client hung up first, is ended.
struct Opening<'a> {
  server: &'a Server,
  session: Rc<Session>,
}

impl Drop for Opening<'_> {
  fn drop(&mut self) {
    self.server.opening.set(self.server.opening.get() - 1);
    if !self.server.sessions.borrow().contains_key(&self.session.id) {
      self.server.end(&self.session, "initialize refused or abandoned".to_owned());
    }
  }
}

/// One open stream (GET or listen): counted until its body is dropped.
struct StreamSlot(Arc<AtomicUsize>);

impl Drop for StreamSlot {
  fn drop(&mut self) {
    self.0.fetch_sub(1, Ordering::Relaxed);
  }
}

/// Ends idle sessions and keeps open streams alive (a comment line every
/// third of the idle time, which also finds streams whose client left).
async fn sweep(server: Rc<Server>) {
  let every = (server.config.idle / 3).max(Duration::from_millis(100));
  let mut tick = tokio::time::interval(every);
  loop {
    tick.tick().await;
    let sessions: Vec<Rc<Session>> = server.sessions.borrow().values().cloned().collect();
    for s in sessions {
      for stream in s.streams.borrow().iter() {
        let _ = stream.try_send(Bytes::from_static(b": keep-alive\n\n"));
      }
      let quiet = s.pending.borrow().is_empty() && s.live_streams() == 0;
      if quiet && s.last_active.get().elapsed() >= server.config.idle {
        server.end(&s, format!("idle for {} s", server.config.idle.as_secs()));
      }
    }
  }
}

impl Server {
  async fn handle(self: &Rc<Self>, req: Request<Incoming>, peer: String, conn: &Admitted) -> Response<Body> {
    // Only a POST carries a body the connection has yet to send.
    if req.method() != Method::POST {
      conn.finished();
    }
    if req.uri().path() != self.config.path {
      if req.method() == Method::GET || req.method() == Method::HEAD {
        return self.page(&req);
      }
      return status_text(StatusCode::NOT_FOUND, &format!("not found: the MCP endpoint is {}", self.config.path));
    }
    if let Some(token) = &self.config.token {
      if !bearer_matches(req.headers(), token) {
        let mut r = rpc_error(StatusCode::UNAUTHORIZED, FORBIDDEN, "Unauthorized: this server requires Authorization: Bearer <token>");
        r.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return r;
      }
    }
    if let Err(why) = self.check_host_and_origin(req.headers()) {
      return rpc_error(StatusCode::FORBIDDEN, FORBIDDEN, &format!("Forbidden: {why}"));
    }
    if let Some(v) = req.headers().get(VERSION_HEADER).map(|v| v.to_str().unwrap_or("").to_owned()) {
      let session_revision = self.config.versions.contains(&v);
      if !session_revision && req.method() == Method::POST && !req.headers().contains_key(SESSION_HEADER) {
        return self.exchange(req, peer, conn).await;
      }
      if self.config.modern_versions.contains(&v) && req.method() != Method::POST {
        let mut r = rpc_error(StatusCode::METHOD_NOT_ALLOWED, INVALID_REQUEST, &format!("Method Not Allowed: protocol {v} is stateless; its endpoint takes POST only"));
        r.headers_mut().insert(ALLOW, HeaderValue::from_static("POST"));
        return r;
      }
      if !session_revision {
        let known = self.config.versions.join(", ");
        return rpc_error(StatusCode::BAD_REQUEST, INVALID_REQUEST, &format!("Bad Request: unsupported MCP-Protocol-Version {v:?} (supported: {known})"));
      }
    }
    match *req.method() {
      Method::POST => self.post(req, peer, conn).await,
      Method::GET => self.get(req.headers()),
      Method::DELETE => self.delete(req.headers()),
      _ => {
        let mut r = rpc_error(StatusCode::METHOD_NOT_ALLOWED, INVALID_REQUEST, "Method Not Allowed: the MCP endpoint takes POST, GET and DELETE");
        r.headers_mut().insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
        r
      }
    }
  }

  fn check_host_and_origin(&self, headers: &HeaderMap) -> Result<(), String> {
    let host = headers.get(HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    check_host_and_origin(host, headers.get(ORIGIN).map(|o| o.to_str().unwrap_or("")), self.loopback)
  }

  /// The spectator page's files (web.rs), behind the same Host and Origin checks.
  fn page(&self, req: &Request<Incoming>) -> Response<Body> {
    if let Err(why) = self.check_host_and_origin(req.headers()) {
      return status_text(StatusCode::FORBIDDEN, &format!("Forbidden: {why}"));
    }
    let config = super::web::PageConfig { server: "world", ws_port: self.config.ws_port, token: self.config.token.is_some() };
    let page = super::web::respond(req.uri().path(), &config);
    let host = req.headers().get(HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let body = if req.method() == Method::HEAD { Bytes::new() } else { Bytes::from(page.body.into_owned()) };
    let mut r = Response::new(Full::new(body).boxed_unsync());
    *r.status_mut() = StatusCode::from_u16(page.status).unwrap_or(StatusCode::NOT_FOUND);
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(page.content_type));
    for (name, value) in super::web::security_headers(&super::web::connect_src(host, self.config.ws_port)) {
      if let Ok(v) = HeaderValue::from_str(&value) {
        r.headers_mut().insert(name, v);
      }
    }
    r
  }

  fn session_of(&self, headers: &HeaderMap) -> Result<Rc<Session>, Response<Body>> {
    let Some(id) = headers.get(SESSION_HEADER) else {
      return Err(rpc_error(StatusCode::BAD_REQUEST, INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required (initialize first)"));
    };
    let id = id.to_str().unwrap_or("");
    match self.sessions.borrow().get(id) {
      Some(s) => {
        s.touch();
        Ok(s.clone())
      }
      None => Err(rpc_error(StatusCode::NOT_FOUND, INVALID_REQUEST, "Not Found: no such session (it ended, expired or never existed); initialize a new one")),
    }
  }

  async fn post(self: &Rc<Self>, req: Request<Incoming>, peer: String, conn: &Admitted) -> Response<Body> {
    let headers = req.headers().clone();
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !media_type_is(content_type, "application/json") {
      return rpc_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, INVALID_REQUEST, &format!("Unsupported Media Type: POST a JSON-RPC message as application/json, not {content_type:?}"));
    }
    let (json_ok, sse_ok) = accepts(&headers);
    if !json_ok && !sse_ok {
      return rpc_error(StatusCode::NOT_ACCEPTABLE, INVALID_REQUEST, "Not Acceptable: Accept must allow application/json or text/event-stream");
    }
    let (message, text) = match self.read_message(req, conn).await {
      Ok(m) => m,
      Err(r) => return r,
    };
    let mut opening = None;
    let session = if message.initialize && !headers.contains_key(SESSION_HEADER) {
      if self.sessions.borrow().len() + self.opening.get() >= self.config.max_sessions {
        let mut r = rpc_error(
          StatusCode::SERVICE_UNAVAILABLE,
          CAPACITY_EXCEEDED,
          &format!("Service Unavailable: server full ({} sessions); end one with DELETE or retry later", self.config.max_sessions),
        );
        r.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("5"));
        return r;
      }
      // Counted from now: the check and the grant happen in one turn of the loop.
      self.opening.set(self.opening.get() + 1);
      let session = self.open(peer);
      opening = Some(Opening { server: self, session: session.clone() });
      session
    } else {
      match self.session_of(&headers) {
        Ok(s) => s,
        Err(r) => return r,
      }
    };
    let Some(key) = message.request_key else {
      // A notification is applied; a response is to nothing this server asked.
      if message.is_notification {
        session.inbox.room().await;
        session.inbox.push(HubEvent::Message { conn: session.conn, text });
      }
      return empty(StatusCode::ACCEPTED);
    };
    if session.pending.borrow().contains_key(&key) {
      return rpc_error(StatusCode::BAD_REQUEST, INVALID_REQUEST, "Bad Request: a request with this id is already in flight in this session");
    }
    let (tx, rx) = oneshot::channel();
    let serial = session.posts.get() + 1;
    session.posts.set(serial);
    session.pending.borrow_mut().insert(key.clone(), (serial, tx));
    // A client that hangs up stops waiting; the call still applies.
    let _forget = Forget { session: &session, key: &key, serial };
    session.inbox.room().await;
    session.inbox.push(HubEvent::Message { conn: session.conn, text });
    let Ok(reply) = rx.await else {
      return rpc_error(StatusCode::NOT_FOUND, UNAVAILABLE, "Not Found: the session ended before the reply");
    };
    if opening.is_some() && !is_error_reply(&reply) {
      self.sessions.borrow_mut().insert(session.id.clone(), session.clone());
    }
    drop(opening);
    let mut response = if json_ok {
      full(StatusCode::OK, "application/json", Bytes::from(reply.as_bytes().to_vec()))
    } else {
      full(StatusCode::OK, "text/event-stream", sse_event(&reply))
    };
    if let Ok(id) = HeaderValue::from_str(&session.id) {
      response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
  }

  /// Reads and frames a POST's body, which must arrive within the request
  /// timeout: the message and its text.
  async fn read_message(&self, req: Request<Incoming>, conn: &Admitted) -> Result<(Message, String), Response<Body>> {
    let max = self.config.max_bytes;
    let declared = req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
      return Err(too_large(max));
    }
    let read = tokio::time::timeout(self.request_timeout, Limited::new(req.into_body(), max).collect()).await;
    let body = match read {
      Ok(Ok(b)) => b.to_bytes(),
      Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => return Err(too_large(max)),
      Ok(Err(e)) => return Err(rpc_error(StatusCode::BAD_REQUEST, INVALID_REQUEST, &format!("Bad Request: cannot read the body: {e}"))),
      Err(_elapsed) => {
        let secs = self.request_timeout.as_secs_f64();
        let mut r = rpc_error(StatusCode::REQUEST_TIMEOUT, INVALID_REQUEST, &format!("Request Timeout: the body did not arrive within {secs} s"));
        r.headers_mut().insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
        return Err(r);
      }
    };
    conn.finished();
    let message = Message::parse(&body).map_err(|(code, why)| rpc_error(StatusCode::BAD_REQUEST, code, &why))?;
    // The body is valid JSON, hence UTF-8.
    Ok((message, String::from_utf8(body.to_vec()).unwrap_or_default()))
  }

  /// Serves one stateless POST: its request goes to the server on a
  /// connection of its own, and the reply, with the status its error code
  /// maps to, is the response; a listen request's response is an SSE
  /// stream instead. A notification is acknowledged and dropped (the
  /// revision gives a client notification nothing to act on here: a client
  /// cancels by closing its request).
  async fn exchange(self: &Rc<Self>, req: Request<Incoming>, peer: String, conn: &Admitted) -> Response<Body> {
    let content_type = req.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !media_type_is(content_type, "application/json") {
      return rpc_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, INVALID_REQUEST, &format!("Unsupported Media Type: POST a JSON-RPC message as application/json, not {content_type:?}"));
    }
    let (json_ok, sse_ok) = accepts(req.headers());
    if !json_ok {
      return rpc_error(StatusCode::NOT_ACCEPTABLE, INVALID_REQUEST, "Not Acceptable: a stateless request is answered as application/json");
    }
    let routing = RoutingHeaders::of(req.headers());
    let (message, text) = match self.read_message(req, conn).await {
      Ok(m) => m,
      Err(r) => return r,
    };
    if message.request_key.is_none() {
      if !message.is_notification {
        return rpc_error(StatusCode::BAD_REQUEST, INVALID_REQUEST, "Bad Request: a stateless POST carries one request or notification, not a response");
      }
      let version = routing.version.as_deref().unwrap_or("");
      if !self.config.modern_versions.iter().any(|known| known == version) {
        let data = serde_json::json!({ "supported": self.config.modern_versions, "requested": version });
        return rpc_error_with(StatusCode::BAD_REQUEST, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data);
      }
      return empty(StatusCode::ACCEPTED);
    }
    if message.listen && !sse_ok {
      return rpc_error(StatusCode::NOT_ACCEPTABLE, INVALID_REQUEST, "Not Acceptable: a listen stream is text/event-stream");
    }
    // Held from here: a listen stream counts while it may become one.
    let slot = match message.listen.then(|| self.stream_slot()).transpose() {
      Ok(slot) => slot,
      Err(r) => return r,
    };
    let io = self.registry.open();
    let conn = ExchangeConn { registry: self.registry.clone(), conn: io.conn, inbox: io.inbox, streaming: message.listen };
    let mut outbound = io.outbound;
    conn.inbox.push(HubEvent::Exchange { conn: conn.conn, peer, text, routing });
    let Some(first) = outbound.recv().await else {
      return rpc_error(StatusCode::SERVICE_UNAVAILABLE, UNAVAILABLE, "Service Unavailable: the server closed the request unanswered");
    };
    outbound.written(1);
    if !message.listen || is_response(&first) {
      return full(status_of_reply(&first), "application/json", Bytes::from(first));
    }
    // The listen stream, from its acknowledgement on.
    let (tx, rx) = mpsc::channel::<Bytes>(STREAM_BUFFER);
    let _ = tx.try_send(sse_event(&first));
    let keep_alive = (self.config.idle / 3).max(Duration::from_millis(100));
    tokio::task::spawn_local(pump_listen(outbound, conn, tx, keep_alive));
    let mut r = Response::new(stream_body(rx, slot));
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
  }

  /// Opens a session's hub connection and its router. It is listed among
  /// the live sessions once its `initialize` succeeds.
  fn open(self: &Rc<Self>, peer: String) -> Rc<Session> {
    let io = self.registry.open();
    let session = Rc::new(Session {
      id: session_id(),
      conn: io.conn,
      inbox: io.inbox,
      pending: RefCell::default(),
      posts: Cell::new(0),
      streams: RefCell::default(),
      turn: Cell::new(0),
      last_active: Cell::new(Instant::now()),
      ended: Cell::new(false),
    });
    session.inbox.push(HubEvent::Open { conn: io.conn, peer, transport: "http", access: "full" });
    tokio::task::spawn_local(route(self.clone(), session.clone(), io.outbound));
    session
  }

  /// A place for one more open stream, while they take at most half of
  /// the connection slots (requests always keep the other half).
  fn stream_slot(&self) -> Result<StreamSlot, Response<Body>> {
    let max = self.gate.limits().connections / 2;
    if self.streams.load(Ordering::Relaxed) >= max {
      let mut r = rpc_error(StatusCode::SERVICE_UNAVAILABLE, CAPACITY_EXCEEDED, &format!("Service Unavailable: the server holds {max} open streams, its most; close one or retry later"));
      r.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("5"));
      return Err(r);
    }
    self.streams.fetch_add(1, Ordering::Relaxed);
    Ok(StreamSlot(self.streams.clone()))
  }

  fn get(&self, headers: &HeaderMap) -> Response<Body> {
    if !accepts(headers).1 {
      return rpc_error(StatusCode::NOT_ACCEPTABLE, INVALID_REQUEST, "Not Acceptable: a GET stream is text/event-stream");
    }
    let session = match self.session_of(headers) {
      Ok(s) => s,
      Err(r) => return r,
    };
    if session.live_streams() >= MAX_STREAMS {
      return rpc_error(StatusCode::TOO_MANY_REQUESTS, CAPACITY_EXCEEDED, &format!("Too Many Requests: at most {MAX_STREAMS} open streams per session"));
    }
    let slot = match self.stream_slot() {
      Ok(slot) => slot,
      Err(r) => return r,
    };
    let (tx, rx) = mpsc::channel::<Bytes>(STREAM_BUFFER);
    session.streams.borrow_mut().push(tx);
    let mut r = Response::new(stream_body(rx, Some(slot)));
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(id) = HeaderValue::from_str(&session.id) {
      h.insert(SESSION_HEADER, id);
    }
    r
  }

  fn delete(&self, headers: &HeaderMap) -> Response<Body> {
    match self.session_of(headers) {
      Ok(s) => {
        self.end(&s, "client ended the session".to_owned());
        empty(StatusCode::OK)
      }
      Err(r) => r,
    }
  }

  /// Ends a session: its streams close, waiting POSTs are answered, the
  /// server learns it closed. Idempotent.
  fn end(&self, session: &Session, reason: String) {
    if session.ended.replace(true) {
      return;
    }
    self.sessions.borrow_mut().remove(&session.id);
    session.streams.borrow_mut().clear();
    session.pending.borrow_mut().clear();
    self.registry.forget(session.conn);
    session.inbox.push(HubEvent::Close { conn: session.conn, reason });
  }
}

/// Carries a session's outbound messages to their POSTs and streams until
/// the server closes the connection.
async fn route(server: Rc<Server>, session: Rc<Session>, mut outbound: Outbox) {
  while let Some(text) = outbound.recv().await {
    session.deliver(text);
    outbound.written(1);
  }
  server.end(&session, "closed by server".to_owned());
}

/// Removes a POST's waiter however its handler ends.
struct Forget<'a> {
  session: &'a Session,
  key: &'a str,
  serial: u64,
}

impl Drop for Forget<'_> {
  fn drop(&mut self) {
    // Once answered, its id may already be a later request's: remove only this request's waiter.
    let mut pending = self.session.pending.borrow_mut();
    if pending.get(self.key).is_some_and(|(serial, _)| *serial == self.serial) {
      pending.remove(self.key);
    }
  }
}

/// A stateless request's connection: forgotten however its handler (or,
/// for a listen request, its stream) ends. The end of a stream is told to
/// the server, which drops the subscription.
struct ExchangeConn {
  registry: ConnRegistry,
  conn: u32,
  inbox: Inbox,
  streaming: bool,
}

impl Drop for ExchangeConn {
  fn drop(&mut self) {
    self.registry.forget(self.conn);
    if self.streaming {
      self.inbox.push(HubEvent::Close { conn: self.conn, reason: "the listen stream ended".to_owned() });
    }
  }
}

/// Carries a listen stream's messages to its SSE response until the server
/// answers the request (the stream's end) or the client goes away; a
/// comment line keeps idle proxies from closing it. `_conn` ends with it.
async fn pump_listen(mut outbound: Outbox, _conn: ExchangeConn, tx: mpsc::Sender<Bytes>, keep_alive: Duration) {
  loop {
    let next = tokio::select! {
      _ = tx.closed() => return,
      next = tokio::time::timeout(keep_alive, outbound.recv()) => next,
    };
    let (frame, last) = match next {
      Err(_elapsed) => (Bytes::from_static(b": keep-alive\n\n"), false),
      Ok(None) => return,
      Ok(Some(text)) => {
        outbound.written(1);
        (sse_event(&text), is_response(&text))
      }
    };
    if tx.send(frame).await.is_err() || last {
      return;
    }
  }
}

/// An SSE response body fed by `rx`; `slot` is held until the body is dropped.
fn stream_body(rx: mpsc::Receiver<Bytes>, slot: Option<StreamSlot>) -> Body {
  let frames = futures_util::stream::unfold((rx, slot), |(mut rx, slot)| async move { rx.recv().await.map(|b| (Ok::<_, Infallible>(Frame::data(b)), (rx, slot))) });
  UnsyncBoxBody::new(StreamBody::new(frames))
}

/// Whether an outbound message is a response (it has an id and no method).
fn is_response(text: &str) -> bool {
  #[derive(serde::Deserialize)]
  struct Peek {
    #[serde(default)]
    id: Option<IgnoredAny>,
    #[serde(default)]
    method: Option<IgnoredAny>,
  }
  serde_json::from_str::<Peek>(text).is_ok_and(|p| p.id.is_some() && p.method.is_none())
}

/// The HTTP status of a stateless reply: the revision maps the protocol's
/// error codes (malformed, unsupported, mismatched: 400; no such method:
/// 404); a result, or an error the call itself produced, is 200.
fn status_of_reply(reply: &str) -> StatusCode {
  #[derive(serde::Deserialize)]
  struct Code {
    code: i64,
  }
  #[derive(serde::Deserialize)]
  struct Peek {
    #[serde(default)]
    error: Option<Code>,
  }
  match serde_json::from_str::<Peek>(reply).ok().and_then(|p| p.error).map(|e| e.code) {
    Some(-32700 | -32600 | -32602 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
    Some(-32601) => StatusCode::NOT_FOUND,
    _ => StatusCode::OK,
  }
}

/// One POSTed JSON-RPC message, as far as the transport needs to know it.
struct Message {
  initialize: bool,
  /// A `subscriptions/listen` request: its answer is a stream.
  listen: bool,
  is_notification: bool,
  /// The id of a request (a message that wants a reply).
  request_key: Option<String>,
}

impl Message {
  fn parse(body: &[u8]) -> Result<Self, (i32, String)> {
    let value: Value = serde_json::from_slice(body).map_err(|e| (PARSE_ERROR, format!("Parse error: {e}")))?;
    let map = match value {
      Value::Object(map) => map,
      Value::Array(_) => return Err((INVALID_REQUEST, "Invalid Request: batches are not supported; POST one JSON-RPC message".to_owned())),
      _ => return Err((INVALID_REQUEST, "Invalid Request: a JSON-RPC message is a JSON object".to_owned())),
    };
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
      return Err((INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"".to_owned()));
    }
    let method = map.get("method");
    let id = map.get("id");
    match (method, id) {
      (Some(Value::String(m)), Some(id)) if !m.is_empty() => {
        let key = id_key(id).ok_or((INVALID_REQUEST, "Invalid Request: a request id must be a string or an integer".to_owned()))?;
        Ok(Self { initialize: m == "initialize", listen: m == "subscriptions/listen", is_notification: false, request_key: Some(key) })
      }
      (Some(Value::String(m)), None) if !m.is_empty() => Ok(Self { initialize: false, listen: false, is_notification: true, request_key: None }),
      (None, Some(_)) if map.contains_key("result") || map.contains_key("error") => Ok(Self { initialize: false, listen: false, is_notification: false, request_key: None }),
      _ => Err((INVALID_REQUEST, "Invalid Request: expected a request (method and id), a notification (method) or a response (id and result or error)".to_owned())),
    }
  }
}

/// A request id as a map key: strings and integers only, as MCP requires.
fn id_key(id: &Value) -> Option<String> {
  match id {
    Value::String(s) => Some(format!("s:{s}")),
    Value::Number(n) if n.is_i64() || n.is_u64() => Some(format!("n:{n}")),
    _ => None,
  }
}

fn is_error_reply(text: &str) -> bool {
  #[derive(serde::Deserialize)]
  struct Peek {
    #[serde(default)]
    error: Option<IgnoredAny>,
  }
  serde_json::from_str::<Peek>(text).map_or(true, |p| p.error.is_some())
}

fn session_id() -> String {
  let mut bytes = [0u8; 16];
  // The id is a capability: it must be unguessable.
  std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)).expect("/dev/urandom is readable");
  bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// DNS rebinding protection, for HTTP requests and WebSocket handshakes
/// alike: on a loopback bind, Host must name a loopback address; an Origin,
/// when sent, must be a loopback origin (or, on a public bind, the server's
/// own Host).
pub(crate) fn check_host_and_origin(host: &str, origin: Option<&str>, loopback: bool) -> Result<(), String> {
  if loopback && !is_loopback_name(hostname(host)) {
    return Err(format!("Host {host:?} is not a loopback name on this loopback server"));
  }
  let Some(origin) = origin else { return Ok(()) };
  let origin_host = origin.split_once("://").map(|(_, rest)| hostname(rest)).unwrap_or("");
  let allowed = if loopback { is_loopback_name(origin_host) } else { !origin_host.is_empty() && origin_host.eq_ignore_ascii_case(hostname(host)) };
  if allowed {
    Ok(())
  } else {
    Err(format!("Origin {origin:?} is not allowed"))
  }
}

/// The host part of `host[:port]` (brackets kept for IPv6).
pub(crate) fn hostname(host: &str) -> &str {
  let host = host.split(['/', '?', '#']).next().unwrap_or("");
  if host.starts_with('[') {
    return host.split_inclusive(']').next().unwrap_or(host);
  }
  host.rsplit_once(':').map_or(host, |(h, _)| h)
}

fn is_loopback_name(host: &str) -> bool {
  host.eq_ignore_ascii_case("localhost") || host == "[::1]" || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

fn media_type_is(value: &str, wanted: &str) -> bool {
  value.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case(wanted))
}

/// Whether Accept allows JSON and SSE (no Accept header allows both).
fn accepts(headers: &HeaderMap) -> (bool, bool) {
  let Some(accept) = headers.get(ACCEPT).and_then(|v| v.to_str().ok()) else { return (true, true) };
  let types: Vec<&str> = accept.split(',').filter_map(|t| t.split(';').next()).map(str::trim).collect();
  let any = types.iter().any(|t| *t == "*/*");
  let has = |want: &str, family: &str| any || types.iter().any(|t| t.eq_ignore_ascii_case(want) || t.eq_ignore_ascii_case(family));
  (has("application/json", "application/*"), has("text/event-stream", "text/*"))
}

fn sse_event(json: &str) -> Bytes {
  Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

fn full(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Body> {
  let mut r = Response::new(UnsyncBoxBody::new(Full::new(body)));
  *r.status_mut() = status;
  r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
  r
}

fn empty(status: StatusCode) -> Response<Body> {
  let mut r = Response::new(UnsyncBoxBody::new(Full::new(Bytes::new())));
  *r.status_mut() = status;
  r
}

fn status_text(status: StatusCode, text: &str) -> Response<Body> {
  full(status, "text/plain; charset=utf-8", Bytes::from(text.to_owned()))
}

/// An HTTP error whose body is a JSON-RPC error, so MCP clients can show it.
fn rpc_error(status: StatusCode, code: i32, message: &str) -> Response<Body> {
  let body = serde_json::json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message } });
  full(status, "application/json", Bytes::from(body.to_string()))
}

/// [`rpc_error`] with error `data`.
fn rpc_error_with(status: StatusCode, code: i32, message: &str, data: Value) -> Response<Body> {
  let body = serde_json::json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message, "data": data } });
  full(status, "application/json", Bytes::from(body.to_string()))
}

fn too_large(max: usize) -> Response<Body> {
  rpc_error(StatusCode::PAYLOAD_TOO_LARGE, INVALID_REQUEST, &format!("Payload Too Large: a message may be at most {max} bytes"))
}
