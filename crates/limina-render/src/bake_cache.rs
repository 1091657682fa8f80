//! The disk cache of environment bakes: an at-once PMREM map of a sky (each
//! level's six faces, packed tightly) in a file named by the sha256 of
//! everything that shapes its pixels — this build of the engine, the
//! adapter and its driver, and the look's key (map size, format and the
//! sky's drawn settings). A bake costs about half a second of CPU on a
//! software adapter; loading one, some tens of milliseconds. A file is
//! checked whole (its key's hash, its length, its payload's sha256) and
//! anything else is a miss: the map is baked again and the file replaced.
//! Bounded: after each store the least recently used maps go (a load
//! marks its file used) until the cache fits (`$LIMINA_BAKE_CACHE_MB`,
//! default 256: a 256² map is 4 MiB; the test suites' rendering use some
//! 30 maps, and a bound under a run's maps, dropped oldest first, missed
//! nearly every one on the next run).

use std::path::PathBuf;

use deno_core::{op2, OpState, ToJsBuffer};
use deno_webgpu::device::GPUDevice;
use limina_ops::cache_files::trim_oldest;
use limina_ops::whole_file::write_whole;
use limina_ops::OpError;
use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"LIMPMRM1";
const EXT: &str = "pmrem";

/// Where the maps go and what build made them.
#[derive(Debug, Clone)]
pub struct BakeCache {
  pub dir: PathBuf,
  /// Stands for this build of the engine (a map baked by another build may differ).
  pub build: String,
  pub max_bytes: u64,
}

impl BakeCache {
  /// The cache in `dir` for build `build`, bounded by `$LIMINA_BAKE_CACHE_MB`.
  pub fn new(dir: PathBuf, build: String) -> BakeCache {
    let max_bytes = std::env::var("LIMINA_BAKE_CACHE_MB").ok().and_then(|v| v.parse::<u64>().ok()).unwrap_or(256) << 20;
    BakeCache { dir, build, max_bytes }
  }

  fn full_key(&self, adapter: &str, key: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    for part in [self.build.as_str(), adapter, key] {
      h.update(part.as_bytes());
      h.update([0]);
    }
    h.finalize().into()
  }

  fn path(&self, full: &[u8; 32]) -> PathBuf {
    let name: String = full.iter().map(|b| format!("{b:02x}")).collect();
    self.dir.join(format!("{name}.{EXT}"))
  }

  /// The stored map of `key` on `adapter`, when one of exactly `len` bytes is intact; its file is marked used
  /// (its modification time set to now: trimming drops the least recently used first).
  pub fn load(&self, adapter: &str, key: &str, len: usize) -> Option<Vec<u8>> {
    let full = self.full_key(adapter, key);
    let path = self.path(&full);
    let bytes = std::fs::read(&path).ok()?;
    let map = decode(&bytes, &full, len)?.to_vec();
    // Best effort: a file that cannot be marked only goes sooner.
    let _ = std::fs::File::options().write(true).open(&path).and_then(|f| f.set_modified(std::time::SystemTime::now()));
    Some(map)
  }

  /// Stores the map of `key` on `adapter` (a temporary file renamed into place), then trims the cache.
  pub fn store(&self, adapter: &str, key: &str, map: &[u8]) -> std::io::Result<()> {
    let full = self.full_key(adapter, key);
    std::fs::create_dir_all(&self.dir)?;
    write_whole(&self.path(&full), &[MAGIC, &full, map, &Sha256::digest(map)])?;
    self.trim()
  }

  /// Removes the least recently used (stored or loaded) maps until the cache holds at most `max_bytes`.
  fn trim(&self) -> std::io::Result<()> {
    let mut files = Vec::new();
    let mut total = 0u64;
    for f in std::fs::read_dir(&self.dir)? {
      let f = f?;
      if f.path().extension().is_some_and(|e| e == EXT) {
        let meta = f.metadata()?;
        total += meta.len();
        files.push((meta.modified()?, f.path(), meta.len()));
      }
    }
    trim_oldest(files, total, self.max_bytes)
  }
}

/// The map in a file's bytes, when the file is whole and made for `full`.
fn decode<'a>(bytes: &'a [u8], full: &[u8; 32], len: usize) -> Option<&'a [u8]> {
  if bytes.len() != 8 + 32 + len + 32 || &bytes[..8] != MAGIC || &bytes[8..40] != full {
    return None;
  }
  let (map, sum) = bytes[40..].split_at(len);
  (Sha256::digest(map).as_slice() == sum).then_some(map)
}

/// The adapter and driver a device runs on, as wgpu reports them (name, vendor, device, driver and its version, backend).
fn adapter_of(device: &GPUDevice) -> String {
  format!("{:?}", device.instance.device_adapter_info(device.id))
}

