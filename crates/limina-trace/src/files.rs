//! Trace files: confined to the trace directory, written whole under a
//! hidden temporary name and published atomically, never replacing a file.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use limina_ops::{whole_file, OpError};

/// O_NOFOLLOW on Linux (all architectures Limina builds for): a symlink
/// planted under a trace name is never written through.
const O_NOFOLLOW: i32 = 0o400000;

/// How many `stem-N.jsonl` names an export tries before giving up.
const MAX_SUFFIX: u32 = 10_000;

/// Where trace files go: `$LIMINA_TRACE_DIR`, else `traces/` in the working directory.
pub fn trace_dir() -> Result<PathBuf, OpError> {
  match std::env::var_os("LIMINA_TRACE_DIR") {
    Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
    _ => Ok(std::env::current_dir()?.join("traces")),
  }
}

/// A trace file name: one path segment of letters, digits, `.`, `_`, `-`
/// (no leading dot), `.jsonl` added when missing. Anything else — slashes,
/// `..`, empty, absolute paths — is rejected, so nothing lands outside the
/// trace directory, and no name can address a hidden temporary file.
pub fn trace_file_name(name: &str) -> Result<String, OpError> {
  let ok = !name.is_empty()
    && name.len() <= 128
    && !name.starts_with('.')
    && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    && !name.contains("..");
  if !ok {
    return Err(OpError::invalid_input(format!(
      "trace name {name:?} must be 1–128 letters, digits, '.', '_' or '-', not starting with '.' and without '..'"
    )));
  }
  Ok(if name.ends_with(".jsonl") { name.to_owned() } else { format!("{name}.jsonl") })
}

#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Written {
  pub name: String,
  pub path: String,
  pub bytes: u64,
}

/// What publishing does when the name is taken.
#[derive(Clone, Copy)]
pub enum OnTaken {
  /// Refuse, naming the file (a caller that chose an exact file).
  Refuse,
  /// Take the first free `stem-N.jsonl`, N = 2, 3, … (an export: callers read the name back).
  NextFree,
}

/// The trace directory, created if missing.
pub fn ensure_trace_dir() -> Result<PathBuf, OpError> {
  let dir = trace_dir()?;
  std::fs::create_dir_all(&dir).map_err(|e| OpError::io(format!("cannot create the trace directory {}", dir.display()), e))?;
  Ok(dir)
}

/// A trace file being written: a hidden `.NAME.PID-N.part` beside its
/// final name, removed unless it is published. Dying before that leaves at
/// most this hidden file, which no trace name can address.
pub struct TempTrace {
  pub file: File,
  dir: PathBuf,
  temp: PathBuf,
  name: String,
}

impl TempTrace {
  /// Starts writing a trace file for `name` in `dir` (first removing what
  /// exports killed before they finished left there).
  pub fn create(dir: &Path, name: &str) -> Result<Self, OpError> {
    let name = trace_file_name(name)?;
    let dir = dir.to_owned();
    whole_file::sweep_abandoned(&dir, None);
    let temp = whole_file::temp_path(&dir.join(&name));
    let file = OpenOptions::new()
      .read(true)
      .write(true)
      .create_new(true)
      .custom_flags(O_NOFOLLOW)
      .open(&temp)
      .map_err(|e| OpError::io(format!("cannot create {}", temp.display()), e))?;
    Ok(Self { file, dir, temp, name })
  }

  /// Makes the finished file durable and visible under its name: fsync,
  /// link under the name (never over an existing file), drop the temporary
  /// name, fsync the directory so the new entry survives a crash.
  pub fn publish(self, on_taken: OnTaken) -> Result<Written, OpError> {
    self.file.sync_all().map_err(|e| OpError::io(format!("cannot sync {}", self.temp.display()), e))?;
    let bytes = self.file.metadata()?.len();
    let stem = self.name.strip_suffix(".jsonl").unwrap_or(&self.name);
    let mut n = 1;
    let name = loop {
      let candidate = if n == 1 { self.name.clone() } else { format!("{stem}-{n}.jsonl") };
      let path = self.dir.join(&candidate);
      match std::fs::hard_link(&self.temp, &path) {
        Ok(()) => break candidate,
        Err(e) if e.kind() == ErrorKind::AlreadyExists => match on_taken {
          OnTaken::Refuse => {
            return Err(OpError::invalid_input(format!(
              "trace file {} already exists; trace files are never replaced (choose another name)",
              path.display()
            )))
          }
          OnTaken::NextFree if n < MAX_SUFFIX => n += 1,
          OnTaken::NextFree => {
            return Err(OpError::capacity_exceeded(format!(
              "trace names {} and {stem}-2.jsonl … {stem}-{MAX_SUFFIX}.jsonl are all taken in {}",
              self.name,
              self.dir.display()
            )))
          }
        },
        Err(e) => return Err(OpError::io(format!("cannot publish {}", path.display()), e)),
      }
    };
    // Drop (below) removes the temporary name.
    sync_dir(&self.dir)?;
    Ok(Written { path: self.dir.join(&name).to_string_lossy().into_owned(), name, bytes })
  }
}

