//! Sandboxed assets: skills name an asset id, never a path. The id is
//! resolved through the user's `assets/manifest.json` (or
//! `$LIMINA_ASSETS_DIR`), whose files must lie inside that directory, and
//! then among the built-in assets embedded in the binary (what the demos use).

use std::borrow::Cow;
use std::cell::RefCell;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use deno_core::{op2, OpState};
use limina_ops::{OpError, Work};

use crate::embedded;

fn asset_root() -> Result<PathBuf, OpError> {
  match std::env::var_os("LIMINA_ASSETS_DIR") {
    Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
    _ => Ok(std::env::current_dir()?.join("assets")),
  }
}

/// One asset of a manifest (docs/assets.md; the JSON Schema is docs/asset-manifest.schema.json).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssetEntry {
  pub kind: String,
  pub path: String,
  #[serde(default)]
  pub description: String,
}

#[derive(serde::Deserialize)]
struct Manifest {
  assets: std::collections::BTreeMap<String, AssetEntry>,
}

/// A user's manifest as read: each entry on its own, so one malformed entry
/// fails alone (naming itself) and the rest, and the built-in assets, still load.
pub struct UserManifest {
  pub entries: std::collections::BTreeMap<String, Result<AssetEntry, String>>,
}

/// Why a whole manifest file cannot be used (not JSON, no `assets` object).
fn manifest_error(detail: impl std::fmt::Display) -> OpError {
  OpError::invalid_input(format!(
    "the asset manifest manifest.json is malformed: {detail} (expected {{\"assets\": {{\"<id>\": {{\"kind\": \"gltf\", \"path\": \"models/x.glb\"}}}}}}; see docs/assets.md)"
  ))
}

fn entry_of(id: &str, value: serde_json::Value) -> Result<AssetEntry, String> {
  if !valid_id(id) {
    return Err(format!("asset id {id:?} must be 1–64 lower-case letters, digits, '.', '_' or '-'"));
  }
  let entry: AssetEntry = serde_json::from_value(value).map_err(|e| format!("asset manifest entry {id:?} is malformed: {e}"))?;
  if entry.kind.is_empty() || entry.path.is_empty() {
    return Err(format!("asset manifest entry {id:?} is malformed: kind and path must not be empty"));
  }
  Ok(entry)
}

/// The user's manifest under `root`: `Ok(None)` when there is none; an error when the file as a whole cannot be used.
pub fn user_manifest(root: &Path) -> Result<Option<UserManifest>, OpError> {
  let text = match read_regular(&root.join("manifest.json"), MAX_MANIFEST_BYTES, "the asset manifest manifest.json") {
    Ok(text) => text,
    Err(ReadError::Missing) => return Ok(None),
    Err(ReadError::Op(e)) => return Err(e),
  };
  let value: serde_json::Value = serde_json::from_slice(&text).map_err(manifest_error)?;
  let Some(assets) = value.get("assets").and_then(|a| a.as_object()) else {
    return Err(manifest_error("it has no \"assets\" object"));
  };
  let entries = assets.iter().map(|(id, v)| (id.clone(), entry_of(id, v.clone()))).collect();
  Ok(Some(UserManifest { entries }))
}

fn valid_id(id: &str) -> bool {
  !id.is_empty()
    && id.len() <= 64
    && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
    && !id.starts_with('.')
}

fn check_id(id: &str) -> Result<(), OpError> {
  if valid_id(id) {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("asset id {id:?} must be 1–64 lower-case letters, digits, '.', '_' or '-'")))
  }
}

/// The user's manifest entry for `id`: `Ok(None)` when there is no manifest or no such id;
/// a malformed entry for `id` (or a malformed manifest) is an error naming it.
fn user_entry(root: &Path, id: &str) -> Result<Option<AssetEntry>, OpError> {
  match user_manifest(root)?.and_then(|m| m.entries.get(id).cloned()) {
    None => Ok(None),
    Some(Ok(entry)) => Ok(Some(entry)),
    Some(Err(why)) => Err(OpError::invalid_input(why)),
  }
}

fn builtin_manifest() -> Manifest {
  let text = embedded::get("assets/manifest.json").expect("the built-in asset manifest is embedded");
  serde_json::from_slice(&text).expect("the built-in asset manifest is valid")
}

