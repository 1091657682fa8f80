//! Files of the on-disk caches (terrain tiles, environment bakes): each written whole or not at
//! all, the cache trimmed oldest-written first.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Writes `parts` to a temporary file beside `path`, then renames it into place: a reader sees the
/// old file or the whole new one, and a failed write leaves no temporary behind. Not synced: a
/// store runs on the loop thread, and a file a crash tore fails its reader's checksum (both
/// caches hash what they store), which is a miss.
pub fn write_whole(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
  let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
  let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
  let written = (|| {
    let mut f = std::fs::File::create(&tmp)?;
    parts.iter().try_for_each(|p| f.write_all(p))?;
    std::fs::rename(&tmp, path)
  })();
  if written.is_err() {
    let _ = std::fs::remove_file(&tmp);
  }
  written
}

/// One cache file: when it was last written, where, and its size in bytes.
pub type CacheFile = (SystemTime, PathBuf, u64);

/// Removes the oldest-written of `files` (together `total` bytes) until at most `max_bytes` remain.
pub fn trim_oldest(mut files: Vec<CacheFile>, mut total: u64, max_bytes: u64) -> std::io::Result<()> {
  files.sort();
  for (_, path, len) in files {
    if total <= max_bytes {
      break;
    }
    std::fs::remove_file(&path)?;
    total -= len;
  }
  Ok(())
}
