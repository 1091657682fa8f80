//! Packages on disk: the manifest (`limina-package.json`), the sha256
//! content hash, and the ed25519 attestation over `name@version:contentHash`
//! checked against the host's trusted keys. Signing and keys for the
//! `limina package` command live here too.
//!
//! The content hash covers every file of the package, in sorted relative-path
//! order, each as `path NUL length(u64 BE) bytes`; the manifest counts as its
//! canonical JSON (sorted keys, no whitespace) without `signature`, so signing
//! a package does not change its hash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const MANIFEST: &str = "limina-package.json";
/// A package bigger than this is refused: it is loaded whole into memory.
const MAX_PACKAGE_BYTES: u64 = 16 << 20;
const MAX_FILES: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
  Agent,
  Skill,
  Script,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Signature {
  /// The signer's ed25519 public key, 64 hex digits.
  pub key: String,
  /// The content hash that was signed.
  pub content_hash: String,
  /// The signature, 128 hex digits.
  pub value: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
  pub name: String,
  pub version: String,
  pub kind: Kind,
  /// The entry script, relative to the package directory.
  pub entry: String,
  pub capabilities: Vec<String>,
  /// The engine versions it works with, as a semver range.
  pub engine: String,
  #[serde(default, skip_serializing_if = "Option::is_none")]
  pub description: Option<String>,
  #[serde(default, skip_serializing_if = "Option::is_none")]
  pub signature: Option<Signature>,
}

impl Manifest {
  pub fn reference(&self) -> String {
    format!("{}@{}", self.name, self.version)
  }

  fn check(&self) -> Result<(), String> {
    let name_ok = !self.name.is_empty()
      && self.name.len() <= 64
      && self.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.'))
      && self.name.as_bytes()[0].is_ascii_alphanumeric();
    if !name_ok {
      return Err(format!("name {:?} must be 1–64 of a–z, 0–9, '-', '_', '.', starting with a letter or digit", self.name));
    }
    semver::Version::parse(&self.version).map_err(|e| format!("version {:?} is not a semver version: {e}", self.version))?;
    semver::VersionReq::parse(&self.engine).map_err(|e| format!("engine {:?} is not a semver range: {e}", self.engine))?;
    relative_path(&self.entry).ok_or_else(|| format!("entry {:?} must be a relative path inside the package", self.entry))?;
    if self.capabilities.len() > 64 || self.capabilities.iter().any(|c| c.is_empty() || c.len() > 64) {
      return Err("capabilities must be at most 64 non-empty strings of at most 64 characters".to_owned());
    }
    Ok(())
  }

  /// Whether `engine_version` is inside the manifest's engine range.
  pub fn engine_compatible(&self, engine_version: &str) -> bool {
    match (semver::VersionReq::parse(&self.engine), semver::Version::parse(engine_version)) {
      (Ok(range), Ok(version)) => range.matches(&version),
      _ => false,
    }
  }
}

/// `p` split into normal components, if it is a plain relative path.
fn relative_path(p: &str) -> Option<PathBuf> {
  let path = Path::new(p);
  let ok = !p.is_empty() && path.components().all(|c| matches!(c, std::path::Component::Normal(_)));
  ok.then(|| path.to_path_buf())
}

/// What a package's attestation says.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Attestation {
  /// Signed over this content by a trusted key.
  Verified { key: String },
  /// No signature.
  Unsigned,
  /// Signed, but the files changed since: the signed hash is not theirs.
  HashMismatch { signed: String, actual: String },
  /// The signature does not verify.
  BadSignature { why: String },
  /// A valid signature by a key the host does not trust.
  UntrustedKey { key: String, why: String },
}

impl Attestation {
  pub fn attested(&self) -> bool {
    matches!(self, Attestation::Verified { .. })
  }
}

/// A package that cannot be used, and its `name@version` when its manifest says that much.
#[derive(Debug)]
pub struct Invalid {
  pub reference: Option<String>,
  pub why: String,
}

/// A package directory, read whole and checked.
pub struct Package {
  pub dir: PathBuf,
  pub manifest: Manifest,
  pub content_hash: String,
  pub attestation: Attestation,
  files: BTreeMap<String, Vec<u8>>,
}