impl Drop for TempTrace {
  fn drop(&mut self) {
    let _ = std::fs::remove_file(&self.temp);
  }
}

fn sync_dir(dir: &Path) -> Result<(), OpError> {
  File::open(dir).and_then(|d| d.sync_all()).map_err(|e| OpError::io(format!("cannot sync {}", dir.display()), e))
}

/// Creates an empty live trace file under exactly `name` (a live log grows
/// in place); an existing file is refused, naming it.
pub fn create_live(dir: &Path, name: &str) -> Result<(File, String), OpError> {
  let path = dir.join(trace_file_name(name)?);
  let file = OpenOptions::new()
    .read(true)
    .write(true)
    .create_new(true)
    .custom_flags(O_NOFOLLOW)
    .open(&path)
    .map_err(|e| match e.kind() {
      ErrorKind::AlreadyExists => OpError::invalid_input(format!(
        "trace file {} already exists; a live world log never replaces a file (choose another logName)",
        path.display()
      )),
      _ => OpError::io(format!("cannot create {}", path.display()), e),
    })?;
  sync_dir(dir)?;
  Ok((file, path.to_string_lossy().into_owned()))
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::sync::atomic::{AtomicU64, Ordering};

  #[test]
  fn trace_names_are_confined() {
    assert_eq!(trace_file_name("run-1").unwrap(), "run-1.jsonl");
    assert_eq!(trace_file_name("a.b_c.jsonl").unwrap(), "a.b_c.jsonl");
    for bad in ["", "../x", "a/b", "/etc/passwd", ".hidden", "a..b", "x y", "é", &"n".repeat(129)] {
      assert!(trace_file_name(bad).is_err(), "{bad:?} must be rejected");
    }
  }

  fn scratch_dir() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!("limina-trace-files-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).unwrap();
    dir
  }

  fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
  }

  fn write(dir: &Path, name: &str, content: &str, on_taken: OnTaken) -> Result<Written, OpError> {
    use std::io::Write;
    let mut t = TempTrace::create(dir, name)?;
    t.file.write_all(content.as_bytes()).unwrap();
    t.publish(on_taken)
  }

  #[test]
  fn a_file_is_published_whole_and_never_over_another() {
    let dir = scratch_dir();
    let first = write(&dir, "run", "one\n", OnTaken::NextFree).unwrap();
    assert_eq!((first.name.as_str(), first.bytes), ("run.jsonl", 4));
    assert_eq!(write(&dir, "run.jsonl", "two\n", OnTaken::NextFree).unwrap().name, "run-2.jsonl");
    assert_eq!(write(&dir, "run", "three\n", OnTaken::NextFree).unwrap().name, "run-3.jsonl");
    let e = write(&dir, "run", "four\n", OnTaken::Refuse).unwrap_err();
    assert_eq!(e.code, limina_ops::ErrorCode::InvalidInput);
    assert_eq!(e.message, format!("trace file {} already exists; trace files are never replaced (choose another name)", dir.join("run.jsonl").display()));
    assert_eq!(std::fs::read_to_string(dir.join("run.jsonl")).unwrap(), "one\n", "the first file is untouched");
    assert_eq!(listing(&dir), ["run-2.jsonl", "run-3.jsonl", "run.jsonl"], "no temporary file is left behind");

    // An unpublished file leaves nothing.
    drop(TempTrace::create(&dir, "abandoned").unwrap());
    assert_eq!(listing(&dir).len(), 3);

    // What a killed export left is swept by the next one; a live writer's is not.
    let dead = ".run.jsonl.4294967295-0.part"; // a pid no process has
    let alive = format!(".run.jsonl.{}-99.part", std::process::id());
    for f in [dead, alive.as_str(), ".notes.part"] {
      std::fs::write(dir.join(f), "x").unwrap();
    }
    assert_eq!(write(&dir, "run", "five\n", OnTaken::NextFree).unwrap().name, "run-4.jsonl");
    assert!(!dir.join(dead).exists());
    assert!(dir.join(&alive).exists() && dir.join(".notes.part").exists());
    for f in [alive.as_str(), ".notes.part", "run-4.jsonl"] {
      std::fs::remove_file(dir.join(f)).unwrap();
    }

    // A symlink under the name is a taken name, never written through.
    let target = dir.join("target");
    std::os::unix::fs::symlink(&target, dir.join("link.jsonl")).unwrap();
    assert_eq!(write(&dir, "link", "x\n", OnTaken::NextFree).unwrap().name, "link-2.jsonl");
    assert!(!target.exists());
    std::fs::remove_dir_all(&dir).unwrap();
  }

  #[test]
  fn a_live_file_is_created_under_exactly_its_name_or_refused() {
    let dir = scratch_dir();
    let (_file, path) = create_live(&dir, "live").unwrap();
    assert_eq!(path, dir.join("live.jsonl").to_string_lossy());
    let e = create_live(&dir, "live").unwrap_err();
    assert_eq!(e.code, limina_ops::ErrorCode::InvalidInput);
    assert!(e.message.starts_with(&format!("trace file {path} already exists")), "{}", e.message);
    assert_eq!(create_live(&dir, "../x").unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
    std::fs::remove_dir_all(&dir).unwrap();
  }
}
