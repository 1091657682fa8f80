//! The command line.

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
  name = "limina",
  version,
  about = "Limina: an agent-native real-time 3D engine. Runs a TypeScript or JavaScript module on V8 with a host-owned 60 Hz fixed-timestep loop.",
  after_help = "Examples:\n  limina game.ts\n  limina demo billiards --window\n  limina demo billiards --frames 240 --screenshot billiards.png\n  limina --mcp-stdio world.ts\n  limina --mcp-http --mcp-ws world.ts\n  limina types > limina.d.ts\n  limina trace verify traces/run.jsonl\n  limina replay traces/run.jsonl\n  limina package verify packages/hello",
  subcommand_precedence_over_arg = true,
  group(clap::ArgGroup::new("network").multiple(true))
)]
pub struct Cli {
  #[command(subcommand)]
  pub command: Option<Command>,

  /// The TypeScript or JavaScript module to run.
  pub module: Option<String>,

  /// Arguments passed to the module as `Limina.args`.
  #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
  pub args: Vec<String>,

  /// Open a native window (X11) and present every frame to it; closing it
  /// or pressing Escape ends the program with exit code 0.
  #[arg(long, global = true)]
  pub window: bool,

  /// Run the window borderless-fullscreen (implies --window).
  #[arg(long, global = true)]
  pub fullscreen: bool,

  /// Exit after N frames.
  #[arg(long, value_name = "N", global = true)]
  pub frames: Option<u64>,

  /// Write the last frame to this PNG file; pair with --frames N. Without
  /// --window the frames render offscreen (no window, no display needed).
  #[arg(long, value_name = "PNG", requires = "frames", global = true)]
  pub screenshot: Option<std::path::PathBuf>,

  /// Render size, WIDTHxHEIGHT: the offscreen frame, or the window's
  /// initial inner size.
  #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_size, global = true)]
  pub size: (u32, u32),

  /// Render quality tier: low, balanced or cinematic (shadow resolution,
  /// ambient occlusion, anti-aliasing, pixel ratio); default balanced, or
  /// low on a software adapter such as lavapipe.
  #[arg(long, value_name = "TIER", value_parser = ["low", "balanced", "cinematic"], global = true)]
  pub quality: Option<String>,

  /// Advance a virtual clock by exactly one fixed step per frame instead of
  /// wall-clock time: reproducible runs as fast as the CPU allows.
  #[arg(long, global = true)]
  pub deterministic: bool,

  /// Register the benchmark-only reference ops (noop, add, echo, in-place
  /// scale and sum) that `limina/bench` exposes: for js/bench/runtime.ts.
  #[arg(long, global = true)]
  pub bench_ops: bool,

  /// Serve MCP as newline-delimited JSON-RPC on stdin/stdout (logs go to
  /// stderr). The optional MODULE builds the world first: its default
  /// export is called with the world session.
  #[arg(long, conflicts_with_all = ["mcp_ws", "mcp_http"])]
  pub mcp_stdio: bool,

  /// Serve MCP to many clients over WebSocket: the authoritative world server.
  #[arg(long, group = "network")]
  pub mcp_ws: bool,

  /// Serve MCP Streamable HTTP (the standard remote transport) to many
  /// clients; with --mcp-ws too, both serve the same world.
  #[arg(long, group = "network")]
  pub mcp_http: bool,

  /// Port for the network server (0 picks a free one; bound ports are
  /// printed to stderr). With --mcp-ws and --mcp-http it is the WebSocket port.
  #[arg(long, value_name = "N", requires = "network", default_value_t = 7878)]
  pub port: u16,

  /// Port for --mcp-http when --mcp-ws runs too (default: --port + 1).
  #[arg(long, value_name = "N", requires = "mcp_http")]
  pub http_port: Option<u16>,

  /// The Streamable HTTP endpoint's path.
  #[arg(long, value_name = "PATH", requires = "mcp_http", default_value = "/mcp", value_parser = parse_path)]
  pub path: String,

  /// Address the network servers bind. Anything but a loopback address
  /// needs --token.
  #[arg(long, value_name = "H", requires = "network", default_value = "127.0.0.1")]
  pub host: String,

  /// Bearer token network clients must present (`Authorization: Bearer
  /// TOKEN`); also read from LIMINA_MCP_TOKEN. Required to bind a
  /// non-loopback address.
  #[arg(long, value_name = "TOKEN", requires = "network")]
  pub token: Option<String>,

