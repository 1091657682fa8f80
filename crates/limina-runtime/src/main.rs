//! `limina`: the one binary. Boots V8, loads the main module, and drives the
//! event loop and the fixed-timestep loop until the program is done.

mod assets;
mod cli;
mod fixed_step;
mod host_loop;
mod module_loader;
mod process;
mod runtime;
mod trace_chain;
mod trace_ops;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use deno_core::error::CoreError;

use crate::cli::{Cli, Command, TraceAction};
use crate::host_loop::{ClockMode, LoopConfig};

fn main() -> ExitCode {
  process::mark_start();
  let cli = Cli::parse();
  if let Some(Command::Trace { action: TraceAction::Verify { file } }) = &cli.command {
    return verify_trace_file(file);
  }
  if let Some((flag, why)) = cli.unavailable_feature() {
    eprintln!("error: {flag} is not available yet: {why}");
    return ExitCode::from(2);
  }
  let Some(module) = cli.module.as_deref() else {
    eprintln!("error: no module given\n\nUsage: limina [OPTIONS] <MODULE> [ARGS]...\nRun `limina --help` for more.");
    return ExitCode::from(2);
  };
  let cwd = match std::env::current_dir() {
    Ok(cwd) => cwd,
    Err(e) => {
      eprintln!("error: cannot read the working directory: {e}");
      return ExitCode::from(2);
    }
  };
  let main_module = match deno_core::resolve_path(module, &cwd) {
    Ok(url) => url,
    Err(e) => {
      eprintln!("error: bad module path {module}: {e}");
      return ExitCode::from(2);
    }
  };
  if !main_module.to_file_path().is_ok_and(|p| p.is_file()) {
    eprintln!("error: module not found: {module}");
    return ExitCode::from(2);
  }
  let config = LoopConfig {
    clock: if cli.deterministic { ClockMode::Virtual } else { ClockMode::RealTime },
    max_frames: cli.frames,
  };

  let tokio = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
    Ok(rt) => rt,
    Err(e) => {
      eprintln!("error: cannot start the async runtime: {e}");
      return ExitCode::FAILURE;
    }
  };
  let result: Result<(), CoreError> = tokio.block_on(async {
    let mut js = runtime::new_runtime(cli.args.clone());
    host_loop::run_main_module(&mut js, &main_module, config).await
  });
  let _ = std::io::stdout().flush();
  match result {
    Ok(()) => ExitCode::SUCCESS,
    Err(e) => {
      eprintln!("error: {}", format_error(&e));
      ExitCode::FAILURE
    }
  }
}

/// `limina trace verify FILE`: no V8 needed.
fn verify_trace_file(file: &std::path::Path) -> ExitCode {
  let text = match std::fs::read_to_string(file) {
    Ok(t) => t,
    Err(e) => {
      eprintln!("error: cannot read {}: {e}", file.display());
      return ExitCode::from(2);
    }
  };
  match trace_chain::verify(&text) {
    Ok(v) => {
      println!(
        "ok: {} events, chain intact (last hash {})",
        v.events,
        v.last_hash.as_deref().unwrap_or("none: empty trace")
      );
      ExitCode::SUCCESS
    }
    Err(e) => {
      eprintln!("error: {}: {} at line {}: {}", file.display(), e.reason.as_str(), e.line, e.message);
      ExitCode::FAILURE
    }
  }
}

/// Uncaught errors print as their message and source-mapped stack.
fn format_error(e: &CoreError) -> String {
  e.to_string()
}
