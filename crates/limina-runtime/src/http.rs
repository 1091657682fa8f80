//! `op_http_post`: the HTTP(S) client of LLM providers (Ollama, an
//! OpenAI-compatible gateway): hyper's HTTP/1.1 client over rustls, on the
//! async runtime so a slow model never blocks the loop.
//!
//! A provider is an untrusted peer, so everything it controls is bounded:
//! the response head (`MAX_HEAD`; hyper caps the header count at 100 and
//! rejects chunk sizes that overflow), the body (`MAX_BODY`), connecting and
//! the TLS handshake (each within the request's `connectTimeoutMs`, default
//! `CONNECT_TIMEOUT`) and the whole exchange (the request's `timeoutMs`).
//! Redirects are refused, not followed. Whatever goes wrong fails this one
//! request with a `LiminaError`; it never panics through the op runtime.

use std::cell::RefCell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::pin;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use std::time::Duration;

use deno_core::{op2, OpState};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use limina_ops::{ErrorCode, OpError, Work};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::time::timeout;

/// Largest response body accepted.
const MAX_BODY: usize = 32 << 20;
/// Largest response head (status line and headers) accepted.
const MAX_HEAD: usize = 64 << 10;
/// How long the TCP connect, and then the TLS handshake, may each take unless the request says.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostRequest {
  url: String,
  body: String,
  #[serde(default)]
  headers: Vec<(String, String)>,
  timeout_ms: f64,
  #[serde(default)]
  connect_timeout_ms: Option<f64>,
}

#[derive(serde::Serialize)]
pub struct PostResponse {
  status: u16,
  /// The response's headers, names lower-case, values as text (bytes that are not UTF-8 replaced), e.g. `retry-after`.
  headers: Vec<(String, String)>,
  body: String,
}

#[derive(Debug)]
struct Target {
  tls: bool,
  /// The host to connect to: a name or an IP address, without brackets.
  host: String,
  port: u16,
  /// The `Host` header: the URL's authority as written.
  authority: String,
  /// The request target: path and query.
  path: String,
}

fn parse_url(url: &str) -> Result<Target, OpError> {
  // Checked before parsing, so the error names the character: a CR or LF
  // here would otherwise be a way to smuggle lines into the request.
  if let Some((i, c)) = url.char_indices().find(|&(_, c)| c.is_control() || c == ' ' || !c.is_ascii()) {
    return Err(OpError::invalid_input(format!(
      "URL {url:?} has {c:?} at byte {i}: control characters, spaces and non-ASCII characters must be percent-encoded"
    )));
  }
  let bad = |why: &str| OpError::invalid_input(format!("URL {url:?}: {why}"));
  let uri: hyper::Uri = url.parse().map_err(|e| bad(&format!("{e}")))?;
  let tls = match uri.scheme_str() {
    Some("http") => false,
    Some("https") => true,
    _ => return Err(bad("not an http:// or https:// URL")),
  };
  let authority = uri.authority().ok_or_else(|| bad("no host"))?.as_str();
  if authority.contains('@') {
    return Err(bad("credentials in a URL are not sent; pass them as a header"));
  }
  let host = uri.host().filter(|h| !h.is_empty()).ok_or_else(|| bad("no host"))?;
  // `Uri::port_u16` reads an out-of-range port as none, which would silently
  // mean the default port; parse what follows the host instead.
  let port = match authority.strip_prefix(host).ok_or_else(|| bad("no host"))? {
    "" => if tls { 443 } else { 80 },
    rest => rest.strip_prefix(':').and_then(|p| p.parse::<u16>().ok()).filter(|&p| p != 0).ok_or_else(|| bad("bad port"))?,
  };
  let path = uri.path_and_query().map(|p| p.as_str()).filter(|p| !p.is_empty()).unwrap_or("/");
  Ok(Target {
    tls,
    host: host.trim_start_matches('[').trim_end_matches(']').to_owned(),
    port,
    authority: authority.to_owned(),
    path: path.to_owned(),
  })
}

