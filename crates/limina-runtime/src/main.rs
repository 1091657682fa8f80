//! `limina`: the one binary. Boots V8, loads the main module, and drives the
//! event loop and the fixed-timestep loop until the program is done.

mod assets;
mod cache_file;
mod cli;
mod code_cache;
mod embedded;
mod fixed_step;
mod host_loop;
mod http;
mod module_loader;
mod package_cli;
mod process;
mod runtime;
mod snapshot;
mod start_up_memory;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use deno_core::error::CoreError;

use crate::cli::{Cli, Command, TraceAction};
use crate::host_loop::{ClockMode, LoopConfig};

fn main() -> ExitCode {
  process::mark_start();
  // No allocation-site pretenuring: once most of a literal's objects outlive a scavenge, V8 makes
  // them in the old generation, where they keep the young objects they point to alive through
  // every scavenge until a full GC. With the modules from the start-up snapshot that doubled what
  // each scavenge copied in the capstone (docs/PERF.md); `LIMINA_V8_FLAGS` may turn it back on.
  deno_core::v8_set_flags(vec!["limina".to_owned(), "--no-allocation-site-pretenuring".to_owned()]);
  limina_render::gpu::quiet_display_probing();
  if let Some((kind, path)) = snapshot::requested() {
    return make_snapshot(kind, &path);
  }
  let cli = Cli::parse();
  let mut script_args = cli.args.clone();
  // Commands served by an embedded module; the rest need no V8.
  let command_module = match &cli.command {
    Some(Command::Trace { action: TraceAction::Verify { file, open } }) => return verify_trace_file(file, *open),
    Some(Command::Types) => return print_types(),
    Some(Command::Package { action }) => return package_cli::run(action),
    Some(Command::Demo { name: None }) => return list_demos(),
    Some(Command::Demo { name: Some(name) }) => match demo_module(name) {
      Ok(url) => Some(url),
      Err(message) => {
        eprintln!("error: {message}");
        return ExitCode::from(2);
      }
    },
    Some(Command::Replay { source, snapshot, until }) => {
      script_args = vec![source.clone()];
      if let Some(s) = snapshot {
        script_args.extend(["--snapshot".to_owned(), s.clone()]);
      }
      if let Some(t) = until {
        script_args.extend(["--until".to_owned(), t.to_string()]);
      }
      Some(embedded::url("js/src/cli/replay.ts"))
    }
    Some(Command::ExportWeb { trace, out, snapshot }) => {
      script_args = vec![trace.clone(), "--out".to_owned(), out.clone()];
      if let Some(s) = snapshot {
        script_args.extend(["--snapshot".to_owned(), s.clone()]);
      }
      Some(embedded::url("js/src/web/export.ts"))
    }
    Some(Command::Relay { .. }) => Some(embedded::url("js/src/web/relay.ts")),
    Some(Command::Skills { markdown }) => {
      script_args = if *markdown { vec!["--markdown".to_owned()] } else { Vec::new() };
      Some(embedded::url("js/src/cli/skills.ts"))
    }
    None => None,
  };
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
  let network = cli.mcp_ws || cli.mcp_http;
  let token = cli.token.clone().or_else(|| std::env::var("LIMINA_MCP_TOKEN").ok().filter(|t| network && !t.is_empty()));
  if token.as_deref().is_some_and(|t| t.len() < 16 || t.chars().any(|c| !c.is_ascii_graphic())) {
    eprintln!("error: the token (--token or LIMINA_MCP_TOKEN) must be at least 16 printable ASCII characters without spaces");
    return ExitCode::from(2);
  }
  if network && token.is_none() && !is_loopback(&cli.host) {
    eprintln!("error: refusing to serve on {}: a non-loopback address needs a bearer token (--token or LIMINA_MCP_TOKEN), or bind 127.0.0.1", cli.host);
    return ExitCode::from(2);
  }
  let relay = match &cli.command {
    Some(Command::Relay { url, port, host }) => Some((url.clone(), *port, host.clone())),
    _ => None,
  };
  let serve = if let Some((url, port, host)) = relay {
    Some(limina_mcp::ServeConfig {
      stdio: false,
      ws: true,
      http: false,
      host,
      port,
      http_port: 0,
      path: cli.path.clone(),
      token: None,
      profile: "spectator".to_owned(),
      max_message_bytes: cli.max_message_bytes,
      dev: false,
      verbose: false,
      max_clients: cli.max_clients,
      idle_timeout: cli.idle_timeout,
      world_module: None,
      world_file: None,
      save_every: cli.save_every,
      log_sink: None,
      tools_page_size: cli.tools_page_size,
      tools_listing: cli.tools_listing.clone(),
      spectator_sink: None,
      relay: Some(url),
    })
  } else {
    (cli.mcp_stdio || cli.mcp_ws || cli.mcp_http).then(|| limina_mcp::ServeConfig {
    stdio: cli.mcp_stdio,
    ws: cli.mcp_ws,
    http: cli.mcp_http,
    host: cli.host.clone(),
    port: cli.port,
    http_port: cli.http_port.unwrap_or(if cli.mcp_ws && cli.port != 0 { cli.port.wrapping_add(1) } else { cli.port }),
    path: cli.path.clone(),
    token,
    profile: cli.profile.clone(),
    max_message_bytes: cli.max_message_bytes,
    dev: cli.dev,
    verbose: cli.verbose || std::io::stderr().is_terminal(),
    max_clients: cli.max_clients,
    idle_timeout: cli.idle_timeout,
    world_module: user_module.as_ref().map(|m| m.to_string()),
    world_file: cli.world_file.clone(),
    save_every: cli.save_every,
    log_sink: cli.log_sink.clone(),
    tools_page_size: cli.tools_page_size,
    tools_listing: cli.tools_listing.clone(),
    spectator_sink: cli.spectator_sink.clone(),
    relay: None,
  })
  };
  process::STDOUT_RESERVED.store(cli.mcp_stdio, std::sync::atomic::Ordering::Relaxed);
  let main_module = match (command_module, &serve, user_module) {
    (Some(m), _, _) => m,
    (None, Some(_), _) => embedded::url("js/src/mcp/serve.ts"),
    (None, None, Some(m)) => m,
    (None, None, None) => {
      eprintln!("error: no module given\n\nUsage: limina [OPTIONS] <MODULE> [ARGS]...\nRun `limina --help` for more.");
      return ExitCode::from(2);
    }
  };
  let kind = snapshot::Kind::for_module(&main_module);
  // A stdio server alone answers its client's first `initialize` on a thread
  // of its own while V8 starts, from what its engine snapshot's maker stored.
  let first_line = serve
    .as_ref()
    .filter(|s| s.stdio && !s.ws && !s.http)
    .and_then(|s| Some((limina_mcp::handshake::Handshake::new(&snapshot::handshake(kind)?, &s.profile)?, s.max_message_bytes as usize)))
    .map(|(handshake, max_bytes)| limina_mcp::stdio::answer_first_line(handshake, max_bytes, startup_log()));
  let audio = match limina_audio::Backend::parse(std::env::var("LIMINA_AUDIO").ok().as_deref()) {
    Ok(backend) => limina_audio::AudioConfig { backend, deterministic: cli.deterministic, tts: std::env::var("LIMINA_TTS").ok() },
    Err(message) => {
      eprintln!("error: {message}");
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

  // A developer's window into V8 (e.g. `--perf-basic-prof` for `perf`).
  if let Ok(flags) = std::env::var("LIMINA_V8_FLAGS") {
    let mut argv = vec!["limina".to_owned()];
    argv.extend(flags.split_whitespace().map(str::to_owned));
    let unknown = deno_core::v8_set_flags(argv);
    if unknown.len() > 1 {
      eprintln!("error: LIMINA_V8_FLAGS: V8 does not know {}", unknown[1..].join(" "));
      return ExitCode::from(2);
    }
  }

  let tokio = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
    Ok(rt) => rt,
    Err(e) => {
      eprintln!("error: cannot start the async runtime: {e}");
      return ExitCode::FAILURE;
    }
  };
  // A LocalSet: transport tasks share the connection table with the ops on this thread.
  let result: Result<(), CoreError> = tokio::task::LocalSet::new().block_on(&tokio, async {
    let render = limina_render::RenderConfig {
      screenshot: cli.screenshot.as_ref().map(|p| p.to_string_lossy().into_owned()),
      width: cli.size.0,
      height: cli.size.1,
      max_frames: cli.frames,
      quality: cli.quality.clone(),
      screenshot_written: false,
    };
    // The benchmark ops change the op table, which a snapshot is made for.
    let snapshot = if cli.bench_ops { None } else { snapshot::ready(kind) };
    if startup_log() {
      eprintln!("limina: start-up snapshot \"{}\" {}", kind.name(), if snapshot.is_some() { "used" } else { "not ready" });
    }
    let options = runtime::HostOptions { args: script_args, serve, render, window, bench_ops: cli.bench_ops, audio, first_line };
    let mut js = runtime::new_runtime(options, snapshot);
    if let Some(snapshot) = snapshot {
      snapshot::release(snapshot);
    }
    let result = host_loop::run_main_module(&mut js, &main_module, config).await;
    // A screenshot asked for but never written is a failure, named, not a silent success.
    let result = result.and_then(|()| match &cli.screenshot {
      Some(path) if !limina_render::screenshot_written(&js.op_state().borrow()) => {
        let frames = host_loop::frames_run(&js.op_state().borrow());
        Err(deno_core::error::CoreError::from(deno_error::JsErrorBox::generic(missing_screenshot(path, frames, cli.frames))))
      }
      _ => Ok(()),
    });
    // The process ends next: tearing the isolate's heap down would only cost
    // time. What must reach the disk first does.
    limina_trace::close_logs(&mut js.op_state().borrow_mut());
    limina_audio::close(&mut js.op_state().borrow_mut());
    std::mem::forget(js);
    result
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

/// `LIMINA_STARTUP_LOG`: say on stderr how the start went (which snapshot, whether stdio's first reply came before V8).
fn startup_log() -> bool {
  std::env::var_os("LIMINA_STARTUP_LOG").is_some_and(|v| !v.is_empty())
}

/// Why `--screenshot` wrote no file.
fn missing_screenshot(path: &std::path::Path, frames: u64, asked: Option<u64>) -> String {
  let path = path.display();
  match asked {
    Some(n) if frames < n => format!(
      "--screenshot {path}: no file written: the program ended after {frames} of the {n} frames (it stopped its loop or exited first), and the screenshot is of frame {n}"
    ),
    _ => format!(
      "--screenshot {path}: no file written: nothing was rendered. The module never rendered a frame; make a renderer with createEngine() (see docs/module-api.md)"
    ),
  }
}

/// Whether `host` names only loopback addresses.
fn is_loopback(host: &str) -> bool {
  use std::net::ToSocketAddrs;
  match (host, 0).to_socket_addrs() {
    Ok(addrs) => {
      let addrs: Vec<_> = addrs.collect();
      !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())
    }
    Err(_) => false,
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

/// In the child `snapshot::ready` starts: makes a snapshot and stores it.
fn make_snapshot(kind: snapshot::Kind, path: &std::path::Path) -> ExitCode {
  // Background work: the program that asked for it keeps the CPU first.
  // SAFETY: nice(2) only lowers this process's priority.
  unsafe { libc::nice(10) };
  let Ok(tokio) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return ExitCode::FAILURE };
  let made = tokio::task::LocalSet::new().block_on(&tokio, async {
    let options = runtime::HostOptions {
      args: Vec::new(),
      serve: None,
      render: limina_render::RenderConfig { screenshot: None, width: 1, height: 1, max_frames: None, quality: None, screenshot_written: false },
      window: None,
      bench_ops: false,
      audio: limina_audio::AudioConfig { backend: limina_audio::Backend::Null, deterministic: false, tts: None },
      first_line: None,
    };
    let preload: Vec<_> = kind.preload().iter().map(|p| embedded::url(p)).collect();
    let handshake = kind.handshake().map(embedded::url);
    runtime::make_snapshot(options, &preload, handshake.as_ref()).await
  });
  match made {
    Ok((bytes, handshake)) => {
      snapshot::store(path, &bytes, handshake.as_deref());
      ExitCode::SUCCESS
    }
    Err(e) => {
      eprintln!("error: {}", format_error(&e));
      snapshot::store(path, &[], None);
      ExitCode::FAILURE
    }
  }
}

/// The built-in demos: the embedded `examples/*.ts` that are not `*_core.ts` helpers.
fn demo_names() -> Vec<&'static str> {
  embedded::list("examples")
    .into_iter()
    .filter_map(|p| p.strip_prefix("examples/")?.strip_suffix(".ts"))
    .filter(|name| !name.contains('/') && !name.ends_with("_core"))
    .collect()
}

/// A demo's one-line description: its `// Demo:` line, else its first comment line.
fn demo_description(name: &str) -> String {
  let source = embedded::get(&format!("examples/{name}.ts")).map(|s| String::from_utf8_lossy(&s).into_owned()).unwrap_or_default();
  let comments = || source.lines().filter_map(|l| l.strip_prefix("//")).map(str::trim);
  comments()
    .find_map(|l| l.strip_prefix("Demo:"))
    .or_else(|| comments().next())
    .unwrap_or("")
    .trim()
    .to_owned()
}

fn list_demos() -> ExitCode {
  println!("Built-in demos (run one with `limina demo NAME`, e.g. `limina demo billiards --window`):");
  let names = demo_names();
  let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
  for name in names {
    println!("  {name:<width$}  {}", demo_description(name));
  }
  ExitCode::SUCCESS
}

fn demo_module(name: &str) -> Result<deno_core::ModuleSpecifier, String> {
  let names = demo_names();
  if names.contains(&name) {
    Ok(embedded::url(&format!("examples/{name}.ts")))
  } else {
    Err(format!("no demo named {name:?}; the demos are: {}", names.join(", ")))
  }
}

/// `limina types`: the declarations for editors and `tsc`.
fn print_types() -> ExitCode {
  let types = embedded::get("js/build/limina.d.ts").expect("the typings are embedded");
  let mut out = std::io::stdout().lock();
  match out.write_all(&types).and_then(|()| out.flush()) {
    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
      eprintln!("error: cannot write the typings: {e}");
      ExitCode::FAILURE
    }
    _ => ExitCode::SUCCESS,
  }
}

/// `limina trace verify [--open] FILE`: no V8 needed; the file is read a line at a time.
fn verify_trace_file(file: &std::path::Path, open: bool) -> ExitCode {
  match limina_trace::verify_file(file, open) {
    Err(e) => {
      eprintln!("error: cannot read {}: {e}", file.display());
      ExitCode::from(2)
    }
    Ok(Ok(v)) => {
      let head = v.head_hash.as_deref().unwrap_or("none: no events");
      match v.status {
        limina_trace::TraceStatus::Sealed => println!("ok: {} events, chain intact and sealed (head hash {head})", v.events),
        limina_trace::TraceStatus::Open if v.torn_bytes > 0 => println!(
          "open: {} events, chain intact so far, not sealed (head hash {head}); an unfinished final line of {} bytes was not checked",
          v.events, v.torn_bytes
        ),
        limina_trace::TraceStatus::Open => println!("open: {} events, chain intact so far, not sealed (head hash {head})", v.events),
      }
      ExitCode::SUCCESS
    }
    Ok(Err(e)) => {
      eprintln!("error: {}: {} at line {}: {}", file.display(), e.reason.as_str(), e.line, e.message);
      ExitCode::FAILURE
    }
  }
}

/// Uncaught errors print as their message and source-mapped stack.
fn format_error(e: &CoreError) -> String {
  e.to_string()
}
