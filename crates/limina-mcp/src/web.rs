//! The spectator page: its files, embedded in the binary, served by the
//! world server (`GET /` on the WebSocket port, and on the Streamable HTTP
//! port beside its MCP endpoint) and by `limina relay`. Every response
//! carries its exact content type, `nosniff` and a strict
//! Content-Security-Policy: scripts and styles only from the page's own
//! origin, connections only back to it (and to its WebSocket), no frames,
//! no plugins, no forms. Browsers' WebSocket handshakes are checked here
//! too (http::check_host_and_origin): an `Origin` must be the server's own
//! (a loopback origin on a loopback bind), and a browser that presents no
//! token is a spectator.

use base64::Engine as _;
use deno_core::op2;
use limina_ops::OpError;

/// One embedded file of the page.
pub struct Asset {
  pub path: &'static str,
  pub content_type: &'static str,
  pub bytes: &'static [u8],
}

macro_rules! asset {
  ($path:literal, $type:literal, $file:literal) => {
    Asset { path: $path, content_type: $type, bytes: include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../", $file)) }
  };
}

/// The page's files, by the path they are served at.
pub static ASSETS: &[Asset] = &[
  asset!("/", "text/html; charset=utf-8", "js/src/web/index.html"),
  asset!("/index.html", "text/html; charset=utf-8", "js/src/web/index.html"),
  asset!("/page.css", "text/css; charset=utf-8", "js/src/web/page.css"),
  asset!("/page.js", "text/javascript; charset=utf-8", "js/build/web/page.js"),
  asset!("/hdri/city.exr", "image/x-exr", "assets/hdri/city.exr"),
  asset!("/hdri/dawn.exr", "image/x-exr", "assets/hdri/dawn.exr"),
  asset!("/hdri/forest.exr", "image/x-exr", "assets/hdri/forest.exr"),
  asset!("/hdri/night.exr", "image/x-exr", "assets/hdri/night.exr"),
  asset!("/hdri/park.exr", "image/x-exr", "assets/hdri/park.exr"),
  asset!("/hdri/studio.exr", "image/x-exr", "assets/hdri/studio.exr"),
  asset!("/hdri/sunset.exr", "image/x-exr", "assets/hdri/sunset.exr"),
  asset!("/hdri/warehouse.exr", "image/x-exr", "assets/hdri/warehouse.exr"),
];

/// The subprotocol the page speaks; a token rides as a second one, `limina.token.<base64url>`.
pub const SUBPROTOCOL: &str = "limina.v1";
const TOKEN_PROTOCOL: &str = "limina.token.";

/// What the page learns from `GET /config.json`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageConfig {
  /// `world` (a world server: spectators may join with a token) or `relay`.
  pub server: &'static str,
  /// The WebSocket port the page connects to (null: this server serves none).
  pub ws_port: Option<u16>,
  /// Whether acting needs a token (a world server without one offers browsers only the spectator profile).
  pub token: bool,
}

/// The security headers every page response carries; `connect` is the CSP's `connect-src`.
pub fn security_headers(connect: &str) -> [(&'static str, String); 6] {
  [
    (
      "content-security-policy",
      format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src {connect}; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
      ),
    ),
    ("x-content-type-options", "nosniff".to_owned()),
    ("referrer-policy", "no-referrer".to_owned()),
    ("x-frame-options", "DENY".to_owned()),
    ("cross-origin-opener-policy", "same-origin".to_owned()),
    ("cache-control", "no-cache".to_owned()),
  ]
}

/// `connect-src` for a page served with `host` (its Host header) whose WebSocket is on `ws_port`.
pub fn connect_src(host: &str, ws_port: Option<u16>) -> String {
  let name = crate::http::hostname(host);
  match ws_port {
    Some(port) => format!("'self' ws://{name}:{port} wss://{name}:{port}"),
    None => "'self'".to_owned(),
  }
}

/// A response to a page request: status, content type, body.
pub struct PageResponse {
  pub status: u16,
  pub content_type: &'static str,
  pub body: std::borrow::Cow<'static, [u8]>,
}

/// The page's answer to `GET`/`HEAD` `path` (query ignored); 404 for anything else.
pub fn respond(path: &str, config: &PageConfig) -> PageResponse {
  let path = path.split(['?', '#']).next().unwrap_or("/");
  if path == "/config.json" {
    let body = serde_json::to_vec(config).unwrap_or_default();
    return PageResponse { status: 200, content_type: "application/json", body: body.into() };
  }
  match ASSETS.iter().find(|a| a.path == path) {
    Some(a) => PageResponse { status: 200, content_type: a.content_type, body: a.bytes.into() },
    None => PageResponse { status: 404, content_type: "text/plain; charset=utf-8", body: format!("not found: {path}\n").into_bytes().into() },
  }
}