/// The stored map of `key` for `device`'s adapter, `len` bytes, or null (no cache, none stored, or a damaged file).
#[op2]
#[serde]
pub fn op_render_bake_load(state: &mut OpState, #[cppgc] device: &GPUDevice, #[string] key: &str, len: u32) -> Option<ToJsBuffer> {
  let cache = state.try_borrow::<BakeCache>()?;
  cache.load(&adapter_of(device), key, len as usize).map(Into::into)
}

/// Stores the map of `key` for `device`'s adapter; nothing when there is no cache.
#[op2]
pub fn op_render_bake_store(state: &mut OpState, #[cppgc] device: &GPUDevice, #[string] key: &str, #[anybuffer] map: &[u8]) -> Result<(), OpError> {
  let Some(cache) = state.try_borrow::<BakeCache>() else { return Ok(()) };
  cache.store(&adapter_of(device), key, map).map_err(|e| OpError::io(format!("environment bake cache: cannot write in {}", cache.dir.display()), e))
}

#[cfg(test)]
mod tests {
  use super::*;

  fn cache(name: &str, max_bytes: u64) -> BakeCache {
    let dir = std::env::temp_dir().join(format!("limina-bakes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    BakeCache { dir, build: "build 1".into(), max_bytes }
  }

  fn files(c: &BakeCache) -> Vec<PathBuf> {
    std::fs::read_dir(&c.dir).unwrap().map(|f| f.unwrap().path()).collect()
  }

  #[test]
  fn a_map_round_trips_and_any_other_key_adapter_build_or_length_misses() {
    let c = cache("rt", 1 << 30);
    let map: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
    assert!(c.load("lavapipe", "256 sky a", map.len()).is_none());
    c.store("lavapipe", "256 sky a", &map).unwrap();
    assert_eq!(c.load("lavapipe", "256 sky a", map.len()).unwrap(), map);
    assert!(c.load("lavapipe", "256 sky b", map.len()).is_none(), "another sky");
    assert!(c.load("other driver", "256 sky a", map.len()).is_none(), "another adapter or driver");
    assert!(c.load("lavapipe", "256 sky a", map.len() - 8).is_none(), "another size");
    let other = BakeCache { build: "build 2".into(), ..c.clone() };
    assert!(other.load("lavapipe", "256 sky a", map.len()).is_none(), "another build");
    std::fs::remove_dir_all(&c.dir).unwrap();
  }

  #[test]
  fn a_damaged_or_short_file_is_a_miss_and_a_store_replaces_it() {
    let c = cache("damage", 1 << 30);
    let map = vec![9u8; 1000];
    c.store("a", "k", &map).unwrap();
    let path = files(&c).pop().unwrap();
    let whole = std::fs::read(&path).unwrap();
    let mut flipped = whole.clone();
    flipped[500] ^= 1;
    std::fs::write(&path, &flipped).unwrap();
    assert!(c.load("a", "k", map.len()).is_none(), "a flipped byte");
    std::fs::write(&path, &whole[..whole.len() - 1]).unwrap();
    assert!(c.load("a", "k", map.len()).is_none(), "a short file");
    std::fs::write(&path, b"").unwrap();
    assert!(c.load("a", "k", map.len()).is_none(), "an empty file");
    c.store("a", "k", &map).unwrap();
    assert_eq!(c.load("a", "k", map.len()).unwrap(), map);
    std::fs::remove_dir_all(&c.dir).unwrap();
  }

  #[test]
  fn the_cache_stays_within_its_bound_dropping_the_oldest() {
    let c = cache("bound", 2500);
    for key in ["first", "second", "third"] {
      c.store("a", key, &[1u8; 1000]).unwrap();
      std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(files(&c).len(), 2, "two maps of 1,072 bytes fit in 2,500");
    assert!(c.load("a", "first", 1000).is_none() && c.load("a", "third", 1000).is_some());
    std::fs::remove_dir_all(&c.dir).unwrap();
  }

  #[test]
  fn a_loaded_map_is_kept_over_one_used_less_recently() {
    let c = cache("used", 2500);
    for key in ["first", "second"] {
      c.store("a", key, &[1u8; 1000]).unwrap();
      std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(c.load("a", "first", 1000).is_some());
    std::thread::sleep(std::time::Duration::from_millis(20));
    c.store("a", "third", &[1u8; 1000]).unwrap();
    assert!(c.load("a", "first", 1000).is_some(), "loaded after the second was stored: kept");
    assert!(c.load("a", "second", 1000).is_none(), "the least recently used goes");
    std::fs::remove_dir_all(&c.dir).unwrap();
  }

  #[test]
  fn a_directory_under_a_regular_file_is_an_error() {
    let c = cache("file", 1 << 20);
    std::fs::write(&c.dir, b"not a directory").unwrap();
    let under = BakeCache { dir: c.dir.join("bakes"), ..c.clone() };
    assert!(under.store("a", "k", &[0; 8]).is_err());
    assert!(under.load("a", "k", 8).is_none());
    std::fs::remove_file(&c.dir).unwrap();
  }
}
