//! MCP over WebSocket: one session per connection. Text frames carry
//! JSON-RPC. The connection's life is bounded on every side: the opening
//! handshake must finish within `HANDSHAKE_TIMEOUT` (or the idle timeout,
//! when shorter), and connections still in their handshake have a cap of
//! their own and one per peer address (see `limits.rs`; beyond it a client
//! gets a 503), so they never take the places of served clients; a client
//! silent for the idle timeout is closed (the server pings it three times
//! first); at most `max_clients` connections are served at once, counted
//! when the handshake completes; and protocol faults get their RFC 6455
//! close codes — 1009 for a message over the size limit, 1007 for text that
//! is not UTF-8, 1002 for a broken frame, 1013 when the server is full.
//! Binary frames from a client are refused with a JSON-RPC error (the server
//! sends binary only as the state deltas a client asked for). With a serve token, a
//! handshake without it is refused with 401 — unless it comes from a
//! browser (it sends `Origin`), which is let in as a spectator. A browser
//! presents the token as the subprotocol `limina.token.<base64url>` (it
//! cannot set headers; a query string would leak it into logs). An `Origin`
//! must pass the same DNS-rebinding check as Streamable HTTP's. A plain
//! `GET` that is no handshake gets the spectator page (web.rs), within the
//! same handshake bounds.
//!
//! Each connection's writes happen on one of the listener's writer threads,
//! not on the loop's: a reply or state delta goes out as soon as it is
//! queued (a delta as soon as the encoder thread fills its place), even
//! while the loop thread is busy with a step. But a reply to a connection
//! with nothing queued and nothing being written is written by the loop
//! thread itself, without waiting ([`DirectSink::try_write`]): it saves
//! waking the writer thread for each reply. What the socket does not take
//! at once stays in the WebSocket's buffer, and the writer flushes it. A listener has one writer
//! thread for every core beside the loop's (at most `MAX_WRITERS`, at least
//! one); connections are dealt to them in turn, and a connection stays on
//! its writer, whose one task writes its queue in order. A writer thread
//! runs its connections as tasks, so one stuck on a client that reads
//! nothing waits for that socket alone. Its tasks are woken from other
//! threads (the loop queuing a tick's delta to every subscriber, the
//! encoder filling them) through its [`Relay`]: one wake-up of the thread
//! for all that queued meanwhile, not one each. The connection's reads, and
//! everything that touches the world, stay on the loop thread.

use std::cell::Cell;
use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::ThreadId;
use std::time::Duration;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::task::AtomicWaker;
use futures_util::{Sink as _, SinkExt, StreamExt};
use limina_ops::OpError;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

use super::limits::{Admitted, Gate, GateLimits};
use super::{accept_loop, bearer_matches, first_request_arrived, web, ConnIo, ConnRegistry, HubEvent, Out, Outbox, Refusals, Unclosed};

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a closing connection's unread input is drained, so the client
/// reads the close frame instead of a TCP reset.
const LINGER: Duration = Duration::from_secs(2);
/// The most writer threads a listener starts (see the module's notes).
const MAX_WRITERS: usize = 8;
/// The most a connection's socket read takes at once. tungstenite zeroes
/// this much of its input buffer before every read, the ones that find
/// nothing included: two a request (its read, and the next that finds
/// nothing), on the loop thread around the call. With its default, 128 KiB,
/// that was 15 % of the loop's time from a request's wake-up to its read;
/// a page holds a typical request, and a larger message takes more reads.
const READ_CHUNK: usize = 4 * 1024;

/// What bounds the server's connections.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
  pub max_bytes: usize,
  pub max_clients: usize,
  /// Silence after which a client is closed with 1001.
  pub idle: Duration,
}

type Socket = WebSocketStream<TcpStream>;
type Sink = SplitSink<Socket, Message>;

/// What every connection of one listener shares.
struct Listener {
  limits: Limits,
  token: Option<Rc<str>>,
  loopback: bool,
  page: web::PageConfig,
  writers: Writers,
}

/// The runtimes the connections' writers run on, one a thread (see the
/// module's notes).
struct Writers {
  runtimes: Vec<(tokio::runtime::Handle, Arc<Relay>)>,
  /// The writer the next connection is given.
  next: Cell<usize>,
}

impl Writers {
  fn start() -> Result<Self, OpError> {
    let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let runtimes = (0..writer_count(cores)).map(|_| writer_thread()).collect::<Result<_, _>>()?;
    Ok(Writers { runtimes, next: Cell::new(0) })
  }