  /// The operator's permission profile: standard MCP clients run under it,
  /// and over WebSocket it is the ceiling for the profile a Limina client
  /// names in `initialize` (over stdio the spawning process may name any).
  #[arg(long, value_name = "NAME", default_value = "builder.readWrite")]
  pub profile: String,

  /// Largest accepted MCP message (a stdio line or a WebSocket message), in bytes.
  #[arg(long, value_name = "BYTES", default_value_t = limina_mcp::DEFAULT_MAX_MESSAGE_BYTES as u32, value_parser = clap::value_parser!(u32).range(64..))]
  pub max_message_bytes: u32,

  /// Most WebSocket clients, and most HTTP sessions, served at once; the
  /// next is refused (WebSocket close code 1013, HTTP 503).
  #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
  pub max_clients: u32,

  /// Seconds a network client may stay silent before it is closed: a
  /// WebSocket client (pinged three times meanwhile) with 1001, an HTTP
  /// session with no request, pending reply or open stream is ended.
  #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=86400))]
  pub idle_timeout: u32,

  /// A durable world: restore this world file at start when it exists (the
  /// module learns it is restoring), save it every --save-every seconds and
  /// on SIGTERM/SIGINT, atomically, so a restarted server goes on with the
  /// same world and the same next ids.
  #[arg(long, value_name = "FILE", requires = "network")]
  pub world_file: Option<String>,

  /// Seconds between saves of --world-file.
  #[arg(long, value_name = "SECS", requires = "world_file", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=86400))]
  pub save_every: u32,

  /// Stream the world log to NATS JetStream as well, at
  /// nats://HOST:PORT/SUBJECT (the stream is created when missing), so
  /// `limina replay nats://…` can rebuild the world on another process.
  #[arg(long, value_name = "URL", requires = "network")]
  pub log_sink: Option<String>,

  /// Tools per page of a standard client's `tools/list` (`nextCursor` leads
  /// to the next); 0 lists every tool on one page.
  #[arg(long, value_name = "N", default_value_t = 100)]
  pub tools_page_size: u32,

  /// The tool listing standard clients get unless a request asks for the
  /// other (`_meta["io.limina/listing"]`): `full`, or `core` — a builder's
  /// core set with skills.search and skills.describe, for small context windows.
  #[arg(long, value_name = "LISTING", default_value = "full", value_parser = ["full", "core"])]
  pub tools_listing: String,

  /// Publish the state stream (what WebSocket spectators get: per-tick
  /// deltas and a snapshot every second) to NATS at
  /// nats://HOST:PORT/SUBJECT, for `limina relay` to fan out to browsers:
  /// the world server publishes once a tick however large the audience.
  #[arg(long, value_name = "URL", requires = "network")]
  pub spectator_sink: Option<String>,

  /// Development server: lets `dev.reload` swap skill handlers (each reload
  /// loads a new module copy, so it is off on a shared world).
  #[arg(long)]
  pub dev: bool,

  /// Say on stderr what a stdio server serves once it starts (said anyway
  /// when stderr is a terminal; an MCP client spawning the server would only
  /// log the line).
  #[arg(long)]
  pub verbose: bool,
}

fn parse_path(s: &str) -> Result<String, String> {
  let ok = s.starts_with('/') && s.bytes().all(|b| b.is_ascii_graphic() && !matches!(b, b'?' | b'#'));
  if ok {
    Ok(s.to_owned())
  } else {
    Err(format!("expected an absolute path such as /mcp, got {s:?}"))
  }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
  let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("expected WIDTHxHEIGHT, got {s:?}"))?;
  let dim = |v: &str| v.parse::<u32>().ok().filter(|n| (1..=8192).contains(n));
  match (dim(w), dim(h)) {
    (Some(w), Some(h)) => Ok((w, h)),
    _ => Err(format!("width and height must be 1–8192, got {s:?}")),
  }
}