impl Package {
  /// Reads `dir` and checks its manifest, hash and signature against
  /// `trusted`. The manifest is read first, so a package that is refused
  /// for its other files (a link, a special file) is still named, and its
  /// load says why instead of finding nothing. Messages name files within
  /// the package, never the server's paths.
  pub fn read(dir: &Path, trusted: &TrustedKeys) -> Result<Self, Invalid> {
    let invalid = |reference: Option<String>, why: String| Invalid { reference, why };
    let raw = read_manifest(dir).map_err(|why| invalid(None, why))?;
    let value: serde_json::Value = serde_json::from_slice(&raw).map_err(|e| invalid(None, format!("{MANIFEST} is not JSON: {e}")))?;
    // Enough of a manifest to be named, so loading it can say what is wrong.
    let reference = match (value.get("name").and_then(|v| v.as_str()), value.get("version").and_then(|v| v.as_str())) {
      (Some(n), Some(v)) => Some(format!("{n}@{v}")),
      _ => None,
    };
    let files = read_files(dir).map_err(|why| invalid(reference.clone(), why))?;
    let manifest: Manifest = serde_json::from_value(value.clone()).map_err(|e| invalid(reference.clone(), format!("{MANIFEST}: {e}")))?;
    manifest.check().map_err(|e| invalid(reference.clone(), format!("{MANIFEST}: {e}")))?;
    let entry = relative_path(&manifest.entry).expect("checked");
    if !files.contains_key(&slash_path(&entry)) {
      return Err(invalid(reference, format!("{MANIFEST}: the entry {} is not a file of the package", manifest.entry)));
    }
    let content_hash = content_hash(&files, &value);
    let attestation = attest(&manifest, &content_hash, trusted);
    Ok(Self { dir: dir.to_path_buf(), manifest, content_hash, attestation, files })
  }

  /// The entry script's source.
  pub fn entry_source(&self) -> Result<String, String> {
    let path = slash_path(Path::new(&self.manifest.entry));
    let bytes = self.files.get(&path).ok_or_else(|| format!("no entry file {path}"))?;
    String::from_utf8(bytes.clone()).map_err(|_| format!("the entry {path} is not UTF-8"))
  }
}

fn slash_path(p: &Path) -> String {
  p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The manifest's bytes: a regular file, not a link.
fn read_manifest(dir: &Path) -> Result<Vec<u8>, String> {
  let path = dir.join(MANIFEST);
  match std::fs::symlink_metadata(&path) {
    Ok(meta) if meta.file_type().is_file() => std::fs::read(&path).map_err(|e| format!("cannot read {MANIFEST}: {e}")),
    Ok(_) => Err(format!("{MANIFEST} is not a regular file (links are refused)")),
    Err(e) => Err(format!("cannot read {MANIFEST}: {e}")),
  }
}

/// Every regular file under `dir`, by '/'-separated relative path. Links and
/// special files are refused: what is hashed is what is loaded. Messages
/// name paths within the package.
fn read_files(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
  let mut files = BTreeMap::new();
  let mut total = 0u64;
  let mut stack = vec![PathBuf::new()];
  let shown = |rel: &Path| if rel.as_os_str().is_empty() { "the package directory".to_owned() } else { slash_path(rel) };
  while let Some(rel) = stack.pop() {
    let here = dir.join(&rel);
    let entries = std::fs::read_dir(&here).map_err(|e| format!("cannot read {}: {e}", shown(&rel)))?;
    for entry in entries {
      let entry = entry.map_err(|e| format!("cannot read {}: {e}", shown(&rel)))?;
      let name = entry.file_name();
      let name = name.to_str().ok_or_else(|| format!("{}: file names must be UTF-8", shown(&rel)))?;
      let path = rel.join(name);
      let kind = entry.file_type().map_err(|e| format!("cannot stat {}: {e}", slash_path(&path)))?;
      if kind.is_dir() {
        stack.push(path);
      } else if kind.is_file() {
        let bytes = std::fs::read(entry.path()).map_err(|e| format!("cannot read {}: {e}", slash_path(&path)))?;
        total += bytes.len() as u64;
        if total > MAX_PACKAGE_BYTES || files.len() >= MAX_FILES {
          return Err(format!("the package is over the limits ({} MiB, {MAX_FILES} files)", MAX_PACKAGE_BYTES >> 20));
        }
        files.insert(slash_path(&path), bytes);
      } else {
        let what = if kind.is_symlink() { "a link" } else { "not a regular file or directory" };
        return Err(format!("{} is {what}: links and special files are refused", slash_path(&path)));
      }
    }
  }
  Ok(files)
}

fn content_hash(files: &BTreeMap<String, Vec<u8>>, manifest: &serde_json::Value) -> String {
  let mut unsigned = manifest.clone();
  if let Some(object) = unsigned.as_object_mut() {
    object.remove("signature");
  }
  let mut canonical = String::new();
  write_canonical(&unsigned, &mut canonical);
  let mut h = Sha256::new();
  for (path, bytes) in files {
    let bytes = if path == MANIFEST { canonical.as_bytes() } else { bytes.as_slice() };
    h.update(path.as_bytes());
    h.update([0]);
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
  }
  format!("sha256:{}", hex(&h.finalize()))
}

/// JSON with object keys sorted and no whitespace.
fn write_canonical(v: &serde_json::Value, out: &mut String) {
  use serde_json::Value;
  match v {
    Value::Object(map) => {
      let mut keys: Vec<&String> = map.keys().collect();
      keys.sort();
      out.push('{');
      for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        out.push_str(&Value::String(k.clone()).to_string());
        out.push(':');
        write_canonical(&map[k], out);
      }
      out.push('}');
    }
    Value::Array(items) => {
      out.push('[');
      for (i, item) in items.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        write_canonical(item, out);
      }
      out.push(']');
    }
    other => out.push_str(&other.to_string()),
  }
}