/// Where an asset's bytes come from.
#[derive(Debug)]
pub enum AssetFile {
  User(PathBuf),
  Builtin(&'static str),
}

/// The entry for `id`: the user's first, then the built-in one. A user
/// manifest that cannot be read at all does not hide the built-in assets.
pub fn find(root: &Path, id: &str) -> Result<(AssetEntry, AssetFile), OpError> {
  check_id(id)?;
  let builtin = builtin_manifest();
  match user_manifest(root) {
    Ok(Some(m)) => match m.entries.get(id) {
      Some(Ok(_)) => {
        let (entry, file) = resolve_in(root, id)?;
        return Ok((entry, AssetFile::User(file)));
      }
      Some(Err(why)) => return Err(OpError::invalid_input(why.clone())),
      None => {}
    },
    Ok(None) => {}
    Err(e) if !builtin.assets.contains_key(id) => return Err(e),
    // A manifest broken as a whole hides none of the built-in assets.
    Err(_) => {}
  }
  let Some(entry) = builtin.assets.get(id).cloned() else {
    let names: Vec<&str> = builtin.assets.keys().map(String::as_str).collect();
    return Err(OpError::not_found(format!(
      "unknown asset {id:?}: not in the asset manifest nor among the built-in assets ({})",
      names.join(", ")
    )));
  };
  let path = embedded::list("assets")
    .into_iter()
    .find(|p| p.strip_prefix("assets/") == Some(entry.path.as_str()))
    .ok_or_else(|| OpError::internal(format!("built-in asset {id} names {} which is not embedded", entry.path)))?;
  Ok((entry, AssetFile::Builtin(path)))
}

/// The manifest entry for `id` and the file it names, confined to `root`.
pub fn resolve_in(root: &Path, id: &str) -> Result<(AssetEntry, PathBuf), OpError> {
  check_id(id)?;
  let entry = user_entry(root, id)?
    .ok_or_else(|| OpError::not_found(format!("unknown asset {id:?} (not in the asset manifest)")))?;
  let rel = Path::new(&entry.path);
  if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
    return Err(OpError::invalid_input(format!("asset {id} has a path outside the asset directory: {}", entry.path)));
  }
  let root = root.canonicalize().map_err(|e| OpError::io("cannot open the asset directory", e))?;
  let file = root.join(rel).canonicalize().map_err(|e| OpError::io(format!("asset {id}: cannot open {}", entry.path), e))?;
  if !file.starts_with(&root) {
    return Err(OpError::invalid_input(format!("asset {id} resolves outside the asset directory")));
  }
  Ok((entry, file))
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedAsset {
  id: String,
  kind: String,
  /// The manifest path, relative to the asset directory.
  source: String,
  description: String,
}

/// An asset's manifest entry, read off the loop thread.
#[op2]
#[serde]
pub async fn op_assets_resolve(state: Rc<RefCell<OpState>>, #[string] id: String) -> Result<ResolvedAsset, OpError> {
  let _busy = Work::begin(&state.borrow());
  tokio::task::spawn_blocking(move || {
    let (entry, _) = find(&asset_root()?, &id)?;
    Ok(ResolvedAsset { id, kind: entry.kind, source: entry.path, description: entry.description })
  })
  .await
  .map_err(|e| OpError::internal(format!("asset lookup failed: {e}")))?
}

/// The largest asset file read.
pub const MAX_ASSET_BYTES: u64 = 256 << 20;
/// The largest asset manifest read.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

enum ReadError {
  Missing,
  Op(OpError),
}

/// Reads a regular file of at most `cap` bytes. Anything else — a FIFO, a
/// device, a directory, a file over the cap — is an error, never a hang:
/// the open does not wait for a FIFO's writer, and the type is checked on
/// the opened file. Messages name `what`, never a server path.
fn read_regular(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, ReadError> {
  use std::io::Read;
  use std::os::unix::fs::OpenOptionsExt;
  let file = match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path) {
    Ok(file) => file,
    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadError::Missing),
    Err(e) => return Err(ReadError::Op(OpError::io(format!("cannot open {what}"), e))),
  };
  let meta = file.metadata().map_err(|e| ReadError::Op(OpError::io(format!("cannot inspect {what}"), e)))?;
  if !meta.is_file() {
    return Err(ReadError::Op(OpError::invalid_input(format!("{what} is not a regular file"))));
  }
  if meta.len() > cap {
    return Err(ReadError::Op(OpError::capacity_exceeded(format!("{what} is {} bytes, over the {cap}-byte limit", meta.len()))));
  }
  let mut bytes = Vec::with_capacity(meta.len() as usize);
  file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| ReadError::Op(OpError::io(format!("cannot read {what}"), e)))?;
  if bytes.len() as u64 > cap {
    return Err(ReadError::Op(OpError::capacity_exceeded(format!("{what} grew over the {cap}-byte limit while being read"))));
  }
  Ok(bytes)
}

fn read(id: &str) -> Result<Vec<u8>, OpError> {
  match find(&asset_root()?, id)?.1 {
    AssetFile::User(file) => read_regular(&file, MAX_ASSET_BYTES, &format!("asset {id}")).map_err(|e| match e {
      ReadError::Missing => OpError::not_found(format!("asset {id}: its file is gone")),
      ReadError::Op(e) => e,
    }),
    AssetFile::Builtin(path) => Ok(embedded::get(path).map(Cow::into_owned).unwrap_or_default()),
  }
}