#[derive(Debug, Subcommand)]
pub enum Command {
  /// Run a built-in demo (embedded in this binary); without NAME, list them.
  Demo {
    /// The demo's name, e.g. billiards.
    name: Option<String>,
  },
  /// Print the TypeScript declarations of the "limina" modules, the
  /// `Limina` global and the bundled libraries' module names.
  Types,
  /// Describe the registered skills.
  Skills {
    /// Print the skills reference as Markdown (names, permissions, input
    /// schemas and outputs, from the registry itself).
    #[arg(long)]
    markdown: bool,
  },
  /// Make signing keys for packages, sign them, and verify their
  /// attestation (the ed25519 signature over name@version:contentHash).
  Package {
    #[command(subcommand)]
    action: PackageAction,
  },
  /// Work with exported world-log traces.
  Trace {
    #[command(subcommand)]
    action: TraceAction,
  },
  /// Rebuild a world from its world log: verify the trace's chain (a broken
  /// or truncated one is refused), re-apply its world-changing skill calls
  /// on the fixed step and compare the world digest at every checkpoint.
  /// Exit 0 printing the final digest when all match, otherwise exit 1
  /// naming the first divergent tick.
  Replay {
    /// The .jsonl trace file, or a world log streamed to NATS JetStream
    /// (nats://HOST:PORT/SUBJECT, read as an open log).
    source: String,
    /// Start from this world file (a snapshot) instead of an empty world.
    #[arg(long, value_name = "FILE")]
    snapshot: Option<String>,
    /// Stop at this tick.
    #[arg(long, value_name = "TICK")]
    until: Option<u64>,
  },
  /// Write a static player of a world log: a folder (index.html, the page's
  /// module, the world log, keyframes and deltas of every tick, the HDRIs)
  /// that replays the world in a browser from any static file server, with
  /// play, pause, seek and speed. The trace is verified and replayed here
  /// first (a broken one, or one that does not replay, is refused); the
  /// browser checks the log's sha256 chain again before it plays anything.
  /// The folder is written beside DIR and renamed into place, so it is
  /// whole or absent; an existing non-empty DIR is refused.
  ExportWeb {
    /// The .jsonl trace file (a sealed world log, e.g. from trace.export).
    trace: String,
    /// The folder to write (must not exist, or be empty).
    #[arg(long, value_name = "DIR")]
    out: String,
    /// The world file (snapshot) the trace continues from, as for `limina replay`.
    #[arg(long, value_name = "FILE")]
    snapshot: Option<String>,
  },
  /// Serve the spectator page and fan a world's state stream out to
  /// browsers from NATS (what a world server publishes with
  /// --spectator-sink): spectators only, nothing that writes.
  Relay {
    /// Where the world publishes: nats://HOST:PORT/SUBJECT.
    url: String,
    /// The port browsers connect to (0 picks a free one).
    #[arg(long, value_name = "N", default_value_t = 7880)]
    port: u16,
    /// The address to bind.
    #[arg(long, value_name = "H", default_value = "127.0.0.1")]
    host: String,
  },
}

#[derive(Debug, Subcommand)]
pub enum PackageAction {
  /// Make an ed25519 signing key: the secret key goes to FILE (hex,
  /// owner-only); the public key is printed, for LIMINA_TRUSTED_KEYS.
  Keygen {
    /// Where to write the secret key (never overwritten).
    file: std::path::PathBuf,
  },
  /// Sign the package in DIR: writes the signature over
  /// name@version:contentHash into its limina-package.json.
  Sign {
    /// The package directory (holding limina-package.json).
    dir: std::path::PathBuf,
    /// The secret key file `limina package keygen` wrote.
    #[arg(long, value_name = "FILE")]
    key: std::path::PathBuf,
  },
  /// Verify the package in DIR: manifest, content hash and signature
  /// against the trusted keys. Exit 0 when attested by a trusted key,
  /// otherwise exit 1 naming the reason.
  Verify {
    /// The package directory.
    dir: std::path::PathBuf,
    /// The trusted keys file (default: LIMINA_TRUSTED_KEYS).
    #[arg(long, value_name = "FILE")]
    trusted_keys: Option<std::path::PathBuf>,
  },
}

#[derive(Debug, Subcommand)]
pub enum TraceAction {
  /// Verify a JSONL trace's sha256 chain and its trace.sealed terminator:
  /// exit 0 when intact and complete, otherwise exit 1 naming the reason and
  /// the line (a file without a terminator is `truncated`).
  Verify {
    /// The .jsonl trace file.
    file: std::path::PathBuf,
    /// Check a live (still open) world log: an intact prefix without a
    /// terminator passes, reported as "open", never as complete.
    #[arg(long)]
    open: bool,
  },
}

impl Cli {
  /// Whether the program gets a native window.
  pub fn windowed(&self) -> bool {
    self.window || self.fullscreen
  }
}
