//! Process-level ops: the clock behind `performance.now()`, arguments,
//! exit, and running a child process (tests and benchmarks drive other
//! programs, `limina` itself included).

use std::io::Write;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use deno_core::{op2, OpState};
use limina_ops::OpError;

static PROCESS_START: OnceLock<Instant> = OnceLock::new();

/// Marks the process's time origin; call first thing in `main`.
pub fn mark_start() {
  PROCESS_START.get_or_init(Instant::now);
}

/// Arguments after the module on the command line, for `Limina.args`.
pub struct ScriptArgs(pub Vec<String>);

/// Milliseconds since the process started, sub-microsecond resolution.
#[op2(fast)]
pub fn op_limina_now() -> f64 {
  PROCESS_START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

#[op2]
#[serde]
pub fn op_limina_args(state: &mut OpState) -> Vec<String> {
  state.borrow::<ScriptArgs>().0.clone()
}

/// An environment variable, or null when unset (or not UTF-8).
#[op2]
#[string]
pub fn op_limina_env(#[string] name: &str) -> Option<String> {
  std::env::var(name).ok()
}

#[op2]
#[string]
pub fn op_limina_version() -> &'static str {
  env!("CARGO_PKG_VERSION")
}

/// The path of the running `limina` binary.
#[op2]
#[string]
pub fn op_limina_exec_path() -> Result<String, OpError> {
  let path = std::env::current_exe()?;
  path
    .into_os_string()
    .into_string()
    .map_err(|p| OpError::internal(format!("executable path is not UTF-8: {}", p.to_string_lossy())))
}

/// Set while stdout carries a protocol (`--mcp-stdio`): console output then
/// goes to stderr.
pub static STDOUT_RESERVED: AtomicBool = AtomicBool::new(false);

/// Writes console output. A reader that went away (`limina … | head`) is
/// not the program's error: output to a broken pipe is dropped.
#[op2(fast)]
pub fn op_limina_print(#[string] text: &str, to_stderr: bool) -> Result<(), OpError> {
  let result = if to_stderr || STDOUT_RESERVED.load(Ordering::Relaxed) {
    std::io::stderr().lock().write_all(text.as_bytes())
  } else {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush())
  };
  match result {
    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
    _ => Ok(()),
  }
}

/// Ends the process with `code` once the world logs have written what they
/// were handed, the audio thread its last block, and stdout and stderr are flushed.
#[op2(fast)]
pub fn op_limina_exit(state: &mut OpState, code: i32) {
  limina_trace::close_logs(state);
  limina_audio::close(state);
  let _ = std::io::stdout().flush();
  let _ = std::io::stderr().flush();
  std::process::exit(code);
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOptions {
  cmd: String,
  #[serde(default)]
  args: Vec<String>,
  cwd: Option<String>,
  /// Variables set for the child, on top of this process's environment.
  #[serde(default)]
  env: std::collections::BTreeMap<String, String>,
  /// Written to the child's stdin, which is then closed.
  stdin: Option<String>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput {
  /// Exit code; `null` when a signal ended the child.
  code: Option<i32>,
  stdout: String,
  stderr: String,
  wall_ms: f64,
}

/// Runs a child process to completion off the loop and returns its output.
#[op2]
#[serde]
pub async fn op_limina_run(#[serde] options: RunOptions) -> Result<RunOutput, OpError> {
  let mut command = tokio::process::Command::new(&options.cmd);
  command
    .args(&options.args)
    .envs(&options.env)
    .stdin(if options.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .kill_on_drop(true);
  if let Some(cwd) = &options.cwd {
    command.current_dir(cwd);
  }
  let start = Instant::now();
  let mut child = command
    .spawn()
    .map_err(|e| OpError::io(format!("cannot run {}", options.cmd), e))?;
  // Input is written while output is read: a child that answers as it
  // reads would otherwise fill its stdout pipe and stop reading.
  let stdin = child.stdin.take();
  let feed = async move {
    use tokio::io::AsyncWriteExt;
    if let (Some(mut stdin), Some(input)) = (stdin, options.stdin) {
      // A child that exits without reading all of it is not an error here.
      let _ = stdin.write_all(input.as_bytes()).await;
    }
  };
  let ((), out) = tokio::join!(feed, child.wait_with_output());
  let out = out?;
  Ok(RunOutput {
    code: out.status.code(),
    stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    wall_ms: start.elapsed().as_secs_f64() * 1000.0,
  })
}
