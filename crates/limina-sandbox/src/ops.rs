//! Thin ops over the sandboxes in [`SandboxHost`] and the install directory
//! of packages. Every sandbox op runs the sandbox on the calling (loop)
//! thread and returns before any host JS runs again: no re-entrancy.

use std::collections::HashMap;

use deno_core::{op2, OpState};
use limina_ops::OpError;
use serde::Serialize;

use crate::package::{self, Attestation, Kind, Package, TrustedKeys};
use crate::sandbox::{Limits, Outcome, Sandbox};

/// The live sandboxes of this isolate, by id.
#[derive(Default)]
pub struct SandboxHost {
  next: u32,
  sandboxes: HashMap<u32, Sandbox>,
}

/// No sandbox may be smaller than this (the prelude and a context need it),
/// nor bigger than 1 GiB.
const MIN_MEMORY: u32 = 1 << 20;
const MAX_MEMORY: u32 = 1 << 30;
const MIN_STACK: u32 = 16 << 10;
/// The host's own stack is 8 MiB and V8 shares it.
const MAX_STACK: u32 = 4 << 20;
/// One entry's CPU budget is at most 10 s.
const MAX_CPU_MS: f64 = 10_000.0;

fn sandbox(state: &mut OpState, id: u32) -> Result<&mut Sandbox, OpError> {
  state.borrow_mut::<SandboxHost>().sandboxes.get_mut(&id).ok_or_else(|| OpError::not_found(format!("no sandbox {id} (never created or already dropped)")))
}

fn check_cpu(cpu_ms: f64) -> Result<f64, OpError> {
  if cpu_ms.is_finite() && cpu_ms >= 0.0 && cpu_ms <= MAX_CPU_MS {
    Ok(cpu_ms)
  } else {
    Err(OpError::invalid_input(format!("cpuMs must be within 0..{MAX_CPU_MS}, got {cpu_ms}")))
  }
}

/// A new sandbox with these budgets; returns its id.
#[op2(fast)]
pub fn op_sandbox_create(state: &mut OpState, memory_bytes: u32, stack_bytes: u32) -> Result<u32, OpError> {
  if !(MIN_MEMORY..=MAX_MEMORY).contains(&memory_bytes) {
    return Err(OpError::invalid_input(format!("memoryBytes must be within {MIN_MEMORY}..{MAX_MEMORY}, got {memory_bytes}")));
  }
  if !(MIN_STACK..=MAX_STACK).contains(&stack_bytes) {
    return Err(OpError::invalid_input(format!("stackBytes must be within {MIN_STACK}..{MAX_STACK}, got {stack_bytes}")));
  }
  let sandbox = Sandbox::new(Limits { memory_bytes: memory_bytes as usize, stack_bytes: stack_bytes as usize }).map_err(OpError::internal)?;
  let host = state.borrow_mut::<SandboxHost>();
  host.next += 1;
  host.sandboxes.insert(host.next, sandbox);
  Ok(host.next)
}

/// Runs a script's top-level code and its promise jobs within `cpu_ms`.
#[op2]
#[serde]
pub fn op_sandbox_eval(state: &mut OpState, id: u32, #[string] source: &str, #[string] filename: &str, cpu_ms: f64) -> Result<Outcome, OpError> {
  let cpu_ms = check_cpu(cpu_ms)?;
  Ok(sandbox(state, id)?.eval(source, filename, cpu_ms))
}

/// Calls the onTick handler (`name` null) or a global function with a JSON argument.
#[op2]
#[serde]
pub fn op_sandbox_call(state: &mut OpState, id: u32, #[string] name: Option<String>, #[string] arg_json: &str, cpu_ms: f64) -> Result<Outcome, OpError> {
  let cpu_ms = check_cpu(cpu_ms)?;
  Ok(sandbox(state, id)?.call(name.as_deref(), arg_json, cpu_ms))
}

/// Settles `host.invoke` promises: `[id, ok, json-or-message]` each.
#[op2]
#[serde]
pub fn op_sandbox_settle(state: &mut OpState, id: u32, #[serde] answers: Vec<(u32, bool, String)>, cpu_ms: f64) -> Result<Outcome, OpError> {
  let cpu_ms = check_cpu(cpu_ms)?;
  Ok(sandbox(state, id)?.settle(&answers, cpu_ms))
}

/// Injects the perception snapshot (JSON) the sandbox's reads are answered from.
#[op2(fast)]
pub fn op_sandbox_perceive(state: &mut OpState, id: u32, #[string] json: &str) -> Result<(), OpError> {
  sandbox(state, id)?.perceive(json).map_err(|why| OpError::unavailable(format!("cannot inject the perception snapshot: {why}")))
}

#[op2(fast)]
pub fn op_sandbox_has_tick(state: &mut OpState, id: u32) -> Result<bool, OpError> {
  Ok(sandbox(state, id)?.has_tick())
}