fn build_request(t: &Target, headers: &[(String, String)], body: String) -> Result<Request<Full<Bytes>>, OpError> {
  let mut request = Request::builder()
    .method(Method::POST)
    .uri(t.path.as_str())
    .body(Full::new(Bytes::from(body)))
    .map_err(|e| OpError::invalid_input(format!("bad request target {:?}: {e}", t.path)))?;
  let map = request.headers_mut();
  for (k, v) in headers {
    let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| OpError::invalid_input(format!("bad header name {k:?}")))?;
    if [header::HOST, header::CONTENT_LENGTH, header::TRANSFER_ENCODING, header::CONNECTION].contains(&name) {
      return Err(OpError::invalid_input(format!("header {k:?} is set by the HTTP client")));
    }
    // The value is not echoed: it is often a key.
    let value = HeaderValue::from_str(v).map_err(|_| OpError::invalid_input(format!("header {k:?}: the value has a control character")))?;
    map.append(name, value);
  }
  let host = HeaderValue::from_str(&t.authority).map_err(|_| OpError::invalid_input(format!("bad host {:?}", t.authority)))?;
  map.insert(header::HOST, host);
  // One request per connection: nothing is pooled, so nothing outlives the op.
  map.insert(header::CONNECTION, HeaderValue::from_static("close"));
  map.entry(header::CONTENT_TYPE).or_insert(HeaderValue::from_static("application/json"));
  Ok(request)
}

/// An error and its causes, `outer: inner: …` (hyper's own message is only the outer one).
fn chain(e: &dyn std::error::Error) -> String {
  let mut text = e.to_string();
  let mut cause = e.source();
  while let Some(c) = cause {
    text.push_str(": ");
    text.push_str(&c.to_string());
    cause = c.source();
  }
  text
}

fn wire(e: hyper::Error) -> OpError {
  OpError::new(ErrorCode::Io, chain(&e))
}

/// The TLS client configuration, built once: Mozilla's root certificates
/// plus those in the PEM file `$LIMINA_CA_CERTS` (a private gateway's CA).
fn tls_config() -> Result<Arc<rustls::ClientConfig>, OpError> {
  static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
  CONFIG.get_or_init(build_tls_config).clone().map_err(OpError::unavailable)
}

fn build_tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
  let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
  if let Some(path) = std::env::var_os("LIMINA_CA_CERTS").filter(|p| !p.is_empty()) {
    let file = std::path::Path::new(&path).display().to_string();
    let pem = std::fs::read(&path).map_err(|e| format!("LIMINA_CA_CERTS={file}: {e}"))?;
    let mut added = 0;
    for cert in CertificateDer::pem_slice_iter(&pem) {
      let cert = cert.map_err(|e| format!("LIMINA_CA_CERTS={file}: {e}"))?;
      roots.add(cert).map_err(|e| format!("LIMINA_CA_CERTS={file}: {e}"))?;
      added += 1;
    }
    if added == 0 {
      return Err(format!("LIMINA_CA_CERTS={file}: no PEM certificate in the file"));
    }
  }
  let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
  config.alpn_protocols = vec![b"http/1.1".to_vec()];
  Ok(Arc::new(config))
}

/// A duration as people read it in an error: "250 ms", "10 s".
fn spoken(d: Duration) -> String {
  if d.subsec_millis() == 0 { format!("{} s", d.as_secs()) } else { format!("{} ms", d.as_millis()) }
}

