//! MCP over WebSocket: one session per connection. Text frames carry
//! JSON-RPC; frames over the size limit close the connection with 1009,
//! binary frames are refused, and a client that vanishes ends its session.

use futures_util::{SinkExt, StreamExt};
use limina_ops::OpError;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::{ConnIo, ConnRegistry, HubEvent};

/// Binds and starts accepting; returns the bound port.
pub async fn listen(host: &str, port: u16, max_bytes: usize, registry: ConnRegistry) -> Result<u16, OpError> {
  let listener = TcpListener::bind((host, port))
    .await
    .map_err(|e| OpError::io(format!("cannot listen on {host}:{port}"), e))?;
  let bound = listener.local_addr().map_err(|e| OpError::io("cannot read the bound address", e))?.port();
  tokio::task::spawn_local(async move {
    loop {
      let Ok((stream, peer)) = listener.accept().await else { continue };
      let _ = stream.set_nodelay(true);
      let io = registry.open();
      tokio::task::spawn_local(serve(stream, peer.to_string(), io, max_bytes, registry.clone()));
    }
  });
  Ok(bound)
}

async fn serve(stream: TcpStream, peer: String, io: ConnIo, max_bytes: usize, registry: ConnRegistry) {
  let ConnIo { conn, inbox, mut outbound } = io;
  let config = WebSocketConfig::default().max_message_size(Some(max_bytes)).max_frame_size(Some(max_bytes));
  let socket = match tokio_tungstenite::accept_async_with_config(stream, Some(config)).await {
    Ok(s) => s,
    Err(_) => {
      registry.forget(conn);
      return;
    }
  };
  inbox.push(HubEvent::Open { conn, peer });
  let (mut sink, mut source) = socket.split();
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
          // The server closed this connection: flush was done message by message.
          let _ = sink.send(Message::Close(Some(CloseFrame { code: CloseCode::Normal, reason: "closed by server".into() }))).await;
          break "closed by server".to_owned();
        }
      },
      // Paused while the connection has no room: its socket fills instead.
      () = inbox.room(), if !inbox.has_room() => {}
      inbound = source.next(), if inbox.has_room() => match inbound {
        Some(Ok(Message::Text(text))) => inbox.push(HubEvent::Message { conn, text: text.as_str().to_owned() }),
        Some(Ok(Message::Binary(_))) => {
          inbox.push(HubEvent::Rejected { conn, reason: "binary frames are not supported: send JSON-RPC as text".to_owned() });
        }
        Some(Ok(Message::Close(_))) | None => break "client closed the connection".to_owned(),
        Some(Ok(_)) => {} // ping/pong are answered by tungstenite
        Some(Err(WsError::Capacity(e))) => {
          let _ = sink.send(Message::Close(Some(CloseFrame { code: CloseCode::Size, reason: format!("message exceeds the {max_bytes}-byte limit").into() }))).await;
          break format!("closed: {e}");
        }
        Some(Err(e)) => break format!("connection error: {e}"),
      },
    }
  };
  registry.forget(conn);
  inbox.push(HubEvent::Close { conn, reason });
}