  /// Starts `writer` on the next writer thread, each in turn: the connection stays there.
  fn deal<T: Send + 'static>(&self, writer: impl Future<Output = T> + Send + 'static) -> tokio::task::JoinHandle<T> {
    let i = self.next.get();
    self.next.set((i + 1) % self.runtimes.len());
    let (runtime, relay) = &self.runtimes[i];
    runtime.spawn(Relayed { task: writer, relay: relay.clone(), woken_by: None })
  }
}

/// A writer thread's wakes from other threads. Each would write the
/// thread's eventfd (a syscall on the waking thread); instead they join a
/// list, the first since the dispatcher last ran wakes it, and it wakes the
/// tasks on its own thread, where a wake is a queue push.
struct Relay {
  thread: ThreadId,
  pending: Mutex<Vec<Arc<RelayedWake>>>,
  dispatcher: AtomicWaker,
}

impl Relay {
  /// Runs on the writer thread for as long as it lives: wakes the tasks that were woken from elsewhere.
  async fn dispatch(&self) {
    std::future::poll_fn(|cx| {
      self.dispatcher.register(cx.waker());
      let woken = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
      for wake in woken {
        wake.queued.store(false, Ordering::Release);
        wake.task.wake_by_ref();
      }
      Poll::<()>::Pending
    })
    .await
  }
}

thread_local! {
  /// The relays whose dispatchers wait to be woken at the end of the
  /// batch this thread is queuing, if it is queuing one ([`batch_wakes`]).
  static HELD: std::cell::RefCell<Option<Vec<Arc<Relay>>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `queue_all` (which queues a message to each of many connections),
/// waking each writer thread once at its end: woken at each message's
/// first wake of it, a writer thread running on another core takes the
/// list before the next message is queued, and each one wrote its eventfd
/// again (most of a tick's placeholders did).
pub(crate) fn batch_wakes<T>(queue_all: impl FnOnce() -> T) -> T {
  let outer = HELD.with(|held| held.borrow_mut().replace(Vec::new()));
  let out = queue_all();
  let relays = HELD.with(|held| std::mem::replace(&mut *held.borrow_mut(), outer)).unwrap_or_default();
  for relay in relays {
    relay.dispatcher.wake();
  }
  out
}

/// A writer task's waker as others see it (see [`Relay`]).
struct RelayedWake {
  task: Waker,
  relay: Arc<Relay>,
  /// On the relay's list, not yet woken.
  queued: AtomicBool,
}

impl Wake for RelayedWake {
  fn wake(self: Arc<Self>) {
    self.wake_by_ref();
  }

  fn wake_by_ref(self: &Arc<Self>) {
    if std::thread::current().id() == self.relay.thread {
      self.task.wake_by_ref();
      return;
    }
    if self.queued.swap(true, Ordering::AcqRel) {
      return;
    }
    self.relay.pending.lock().unwrap_or_else(|e| e.into_inner()).push(self.clone());
    let held = HELD.with(|held| {
      let mut held = held.borrow_mut();
      let relays = held.as_mut()?;
      if !relays.iter().any(|r| Arc::ptr_eq(r, &self.relay)) {
        relays.push(self.relay.clone());
      }
      Some(())
    });
    if held.is_none() {
      // Wakes the dispatcher only if it has run since its last wake.
      self.relay.dispatcher.wake();
    }
  }
}

/// A writer task polled with a [`RelayedWake`] in place of its own waker.
struct Relayed<F> {
  task: F,
  relay: Arc<Relay>,
  /// The relayed waker last made, and the task waker it wraps.
  woken_by: Option<(Waker, Waker)>,
}

impl<F: Future> Future for Relayed<F> {
  type Output = F::Output;

  fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
    // SAFETY: `task` is never moved out of the pinned `Relayed`; the other fields are not pinned.
    let this = unsafe { self.get_unchecked_mut() };
    if !this.woken_by.as_ref().is_some_and(|(task, _)| task.will_wake(cx.waker())) {
      let relayed = Waker::from(Arc::new(RelayedWake { task: cx.waker().clone(), relay: this.relay.clone(), queued: AtomicBool::new(false) }));
      this.woken_by = Some((cx.waker().clone(), relayed));
    }
    let relayed = &this.woken_by.as_ref().expect("just set").1;
    // SAFETY: see above.
    let task = unsafe { Pin::new_unchecked(&mut this.task) };
    task.poll(&mut Context::from_waker(relayed))
  }
}