async fn send(t: &Target, request: Request<Full<Bytes>>, connect_within: Duration) -> Result<PostResponse, OpError> {
  let endpoint = format!("{}:{}", t.host, t.port);
  let tcp = timeout(connect_within, TcpStream::connect((t.host.as_str(), t.port)))
    .await
    .map_err(|_| OpError::new(ErrorCode::Io, format!("cannot connect to {endpoint} within {}", spoken(connect_within))))?
    .map_err(|e| OpError::io(format!("cannot connect to {endpoint}"), e))?;
  if !t.tls {
    return exchange(tcp, request).await;
  }
  let name = ServerName::try_from(t.host.clone()).map_err(|_| OpError::invalid_input(format!("{:?} is not a valid TLS server name", t.host)))?;
  let tls = timeout(connect_within, tokio_rustls::TlsConnector::from(tls_config()?).connect(name, tcp))
    .await
    .map_err(|_| OpError::new(ErrorCode::Io, format!("no TLS handshake with {endpoint} within {}", spoken(connect_within))))?
    .map_err(|e| OpError::new(ErrorCode::Io, format!("TLS handshake with {endpoint} failed: {e}")))?;
  exchange(tls, request).await
}

/// One request and its whole response over a fresh connection.
async fn exchange<S>(io: S, request: Request<Full<Bytes>>) -> Result<PostResponse, OpError>
where
  S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
  let (mut sender, conn) = hyper::client::conn::http1::Builder::new()
    .max_header_size(MAX_HEAD)
    .handshake(TokioIo::new(io))
    .await
    .map_err(wire)?;
  let too_big = || OpError::capacity_exceeded(format!("response body over {} MiB", MAX_BODY >> 20));
  let read = async {
    let response = sender.send_request(request).await.map_err(wire)?;
    let status = response.status();
    let headers = response
      .headers()
      .iter()
      .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
      .collect();
    if status.is_redirection() {
      let to = response.headers().get(header::LOCATION).map(|l| String::from_utf8_lossy(l.as_bytes()).chars().take(200).collect::<String>());
      return Err(OpError::new(
        ErrorCode::Io,
        format!("HTTP {} redirect to {:?} refused: providers follow no redirects; configure the final URL", status.as_u16(), to.unwrap_or_default()),
      ));
    }
    let mut body = response.into_body();
    // A declared Content-Length over the cap fails before anything is read.
    if body.size_hint().lower() > MAX_BODY as u64 {
      return Err(too_big());
    }
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
      if let Some(data) = frame.map_err(wire)?.data_ref() {
        if data.len() > MAX_BODY - bytes.len() {
          return Err(too_big());
        }
        bytes.extend_from_slice(data);
      }
    }
    let body = String::from_utf8(bytes)
      .map_err(|e| OpError::new(ErrorCode::Io, format!("response body is not UTF-8 (invalid byte at offset {})", e.utf8_error().valid_up_to())))?;
    Ok(PostResponse { status: status.as_u16(), headers, body })
  };
  // The connection future does the actual I/O; drive it until the response is read.
  let mut read = pin!(read);
  let mut conn = pin!(conn);
  tokio::select! {
    biased;
    r = &mut read => r,
    r = &mut conn => {
      r.map_err(wire)?;
      read.await
    }
  }
}

/// Polls `fut`, turning a panic into an error: a bug in the client fails
/// its own request instead of unwinding through the op runtime.
async fn panic_free<T>(fut: impl Future<Output = Result<T, OpError>>) -> Result<T, OpError> {
  let mut fut = pin!(fut);
  std::future::poll_fn(|cx| {
    std::panic::catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx)))
      .unwrap_or_else(|_| Poll::Ready(Err(OpError::internal("the HTTP client panicked; the request was dropped"))))
  })
  .await
}

