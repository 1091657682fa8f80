//! The on-disk caches (terrain tiles, environment bakes), written with [`crate::whole_file::write_whole`], trimmed
//! oldest-written first.

use std::path::PathBuf;
use std::time::SystemTime;

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