/// How many writer threads a listener starts on a machine with `cores`
/// cores: one for each beside the loop thread's, within 1..=`MAX_WRITERS`.
fn writer_count(cores: usize) -> usize {
  cores.saturating_sub(1).clamp(1, MAX_WRITERS)
}

/// Starts a thread whose runtime runs connections' writers, and its
/// relay. It lives as long as the process, as its listener does.
fn writer_thread() -> Result<(tokio::runtime::Handle, Arc<Relay>), OpError> {
  let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| OpError::io("cannot start the WebSocket writer runtime", e))?;
  let handle = runtime.handle().clone();
  let (tx, rx) = std::sync::mpsc::channel::<Arc<Relay>>();
  let thread = std::thread::Builder::new()
    .name("limina-ws-write".into())
    .spawn(move || {
      let Ok(relay) = rx.recv() else { return };
      runtime.block_on(relay.dispatch())
    })
    .map_err(|e| OpError::io("cannot start the WebSocket writer thread", e))?;
  let relay = Arc::new(Relay { thread: thread.thread().id(), pending: Mutex::default(), dispatcher: AtomicWaker::new() });
  let _ = tx.send(relay.clone());
  Ok((handle, relay))
}

/// Binds and starts accepting; returns the bound port. `server` names what
/// the page is served by ("world" or "relay").
pub async fn listen(host: &str, port: u16, limits: Limits, token: Option<String>, server: &'static str, registry: ConnRegistry) -> Result<u16, OpError> {
  let listener = TcpListener::bind((host, port))
    .await
    .map_err(|e| OpError::io(format!("cannot listen on {host}:{port}"), e))?;
  let local = listener.local_addr().map_err(|e| OpError::io("cannot read the bound address", e))?;
  let bound = local.port();
  let page = web::PageConfig { server, ws_port: Some(bound), token: token.is_some() };
  let shared = Rc::new(Listener { limits, token: token.map(Rc::from), loopback: local.ip().is_loopback(), page, writers: Writers::start()? });
  // Handshakes (and page requests) in progress: at least 16, and as many as there are client places.
  let handshakes = limits.max_clients.max(16);
  let gate = Gate::new(GateLimits::new(usize::MAX, handshakes));
  let refusals = Refusals::default();
  tokio::task::spawn_local(accept_loop(listener, move |stream, peer| {
    let admitted = match gate.admit(peer.ip(), first_request_arrived(&stream)) {
      Ok(admitted) => admitted,
      Err(why) => {
        refusals.refuse(stream, peer.ip(), &why.to_string());
        return;
      }
    };
    tokio::task::spawn_local(serve(stream, peer.to_string(), admitted, shared.clone(), registry.clone()));
  }));
  Ok(bound)
}

/// Peeks at the request head: a WebSocket handshake gives the stream back;
/// any other request gets the page's answer and the connection ends.
async fn page_or_handshake(mut stream: TcpStream, shared: &Listener) -> Option<TcpStream> {
  const MAX_HEAD: usize = 16 * 1024;
  let mut buf = vec![0u8; MAX_HEAD];
  let deadline = tokio::time::Instant::now() + HANDSHAKE_TIMEOUT.min(shared.limits.idle);
  let head_len = loop {
    let n = tokio::time::timeout_at(deadline, stream.peek(&mut buf)).await.ok()?.ok()?;
    if n == 0 {
      return None;
    }
    if let Some(end) = buf[..n].windows(4).position(|w| w == b"\r\n\r\n") {
      break end + 4;
    }
    if n == MAX_HEAD {
      return Some(stream); // let the handshake refuse it
    }
    // The head is still arriving: look again shortly.
    tokio::time::sleep(Duration::from_millis(2)).await;
    if tokio::time::Instant::now() >= deadline {
      return None;
    }
  };
  let mut headers = [httparse::EMPTY_HEADER; 64];
  let mut req = httparse::Request::new(&mut headers);
  if !matches!(req.parse(&buf[..head_len]), Ok(httparse::Status::Complete(_))) {
    return Some(stream);
  }
  let upgrade = req.headers.iter().any(|h| h.name.eq_ignore_ascii_case("upgrade") && String::from_utf8_lossy(h.value).eq_ignore_ascii_case("websocket"));
  if upgrade {
    return Some(stream);
  }
  let header = |name: &str| req.headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| String::from_utf8_lossy(h.value).into_owned());
  let host = header("host").unwrap_or_default();
  let method = req.method.unwrap_or("GET").to_owned();
  let path = req.path.unwrap_or("/").to_owned();
  let response = match crate::http::check_host_and_origin(&host, header("origin").as_deref(), shared.loopback) {
    Ok(()) => web::http_response(&method, &path, &host, &shared.page),
    Err(why) => format!("HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\nForbidden: {why}\n", why.len() + 12).into_bytes(),
  };
  let mut discard = vec![0u8; head_len];
  let _ = stream.read_exact(&mut discard).await;
  use tokio::io::AsyncWriteExt;
  let _ = tokio::time::timeout(HANDSHAKE_TIMEOUT, async {
    stream.write_all(&response).await?;
    stream.shutdown().await
  })
  .await;
  None
}

