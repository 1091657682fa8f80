//! World files: a world session's snapshot on disk, versioned and
//! content-hashed, written atomically (write, fsync, rename, fsync the
//! directory) so a crash mid-save leaves the previous file intact. Also the
//! sha256 the world digest is made of.
//!
//! Layout: the line `LIMINA-WORLD`, a JSON header line
//! `{"version":1,"bytes":N,"contentHash":"sha256:…"}`, then N bytes of body.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use deno_core::futures::channel::oneshot;
use deno_core::{op2, OpState};
use limina_ops::OpError;
use sha2::{Digest, Sha256};

const MAGIC: &str = "LIMINA-WORLD\n";
/// The layout version this engine writes and reads.
pub const WORLD_FILE_VERSION: u32 = 1;

/// `"sha256:"` and the lowercase hex digest of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
  let digest = Sha256::digest(bytes);
  let mut out = String::with_capacity(71);
  out.push_str("sha256:");
  for b in digest {
    out.push_str(&format!("{b:02x}"));
  }
  out
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Header {
  version: u32,
  bytes: u64,
  content_hash: String,
}

/// The whole file for `body`.
pub fn encode(body: &[u8]) -> Vec<u8> {
  let header = Header { version: WORLD_FILE_VERSION, bytes: body.len() as u64, content_hash: sha256_hex(body) };
  let header = serde_json::to_string(&header).expect("a header serialises");
  let mut out = Vec::with_capacity(MAGIC.len() + header.len() + 1 + body.len());
  out.extend(MAGIC.as_bytes());
  out.extend(header.as_bytes());
  out.push(b'\n');
  out.extend(body);
  out
}

/// The body of a world file, after checking its magic, version, length and hash.
pub fn decode(file: &[u8], name: &str) -> Result<Vec<u8>, OpError> {
  let bad = |why: String| OpError::invalid_input(format!("{name} is not a usable world file: {why}"));
  let rest = file.strip_prefix(MAGIC.as_bytes()).ok_or_else(|| bad("it does not start with LIMINA-WORLD".into()))?;
  let nl = rest.iter().position(|&b| b == b'\n').ok_or_else(|| bad("its header line is cut off".into()))?;
  let header: Header = serde_json::from_slice(&rest[..nl]).map_err(|e| bad(format!("its header is malformed ({e})")))?;
  if header.version != WORLD_FILE_VERSION {
    return Err(bad(format!("it is version {}, this engine reads version {WORLD_FILE_VERSION}", header.version)));
  }
  let body = &rest[nl + 1..];
  if body.len() as u64 != header.bytes {
    return Err(bad(format!("its body is {} bytes, the header says {} (truncated or padded)", body.len(), header.bytes)));
  }
  let hash = sha256_hex(body);
  if hash != header.content_hash {
    return Err(bad(format!("its content hash is {hash}, the header says {}", header.content_hash)));
  }
  Ok(body.to_vec())
}

/// Writes `bytes` to `path` atomically and durably (a crash mid-save leaves the previous file).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), OpError> {
  limina_ops::whole_file::write_durably(path, &[bytes], 0o666).map_err(|e| OpError::io(format!("cannot save the world file {}", path.display()), e))
}

/// sha256 of `bytes` as `"sha256:…"`: what the world digest is made of.
#[op2]
#[string]
pub fn op_world_sha256(#[buffer] bytes: &[u8]) -> String {
  sha256_hex(bytes)
}

/// Saves `body` as the world file at `path`, atomically, on its own thread;
/// resolves to the file's size.
#[op2]
#[number]
pub async fn op_world_file_write(state: Rc<RefCell<OpState>>, #[string] path: String, #[buffer(copy)] body: Vec<u8>) -> Result<u64, OpError> {
  let _busy = limina_ops::Work::begin(&state.borrow());
  let (tx, rx) = oneshot::channel();
  std::thread::Builder::new()
    .name("limina-world-save".into())
    .spawn(move || {
      let file = encode(&body);
      let _ = tx.send(write_atomically(Path::new(&path), &file).map(|()| file.len() as u64));
    })
    .map_err(|e| OpError::io("cannot start a world save thread", e))?;
  rx.await.map_err(|_| OpError::internal("the world save thread stopped"))?
}

/// The same save, done before returning: for the last save before the process exits.
#[op2(fast)]
#[number]
pub fn op_world_file_write_sync(#[string] path: &str, #[buffer] body: &[u8]) -> Result<u64, OpError> {
  let file = encode(body);
  write_atomically(Path::new(path), &file)?;
  Ok(file.len() as u64)
}

/// The verified body of the world file at `path`; `not_found` when there is none.
#[op2]
#[buffer]
pub fn op_world_file_read(#[string] path: &str) -> Result<Vec<u8>, OpError> {
  let file = match std::fs::read(path) {
    Ok(f) => f,
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(OpError::not_found(format!("no world file at {path}"))),
    Err(e) => return Err(OpError::io(format!("cannot read the world file {path}"), e)),
  };
  decode(&file, path)
}

/// Resolves with the name of the first SIGTERM or SIGINT: from the call on, those signals no
/// longer end the process by themselves (a durable world saves itself, then exits).
#[op2]
#[string]
pub async fn op_world_stop_signal() -> Result<String, OpError> {
  use tokio::signal::unix::{signal, SignalKind};
  let mut term = signal(SignalKind::terminate()).map_err(|e| OpError::io("cannot watch for SIGTERM", e))?;
  let mut int = signal(SignalKind::interrupt()).map_err(|e| OpError::io("cannot watch for SIGINT", e))?;
  Ok(tokio::select! {
    _ = term.recv() => "SIGTERM",
    _ = int.recv() => "SIGINT",
  }
  .to_owned())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_world_file_round_trips_and_any_damage_is_named() {
    let file = encode(b"{\"tick\":7}");
    assert_eq!(decode(&file, "w").unwrap(), b"{\"tick\":7}");
    let mut flipped = file.clone();
    *flipped.last_mut().unwrap() ^= 1;
    assert!(decode(&flipped, "w").unwrap_err().message.contains("content hash"));
    assert!(decode(&file[..file.len() - 2], "w").unwrap_err().message.contains("truncated"));
    assert!(decode(b"hello", "w").unwrap_err().message.contains("LIMINA-WORLD"));
  }

  #[test]
  fn saving_replaces_the_file_whole_and_leaves_no_temporary() {
    let dir = std::env::temp_dir().join(format!("limina-world-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.world");
    write_atomically(&path, &encode(b"one")).unwrap();
    write_atomically(&path, &encode(b"two")).unwrap();
    assert_eq!(decode(&std::fs::read(&path).unwrap(), "w").unwrap(), b"two");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
  }
}
