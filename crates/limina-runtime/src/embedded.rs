//! Limina's own modules and assets, embedded at build time (see build.rs)
//! and served under `limina:/<path in the repository>`, so the binary needs
//! no source tree. `LIMINA_SOURCE_DIR`, pointing at a checkout, serves them
//! from disk instead: engine development without a rebuild.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/embedded_files.rs"));

pub const SCHEME: &str = "limina";

/// The stable specifiers modules import, and the embedded module each names.
pub const PUBLIC_SPECIFIERS: &[(&str, &str)] = &[
  ("limina", "js/src/mod.ts"),
  ("limina/testing", "js/src/testing.ts"),
  ("limina/bench", "js/src/bench.ts"),
  ("three", "js/build/three.bundle.mjs"),
  ("three/webgpu", "js/build/three.bundle.mjs"),
  ("three/tsl", "js/build/three-tsl.mjs"),
  ("three/addons/loaders/GLTFLoader.js", "js/build/three-addons.mjs"),
  ("three/addons/exporters/GLTFExporter.js", "js/build/three-addons.mjs"),
  ("bitecs", "js/build/bitecs.bundle.mjs"),
  ("zod", "js/build/zod.bundle.mjs"),
];

/// The embedded path a public specifier names.
pub fn public_module(specifier: &str) -> Option<&'static str> {
  PUBLIC_SPECIFIERS.iter().find(|(name, _)| *name == specifier).map(|(_, path)| *path)
}

/// The `limina:` URL of an embedded path.
pub fn url(path: &str) -> deno_core::ModuleSpecifier {
  deno_core::ModuleSpecifier::parse(&format!("{SCHEME}:/{path}")).expect("embedded paths are URL paths")
}

fn source_dir() -> Option<&'static PathBuf> {
  static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
  DIR
    .get_or_init(|| std::env::var_os("LIMINA_SOURCE_DIR").filter(|d| !d.is_empty()).map(PathBuf::from))
    .as_ref()
}

fn table() -> &'static HashMap<&'static str, &'static [u8]> {
  static TABLE: OnceLock<HashMap<&'static str, &'static [u8]>> = OnceLock::new();
  TABLE.get_or_init(|| FILES.iter().copied().collect())
}

/// The file at `path` (relative to the repository root): from
/// `LIMINA_SOURCE_DIR` when set, else embedded.
pub fn get(path: &str) -> Option<Cow<'static, [u8]>> {
  if let Some(dir) = source_dir() {
    if path.split('/').any(|seg| seg == ".." || seg.is_empty()) {
      return None;
    }
    return std::fs::read(dir.join(path)).ok().map(Cow::Owned);
  }
  table().get(path).map(|b| Cow::Borrowed(*b))
}

/// Embedded paths under `dir/`, sorted.
pub fn list(dir: &str) -> Vec<&'static str> {
  let prefix = format!("{dir}/");
  FILES.iter().map(|(p, _)| *p).filter(|p| p.starts_with(&prefix)).collect()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn every_public_specifier_names_an_embedded_module() {
    for (name, path) in PUBLIC_SPECIFIERS {
      assert!(table().contains_key(path), "{name} → {path} is not embedded");
    }
    assert!(table().contains_key("js/build/limina.d.ts"), "the typings are embedded");
    assert!(list("examples").iter().any(|p| p.ends_with("billiards.ts")), "demos are embedded");
  }
}