/// How a connection's socket reads and bounds what it is sent.
fn socket_config(limits: Limits) -> WebSocketConfig {
  WebSocketConfig::default().read_buffer_size(READ_CHUNK).max_message_size(Some(limits.max_bytes)).max_frame_size(Some(limits.max_bytes))
}

/// The opening handshake. With a token set, a request without it (as
/// `Authorization: Bearer …` or the `limina.token.` subprotocol) is refused
/// with 401, except a browser's (it sends `Origin`): that one is a
/// spectator. A browser is a spectator without a token too. A disallowed
/// `Origin` or `Host` is refused with 403. Returns the socket and its access.
async fn handshake(stream: TcpStream, shared: &Listener) -> Option<(Socket, &'static str)> {
  let limits = shared.limits;
  let config = socket_config(limits);
  let access = std::cell::Cell::new("full");
  let check = |req: &Request, mut resp: Response| {
    let headers = req.headers();
    let text = |name| headers.get(name).and_then(|v: &tokio_tungstenite::tungstenite::http::HeaderValue| v.to_str().ok());
    let refuse = |status, why: String| {
      let mut refusal = ErrorResponse::new(Some(why));
      *refusal.status_mut() = status;
      Err(refusal)
    };
    let origin = text("origin");
    if let Err(why) = crate::http::check_host_and_origin(text("host").unwrap_or(""), origin, shared.loopback) {
      return refuse(StatusCode::FORBIDDEN, format!("Forbidden: {why}"));
    }
    let offered = text("sec-websocket-protocol").unwrap_or("");
    let presented = shared.token.as_ref().is_some_and(|t| bearer_matches(headers, t) || web::protocol_token_matches(offered, t));
    match (&shared.token, presented, origin) {
      (_, true, _) | (None, _, None) => {}
      (_, false, Some(_)) => access.set("spectator"),
      (Some(_), false, None) => return refuse(StatusCode::UNAUTHORIZED, "this server requires Authorization: Bearer <token>".to_owned()),
    }
    if web::offers_subprotocol(offered) {
      resp.headers_mut().insert("sec-websocket-protocol", web::SUBPROTOCOL.parse().expect("a valid header value"));
    }
    Ok(resp)
  };
  let timeout = HANDSHAKE_TIMEOUT.min(limits.idle);
  let socket = tokio::time::timeout(timeout, tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(config))).await.ok()?.ok()?;
  Some((socket, access.get()))
}

/// Sends a close frame (then `unclosed` is done with), then drains what the client still sends for a while.
async fn close(mut sink: Sink, source: SplitStream<Socket>, code: CloseCode, reason: String, unclosed: Option<Unclosed>) {
  let _ = sink.send(Message::Close(Some(CloseFrame { code, reason: reason.into() }))).await;
  drop(unclosed);
  let Ok(mut socket) = sink.reunite(source) else { return };
  let drain = async {
    let mut buf = [0u8; 16 * 1024];
    while matches!(socket.get_mut().read(&mut buf).await, Ok(n) if n > 0) {}
  };
  let _ = tokio::time::timeout(LINGER, drain).await;
}

/// A connection's sending half, shared by its writer and the loop thread.
/// Every write holds the lock for as long as it lasts (so the one waiting
/// on the socket is the only one registered to be woken by it).
pub struct DirectSink {
  sink: tokio::sync::Mutex<Option<Sink>>,
  /// The loop thread left bytes the socket did not take in the WebSocket's buffer.
  unflushed: tokio::sync::Notify,
}