/// POSTs a body (JSON by default) to an `http://` or `https://` URL;
/// resolves with the status and body, or fails with a `LiminaError`:
/// `invalid_input` for a bad URL, header or timeout, `capacity_exceeded` for
/// an oversized body, `io_error` for everything the server or network did.
#[op2]
#[serde]
pub async fn op_http_post(state: Rc<RefCell<OpState>>, #[serde] req: PostRequest) -> Result<PostResponse, OpError> {
  let _busy = Work::begin(&state.borrow());
  let target = parse_url(&req.url)?;
  if !(req.timeout_ms.is_finite() && req.timeout_ms >= 1.0) {
    return Err(OpError::invalid_input(format!("timeoutMs must be a number of milliseconds ≥ 1, not {}", req.timeout_ms)));
  }
  let connect_within = match req.connect_timeout_ms {
    None => CONNECT_TIMEOUT,
    Some(ms) if ms.is_finite() && ms >= 1.0 => Duration::from_millis(ms as u64),
    Some(ms) => return Err(OpError::invalid_input(format!("connectTimeoutMs must be a number of milliseconds ≥ 1, not {ms}"))),
  };
  let request = build_request(&target, &req.headers, req.body)?;
  // Past `Duration::MAX` is as good as never; tokio treats it so.
  let deadline = Duration::try_from_secs_f64(req.timeout_ms / 1000.0).unwrap_or(Duration::MAX);
  let url = req.url;
  match timeout(deadline, panic_free(send(&target, request, connect_within))).await {
    Ok(result) => result.map_err(|e| OpError::new(e.code, format!("{url}: {}", e.message))),
    Err(_) => Err(OpError::new(ErrorCode::Io, format!("{url}: no complete response within {} ms", req.timeout_ms))),
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn urls_parse_or_fail_precisely() {
    let t = parse_url("http://127.0.0.1:11434/api/chat?x=1").unwrap();
    assert_eq!((t.tls, t.host.as_str(), t.port, t.authority.as_str(), t.path.as_str()), (false, "127.0.0.1", 11434, "127.0.0.1:11434", "/api/chat?x=1"));
    let t = parse_url("http://localhost").unwrap();
    assert_eq!((t.port, t.path.as_str()), (80, "/"));
    let t = parse_url("https://api.example.com/v1").unwrap();
    assert_eq!((t.tls, t.port, t.authority.as_str()), (true, 443, "api.example.com"));
    let t = parse_url("http://[::1]:8080/x").unwrap();
    assert_eq!((t.host.as_str(), t.port, t.authority.as_str()), ("::1", 8080, "[::1]:8080"));
    let err = |url: &str| parse_url(url).unwrap_err().message;
    assert!(err("http://h/a\r\nX-Evil: 1").contains(r#"has '\r' at byte 10"#), "{}", err("http://h/a\r\nX-Evil: 1"));
    assert!(err("http://h/\u{7f}").contains("at byte 9"));
    assert!(err("http://h/é").contains("non-ASCII"));
    assert!(err("ftp://x/").contains("not an http:// or https:// URL"));
    assert!(err("http://user@host/").contains("credentials"));
    assert!(err("http://host:99999/").contains("bad port"));
    assert!(err("http://host:0/").contains("bad port"));
    assert!(err("//host/").contains("not an http"));
  }

  #[test]
  fn headers_are_checked_and_framing_is_the_clients() {
    let t = parse_url("http://127.0.0.1:9/v1").unwrap();
    let ok = build_request(&t, &[("Authorization".into(), "Bearer k".into())], "{}".into()).unwrap();
    assert_eq!(ok.headers()["host"], "127.0.0.1:9");
    assert_eq!(ok.headers()["content-type"], "application/json");
    assert_eq!(ok.uri().to_string(), "/v1");
    let err = |k: &str, v: &str| build_request(&t, &[(k.into(), v.into())], String::new()).unwrap_err().message;
    assert!(err("X-A\r\nX-B", "1").contains("bad header name"));
    assert!(err("X-Key", "secret\r\nX-B: 1").contains("control character"));
    assert!(!err("X-Key", "secret\r\nX-B: 1").contains("secret"), "the value is not echoed");
    assert!(err("Content-Length", "1").contains("set by the HTTP client"));
  }

  #[test]
  fn durations_read_as_people_say_them() {
    assert_eq!(spoken(Duration::from_secs(10)), "10 s");
    assert_eq!(spoken(Duration::from_millis(250)), "250 ms");
    assert_eq!(spoken(Duration::from_millis(1500)), "1500 ms");
  }

  #[test]
  fn a_panic_fails_only_its_request() {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let e = rt.block_on(panic_free::<()>(async { panic!("boom") })).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert_eq!(rt.block_on(panic_free(async { Ok(7) })).unwrap(), 7);
  }
}
