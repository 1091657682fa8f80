//! `op_http_post`: a small HTTP/1.1 client for LLM providers (Ollama, an
//! OpenAI-compatible gateway), run on the async runtime so a slow model
//! never blocks the loop. Plain `http://` only: this build has no TLS, and
//! an `https://` URL is refused with an error that says so.

use std::time::Duration;

use deno_core::op2;
use limina_ops::OpError;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Largest response body accepted.
const MAX_BODY: usize = 32 << 20;

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostRequest {
  url: String,
  body: String,
  #[serde(default)]
  headers: Vec<(String, String)>,
  timeout_ms: u64,
}

#[derive(serde::Serialize)]
pub struct PostResponse {
  status: u16,
  body: String,
}

#[derive(Debug)]
struct Target {
  host: String,
  port: u16,
  path: String,
}

fn parse_url(url: &str) -> Result<Target, OpError> {
  if url.starts_with("https://") {
    return Err(OpError::unavailable(format!(
      "cannot reach {url}: this build has no TLS; use an http:// endpoint (for example a local proxy)"
    )));
  }
  let rest = url
    .strip_prefix("http://")
    .ok_or_else(|| OpError::invalid_input(format!("not an http:// URL: {url}")))?;
  let (authority, path) = match rest.find('/') {
    Some(i) => (&rest[..i], &rest[i..]),
    None => (rest, "/"),
  };
  let (host, port) = match authority.rsplit_once(':') {
    Some((h, p)) => (h, p.parse::<u16>().map_err(|_| OpError::invalid_input(format!("bad port in {url}")))?),
    None => (authority, 80),
  };
  if host.is_empty() || authority.contains('@') {
    return Err(OpError::invalid_input(format!("bad host in {url}")));
  }
  Ok(Target { host: host.trim_matches(['[', ']']).to_owned(), port, path: path.to_owned() })
}

fn header_ok(s: &str) -> bool {
  !s.is_empty() && !s.contains(['\r', '\n'])
}

async fn post(req: PostRequest) -> Result<PostResponse, OpError> {
  let t = parse_url(&req.url)?;
  for (k, v) in &req.headers {
    if !header_ok(k) || v.contains(['\r', '\n']) {
      return Err(OpError::invalid_input(format!("bad header {k:?}")));
    }
  }
  let mut stream = TcpStream::connect((t.host.as_str(), t.port))
    .await
    .map_err(|e| OpError::io(format!("cannot connect to {}:{}", t.host, t.port), e))?;
  let mut head = format!(
    "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
    t.path,
    t.host,
    t.port,
    req.body.len()
  );
  for (k, v) in &req.headers {
    head.push_str(&format!("{k}: {v}\r\n"));
  }
  head.push_str("\r\n");
  stream.write_all(head.as_bytes()).await.map_err(|e| OpError::io("request failed", e))?;
  stream.write_all(req.body.as_bytes()).await.map_err(|e| OpError::io("request failed", e))?;
  let mut reader = BufReader::new(stream);
  let mut status_line = String::new();
  reader.read_line(&mut status_line).await.map_err(|e| OpError::io("no response", e))?;
  let status = status_line
    .split_whitespace()
    .nth(1)
    .and_then(|s| s.parse::<u16>().ok())
    .filter(|_| status_line.starts_with("HTTP/1."))
    .ok_or_else(|| OpError::new(limina_ops::ErrorCode::Io, format!("not an HTTP response: {:?}", status_line.trim_end())))?;
  let mut length: Option<usize> = None;
  let mut chunked = false;
  loop {
    let mut line = String::new();
    if reader.read_line(&mut line).await.map_err(|e| OpError::io("bad response headers", e))? == 0 {
      break;
    }
    let line = line.trim_end();
    if line.is_empty() {
      break;
    }
    if let Some((k, v)) = line.split_once(':') {
      let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
      if k == "content-length" {
        length = v.parse().ok();
      } else if k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked") {
        chunked = true;
      }
    }
  }
  let too_big = || OpError::new(limina_ops::ErrorCode::Io, format!("response body over {MAX_BODY} bytes"));
  let mut body = Vec::new();
  if chunked {
    loop {
      let mut size_line = String::new();
      reader.read_line(&mut size_line).await.map_err(|e| OpError::io("bad chunk", e))?;
      let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or(""), 16)
        .map_err(|_| OpError::new(limina_ops::ErrorCode::Io, "bad chunk size"))?;
      if size == 0 {
        break;
      }
      if body.len() + size > MAX_BODY {
        return Err(too_big());
      }
      let start = body.len();
      body.resize(start + size, 0);
      reader.read_exact(&mut body[start..]).await.map_err(|e| OpError::io("truncated chunk", e))?;
      let mut crlf = [0u8; 2];
      reader.read_exact(&mut crlf).await.map_err(|e| OpError::io("truncated chunk", e))?;
    }
  } else if let Some(n) = length {
    if n > MAX_BODY {
      return Err(too_big());
    }
    body.resize(n, 0);
    reader.read_exact(&mut body).await.map_err(|e| OpError::io("truncated body", e))?;
  } else {
    (&mut reader).take(MAX_BODY as u64 + 1).read_to_end(&mut body).await.map_err(|e| OpError::io("bad body", e))?;
    if body.len() > MAX_BODY {
      return Err(too_big());
    }
  }
  let body = String::from_utf8(body).map_err(|_| OpError::new(limina_ops::ErrorCode::Io, "response body is not UTF-8"))?;
  Ok(PostResponse { status, body })
}

/// POSTs a JSON body; resolves with the status and body, or fails with a
/// structured error (connection refused, timeout, malformed response).
#[op2]
#[serde]
pub async fn op_http_post(#[serde] req: PostRequest) -> Result<PostResponse, OpError> {
  let timeout = Duration::from_millis(req.timeout_ms.max(1));
  let url = req.url.clone();
  tokio::time::timeout(timeout, post(req))
    .await
    .map_err(|_| OpError::new(limina_ops::ErrorCode::Io, format!("{url}: no response within {} ms", timeout.as_millis())))?
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn urls_parse_and_https_is_refused_honestly() {
    let t = parse_url("http://127.0.0.1:11434/api/chat").unwrap();
    assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("127.0.0.1", 11434, "/api/chat"));
    let t = parse_url("http://localhost").unwrap();
    assert_eq!((t.port, t.path.as_str()), (80, "/"));
    let e = parse_url("https://api.example.com/v1").unwrap_err();
    assert!(e.message.contains("no TLS"), "{}", e.message);
    assert!(parse_url("ftp://x").is_err());
    assert!(parse_url("http://user@host/").is_err());
    assert!(parse_url("http://host:99999/").is_err());
  }
}