/// An asset's bytes, read off the loop thread.
#[op2]
#[buffer]
pub async fn op_assets_read(state: Rc<RefCell<OpState>>, #[string] id: String) -> Result<Vec<u8>, OpError> {
  let _busy = Work::begin(&state.borrow());
  tokio::task::spawn_blocking(move || read(&id)).await.map_err(|e| OpError::internal(format!("asset read failed: {e}")))?
}

#[cfg(test)]
mod tests {
  use super::*;

  /// An asset directory of its own per test (tests run in parallel).
  fn root(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("limina-assets-{}-{test}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("models/a.glb"), b"glTF").unwrap();
    std::fs::write(dir.join("secret.txt"), b"no").unwrap();
    std::fs::write(
      dir.join("manifest.json"),
      r#"{"assets":{"a":{"kind":"gltf","path":"models/a.glb"},"up":{"kind":"gltf","path":"../etc/passwd"},"abs":{"kind":"gltf","path":"/etc/passwd"},"gone":{"kind":"gltf","path":"models/missing.glb"}}}"#,
    )
    .unwrap();
    dir
  }

  #[test]
  fn ids_resolve_inside_the_asset_directory_only() {
    let r = root("confined");
    let (entry, file) = resolve_in(&r, "a").unwrap();
    assert_eq!(entry.kind, "gltf");
    assert!(file.ends_with("models/a.glb"));
    for (id, code) in [
      ("up", limina_ops::ErrorCode::InvalidInput),
      ("abs", limina_ops::ErrorCode::InvalidInput),
      ("gone", limina_ops::ErrorCode::NotFound),
      ("nope", limina_ops::ErrorCode::NotFound),
      ("../secret.txt", limina_ops::ErrorCode::InvalidInput),
      ("A", limina_ops::ErrorCode::InvalidInput),
    ] {
      assert_eq!(resolve_in(&r, id).unwrap_err().code, code, "{id}");
    }
  }

  #[test]
  fn built_in_assets_back_up_the_users() {
    let r = root("builtin");
    assert!(matches!(find(&r, "a").unwrap().1, AssetFile::User(_)), "the user's own asset");
    let (entry, file) = find(&r, "crate").unwrap();
    assert_eq!(entry.kind, "gltf");
    let AssetFile::Builtin(path) = file else { panic!("crate is built in") };
    assert!(embedded::get(path).unwrap().starts_with(b"glTF"));
    let e = find(&r, "nope").unwrap_err();
    assert_eq!(e.code, limina_ops::ErrorCode::NotFound);
    assert!(
      e.message.contains("built-in assets (checker_cube, crate, hdri_city, hdri_dawn, hdri_forest, hdri_night, hdri_park, hdri_studio, hdri_sunset, hdri_warehouse)"),
      "{}",
      e.message
    );
    let nowhere = std::env::temp_dir().join("limina-no-assets-here");
    assert!(matches!(find(&nowhere, "checker_cube").unwrap().1, AssetFile::Builtin(_)));
  }

  fn dir_with(test: &str, manifest: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("limina-assets-{}-{test}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("models/a.glb"), b"glTF").unwrap();
    std::fs::write(dir.join("manifest.json"), manifest).unwrap();
    dir
  }

  #[test]
  fn a_malformed_entry_fails_alone_naming_itself() {
    let r = dir_with(
      "entry",
      r#"{"assets":{"a":{"kind":"gltf","path":"models/a.glb"},"typo":{"kind":"gltf","pth":"models/a.glb"},"empty":{"kind":"","path":"x"}}}"#,
    );
    assert!(matches!(find(&r, "a").unwrap().1, AssetFile::User(_)), "the good entry still loads");
    let e = find(&r, "typo").unwrap_err();
    assert_eq!(e.code, limina_ops::ErrorCode::InvalidInput);
    assert!(e.message.contains("entry \"typo\"") && e.message.contains("pth"), "{}", e.message);
    assert!(find(&r, "empty").unwrap_err().message.contains("must not be empty"));
    assert!(matches!(find(&r, "crate").unwrap().1, AssetFile::Builtin(_)));
  }

  #[test]
  fn a_broken_manifest_hides_no_built_in_asset_and_says_why_for_its_own() {
    for (test, text, why) in [("json", "{ not json", "malformed"), ("shape", r#"{"models":{}}"#, "no \"assets\" object")] {
      let r = dir_with(test, text);
      assert!(matches!(find(&r, "crate").unwrap().1, AssetFile::Builtin(_)), "{test}: crate still resolves");
      let e = find(&r, "a").unwrap_err();
      assert_eq!(e.code, limina_ops::ErrorCode::InvalidInput, "{test}");
      assert!(e.message.contains(why) && e.message.contains("docs/assets.md"), "{test}: {}", e.message);
    }
  }
}
