//! `limina`: the one binary. Boots V8, loads the main module, and drives the
//! event loop and the fixed-timestep loop until the program is done.

mod assets;
mod cli;
mod fixed_step;
mod host_loop;
mod http;
mod mcp;
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
  let cwd = match std::env::current_dir() {
    Ok(cwd) => cwd,
    Err(e) => {
      eprintln!("error: cannot read the working directory: {e}");
      return ExitCode::from(2);
    }
  };
  let user_module = match cli.module.as_deref().map(|m| resolve_module(m, &cwd)).transpose() {
    Ok(m) => m,
    Err(message) => {
      eprintln!("error: {message}");
      return ExitCode::from(2);
    }
  };
  let serve = (cli.mcp_stdio || cli.mcp_ws).then(|| mcp::ServeConfig {
    transport: if cli.mcp_stdio { "stdio" } else { "ws" },
    host: cli.host.clone(),
    port: cli.port,
    profile: cli.profile.clone(),
    max_message_bytes: cli.max_message_bytes,
    world_module: user_module.as_ref().map(|m| m.to_string()),
  });
  let main_module = match (&serve, user_module) {
    (Some(_), _) => match js_entry("src/mcp/serve.ts") {
      Ok(url) => url,
      Err(message) => {
        eprintln!("error: {message}");
        return ExitCode::from(2);
      }
    },
    (None, Some(m)) => m,
    (None, None) => {
      eprintln!("error: no module given\n\nUsage: limina [OPTIONS] <MODULE> [ARGS]...\nRun `limina --help` for more.");
      return ExitCode::from(2);
    }
  };
  let config = LoopConfig {
    clock: if cli.deterministic { ClockMode::Virtual } else { ClockMode::RealTime },
    max_frames: cli.frames,
  };

  let window = if cli.windowed() {
    let options = limina_render::window::WindowOptions {
      title: format!("Limina — {}", main_module.path_segments().and_then(|mut s| s.next_back()).unwrap_or("limina")),
      width: cli.size.0,
      height: cli.size.1,
      fullscreen: cli.fullscreen,
    };
    match limina_render::window::NativeWindow::open(&options) {
      Ok(window) => Some(window),
      Err(message) => {
        eprintln!("error: {message}");
        return ExitCode::FAILURE;
      }
    }
  } else {
    None
  };

  let tokio = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
    Ok(rt) => rt,
    Err(e) => {
      eprintln!("error: cannot start the async runtime: {e}");
      return ExitCode::FAILURE;
    }
  };
  // A LocalSet: transport tasks share the connection table with the ops on this thread.
  let result: Result<(), CoreError> = tokio::task::LocalSet::new().block_on(&tokio, async {
    let render = runtime::RenderConfig {
      screenshot: cli.screenshot.as_ref().map(|p| p.to_string_lossy().into_owned()),
      width: cli.size.0,
      height: cli.size.1,
      max_frames: cli.frames,
    };
    let mut js = runtime::new_runtime(cli.args.clone(), serve, render, window);
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

fn resolve_module(module: &str, cwd: &std::path::Path) -> Result<deno_core::ModuleSpecifier, String> {
  let url = deno_core::resolve_path(module, cwd).map_err(|e| format!("bad module path {module}: {e}"))?;
  if url.to_file_path().is_ok_and(|p| p.is_file()) {
    Ok(url)
  } else {
    Err(format!("module not found: {module}"))
  }
}

/// A module of Limina's own `js/` tree: `$LIMINA_JS_DIR`, else the tree this
/// binary was built from.
fn js_entry(rel: &str) -> Result<deno_core::ModuleSpecifier, String> {
  let root = match std::env::var_os("LIMINA_JS_DIR") {
    Some(dir) if !dir.is_empty() => std::path::PathBuf::from(dir),
    _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../js"),
  };
  let path = root.join(rel);
  let path = path
    .canonicalize()
    .map_err(|e| format!("cannot find Limina's {rel} under {} ({e}); set LIMINA_JS_DIR to the js/ directory", root.display()))?;
  deno_core::ModuleSpecifier::from_file_path(&path).map_err(|()| format!("bad path {}", path.display()))
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
