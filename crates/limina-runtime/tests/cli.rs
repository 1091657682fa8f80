//! Drives the real `limina` binary: every `js/test/*.ts` suite, plus the CLI's
//! exit codes and error output on crafted fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo_root() -> PathBuf {
  Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn limina(args: &[&str]) -> Output {
  Command::new(env!("CARGO_BIN_EXE_limina"))
    .args(args)
    .current_dir(repo_root())
    .output()
    .expect("limina runs")
}

fn text(out: &Output) -> (String, String) {
  (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Flags a suite asks for on its first line: `// limina: --deterministic`.
fn directive_flags(path: &Path) -> Vec<String> {
  let source = std::fs::read_to_string(path).unwrap();
  let first = source.lines().next().unwrap_or("");
  first
    .strip_prefix("// limina:")
    .map(|flags| flags.split_whitespace().map(str::to_owned).collect())
    .unwrap_or_default()
}

#[test]
fn every_js_suite_passes() {
  let dir = repo_root().join("js/test");
  let mut suites: Vec<_> = std::fs::read_dir(&dir)
    .unwrap()
    .map(|e| e.unwrap().path())
    .filter(|p| p.extension().is_some_and(|e| e == "ts"))
    .collect();
  suites.sort();
  assert!(!suites.is_empty(), "no suites in {}", dir.display());
  let mut failures = Vec::new();
  for suite in &suites {
    let rel = suite.strip_prefix(repo_root()).unwrap().to_str().unwrap().to_owned();
    let mut args = directive_flags(suite);
    args.push(rel.clone());
    let out = limina(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let (stdout, stderr) = text(&out);
    let summary = stdout.lines().last().unwrap_or("").to_owned();
    eprintln!("{rel}: {summary}");
    let clean = out.status.success() && summary.ends_with(" 0 failed") && !summary.starts_with("0 passed");
    if !clean {
      failures.push(format!("{rel} ({:?}):\n{stdout}\n{stderr}", out.status.code()));
    }
  }
  assert!(failures.is_empty(), "failing suites:\n{}", failures.join("\n"));
}

#[test]
fn an_uncaught_error_exits_1_with_the_ts_line_in_the_stack() {
  let out = limina(&["tests/fixtures/throws.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stderr}");
  assert!(stderr.contains("boom 7"), "{stderr}");
  // Source-mapped: the throw is on line 6 of the .ts file, the call on line 9.
  assert!(stderr.contains("tests/fixtures/throws.ts:6:"), "{stderr}");
  assert!(stderr.contains("tests/fixtures/throws.ts:9:"), "{stderr}");
}

#[test]
fn an_unhandled_rejection_exits_1() {
  let out = limina(&["tests/fixtures/unhandled_rejection.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stderr}");
  assert!(stderr.contains("TypeError: rejected later"), "{stderr}");
  assert!(stderr.contains("unhandled_rejection.ts:3:"), "{stderr}");
}

#[test]
fn a_throw_inside_a_fixed_step_exits_1_with_its_line() {
  let out = limina(&["--deterministic", "tests/fixtures/step_throws.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stderr}");
  assert!(stderr.contains("RangeError: step 3 went wrong"), "{stderr}");
  assert!(stderr.contains("step_throws.ts:4:"), "{stderr}");
}

#[test]
fn a_failing_suite_exits_1_with_its_summary() {
  let out = limina(&["tests/fixtures/failing_suite.ts"]);
  let (stdout, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
  assert_eq!(stdout.lines().last(), Some("1 passed, 1 failed"), "{stdout}");
  assert!(stdout.contains("FAIL fails"), "{stdout}");
  assert!(stderr.contains("expected {\"a\":2}, got {\"a\":1}"), "{stderr}");
}

#[test]
fn frames_runs_exactly_n_frames_then_exits_0() {
  let out = limina(&["--frames", "5", "--deterministic", "tests/fixtures/frames.ts"]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stderr}");
  let lines: Vec<_> = stdout.lines().collect();
  assert_eq!(
    lines,
    (1..=5).map(|n| format!("frame steps={n} alpha=0")).collect::<Vec<_>>(),
    "{stdout}"
  );
}

#[test]
fn frames_on_the_real_clock_also_stops() {
  let out = limina(&["--frames", "3", "tests/fixtures/frames.ts"]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stderr}");
  assert_eq!(stdout.lines().count(), 3, "{stdout}");
}

#[test]
fn a_module_can_stop_its_own_loop() {
  let out = limina(&["--deterministic", "tests/fixtures/stop.ts"]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stderr}");
  assert_eq!(stdout.trim(), "stopped after 10 steps");
}

#[test]
fn exit_code_and_args_reach_the_process() {
  let out = limina(&["tests/fixtures/exit_code.ts", "7", "--not-a-limina-flag"]);
  let (stdout, _) = text(&out);
  assert_eq!(out.status.code(), Some(7));
  assert!(stdout.contains("\"7\", \"--not-a-limina-flag\""), "{stdout}");
}

#[test]
fn syntax_errors_exit_1_naming_the_file() {
  let out = limina(&["tests/fixtures/syntax_error.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stderr}");
  assert!(stderr.contains("syntax_error.ts:1:"), "{stderr}");
}

#[test]
fn a_stalled_top_level_await_is_an_error() {
  let out = limina(&["tests/fixtures/stalled_tla.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stderr}");
  assert!(stderr.contains("never resolved"), "{stderr}");
}

#[test]
fn missing_module_and_a_missing_display_are_clear_errors() {
  let out = limina(&["tests/fixtures/nope.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(2));
  assert!(stderr.contains("module not found: tests/fixtures/nope.ts"), "{stderr}");

  for flag in ["--window", "--fullscreen"] {
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
      .args([flag, "tests/fixtures/hello.ts"])
      .env_remove("DISPLAY")
      .current_dir(repo_root())
      .output()
      .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{flag}");
    assert!(stderr.contains("cannot open a window: no X11 display"), "{flag}: {stderr}");
    assert!(stdout.is_empty(), "{flag} must not run the module");
  }

  let out = limina(&["--frames", "many", "tests/fixtures/hello.ts"]);
  assert_eq!(out.status.code(), Some(2));
  assert!(text(&out).1.contains("invalid value 'many'"));
}

#[test]
fn a_reader_closing_the_pipe_early_is_not_an_error() {
  let cmd = format!("set -o pipefail; '{}' tests/fixtures/chatty.ts | head -n 1 >/dev/null", env!("CARGO_BIN_EXE_limina"));
  let out = Command::new("bash").args(["-c", &cmd]).current_dir(repo_root()).output().unwrap();
  let (_, stderr) = text(&out);
  assert!(out.status.success(), "{stderr}");
  assert_eq!(stderr.trim(), "still running after the reader left");
}

#[test]
fn help_and_version() {
  let out = limina(&["--version"]);
  assert!(out.status.success());
  assert_eq!(text(&out).0.trim(), format!("limina {}", env!("CARGO_PKG_VERSION")));
  let out = limina(&["--help"]);
  let (stdout, _) = text(&out);
  for flag in ["--window", "--frames", "--fullscreen", "--mcp-stdio", "--mcp-ws", "--port", "--host", "--profile", "--max-message-bytes", "--deterministic"] {
    assert!(stdout.contains(flag), "help lacks {flag}");
  }
}
