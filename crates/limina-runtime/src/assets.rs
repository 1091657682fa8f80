//! Sandboxed assets: skills name an asset id, never a path. The id is
//! resolved through `assets/manifest.json` (or `$LIMINA_ASSETS_DIR`) and the
//! file it names must lie inside the asset directory.

use std::path::{Component, Path, PathBuf};

use deno_core::op2;
use limina_ops::OpError;

fn asset_root() -> Result<PathBuf, OpError> {
  match std::env::var_os("LIMINA_ASSETS_DIR") {
    Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
    _ => Ok(std::env::current_dir()?.join("assets")),
  }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
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

fn valid_id(id: &str) -> bool {
  !id.is_empty()
    && id.len() <= 64
    && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
    && !id.starts_with('.')
}

/// The manifest entry for `id` and the file it names, confined to `root`.
pub fn resolve_in(root: &Path, id: &str) -> Result<(AssetEntry, PathBuf), OpError> {
  if !valid_id(id) {
    return Err(OpError::invalid_input(format!(
      "asset id {id:?} must be 1–64 lower-case letters, digits, '.', '_' or '-'"
    )));
  }
  let manifest_path = root.join("manifest.json");
  let text = std::fs::read_to_string(&manifest_path)
    .map_err(|e| OpError::io(format!("cannot read the asset manifest {}", manifest_path.display()), e))?;
  let manifest: Manifest = serde_json::from_str(&text)
    .map_err(|e| OpError::invalid_input(format!("asset manifest {} is malformed: {e}", manifest_path.display())))?;
  let entry = manifest
    .assets
    .get(id)
    .cloned()
    .ok_or_else(|| OpError::not_found(format!("unknown asset {id:?} (not in {})", manifest_path.display())))?;
  let rel = Path::new(&entry.path);
  if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
    return Err(OpError::invalid_input(format!("asset {id} has a path outside the asset directory: {}", entry.path)));
  }
  let root = root.canonicalize().map_err(|e| OpError::io(format!("cannot open the asset directory {}", root.display()), e))?;
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

#[op2]
#[serde]
pub fn op_assets_resolve(#[string] id: &str) -> Result<ResolvedAsset, OpError> {
  let (entry, _) = resolve_in(&asset_root()?, id)?;
  Ok(ResolvedAsset { id: id.to_owned(), kind: entry.kind, source: entry.path, description: entry.description })
}

/// The asset's bytes, read natively.
#[op2]
#[buffer]
pub fn op_assets_read(#[string] id: &str) -> Result<Vec<u8>, OpError> {
  let (_, file) = resolve_in(&asset_root()?, id)?;
  std::fs::read(&file).map_err(|e| OpError::io(format!("asset {id}: cannot read {}", file.display()), e))
}

#[cfg(test)]
mod tests {
  use super::*;

  fn root() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("limina-assets-{}", std::process::id()));
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
    let r = root();
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
}