pub fn hex(bytes: &[u8]) -> String {
  bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
  let s = s.trim();
  if s.len() != 2 * N || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
    return None;
  }
  let mut out = [0u8; N];
  for (i, byte) in out.iter_mut().enumerate() {
    *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
  }
  Some(out)
}

/// What is signed: `name@version:contentHash`.
fn signed_message(manifest: &Manifest, content_hash: &str) -> String {
  format!("{}:{content_hash}", manifest.reference())
}

/// The public keys the host trusts, or why there are none.
pub struct TrustedKeys {
  keys: Vec<[u8; 32]>,
  problem: Option<String>,
}

impl TrustedKeys {
  /// From `LIMINA_TRUSTED_KEYS`: a file of hex ed25519 public keys, one a
  /// line (blank lines and `#` comments allowed).
  pub fn from_env() -> Self {
    match std::env::var_os("LIMINA_TRUSTED_KEYS") {
      None => Self { keys: Vec::new(), problem: Some("no trusted keys are configured (LIMINA_TRUSTED_KEYS is unset)".to_owned()) },
      Some(path) => Self::from_file(Path::new(&path)),
    }
  }

  pub fn from_file(path: &Path) -> Self {
    let text = match std::fs::read_to_string(path) {
      Ok(t) => t,
      Err(e) => return Self { keys: Vec::new(), problem: Some(format!("the trusted keys file {} cannot be read: {e}", path.display())) },
    };
    let mut keys = Vec::new();
    for (i, line) in text.lines().enumerate() {
      let line = line.trim();
      if line.is_empty() || line.starts_with('#') {
        continue;
      }
      match unhex::<32>(line) {
        Some(k) => keys.push(k),
        None => return Self { keys: Vec::new(), problem: Some(format!("{} line {}: not a 64-hex-digit ed25519 public key", path.display(), i + 1)) },
      }
    }
    Self { keys, problem: None }
  }

  pub fn len(&self) -> usize {
    self.keys.len()
  }

  pub fn is_empty(&self) -> bool {
    self.keys.is_empty()
  }
}

fn attest(manifest: &Manifest, content_hash: &str, trusted: &TrustedKeys) -> Attestation {
  let Some(sig) = &manifest.signature else { return Attestation::Unsigned };
  if sig.content_hash != content_hash {
    return Attestation::HashMismatch { signed: sig.content_hash.clone(), actual: content_hash.to_owned() };
  }
  let Some(key) = unhex::<32>(&sig.key).and_then(|k| VerifyingKey::from_bytes(&k).ok()) else {
    return Attestation::BadSignature { why: format!("signature.key {:?} is not an ed25519 public key", sig.key) };
  };
  let Some(value) = unhex::<64>(&sig.value) else {
    return Attestation::BadSignature { why: "signature.value is not 128 hex digits".to_owned() };
  };
  let signature = ed25519_dalek::Signature::from_bytes(&value);
  if let Err(e) = key.verify(signed_message(manifest, content_hash).as_bytes(), &signature) {
    return Attestation::BadSignature { why: format!("the signature does not verify for {}: {e}", signed_message(manifest, content_hash)) };
  }
  let hex_key = hex(key.as_bytes());
  if !trusted.keys.contains(key.as_bytes()) {
    let why = trusted.problem.clone().unwrap_or_else(|| format!("key {hex_key} is not among the {} trusted keys", trusted.keys.len()));
    return Attestation::UntrustedKey { key: hex_key, why };
  }
  Attestation::Verified { key: hex_key }
}

