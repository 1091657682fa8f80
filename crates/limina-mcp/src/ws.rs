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
//! Binary frames are refused with a JSON-RPC error. With a serve token, a
//! handshake without it is refused with 401.

use std::rc::Rc;
use std::time::Duration;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use limina_ops::OpError;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

use super::limits::{Admitted, Gate, GateLimits};
use super::{accept_loop, bearer_matches, ConnIo, ConnRegistry, HubEvent, Refusals};

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a closing connection's unread input is drained, so the client
/// reads the close frame instead of a TCP reset.
const LINGER: Duration = Duration::from_secs(2);

/// What bounds the server's connections.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
  pub max_bytes: usize,
  pub max_clients: usize,
  /// Silence after which a client is closed with 1001.
  pub idle: Duration,
}

type Socket = WebSocketStream<TcpStream>;

/// Binds and starts accepting; returns the bound port.
pub async fn listen(host: &str, port: u16, limits: Limits, token: Option<String>, registry: ConnRegistry) -> Result<u16, OpError> {
  let token: Option<Rc<str>> = token.map(Rc::from);
  let listener = TcpListener::bind((host, port))
    .await
    .map_err(|e| OpError::io(format!("cannot listen on {host}:{port}"), e))?;
  let bound = listener.local_addr().map_err(|e| OpError::io("cannot read the bound address", e))?.port();
  // Handshakes in progress: at least 16, and as many as there are client places.
  let handshakes = limits.max_clients.max(16);
  let gate = Gate::new(GateLimits::new(usize::MAX, handshakes));
  let refusals = Refusals::default();
  tokio::task::spawn_local(accept_loop(listener, move |stream, peer| {
    let admitted = match gate.admit(peer.ip()) {
      Ok(admitted) => admitted,
      Err(why) => {
        refusals.refuse(stream, &why.to_string());
        return;
      }
    };
    tokio::task::spawn_local(serve(stream, peer.to_string(), admitted, limits, token.clone(), registry.clone()));
  }));
  Ok(bound)
}

/// The opening handshake, refused with 401 when a token is set and the
/// request does not present it as `Authorization: Bearer …`.
async fn handshake(stream: TcpStream, limits: Limits, token: Option<Rc<str>>) -> Option<Socket> {
  let config = WebSocketConfig::default().max_message_size(Some(limits.max_bytes)).max_frame_size(Some(limits.max_bytes));
  let check = move |req: &Request, resp: Response| match &token {
    Some(token) if !bearer_matches(req.headers(), token) => {
      let mut refusal = ErrorResponse::new(Some("this server requires Authorization: Bearer <token>".to_owned()));
      *refusal.status_mut() = StatusCode::UNAUTHORIZED;
      Err(refusal)
    }
    _ => Ok(resp),
  };
  let timeout = HANDSHAKE_TIMEOUT.min(limits.idle);
  tokio::time::timeout(timeout, tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(config))).await.ok()?.ok()
}

/// Sends a close frame, then drains what the client still sends for a while.
async fn close(mut sink: SplitSink<Socket, Message>, source: SplitStream<Socket>, code: CloseCode, reason: String) {
  let _ = sink.send(Message::Close(Some(CloseFrame { code, reason: reason.into() }))).await;
  let Ok(mut socket) = sink.reunite(source) else { return };
  let drain = async {
    let mut buf = [0u8; 16 * 1024];
    while matches!(socket.get_mut().read(&mut buf).await, Ok(n) if n > 0) {}
  };
  let _ = tokio::time::timeout(LINGER, drain).await;
}

async fn serve(stream: TcpStream, peer: String, admitted: Admitted, limits: Limits, token: Option<Rc<str>>, registry: ConnRegistry) {
  let socket = handshake(stream, limits, token).await;
  drop(admitted);
  let Some(socket) = socket else { return };
  let (mut sink, mut source) = socket.split();
  // Counted now, when the place is granted: the check and the grant happen in one turn of the loop.
  if registry.live() >= limits.max_clients {
    close(sink, source, CloseCode::Again, format!("server full: {} clients", limits.max_clients)).await;
    return;
  }
  let ConnIo { conn, inbox, mut outbound } = registry.open();
  inbox.push(HubEvent::Open { conn, peer, transport: "ws" });
  let ping_every = limits.idle / 3;
  let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
  let idle = tokio::time::sleep(limits.idle);
  tokio::pin!(idle);
  // Set when the server ends the connection with a close frame of its own.
  let mut closing: Option<(CloseCode, String)> = None;
  let reason = loop {
    tokio::select! {
      out = outbound.recv() => match out {
        Some(text) => {
          let sent = sink.send(Message::text(text.as_ref())).await;
          outbound.written(1);
          if let Err(e) = sent {
            break format!("send failed: {e}");
          }
        }
        None => {
          closing = Some((CloseCode::Normal, "closed by server".to_owned()));
          break "closed by server".to_owned();
        }
      },
      _ = ping.tick() => {
        if sink.send(Message::Ping(Vec::new().into())).await.is_err() {
          break "ping failed".to_owned();
        }
      }
      () = &mut idle => {
        closing = Some((CloseCode::Away, format!("idle for {} s", limits.idle.as_secs())));
        break "idle timeout".to_owned();
      }
      // Paused while the connection has no room: its socket fills instead.
      () = inbox.room(), if !inbox.has_room() => {}
      inbound = source.next(), if inbox.has_room() => {
        idle.as_mut().reset(tokio::time::Instant::now() + limits.idle);
        match inbound {
          Some(Ok(Message::Text(text))) => inbox.push(HubEvent::Message { conn, text: text.as_str().to_owned() }),
          Some(Ok(Message::Binary(_))) => {
            inbox.push(HubEvent::Rejected { conn, reason: "binary frames are not supported: send JSON-RPC as text".to_owned() });
          }
          Some(Ok(Message::Close(_))) | None => {
            // Flushes tungstenite's reply to the client's close frame.
            let _ = sink.close().await;
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
  if let Some((code, why)) = closing {
    close(sink, source, code, why).await;
  }
}
