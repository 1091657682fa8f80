//! Save files: world files (see `world_file`) under names in one save
//! directory — `LIMINA_SAVE_DIR`, or `saves/` in the working directory —
//! as `NAME.limina-save`, written atomically, listed and deleted by name.
//! Names are one path segment, so nothing lands outside the directory.

use std::path::PathBuf;

use deno_core::futures::channel::oneshot;
use deno_core::op2;
use limina_ops::OpError;

use crate::world_file::{decode, encode, write_atomically};

const SUFFIX: &str = ".limina-save";

/// The save directory (not created until something is saved).
pub fn save_dir() -> Result<PathBuf, OpError> {
  match std::env::var_os("LIMINA_SAVE_DIR") {
    Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
    _ => Ok(std::env::current_dir().map_err(|e| OpError::io("cannot read the working directory", e))?.join("saves")),
  }
}

/// A save's file name: 1-64 letters, digits, `.`, `_` or `-`, not starting with a dot.
pub fn save_path(name: &str) -> Result<PathBuf, OpError> {
  let ok = !name.is_empty()
    && name.len() <= 64
    && !name.starts_with('.')
    && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-');
  if !ok {
    return Err(OpError::invalid_input(format!("bad save name {name:?}: 1-64 letters, digits, '.', '_' or '-', not starting with '.'")));
  }
  Ok(save_dir()?.join(format!("{name}{SUFFIX}")))
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedFile {
  name: String,
  path: String,
  bytes: u64,
}

/// Writes `body` as save `name` (replacing one of that name), atomically, on its own thread.
#[op2]
#[serde]
pub async fn op_save_write(#[string] name: String, #[buffer(copy)] body: Vec<u8>) -> Result<SavedFile, OpError> {
  let path = save_path(&name)?;
  let (tx, rx) = oneshot::channel();
  std::thread::Builder::new()
    .name("limina-save".into())
    .spawn(move || {
      let result = (|| {
        let dir = save_dir()?;
        std::fs::create_dir_all(&dir).map_err(|e| OpError::io(format!("cannot create the save directory {}", dir.display()), e))?;
        let file = encode(&body);
        write_atomically(&path, &file)?;
        Ok(SavedFile { name, path: path.to_string_lossy().into_owned(), bytes: file.len() as u64 })
      })();
      let _ = tx.send(result);
    })
    .map_err(|e| OpError::io("cannot start a save thread", e))?;
  rx.await.map_err(|_| OpError::internal("the save thread stopped"))?
}

/// The verified body of save `name`; `not_found` when there is none.
#[op2]
#[buffer]
pub fn op_save_read(#[string] name: &str) -> Result<Vec<u8>, OpError> {
  let path = save_path(name)?;
  let file = match std::fs::read(&path) {
    Ok(f) => f,
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(OpError::not_found(format!("no save named {name:?}"))),
    Err(e) => return Err(OpError::io(format!("cannot read the save {}", path.display()), e)),
  };
  decode(&file, &format!("save {name:?}"))
}

/// The saves in the save directory, by name.
#[op2]
#[serde]
pub fn op_save_list() -> Result<Vec<SavedFile>, OpError> {
  let dir = save_dir()?;
  let entries = match std::fs::read_dir(&dir) {
    Ok(e) => e,
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
    Err(e) => return Err(OpError::io(format!("cannot list the save directory {}", dir.display()), e)),
  };
  let mut out = Vec::new();
  for entry in entries.flatten() {
    let file = entry.file_name().to_string_lossy().into_owned();
    let Some(name) = file.strip_suffix(SUFFIX) else { continue };
    if save_path(name).is_err() {
      continue;
    }
    let bytes = entry.metadata().map(|m| m.len()).unwrap_or(0);
    out.push(SavedFile { name: name.to_owned(), path: entry.path().to_string_lossy().into_owned(), bytes });
  }
  out.sort_by(|a, b| a.name.cmp(&b.name));
  Ok(out)
}

/// Deletes save `name`; false when there was none.
#[op2(fast)]
pub fn op_save_delete(#[string] name: &str) -> Result<bool, OpError> {
  let path = save_path(name)?;
  match std::fs::remove_file(&path) {
    Ok(()) => Ok(true),
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
    Err(e) => Err(OpError::io(format!("cannot delete the save {}", path.display()), e)),
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn names_stay_inside_the_save_directory() {
    for bad in ["", ".hidden", "a/b", "../x", "a b", &"x".repeat(65)] {
      assert!(save_path(bad).is_err(), "{bad:?} must be refused");
    }
    let p = save_path("slot-1.v2").unwrap();
    assert_eq!(p.file_name().unwrap(), "slot-1.v2.limina-save");
  }
}
