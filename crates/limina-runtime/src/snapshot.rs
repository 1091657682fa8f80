//! V8 startup snapshots: the extensions' JS already evaluated, and — for
//! modules that import them — three and the "limina" engine too, so a
//! program starts from a ready heap instead of parsing and evaluating them.
//! A snapshot is made by the binary itself (in the background, by a child
//! process, the first time a kind is missing) and kept in the start-up
//! cache directory under a name tied to this exact binary, in the cache's
//! checked format (`cache_file.rs`): a damaged snapshot is reported once,
//! ignored and made again. A run never waits for one; without it, it starts
//! the slow way.
//!
//! Whatever a snapshot evaluates must not capture the process: engine
//! modules read the environment, the clock and the op table when called,
//! never at evaluation, and ops are looked up in `Deno.core.ops` when called
//! (a snapshot holds the slow form of an op bound at evaluation).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use deno_core::ModuleSpecifier;

use crate::{cache_file, code_cache, embedded};

/// Set in the child that makes a snapshot: where to write it, and its kind.
const PATH_ENV: &str = "LIMINA_INTERNAL_SNAPSHOT_PATH";
const KIND_ENV: &str = "LIMINA_INTERNAL_SNAPSHOT_KIND";
/// The extension of the file beside a snapshot holding its handshake.
const HANDSHAKE: &str = "handshake";
/// A lock older than this belongs to a maker that died: take it over.
const STALE_LOCK: Duration = Duration::from_secs(120);
/// Another build's snapshots younger than this are left alone.
const KEEP_OTHER_BUILDS: Duration = Duration::from_secs(600);

/// What a snapshot holds beyond the evaluated extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
  /// Nothing more: for modules that import neither three nor "limina".
  Base,
  /// Three.js evaluated.
  Three,
  /// Three.js, Zod, bitECS, the whole "limina" engine, "limina/testing" and
  /// the MCP server's modules (what `serve.ts` imports beyond the engine) evaluated.
  Engine,
}

impl Kind {
  pub fn name(self) -> &'static str {
    match self {
      Kind::Base => "base",
      Kind::Three => "three",
      Kind::Engine => "engine",
    }
  }

  /// The embedded modules evaluated into the snapshot.
  pub fn preload(self) -> &'static [&'static str] {
    match self {
      Kind::Base => &[],
      Kind::Three => &["js/build/three.bundle.mjs"],
      Kind::Engine => &[
        "js/build/three.bundle.mjs",
        "js/src/mod.ts",
        "js/src/testing.ts",
        "js/src/mcp/server.ts",
        "js/src/persistence/log-sink.ts",
        "crates/limina-mcp/js/fanout.ts",
      ],
    }
  }

  /// The preloaded module whose `nativeHandshake()` is stored beside the
  /// snapshot: what `--mcp-stdio` needs to answer a first `initialize`
  /// before V8 starts (limina-mcp's `handshake`).
  pub fn handshake(self) -> Option<&'static str> {
    (self == Kind::Engine).then_some("js/src/mcp/server.ts")
  }

  fn parse(name: &str) -> Option<Kind> {
    [Kind::Base, Kind::Three, Kind::Engine].into_iter().find(|k| k.name() == name)
  }

  /// The kind that serves `main`: by the specifiers its source names (a
  /// guess that can only cost time, never correctness: a module it misses
  /// loads the ordinary way).
  pub fn for_module(main: &ModuleSpecifier) -> Kind {
    if main.scheme() == embedded::SCHEME {
      return Kind::Engine;
    }
    let Ok(source) = main.to_file_path().and_then(|p| std::fs::read_to_string(p).map_err(|_| ())) else {
      return Kind::Base;
    };
    let names = |name: &str| ['"', '\''].iter().any(|q| source.contains(&format!("{q}{name}{q}")) || source.contains(&format!("{q}{name}/")));
    if names("limina") {
      Kind::Engine
    } else if names("three") {
      Kind::Three
    } else {
      Kind::Base
    }
  }
}

/// Where snapshots live for this binary, or None when they are off:
/// `LIMINA_CACHE_DIR=off`, or `LIMINA_SOURCE_DIR` set (modules then come
/// from a checkout, not from what a snapshot would hold).
pub fn dir() -> Option<PathBuf> {
  if std::env::var_os("LIMINA_SOURCE_DIR").is_some_and(|d| !d.is_empty()) {
    return None;
  }
  code_cache::cache_dir()
}

/// Stands for this very binary: the executable's path, inode, size and
/// modification time, hashed (what it embeds is not read at start-up).
pub fn build() -> Option<u64> {
  use std::os::unix::fs::MetadataExt;
  let exe_path = std::env::current_exe().ok()?;
  let exe = std::fs::metadata(&exe_path).ok()?;
  let mtime = exe.modified().ok()?.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_nanos();
  let identity = format!("{}\0{}\0{}\0{}\0{mtime}", exe_path.display(), exe.dev(), exe.ino(), exe.len());
  Some(code_cache::source_hash(identity.as_bytes()))
}

/// The snapshot file of `kind` for this very binary: a snapshot only fits
/// the build that made it (its op table, its embedded modules).
fn path(dir: &Path, kind: Kind) -> Option<PathBuf> {
  let build = build()?;
  Some(dir.join(format!("snapshot-{}-{build:016x}.bin", kind.name())))
}

