//! The disk cache of environment bakes across processes: a second process
//! loads the map the first baked and draws the same frame; a damaged or
//! short file is never served — the map is baked again and the file
//! replaced. Needs a WebGPU adapter (lavapipe will do).

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(cache: &Path) -> String {
  let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
  let out = Command::new(env!("CARGO_BIN_EXE_limina"))
    .args(["--deterministic", "tests/fixtures/bake_cache.ts"])
    .current_dir(root)
    .env("LIMINA_CACHE_DIR", cache)
    .env_remove("LIMINA_SOURCE_DIR")
    .output()
    .unwrap();
  let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
  assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
  stdout.trim().to_string()
}

/// The one stored map.
fn map_file(cache: &Path) -> PathBuf {
  let code = std::fs::read_dir(cache).unwrap().map(|e| e.unwrap().path()).find(|p| p.file_name().unwrap().to_string_lossy().starts_with("code-")).unwrap();
  let maps: Vec<PathBuf> = std::fs::read_dir(code.join("bakes")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "pmrem")).collect();
  assert_eq!(maps.len(), 1, "{maps:?}");
  maps[0].clone()
}

#[test]
fn a_stored_bake_is_loaded_by_the_next_process_and_a_damaged_one_is_baked_again() {
  let cache = std::env::temp_dir().join(format!("limina-bake-cache-{}", std::process::id()));
  let _ = std::fs::remove_dir_all(&cache);
  let cold = run(&cache);
  assert!(cold.starts_with("baked=1 loaded=0 frame="), "{cold}");
  let frame = cold.rsplit_once(' ').unwrap().1.to_string();
  let file = map_file(&cache);
  let whole = std::fs::read(&file).unwrap();
  assert!(whole.len() > 4_000_000, "a 256² map of 6 levels: {} bytes", whole.len());
  assert_eq!(run(&cache), format!("baked=0 loaded=1 {frame}"), "the next process loads the map and draws the same frame");

  let mut flipped = whole.clone();
  flipped[whole.len() / 2] ^= 0x40;
  std::fs::write(&file, &flipped).unwrap();
  assert_eq!(run(&cache), format!("baked=1 loaded=0 {frame}"), "a flipped byte: baked again");
  assert_eq!(std::fs::read(map_file(&cache)).unwrap(), whole, "and the file replaced by the same map");
  std::fs::write(&file, &whole[..whole.len() - 1000]).unwrap();
  assert_eq!(run(&cache), format!("baked=1 loaded=0 {frame}"), "a short file: baked again");
  assert_eq!(run(&cache), format!("baked=0 loaded=1 {frame}"));
  let _ = std::fs::remove_dir_all(&cache);
}