/// The packages under `root`: each subdirectory holding a manifest, read
/// and checked (or why it cannot be), in directory-name order.
pub fn scan(root: &Path, trusted: &TrustedKeys) -> Vec<(PathBuf, Result<Package, Invalid>)> {
  let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
  let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.join(MANIFEST).is_file()).collect();
  dirs.sort();
  dirs.into_iter().map(|d| {
    let p = Package::read(&d, trusted);
    (d, p)
  }).collect()
}

/// The install directory: `$LIMINA_PACKAGES_DIR`, or `packages/` in the working directory.
pub fn packages_dir() -> PathBuf {
  match std::env::var_os("LIMINA_PACKAGES_DIR") {
    Some(d) if !d.is_empty() => PathBuf::from(d),
    _ => std::env::current_dir().unwrap_or_default().join("packages"),
  }
}

/// Whether the host loads packages without a trusted signature (`LIMINA_ALLOW_UNSIGNED_PACKAGES=1`).
pub fn unsigned_allowed() -> bool {
  std::env::var("LIMINA_ALLOW_UNSIGNED_PACKAGES").is_ok_and(|v| v == "1")
}

/// Writes `bytes` to `path` whole and durably, created with `mode`.
fn write_durably(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
  limina_ops::whole_file::write_durably(path, &[bytes], mode).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A new signing key written to `out` (hex seed, owner-only); returns the public key in hex.
pub fn keygen(out: &Path) -> Result<String, String> {
  if out.exists() {
    return Err(format!("{} exists; refusing to overwrite a key", out.display()));
  }
  let mut seed = [0u8; 32];
  getrandom::getrandom(&mut seed).map_err(|e| format!("no randomness for a key: {e}"))?;
  let key = SigningKey::from_bytes(&seed);
  write_durably(out, format!("{}\n", hex(&seed)).as_bytes(), 0o600)?;
  Ok(hex(key.verifying_key().as_bytes()))
}

fn read_signing_key(path: &Path) -> Result<SigningKey, String> {
  let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the key {}: {e}", path.display()))?;
  let seed = unhex::<32>(&text).ok_or_else(|| format!("{} does not hold a 64-hex-digit ed25519 secret key", path.display()))?;
  Ok(SigningKey::from_bytes(&seed))
}

/// The public key of a secret key file, in hex.
pub fn public_key(secret: &Path) -> Result<String, String> {
  Ok(hex(read_signing_key(secret)?.verifying_key().as_bytes()))
}

/// Signs the package in `dir` with the secret key in `key_file`: writes the
/// signature into its manifest (atomically). Returns `(ref, contentHash, publicKey)`.
pub fn sign(dir: &Path, key_file: &Path) -> Result<(String, String, String), String> {
  let key = read_signing_key(key_file)?;
  let package = Package::read(dir, &TrustedKeys { keys: Vec::new(), problem: None }).map_err(|e| e.why)?;
  let message = signed_message(&package.manifest, &package.content_hash);
  let signature = key.sign(message.as_bytes());
  let manifest_path = dir.join(MANIFEST);
  let raw = std::fs::read(&manifest_path).map_err(|e| format!("cannot read {}: {e}", manifest_path.display()))?;
  let mut value: serde_json::Value = serde_json::from_slice(&raw).map_err(|e| format!("{MANIFEST} is not JSON: {e}"))?;
  let public = hex(key.verifying_key().as_bytes());
  let sig = Signature { key: public.clone(), content_hash: package.content_hash.clone(), value: hex(&signature.to_bytes()) };
  value.as_object_mut().expect("a checked manifest is an object").insert("signature".to_owned(), serde_json::to_value(sig).expect("serialisable"));
  let mut text = serde_json::to_string_pretty(&value).expect("serialisable");
  text.push('\n');
  write_durably(&manifest_path, text.as_bytes(), 0o644)?;
  Ok((package.manifest.reference(), package.content_hash, public))
}
