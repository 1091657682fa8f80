//! `limina package keygen|sign|verify`: no V8 needed; the work is
//! limina-sandbox's package module.

use std::process::ExitCode;

use limina_sandbox::package::{self, Attestation, Package, TrustedKeys};

use crate::cli::PackageAction;

pub fn run(action: &PackageAction) -> ExitCode {
  match action {
    PackageAction::Keygen { file } => match package::keygen(file) {
      Ok(public) => {
        println!("{public}");
        eprintln!("wrote the secret key to {}; add the public key above to the file LIMINA_TRUSTED_KEYS names", file.display());
        ExitCode::SUCCESS
      }
      Err(e) => fail(&e),
    },
    PackageAction::Sign { dir, key } => match package::sign(dir, key) {
      Ok((reference, hash, public)) => {
        println!("signed {reference} ({hash}) with key {public}");
        ExitCode::SUCCESS
      }
      Err(e) => fail(&e),
    },
    PackageAction::Verify { dir, trusted_keys } => {
      let trusted = trusted_keys.as_deref().map_or_else(TrustedKeys::from_env, TrustedKeys::from_file);
      let p = match Package::read(dir, &trusted) {
        Ok(p) => p,
        Err(invalid) => {
          eprintln!("error: invalid_manifest: {}", invalid.why);
          return ExitCode::FAILURE;
        }
      };
      let reference = p.manifest.reference();
      match &p.attestation {
        Attestation::Verified { key } => {
          println!("ok: {reference} {} is attested by trusted key {key}", p.content_hash);
          ExitCode::SUCCESS
        }
        Attestation::Unsigned => {
          eprintln!("error: unsigned: {reference} {} has no signature", p.content_hash);
          ExitCode::FAILURE
        }
        Attestation::HashMismatch { signed, actual } => {
          eprintln!("error: hash_mismatch: {reference} changed since it was signed (signed {signed}, found {actual})");
          ExitCode::FAILURE
        }
        Attestation::BadSignature { why } => {
          eprintln!("error: bad_signature: {reference}: {why}");
          ExitCode::FAILURE
        }
        Attestation::UntrustedKey { why, .. } => {
          eprintln!("error: untrusted_key: {reference}: {why}");
          ExitCode::FAILURE
        }
      }
    }
  }
}

fn fail(message: &str) -> ExitCode {
  eprintln!("error: {message}");
  ExitCode::FAILURE
}