/// Bytes the sandbox's runtime holds.
#[op2(fast)]
#[number]
pub fn op_sandbox_memory(state: &mut OpState, id: u32) -> Result<u64, OpError> {
  Ok(sandbox(state, id)?.memory_bytes())
}

/// Frees a sandbox; returns whether it existed.
#[op2(fast)]
pub fn op_sandbox_drop(state: &mut OpState, id: u32) -> bool {
  state.borrow_mut::<SandboxHost>().sandboxes.remove(&id).is_some()
}

/// An installed package as the host sees it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageInfo {
  dir: String,
  /// `name@version`, when the manifest names one.
  #[serde(rename = "ref")]
  reference: Option<String>,
  /// Why the package cannot be used, when it cannot.
  error: Option<String>,
  name: String,
  version: String,
  kind: Option<Kind>,
  capabilities: Vec<String>,
  engine: String,
  engine_compatible: bool,
  content_hash: String,
  attestation: Option<Attestation>,
  entry: String,
}

impl PackageInfo {
  fn of(dir: &std::path::Path, read: &Result<Package, package::Invalid>, engine_version: &str) -> Self {
    let dir = dir.to_string_lossy().into_owned();
    match read {
      Ok(p) => PackageInfo {
        dir,
        reference: Some(p.manifest.reference()),
        error: None,
        name: p.manifest.name.clone(),
        version: p.manifest.version.clone(),
        kind: Some(p.manifest.kind),
        capabilities: p.manifest.capabilities.clone(),
        engine: p.manifest.engine.clone(),
        engine_compatible: p.manifest.engine_compatible(engine_version),
        content_hash: p.content_hash.clone(),
        attestation: Some(p.attestation.clone()),
        entry: p.manifest.entry.clone(),
      },
      Err(invalid) => PackageInfo {
        dir,
        reference: invalid.reference.clone(),
        error: Some(invalid.why.clone()),
        name: String::new(),
        version: String::new(),
        kind: None,
        capabilities: Vec::new(),
        engine: String::new(),
        engine_compatible: false,
        content_hash: String::new(),
        attestation: None,
        entry: String::new(),
      },
    }
  }
}

/// Where packages are installed and whom they must be signed by: the host's
/// own settings, each falling back to the environment.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Install {
  /// The install directory (else `$LIMINA_PACKAGES_DIR`, else `packages/`).
  dir: Option<String>,
  /// The trusted keys file (else `$LIMINA_TRUSTED_KEYS`).
  trusted_keys: Option<String>,
  /// Load unsigned packages (else `LIMINA_ALLOW_UNSIGNED_PACKAGES=1`).
  allow_unsigned: Option<bool>,
}

impl Install {
  fn dir(&self) -> std::path::PathBuf {
    self.dir.as_ref().map(std::path::PathBuf::from).unwrap_or_else(package::packages_dir)
  }

  fn trusted(&self) -> TrustedKeys {
    match &self.trusted_keys {
      Some(path) => TrustedKeys::from_file(std::path::Path::new(path)),
      None => TrustedKeys::from_env(),
    }
  }
}

/// Every package in the install directory, checked against the trusted keys.
#[op2]
#[serde]
pub fn op_package_list(#[string] engine_version: &str, #[serde] install: Install) -> Vec<PackageInfo> {
  package::scan(&install.dir(), &install.trusted()).iter().map(|(dir, read)| PackageInfo::of(dir, read, engine_version)).collect()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
  package: PackageInfo,
  /// The entry's source, from the same read the hash was computed over.
  source: Option<String>,
  /// `LIMINA_ALLOW_UNSIGNED_PACKAGES=1`.
  unsigned_allowed: bool,
}

/// The package named `reference` (`name@version`), read once: its checks
/// and its entry's source. Not found is a `not_found` error.
#[op2]
#[serde]
pub fn op_package_open(#[string] reference: &str, #[string] engine_version: &str, #[serde] install: Install) -> Result<Opened, OpError> {
  let trusted = install.trusted();
  let root = install.dir();
  let found = package::scan(&root, &trusted).into_iter().find(|(_, read)| match read {
    Ok(p) => p.manifest.reference() == reference,
    Err(invalid) => invalid.reference.as_deref() == Some(reference),
  });
  let Some((dir, read)) = found else {
    // The install directory is the server's business: a player is told the package is not there.
    return Err(OpError::not_found(format!("no package {reference} is installed")));
  };
  let mut info = PackageInfo::of(&dir, &read, engine_version);
  let source = match read.as_ref().map(Package::entry_source) {
    Ok(Ok(source)) => Some(source),
    Ok(Err(why)) => {
      info.error = Some(why);
      None
    }
    Err(_) => None,
  };
  Ok(Opened { package: info, source, unsigned_allowed: install.allow_unsigned.unwrap_or_else(package::unsigned_allowed) })
}