impl DirectSink {
  /// Writes `text` now if nobody else is writing and the socket takes it;
  /// hands it back when it was not written (queue it instead). Called by the
  /// loop thread only when the connection has nothing queued or being written.
  pub fn try_write(&self, text: Utf8Bytes) -> Result<(), Utf8Bytes> {
    let Ok(mut guard) = self.sink.try_lock() else { return Err(text) };
    let Some(sink) = guard.as_mut() else { return Err(text) };
    match send_without_waker(sink, Message::Text(text)) {
      Ok(Sent::NotReady(Message::Text(text))) => Err(text),
      Ok(Sent::NotReady(_)) => unreachable!("handed back as it was sent, a text"),
      Ok(Sent::Flushed) => Ok(()),
      Ok(Sent::Unflushed) => {
        self.unflushed.notify_one();
        Ok(())
      }
      // Taken, but the connection is broken: the writer finds out on its next write.
      Err(_) => Ok(()),
    }
  }

  /// Sends `message`, waiting (with the task's waker) only for what the
  /// socket does not take at once. Polled with the task's waker,
  /// tokio-tungstenite also leaves it with the socket's read readiness, so
  /// each request arriving afterwards would wake this writer for nothing
  /// (relayed from the loop thread's reactor).
  async fn send(&self, message: Message) -> Result<(), WsError> {
    let mut guard = self.sink.lock().await;
    let Some(sink) = guard.as_mut() else { return Err(WsError::AlreadyClosed) };
    match send_without_waker(sink, message)? {
      Sent::Flushed => Ok(()),
      Sent::Unflushed => sink.flush().await,
      Sent::NotReady(message) => sink.send(message).await,
    }
  }

  async fn flush(&self) -> Result<(), WsError> {
    match self.sink.lock().await.as_mut() {
      Some(sink) => sink.flush().await,
      None => Err(WsError::AlreadyClosed),
    }
  }

  async fn take(&self) -> Option<Sink> {
    self.sink.lock().await.take()
  }
}

/// What a send polled with no waker did.
enum Sent {
  Flushed,
  /// Taken; the socket did not take all of it (or flushing failed): flush it.
  Unflushed,
  /// The sink could not take it (busy, or broken): here it is back.
  NotReady(Message),
}

/// Sends `message` polling with a waker that does nothing, so no waker is
/// left registered anywhere (with the socket's readiness or the split
/// halves' lock) by a send that needed no wait.
fn send_without_waker(sink: &mut Sink, message: Message) -> Result<Sent, WsError> {
  let mut cx = Context::from_waker(Waker::noop());
  if !matches!(Pin::new(&mut *sink).poll_ready(&mut cx), Poll::Ready(Ok(()))) {
    return Ok(Sent::NotReady(message));
  }
  Pin::new(&mut *sink).start_send(message)?;
  Ok(match Pin::new(&mut *sink).poll_flush(&mut cx) {
    Poll::Ready(Ok(())) => Sent::Flushed,
    _ => Sent::Unflushed,
  })
}

/// How a connection's writer ended.
enum WriterEnd {
  /// The server closed the connection and everything queued is written.
  Drained,
  Failed(String),
  /// The reading side asked it to stop.
  Stopped,
}

/// Writes a connection's outbound messages in their order (a state delta
/// once the encoder has filled it), flushes what the loop thread left
/// unwritten and pings it every `ping_every`, until its queue ends, a write
/// fails or `stop` fires.
async fn write(sink: Arc<DirectSink>, mut outbound: Outbox, ping_every: Duration, mut stop: tokio::sync::oneshot::Receiver<()>) -> WriterEnd {
  let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
  loop {
    tokio::select! {
      out = outbound.recv_any() => match out {
        Some(Out::Text(text)) => {
          let sent = sink.send(Message::Text(text)).await;
          outbound.written(1);
          if let Err(e) = sent {
            break WriterEnd::Failed(format!("send failed: {e}"));
          }
        }
        Some(Out::Delta(cell)) => {
          // Waits for the encoder (well under a millisecond): what follows it was applied after its step.
          let sent = match cell.wait().await {
            Some(message) => sink.send(message).await,
            None => Ok(()),
          };
          outbound.delta_written();
          outbound.written(1);
          if let Err(e) = sent {
            break WriterEnd::Failed(format!("send failed: {e}"));
          }
        }
        None => break WriterEnd::Drained,
      },
      () = sink.unflushed.notified() => {
        if let Err(e) = sink.flush().await {
          break WriterEnd::Failed(format!("send failed: {e}"));
        }
      }
      _ = ping.tick() => {
        if sink.send(Message::Ping(Vec::new().into())).await.is_err() {
          break WriterEnd::Failed("ping failed".to_owned());
        }
      }
      _ = &mut stop => break WriterEnd::Stopped,
    }
  }
}

