//! Files written whole or not at all: the bytes go to a hidden temporary `.NAME.PID-N.part` beside
//! the target, which is renamed (or, by the caller, linked) into place, so a reader sees the old file
//! or the whole new one. A process killed mid-write leaves only its temporary, which the next writer
//! of that name sweeps once the process is gone.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh temporary name beside `path` for this process (unique between its threads too).
pub fn temp_path(path: &Path) -> PathBuf {
  static NEXT: AtomicU64 = AtomicU64::new(0);
  let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
  path.with_file_name(format!(".{name}.{}-{}.part", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)))
}

/// The file name and writing process of the temporary file `file` (named as [`temp_path`] names them).
pub fn temp_owner(file: &str) -> Option<(&str, u32)> {
  let (name, tail) = file.strip_prefix('.')?.strip_suffix(".part")?.rsplit_once('.')?;
  let (pid, n) = tail.split_once('-')?;
  n.parse::<u64>().ok()?;
  Some((name, pid.parse().ok()?))
}

/// Removes the temporaries in `dir` whose writing process is gone: of the file `name` only, or of
/// any name when `name` is `None`.
pub fn sweep_abandoned(dir: &Path, name: Option<&str>) {
  let Ok(entries) = std::fs::read_dir(dir) else {
    return;
  };
  for entry in entries.flatten() {
    let file = entry.file_name();
    let Some((of, pid)) = file.to_str().and_then(temp_owner) else {
      continue;
    };
    if name.is_none_or(|n| n == of) && pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
      let _ = std::fs::remove_file(entry.path());
    }
  }
}

/// Writes `parts` to `path` whole. Not synced: for caches, whose readers check what they read (a
/// file a crash tore is a miss), written on the loop thread where an fsync would stall a step.
pub fn write_whole(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
  write_via_temp(path, parts, 0o666, false)
}

/// Writes `parts` to `path` whole and durably (the file and its directory entry fsynced: the new
/// contents survive a crash, or the old ones stay), created with `mode` (less the umask), and sweeps
/// what killed writers of the same name left.
pub fn write_durably(path: &Path, parts: &[&[u8]], mode: u32) -> std::io::Result<()> {
  write_via_temp(path, parts, mode, true)?;
  if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
    sweep_abandoned(&dir_of(path), Some(name));
  }
  Ok(())
}

fn dir_of(path: &Path) -> PathBuf {
  match path.parent() {
    Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
    _ => PathBuf::from("."),
  }
}

fn write_via_temp(path: &Path, parts: &[&[u8]], mode: u32, durable: bool) -> std::io::Result<()> {
  if path.file_name().is_none() {
    return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file"));
  }
  let temp = temp_path(path);
  let written = (|| {
    let mut f = OpenOptions::new().write(true).create_new(true).mode(mode).open(&temp)?;
    parts.iter().try_for_each(|p| f.write_all(p))?;
    if durable {
      f.sync_all()?;
    }
    std::fs::rename(&temp, path)?;
    if durable {
      File::open(dir_of(path))?.sync_all()?;
    }
    Ok(())
  })();
  if written.is_err() {
    let _ = std::fs::remove_file(&temp);
  }
  written
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::os::unix::fs::PermissionsExt;

  fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
  }

  #[test]
  fn a_file_is_replaced_whole_and_what_killed_writers_left_is_swept() {
    let dir = std::env::temp_dir().join(format!("limina-whole-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.world");
    write_whole(&path, &[b"o", b"ne"]).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"one");
    let dead = ".w.world.4294967295-0.part"; // a pid no process has
    let alive = format!(".w.world.{}-99.part", std::process::id());
    for f in [dead, alive.as_str(), ".other.4294967295-0.part", ".notes.part"] {
      std::fs::write(dir.join(f), "x").unwrap();
    }
    assert_eq!(temp_owner(dead), Some(("w.world", u32::MAX)));
    assert_eq!(temp_owner(".notes.part"), None);
    write_durably(&path, &[b"two"], 0o600).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(listing(&dir), [".notes.part", ".other.4294967295-0.part", alive.as_str(), "w.world"], "only the dead writer's temporary of this name is gone");
    sweep_abandoned(&dir, None);
    assert_eq!(listing(&dir), [".notes.part", alive.as_str(), "w.world"]);
    std::fs::remove_dir_all(&dir).unwrap();
  }

  #[test]
  fn a_failed_write_leaves_the_old_file_and_no_temporary() {
    let dir = std::env::temp_dir().join(format!("limina-whole-file-fail-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("taken")).unwrap();
    // Renaming a file over a non-empty directory fails after the temporary is written.
    std::fs::write(dir.join("taken/inside"), "x").unwrap();
    assert!(write_durably(&dir.join("taken"), &[b"new"], 0o644).is_err());
    assert_eq!(listing(&dir), ["taken"]);
    assert!(write_whole(Path::new("/"), &[b"x"]).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
  }
}