/// The whole HTTP/1.1 response for a page request read off a raw socket (the WebSocket port).
pub fn http_response(method: &str, path: &str, host: &str, config: &PageConfig) -> Vec<u8> {
  let (status, content_type, body): (u16, &str, std::borrow::Cow<'static, [u8]>) = match method {
    "GET" | "HEAD" => {
      let r = respond(path, config);
      (r.status, r.content_type, r.body)
    }
    _ => (405, "text/plain; charset=utf-8", b"method not allowed: the page answers GET\n".as_slice().into()),
  };
  let reason = match status {
    200 => "OK",
    404 => "Not Found",
    _ => "Method Not Allowed",
  };
  let mut head = format!("HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n", body.len());
  if status == 405 {
    head.push_str("allow: GET, HEAD\r\n");
  }
  for (name, value) in security_headers(&connect_src(host, config.ws_port)) {
    head.push_str(&format!("{name}: {value}\r\n"));
  }
  head.push_str("\r\n");
  let mut out = head.into_bytes();
  if method != "HEAD" {
    out.extend_from_slice(&body);
  }
  out
}

/// Whether the offered subprotocols (`Sec-WebSocket-Protocol`, comma-separated) carry `token`
/// as `limina.token.<base64url>`, compared in constant time.
pub fn protocol_token_matches(offered: &str, token: &str) -> bool {
  offered.split(',').map(str::trim).filter_map(|p| p.strip_prefix(TOKEN_PROTOCOL)).any(|encoded| {
    let Ok(given) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded.trim_end_matches('=')) else { return false };
    given.len() == token.len() && given.iter().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
  })
}

/// Whether the offered subprotocols include the page's.
pub fn offers_subprotocol(offered: &str) -> bool {
  offered.split(',').any(|p| p.trim() == SUBPROTOCOL)
}

/// What `limina export-web` wrote.
#[derive(serde::Serialize)]
pub struct ExportedPlayer {
  pub path: String,
  pub files: usize,
  pub bytes: u64,
}

/// Writes the static player into the folder `out`: the page's files (the
/// same embedded ones the server serves) and `files` (name, content), into
/// a fresh folder beside `out` that is then renamed into place — the folder
/// is whole or absent. `out` must not exist or be an empty folder.
#[op2]
#[serde]
pub fn op_mcp_web_export(#[string] out: String, #[serde] files: Vec<(String, String)>) -> Result<ExportedPlayer, OpError> {
  let target = std::path::Path::new(&out);
  if let Some(bad) = files.iter().map(|(n, _)| n).find(|n| n.is_empty() || n.contains(['/', '\\']) || n.starts_with('.')) {
    return Err(OpError::invalid_input(format!("not a plain file name: {bad:?}")));
  }
  match std::fs::symlink_metadata(target) {
    Ok(m) if !m.is_dir() => return Err(OpError::invalid_input(format!("{out} exists and is not a folder: nothing written"))),
    Ok(_) if std::fs::read_dir(target).map_or(true, |mut entries| entries.next().is_some()) => {
      return Err(OpError::invalid_input(format!("{out} exists and is not empty: nothing written")));
    }
    // Absent (or unreadable: writing it says why).
    _ => {}
  }
  let name = target.file_name().ok_or_else(|| OpError::invalid_input(format!("{out:?} names no folder")))?;
  let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
  let staging = parent.join(format!(".{}.limina-{}", name.to_string_lossy(), std::process::id()));
  let write = || -> std::io::Result<(usize, u64)> {
    std::fs::create_dir(&staging)?;
    std::fs::create_dir(staging.join("hdri"))?;
    let mut count = 0;
    let mut bytes = 0;
    let pages = ASSETS.iter().filter(|a| a.path != "/").map(|a| (&a.path[1..], a.bytes));
    for (path, content) in pages.chain(files.iter().map(|(n, c)| (n.as_str(), c.as_bytes()))) {
      std::fs::write(staging.join(path), content)?;
      count += 1;
      bytes += content.len() as u64;
    }
    std::fs::rename(&staging, target)?;
    Ok((count, bytes))
  };
  match write() {
    Ok((files, bytes)) => Ok(ExportedPlayer { path: out, files, bytes }),
    Err(e) => {
      let _ = std::fs::remove_dir_all(&staging);
      Err(OpError::io(format!("cannot write {out} (nothing written)"), e))
    }
  }
}
