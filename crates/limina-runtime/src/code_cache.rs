//! What start-up would otherwise redo on every run, kept on disk: V8's
//! compiled code for modules (so a second start skips parsing what it parsed
//! before — the three.js bundle above all) and TypeScript transpiled to
//! JavaScript with its source map. Entries are keyed by module and checked
//! against a hash of the exact source; V8 itself rejects code made by
//! another V8 build, and a rejected, damaged (see `cache_file.rs`) or
//! missing entry is simply made again.
//! Where the cache directory cannot be written, nothing is cached and
//! nothing fails.
//!
//! Directory: `$LIMINA_CACHE_DIR`, else `$XDG_CACHE_HOME/limina`, else
//! `~/.cache/limina`, under `code-<version>/` (start-up snapshots live there
//! too, see `snapshot.rs`). `LIMINA_CACHE_DIR=off` disables it.

use std::path::PathBuf;

use deno_core::SourceCodeCacheInfo;

use crate::cache_file;

/// Entry kinds, named by extension: V8's code for a module, and transpiled
/// TypeScript. Named apart from the headerless entries of older builds
/// (`.v8`, `.js`), so those are never taken for damaged ones.
const CODE: &str = "v8c";
const TRANSPILED: &str = "tjs";

/// Sources below this many bytes are compiled afresh each run.
const MIN_CACHED_SOURCE: usize = 64 << 10;

pub struct CodeCache {
  dir: Option<PathBuf>,
}

/// A stable 64-bit hash of a module's source (FNV-1a: the same across runs and builds).
pub fn source_hash(code: &[u8]) -> u64 {
  let mut h: u64 = 0xcbf2_9ce4_8422_2325;
  for &b in code {
    h ^= u64::from(b);
    h = h.wrapping_mul(0x0000_0100_0000_01b3);
  }
  h
}

/// The start-up cache directory (module code, transpiled TS, snapshots), or
/// None when `LIMINA_CACHE_DIR=off`.
pub fn cache_dir() -> Option<PathBuf> {
  let base = match std::env::var_os("LIMINA_CACHE_DIR") {
    Some(dir) if dir == "off" => None,
    Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
    _ => std::env::var_os("XDG_CACHE_HOME")
      .filter(|d| !d.is_empty())
      .map(PathBuf::from)
      .or_else(|| std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache")))
      .map(|d| d.join("limina")),
  };
  base.map(|b| b.join(concat!("code-", env!("CARGO_PKG_VERSION"))))
}

impl CodeCache {
  pub fn from_env() -> Self {
    Self { dir: cache_dir() }
  }

  fn entry(&self, specifier: &str, kind: &str) -> Option<PathBuf> {
    Some(self.dir.as_ref()?.join(format!("{:016x}.{kind}", source_hash(specifier.as_bytes()))))
  }

  /// The entry of `kind` for `specifier`, when it is intact and was made
  /// from source with hash `hash`. A damaged one is reported and taken as
  /// missing: the entry made in its place replaces it.
  fn get(&self, specifier: &str, kind: &str, hash: u64) -> Option<Vec<u8>> {
    let path = self.entry(specifier, kind)?;
    let bytes = std::fs::read(&path).ok()?;
    let payload = match cache_file::payload(&bytes) {
      Ok(payload) => payload,
      Err(damage) => {
        cache_file::report(&path, &damage);
        let _ = std::fs::remove_file(&path);
        return None;
      }
    };
    let stored = u64::from_le_bytes(payload.get(..8)?.try_into().ok()?);
    (stored == hash).then(|| payload[8..].to_vec())
  }

  /// Writes an entry whole, then renames it into place.
  fn put(&self, specifier: &str, kind: &str, hash: u64, parts: &[&[u8]]) {
    let (Some(dir), Some(path)) = (self.dir.as_ref(), self.entry(specifier, kind)) else { return };
    let hash = hash.to_le_bytes();
    let all: Vec<&[u8]> = std::iter::once(&hash[..]).chain(parts.iter().copied()).collect();
    let _ = std::fs::create_dir_all(dir).and_then(|()| cache_file::write(&path, &all));
  }

  /// What to tell V8 about `specifier` with source `code`: its cached code when
  /// there is a matching entry, else a request to make one. Small modules
  /// compile faster than their entry reads, so only large ones are cached.
  pub fn lookup(&self, specifier: &str, code: &[u8]) -> Option<SourceCodeCacheInfo> {
    self.dir.as_ref()?;
    if code.len() < MIN_CACHED_SOURCE {
      return None;
    }
    let hash = source_hash(code);
    Some(SourceCodeCacheInfo { hash, data: self.get(specifier, CODE, hash).map(Into::into) })
  }

  /// Stores V8's code for `specifier`.
  pub fn store(&self, specifier: &str, hash: u64, code_cache: &[u8]) {
    self.put(specifier, CODE, hash, &[code_cache]);
  }

  /// The JavaScript and source map `source` (TypeScript) was transpiled to before.
  pub fn transpiled(&self, specifier: &str, source: &str) -> Option<(String, Vec<u8>)> {
    let bytes = self.get(specifier, TRANSPILED, source_hash(source.as_bytes()))?;
    let len = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?) as usize;
    let js = String::from_utf8(bytes.get(8..8 + len)?.to_vec()).ok()?;
    Some((js, bytes[8 + len..].to_vec()))
  }

  pub fn store_transpiled(&self, specifier: &str, source: &str, js: &str, map: &[u8]) {
    self.put(specifier, TRANSPILED, source_hash(source.as_bytes()), &[&(js.len() as u64).to_le_bytes(), js.as_bytes(), map]);
  }
}
