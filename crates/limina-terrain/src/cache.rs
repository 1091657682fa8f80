//! The tile cache on disk: each generated tile's heights in a file named by
//! the sha256 of the region's key (its parameters and the algorithm's
//! version) and the tile's coordinates, checked by its own sha256 when read.
//! Bounded: after each store the oldest tiles go until the cache fits.
//!
//! Where: `$LIMINA_TERRAIN_CACHE` (`off` disables it; a directory that cannot
//! be used is an error), else `terrain/` in the start-up cache directory
//! (`$LIMINA_CACHE_DIR`, `$XDG_CACHE_HOME/limina`, `~/.cache/limina`), where a
//! directory that cannot be used only means no cache. `$LIMINA_TERRAIN_CACHE_MB`
//! bounds it (default 512).

use std::path::PathBuf;

use limina_ops::cache_files::trim_oldest;
use limina_ops::whole_file::write_whole;
use limina_ops::OpError;
use sha2::{Digest, Sha256};

use crate::region::{hex, Layout};

const MAGIC: &[u8; 4] = b"LTT1";

/// Where the cache is, and whether failing to use it is an error.
#[derive(Debug, Clone)]
pub struct TileCache {
  pub dir: PathBuf,
  pub strict: bool,
  pub max_bytes: u64,
}

impl TileCache {
  /// The cache the environment configures, or None when it is off.
  pub fn from_env() -> Option<TileCache> {
    let max_bytes = std::env::var("LIMINA_TERRAIN_CACHE_MB").ok().and_then(|v| v.parse::<u64>().ok()).unwrap_or(512) << 20;
    match std::env::var_os("LIMINA_TERRAIN_CACHE") {
      Some(d) if d == "off" => None,
      Some(d) if !d.is_empty() => Some(TileCache { dir: PathBuf::from(d), strict: true, max_bytes }),
      _ => {
        let base = match std::env::var_os("LIMINA_CACHE_DIR") {
          Some(d) if d == "off" => return None,
          Some(d) if !d.is_empty() => PathBuf::from(d),
          _ => std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?
            .join("limina"),
        };
        Some(TileCache { dir: base.join("terrain"), strict: false, max_bytes })
      }
    }
  }

  fn tile_path(&self, key: &str, tx: u32, tz: u32) -> PathBuf {
    let mut h = Sha256::new();
    h.update(key.as_bytes());
    h.update(tx.to_le_bytes());
    h.update(tz.to_le_bytes());
    let name = hex(&h.finalize());
    self.dir.join(&name[..2]).join(format!("{name}.tile"))
  }

  /// The region's heights when every tile is in the cache and intact.
  pub fn load(&self, key: &str, layout: &Layout) -> Option<Vec<f32>> {
    let n = layout.samples as usize;
    let r = layout.tile_samples as usize;
    let mut heights = vec![0.0f32; n * n];
    for tz in 0..layout.tiles {
      for tx in 0..layout.tiles {
        let bytes = std::fs::read(self.tile_path(key, tx, tz)).ok()?;
        let tile = decode(&bytes, r)?;
        let (x0, z0) = (tx as usize * (r - 1), tz as usize * (r - 1));
        for k in 0..r {
          heights[(z0 + k) * n + x0..(z0 + k) * n + x0 + r].copy_from_slice(&tile[k * r..(k + 1) * r]);
        }
      }
    }
    Some(heights)
  }

  /// Writes every tile (atomically: a temporary file renamed into place), then trims the cache.
  pub fn store(&self, key: &str, layout: &Layout, heights: &[f32]) -> Result<(), OpError> {
    let n = layout.samples as usize;
    let r = layout.tile_samples as usize;
    for tz in 0..layout.tiles {
      for tx in 0..layout.tiles {
        let (x0, z0) = (tx as usize * (r - 1), tz as usize * (r - 1));
        let mut tile = Vec::with_capacity(r * r);
        for k in 0..r {
          tile.extend_from_slice(&heights[(z0 + k) * n + x0..(z0 + k) * n + x0 + r]);
        }
        let path = self.tile_path(key, tx, tz);
        let dir = path.parent().expect("tile paths have a directory");
        std::fs::create_dir_all(dir).and_then(|()| write_whole(&path, &[&encode(&tile, r)])).map_err(|e| OpError::io(format!("terrain tile cache: cannot write {}", path.display()), e))?;
      }
    }
    self.trim().map_err(|e| OpError::io(format!("terrain tile cache: cannot trim {}", self.dir.display()), e))
  }