/// The snapshot for `kind`, if one is ready; when it is not, a background
/// child starts making it (unless another already is) and this run goes on
/// without.
pub fn ready(kind: Kind) -> Option<&'static [u8]> {
  let dir = dir()?;
  let path = path(&dir, kind)?;
  if let Ok(file) = std::fs::File::open(&path) {
    match map(&file).map(|bytes| (bytes, cache_file::payload(bytes))) {
      // An empty snapshot marks a kind this build failed to make: do not try again.
      Some((_, Ok([]))) => return None,
      Some((_, Ok(snapshot))) => return Some(snapshot),
      Some((bytes, Err(damage))) => {
        cache_file::report(&path, &damage);
        unmap(bytes);
      }
      None => cache_file::report(&path, &cache_file::Damage::Short(0)),
    }
    // Made again below, in the background: this run starts the slow way.
    let _ = std::fs::remove_file(&path);
  }
  let lock = path.with_extension("lock");
  let stale = std::fs::metadata(&lock).and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().unwrap_or_default() > STALE_LOCK);
  if stale {
    let _ = std::fs::remove_file(&lock);
  }
  if std::fs::create_dir_all(&dir).is_ok() && std::fs::OpenOptions::new().write(true).create_new(true).open(&lock).is_ok() {
    let spawned = std::env::current_exe().and_then(|exe| {
      std::process::Command::new(exe)
        .env(PATH_ENV, &path)
        .env(KIND_ENV, kind.name())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    });
    match spawned {
      // Reaped when done, so a long-running server leaves no zombie behind.
      Ok(mut child) => drop(std::thread::spawn(move || child.wait())),
      Err(_) => drop(std::fs::remove_file(&lock)),
    }
  }
  None
}

/// What was stored beside `kind`'s snapshot by [`store`] (its handshake), when intact.
pub fn handshake(kind: Kind) -> Option<Vec<u8>> {
  let path = path(&dir()?, kind)?.with_extension(HANDSHAKE);
  let bytes = std::fs::read(&path).ok()?;
  cache_file::payload(&bytes).ok().map(<[u8]>::to_vec)
}

/// In the maker child: what to make and where.
pub fn requested() -> Option<(Kind, PathBuf)> {
  let path = PathBuf::from(std::env::var_os(PATH_ENV)?);
  let kind = Kind::parse(&std::env::var(KIND_ENV).ok()?)?;
  Some((kind, path))
}

/// Writes a made snapshot into place (whole, then renamed), its handshake
/// beside it first (see [`Kind::handshake`]), and drops the lock; an empty
/// one records that this kind cannot be made. Then removes
/// other builds' snapshots, except those written in the last few minutes
/// (another binary may be running beside this one). When the file cannot be
/// written (a full disk), the lock stays: it holds retries off until stale.
pub fn store(path: &Path, bytes: &[u8], handshake: Option<&str>) {
  if let Some(handshake) = handshake {
    if cache_file::write(&path.with_extension(HANDSHAKE), &[handshake.as_bytes()]).is_err() {
      return;
    }
  }
  if cache_file::write(path, &[bytes]).is_err() {
    return;
  }
  let _ = std::fs::remove_file(path.with_extension("lock"));
  let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else { return };
  // `snapshot-<kind>-<build>.bin` (and `.handshake`): the same build's files name it the same way.
  let Some(build) = name.splitn(3, '-').nth(2).and_then(|b| b.strip_suffix(".bin")) else { return };
  for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
    let other = entry.file_name().to_string_lossy().into_owned();
    let recent = entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().unwrap_or_default() < KEEP_OTHER_BUILDS);
    if other.starts_with("snapshot-") && !other.contains(build) && !recent {
      let _ = std::fs::remove_file(entry.path());
    }
  }
}

/// The file's bytes, mapped for the rest of the process (a copy would cost a
/// few ms for a large snapshot); None for an empty file. Snapshots are only
/// ever replaced by renaming, so the mapped inode never changes under us.
fn map(file: &std::fs::File) -> Option<&'static [u8]> {
  use std::os::fd::AsRawFd;
  let len = usize::try_from(file.metadata().ok()?.len()).ok().filter(|&n| n > 0)?;
  // SAFETY: a private read-only mapping of a whole regular file, never unmapped.
  let ptr = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_POPULATE, file.as_raw_fd(), 0) };
  if ptr == libc::MAP_FAILED {
    return None;
  }
  // SAFETY: the mapping is `len` readable bytes that live until the process ends.
  Some(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// Gives back the pages of a snapshot V8 has made its heap from (`bytes`:
/// what [`ready`] gave, the payload after the cache file's header). The
/// mapping stays — deno_core keeps the extensions' sources there, as
/// external strings — and what is read again comes back from the page cache.
pub fn release(bytes: &'static [u8]) {
  // SAFETY: sysconf has no preconditions.
  let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
  // The mapping starts on a page, at or before the payload.
  let start = bytes.as_ptr() as usize / page * page;
  let len = bytes.as_ptr() as usize + bytes.len() - start;
  // SAFETY: within a private read-only file mapping made by `map`: dropping its pages only makes
  // the next read map them again from the file, which is never changed in place.
  unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
}

/// Unmaps what [`map`] mapped, when it turned out unusable.
fn unmap(bytes: &'static [u8]) {
  // SAFETY: `bytes` is a whole mapping made by `map` and nothing refers to it any more.
  unsafe { libc::munmap(bytes.as_ptr().cast_mut().cast(), bytes.len()) };
}