async fn serve(stream: TcpStream, peer: String, admitted: Admitted, shared: Rc<Listener>, registry: ConnRegistry) {
  let limits = shared.limits;
  // A plain GET is the page, not a client: it takes no client place.
  let Some(stream) = page_or_handshake(stream, &shared).await else { return };
  let handshake = handshake(stream, &shared).await;
  drop(admitted);
  let Some((socket, access)) = handshake else { return };
  let (sink, mut source) = socket.split();
  // Counted now, when the place is granted: the check and the grant happen in one turn of the loop.
  if registry.live() >= limits.max_clients {
    close(sink, source, CloseCode::Again, format!("server full: {} clients", limits.max_clients), None).await;
    return;
  }
  let ConnIo { conn, inbox, outbound } = registry.open();
  let unclosed = registry.unclosed();
  let direct = Arc::new(DirectSink { sink: tokio::sync::Mutex::new(Some(sink)), unflushed: tokio::sync::Notify::new() });
  registry.write_directly(conn, direct.clone());
  inbox.push(HubEvent::Open { conn, peer, transport: "ws", access });
  let (stop, stopped) = tokio::sync::oneshot::channel();
  let mut writer = shared.writers.deal(write(direct.clone(), outbound, limits.idle / 3, stopped));
  let idle = tokio::time::sleep(limits.idle);
  tokio::pin!(idle);
  // Set when the server ends the connection with a close frame of its own.
  let mut closing: Option<(CloseCode, String)> = None;
  // Set when the client sent its close frame: the reply to it is flushed.
  let mut client_closed = false;
  // The sink, once the writer has ended and given it back.
  let mut sink: Option<Sink> = None;
  let mut writer_ended = false;
  let reason = loop {
    tokio::select! {
      ended = &mut writer => match ended {
        Ok(WriterEnd::Drained) => {
          writer_ended = true;
          sink = direct.take().await;
          closing = Some((CloseCode::Normal, "closed by server".to_owned()));
          break "closed by server".to_owned();
        }
        Ok(WriterEnd::Failed(why)) => {
          writer_ended = true;
          break why;
        }
        Ok(WriterEnd::Stopped) | Err(_) => {
          writer_ended = true;
          break "writer ended".to_owned();
        }
      },
      () = &mut idle => {
        closing = Some((CloseCode::Away, format!("idle for {} s", limits.idle.as_secs())));
        break "idle timeout".to_owned();
      }
      // Paused while the connection has no room: its socket fills instead.
      () = inbox.room(), if !inbox.has_room() => {}
      // One message at a time: the loop applies it before the next is read
      // (see `Arrivals`). Checked at each poll, not once when the wait began.
      inbound = std::future::poll_fn(|cx| {
        std::task::ready!(inbox.poll_loop_taken(cx));
        source.poll_next_unpin(cx)
      }), if inbox.has_room() => {
        idle.as_mut().reset(tokio::time::Instant::now() + limits.idle);
        match inbound {
          Some(Ok(Message::Text(text))) => inbox.push(HubEvent::Message { conn, text: text.as_str().to_owned() }),
          Some(Ok(Message::Binary(_))) => {
            inbox.push(HubEvent::Rejected { conn, reason: "binary frames are not supported: send JSON-RPC as text".to_owned() });
          }
          Some(Ok(Message::Close(_))) | None => {
            client_closed = true;
            break "client closed the connection".to_owned();
          }
          Some(Ok(_)) => {} // pings are answered by tungstenite; pongs only keep the connection alive
          Some(Err(e)) => {
            let (code, why) = match &e {
              WsError::Capacity(_) => (CloseCode::Size, format!("message exceeds the {}-byte limit", limits.max_bytes)),
              WsError::Utf8(_) => (CloseCode::Invalid, "text frame is not valid UTF-8".to_owned()),
              WsError::Protocol(p) => (CloseCode::Protocol, format!("protocol error: {p}")),
              _ => break format!("connection error: {e}"),
            };
            closing = Some((code, why.clone()));
            break format!("closed: {why}");
          }
        }
      }
    }
  };
  registry.forget(conn);
  inbox.push(HubEvent::Close { conn, reason });
  if !writer_ended {
    // The writer finishes the message it is writing; one stuck on a client that reads nothing is given up.
    let _ = stop.send(());
    match tokio::time::timeout(LINGER, &mut writer).await {
      Ok(Ok(_)) => sink = direct.take().await,
      _ => writer.abort(),
    }
  }
  let Some(mut sink) = sink else { return };
  if client_closed {
    // Flushes tungstenite's reply to the client's close frame.
    let _ = sink.close().await;
  } else if let Some((code, why)) = closing {
    close(sink, source, code, why, Some(unclosed)).await;
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn one_writer_for_each_core_beside_the_loop_within_bounds() {
    assert_eq!(writer_count(1), 1);
    assert_eq!(writer_count(2), 1);
    assert_eq!(writer_count(3), 2);
    assert_eq!(writer_count(9), 8);
    assert_eq!(writer_count(16), MAX_WRITERS);
    assert_eq!(writer_count(128), MAX_WRITERS);
  }

  struct Count(std::sync::atomic::AtomicUsize);

  impl Wake for Count {
    fn wake(self: Arc<Self>) {
      self.0.fetch_add(1, Ordering::SeqCst);
    }
  }

  fn counter() -> (Arc<Count>, Waker) {
    let count = Arc::new(Count(std::sync::atomic::AtomicUsize::new(0)));
    (count.clone(), Waker::from(count))
  }

  fn woken(count: &Count) -> usize {
    count.0.load(Ordering::SeqCst)
  }

  #[test]
  fn a_send_the_socket_takes_at_once_leaves_no_waker_for_the_requests_that_arrive_next() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
      use tokio::io::AsyncWriteExt;
      let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
      let mut client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
      let (server, _) = listener.accept().await.unwrap();
      let socket = WebSocketStream::from_raw_socket(server, tokio_tungstenite::tungstenite::protocol::Role::Server, None).await;
      let (sink, mut source) = socket.split();
      let direct = DirectSink { sink: tokio::sync::Mutex::new(Some(sink)), unflushed: tokio::sync::Notify::new() };
      let (writer, writer_waker) = counter();
      let send = std::pin::pin!(direct.send(Message::Text("delta".into())));
      assert!(matches!(send.poll(&mut Context::from_waker(&writer_waker)), Poll::Ready(Ok(()))));
      // The reader waits first; then a client's masked text frame "a" arrives and wakes it.
      let request = async { client.write_all(&[0x81, 0x81, 0, 0, 0, 0, b'a']).await.unwrap() };
      let (read, ()) = tokio::join!(source.next(), request);
      assert_eq!(read.unwrap().unwrap(), Message::Text("a".into()));
      assert_eq!(woken(&writer), 0, "the request woke the writer");
    });
  }

  /// A socket that records the largest read it is asked for.
  struct Reads<S> {
    inner: S,
    largest: Arc<std::sync::atomic::AtomicUsize>,
  }

  impl<S: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Reads<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut tokio::io::ReadBuf<'_>) -> Poll<std::io::Result<()>> {
      self.largest.fetch_max(buf.remaining(), Ordering::SeqCst);
      Pin::new(&mut self.inner).poll_read(cx, buf)
    }
  }

  impl<S: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Reads<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
      Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
      Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
      Pin::new(&mut self.inner).poll_shutdown(cx)
    }
  }

  #[test]
  fn a_read_takes_at_most_a_chunk_and_a_message_of_several_arrives_whole_within_the_limit() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
      use tokio::io::AsyncWriteExt;
      let (mut client, server) = tokio::io::duplex(64 * 1024);
      let largest = Arc::new(std::sync::atomic::AtomicUsize::new(0));
      let limits = Limits { max_bytes: 3 * READ_CHUNK + 5, max_clients: 1, idle: Duration::from_secs(60) };
      let server = Reads { inner: server, largest: largest.clone() };
      let mut socket = WebSocketStream::from_raw_socket(server, tokio_tungstenite::tungstenite::protocol::Role::Server, Some(socket_config(limits))).await;
      // A client's masked (with a zero mask) text frame of `len` bytes.
      let frame = |len: usize| [&[0x81, 0x80 | 126, (len >> 8) as u8, len as u8, 0, 0, 0, 0][..], &vec![b'x'; len]].concat();
      client.write_all(&frame(limits.max_bytes)).await.unwrap();
      assert_eq!(socket.next().await.unwrap().unwrap(), Message::Text("x".repeat(limits.max_bytes).into()));
      assert_eq!(largest.load(Ordering::SeqCst), READ_CHUNK, "each read is offered one chunk");
      client.write_all(&frame(limits.max_bytes + 1)).await.unwrap();
      assert!(matches!(socket.next().await, Some(Err(WsError::Capacity(_)))), "a message over the limit is refused");
    });
  }

  /// A writer thread's relay seen from another thread (so every wake from here is cross-thread):
  /// its dispatcher already waiting, and two tasks' wakers relayed through it.
  struct RelayRig {
    dispatcher: Arc<Count>,
    dispatcher_waker: Waker,
    dispatch: Pin<Box<dyn Future<Output = ()>>>,
    tasks: [Arc<Count>; 2],
    relayed: [Waker; 2],
  }

  impl RelayRig {
    fn new() -> Self {
      let writer_thread = std::thread::spawn(|| ()).thread().id();
      let relay = Arc::new(Relay { thread: writer_thread, pending: Mutex::default(), dispatcher: AtomicWaker::new() });
      let (dispatcher, dispatcher_waker) = counter();
      let ((a, a_waker), (b, b_waker)) = (counter(), counter());
      let relayed = [a_waker, b_waker]
        .map(|task| Waker::from(Arc::new(RelayedWake { task, relay: relay.clone(), queued: AtomicBool::new(false) })));
      let dispatch = Box::pin(async move { relay.dispatch().await });
      let mut rig = RelayRig { dispatcher, dispatcher_waker, dispatch, tasks: [a, b], relayed };
      rig.run_dispatcher();
      rig
    }

    /// The writer thread runs its dispatcher, which then waits again.
    fn run_dispatcher(&mut self) {
      assert!(self.dispatch.as_mut().poll(&mut Context::from_waker(&self.dispatcher_waker)).is_pending());
    }
  }

  #[test]
  fn wakes_from_other_threads_wake_the_writer_thread_once_and_each_task_there() {
    let mut rig = RelayRig::new();
    let ([a, b], [a_relayed, b_relayed]) = (rig.tasks.clone(), rig.relayed.clone());
    // A tick's worth of wakes from this (another) thread: the writer thread is woken once.
    a_relayed.wake_by_ref();
    b_relayed.wake_by_ref();
    a_relayed.wake_by_ref();
    assert_eq!(woken(&rig.dispatcher), 1);
    assert_eq!((woken(&a), woken(&b)), (0, 0), "not yet: the dispatcher wakes them on its thread");
    rig.run_dispatcher();
    assert_eq!((woken(&a), woken(&b)), (1, 1), "each task woken once");
    // The next batch wakes the writer thread again.
    b_relayed.wake_by_ref();
    assert_eq!(woken(&rig.dispatcher), 2);
    rig.run_dispatcher();
    assert_eq!(woken(&b), 2);
  }

  #[test]
  fn wakes_in_a_batch_wake_each_writer_thread_once_when_it_ends_even_if_it_ran_meanwhile() {
    let mut rig = RelayRig::new();
    let ([a, b], [a_relayed, b_relayed]) = (rig.tasks.clone(), rig.relayed.clone());
    batch_wakes(|| {
      a_relayed.wake_by_ref();
      assert_eq!(woken(&rig.dispatcher), 0, "held until the batch ends");
      // The writer thread runs meanwhile (woken by something else): it takes what is listed.
      rig.run_dispatcher();
      b_relayed.wake_by_ref();
    });
    assert_eq!(woken(&rig.dispatcher), 1, "one wake for the batch");
    rig.run_dispatcher();
    assert_eq!((woken(&a), woken(&b)), (1, 1));
    // Outside a batch a wake goes through at once again.
    a_relayed.wake_by_ref();
    assert_eq!(woken(&rig.dispatcher), 2);
  }

  #[test]
  fn a_wake_on_the_writer_thread_itself_goes_straight_to_its_task() {
    let relay = Arc::new(Relay { thread: std::thread::current().id(), pending: Mutex::default(), dispatcher: AtomicWaker::new() });
    let (dispatcher, dispatcher_waker) = counter();
    relay.dispatcher.register(&dispatcher_waker);
    let (task, task_waker) = counter();
    Waker::from(Arc::new(RelayedWake { task: task_waker, relay, queued: AtomicBool::new(false) })).wake_by_ref();
    assert_eq!((woken(&task), woken(&dispatcher)), (1, 0));
  }
}