  /// Removes the least recently written tiles until the cache holds at most `max_bytes`.
  fn trim(&self) -> std::io::Result<()> {
    let mut files = Vec::new();
    let mut total = 0u64;
    for sub in std::fs::read_dir(&self.dir)? {
      let sub = sub?.path();
      if !sub.is_dir() {
        continue;
      }
      for f in std::fs::read_dir(&sub)? {
        let f = f?;
        let meta = f.metadata()?;
        if f.path().extension().is_some_and(|e| e == "tile") {
          total += meta.len();
          files.push((meta.modified()?, f.path(), meta.len()));
        }
      }
    }
    trim_oldest(files, total, self.max_bytes)
  }
}

fn encode(tile: &[f32], r: usize) -> Vec<u8> {
  let mut out = Vec::with_capacity(8 + tile.len() * 4 + 32);
  out.extend_from_slice(MAGIC);
  out.extend_from_slice(&(r as u32).to_le_bytes());
  for v in tile {
    out.extend_from_slice(&v.to_le_bytes());
  }
  let sum = Sha256::digest(&out[8..]);
  out.extend_from_slice(&sum);
  out
}

fn decode(bytes: &[u8], r: usize) -> Option<Vec<f32>> {
  let body = 8 + r * r * 4;
  if bytes.len() != body + 32 || &bytes[..4] != MAGIC || bytes[4..8] != (r as u32).to_le_bytes() {
    return None;
  }
  if Sha256::digest(&bytes[8..body]).as_slice() != &bytes[body..] {
    return None;
  }
  Some(bytes[8..body].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::region::RegionParams;
  use std::path::Path;

  fn layout() -> (RegionParams, Layout) {
    let p: RegionParams = serde_json::from_value(serde_json::json!({
      "seed": 3, "center": [0, 0], "size": 64, "resolution": 17, "tileSize": 32, "preset": "hills",
      "heightScale": 50, "seaLevel": 0, "erosion": {}
    }))
    .unwrap();
    let l = p.validate().unwrap();
    (p, l)
  }

  fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("limina-terrain-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
  }

  #[test]
  fn tiles_round_trip_and_damage_is_a_miss() {
    let (p, l) = layout();
    let heights: Vec<f32> = (0..l.samples * l.samples).map(|i| i as f32 * 0.5).collect();
    let cache = TileCache { dir: tmp("rt"), strict: true, max_bytes: 1 << 30 };
    assert!(cache.load(&p.key(), &l).is_none());
    cache.store(&p.key(), &l, &heights).unwrap();
    assert_eq!(cache.load(&p.key(), &l).unwrap(), heights);
    let path = cache.tile_path(&p.key(), 1, 0);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[20] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    assert!(cache.load(&p.key(), &l).is_none(), "a damaged tile is not served");
    std::fs::remove_dir_all(&cache.dir).unwrap();
  }

  #[test]
  fn the_cache_stays_within_its_bound() {
    let (p, l) = layout();
    let heights = vec![1.0f32; (l.samples * l.samples) as usize];
    let cache = TileCache { dir: tmp("bound"), strict: true, max_bytes: 3000 };
    cache.store(&p.key(), &l, &heights).unwrap();
    let count = walkdir(&cache.dir);
    assert!(count >= 1 && count < 4, "{count} tiles of 1.2 kB within 3 kB");
    std::fs::remove_dir_all(&cache.dir).unwrap();
  }

  fn walkdir(d: &Path) -> usize {
    std::fs::read_dir(d).unwrap().flatten().map(|e| if e.path().is_dir() { walkdir(&e.path()) } else { 1 }).sum()
  }

  #[test]
  fn a_directory_under_a_regular_file_is_a_clear_error() {
    let (p, l) = layout();
    let file = tmp("file");
    std::fs::write(&file, b"not a directory").unwrap();
    let cache = TileCache { dir: file.join("cache"), strict: true, max_bytes: 1 << 20 };
    let e = cache.store(&p.key(), &l, &vec![0.0; (l.samples * l.samples) as usize]).unwrap_err();
    assert_eq!(e.code, limina_ops::ErrorCode::Io);
    assert!(e.message.contains("terrain tile cache: cannot write") && e.message.contains("Not a directory"), "{}", e.message);
    std::fs::remove_file(&file).unwrap();
  }
}
