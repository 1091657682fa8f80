//! Drives the real `limina` binary: every `js/test/*.ts` suite, the CLI's
//! exit codes and error output on crafted fixtures, the binary on its own
//! (copied out of the repository, the source tree hidden), and the
//! boundaries of the source tree itself.

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

/// How a suite asks to be run, on its first line: `// limina: --deterministic`
/// gives the flags it runs with; the word `exclusive` among them runs it with
/// no busy suite beside it, only ones that wait (for a suite that bounds
/// wall-clock gaps or counts real-time steps: it needs a core when it wakes,
/// not the machine), and `waits` marks a suite whose CPU is a small share of
/// its time (it waits on the clock, timeouts, idle windows, the servers and
/// browsers it drives) and whose assertions hold however busy the machine:
/// it runs beside the others, busy ones included.
struct Directive {
  flags: Vec<String>,
  exclusive: bool,
  waits: bool,
}

fn directive(path: &Path) -> Directive {
  let source = std::fs::read_to_string(path).unwrap();
  let first = source.lines().next().unwrap_or("");
  let words: Vec<String> = first.strip_prefix("// limina:").map(|w| w.split_whitespace().map(str::to_owned).collect()).unwrap_or_default();
  let has = |word: &str| words.iter().any(|w| w == word);
  let (exclusive, waits) = (has("exclusive"), has("waits"));
  Directive { flags: words.into_iter().filter(|w| w != "exclusive" && w != "waits").collect(), exclusive, waits }
}

/// Each suite's wall time in the last run, so the next one starts the longest first, and its CPU time (its whole
/// process group's), what it takes from the machine.
fn suite_times_file() -> PathBuf {
  Path::new(env!("CARGO_TARGET_TMPDIR")).join("js-suite-seconds.tsv")
}

/// A suite's seconds in a run: wall (until its last process ended) and CPU (every process of its group).
#[derive(Clone, Copy)]
struct Times {
  wall: f64,
  cpu: f64,
}

/// The last run's times (`wall<TAB>cpu<TAB>suite` lines); a checkout that has not run the suites yet (a cold CI
/// clone), or whose file is in another format, takes the committed seed, a quiet run's times, so it too starts the
/// longest first. Only the run's own file is rewritten.
fn last_suite_times() -> std::collections::HashMap<String, Times> {
  let parse = |text: String| -> std::collections::HashMap<String, Times> {
    let line = |l: &str| {
      let mut fields = l.split('\t');
      let (wall, cpu, rel) = (fields.next()?.parse().ok()?, fields.next()?.parse().ok()?, fields.next()?);
      Some((rel.to_owned(), Times { wall, cpu }))
    };
    text.lines().filter_map(line).collect()
  };
  Some(parse(std::fs::read_to_string(suite_times_file()).unwrap_or_default()))
    .filter(|times| !times.is_empty())
    .unwrap_or_else(|| parse(std::fs::read_to_string(repo_root().join("crates/limina-runtime/tests/js-suite-seconds.tsv")).unwrap_or_default()))
}

/// Suites run at once: `LIMINA_TEST_JOBS`, else one per core.
fn suite_jobs() -> usize {
  std::env::var("LIMINA_TEST_JOBS")
    .ok()
    .and_then(|j| j.parse().ok())
    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    .max(1)
}

struct SuiteRun {
  rel: String,
  started: std::time::Instant,
  times: Times,
  failure: Option<String>,
}

/// Makes this process the child subreaper of everything it starts: a process whose parent ends (a suite's
/// background snapshot maker, a browser's helpers) is handed to it, not to init, so `run_suite` reaps it with its
/// suite and counts its CPU.
fn reap_orphans() {
  static ONCE: std::sync::Once = std::sync::Once::new();
  ONCE.call_once(|| {
    // SAFETY: PR_SET_CHILD_SUBREAPER takes a flag and changes only this process's attribute.
    let set = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    assert_eq!(set, 0, "PR_SET_CHILD_SUBREAPER: {}", std::io::Error::last_os_error());
  });
}

/// How long a suite may run before it counts as hung: ten times its last
/// time, at least two minutes; ten minutes for a suite with no last time (a
/// cold run, a new suite). Generous, so only a hang reaches it on a loaded
/// machine.
fn suite_limit(last: Option<f64>) -> std::time::Duration {
  std::time::Duration::from_secs_f64(last.map_or(600.0, |s| (10.0 * s).max(120.0)))
}

/// Once every suite has ended: the processes they left outside their groups (a browser's crash handler starts a
/// session of its own) were handed to this process like the others but are no suite's to reap. Those in another
/// session than this one (which every suite, and every child another test runs, is in) are killed if still running,
/// and reaped, so none outlives the run.
fn reap_strays() {
  // SAFETY: getsid(0) only reads this process's session.
  let session = unsafe { libc::getsid(0) };
  // Each thread's children: an orphan is handed to one of this process's threads.
  let children: Vec<libc::pid_t> = std::fs::read_dir("/proc/self/task")
    .into_iter()
    .flatten()
    .flatten()
    .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
    .flat_map(|list| list.split_whitespace().filter_map(|pid| pid.parse().ok()).collect::<Vec<_>>())
    .collect();
  for pid in children {
    // SAFETY: `pid` is this process's child, so the id stays its own until reaped here, running or not.
    unsafe {
      if libc::getsid(pid) != session {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
      }
    }
  }
}

/// Runs one suite through the binary. The suite leads a process group of its own, and the run lasts until every
/// process of the group has ended — the suite and what it left running, handed to this process by `reap_orphans` —
/// each reaped here with wait4 to sum the group's CPU (a suite whose CPU is a small share of its time mostly waits:
/// see `Directive`). Past `limit` the whole group (its browsers, servers and clients too) is killed, and the suite
/// fails with its name and the output it gave until then instead of hanging the run.
fn run_suite(rel: &str, flags: &[String], limit: std::time::Duration) -> SuiteRun {
  use std::io::Read;
  use std::os::unix::process::{CommandExt, ExitStatusExt};
  reap_orphans();
  let started = std::time::Instant::now();
  let mut child = Command::new(env!("CARGO_BIN_EXE_limina"))
    .args(flags)
    .arg(rel)
    .current_dir(repo_root())
    .process_group(0)
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .expect("limina runs");
  let drain = |mut pipe: Box<dyn Read + Send>| {
    std::thread::spawn(move || {
      let mut bytes = Vec::new();
      let _ = pipe.read_to_end(&mut bytes);
      bytes
    })
  };
  let stdout = drain(Box::new(child.stdout.take().unwrap()));
  let stderr = drain(Box::new(child.stderr.take().unwrap()));
  let group = child.id() as libc::pid_t;
  // Set under the lock as the group's last process is reaped, so the watchdog never signals a group that has gone.
  let finished = std::sync::Mutex::new(false);
  let timed_out = std::sync::atomic::AtomicBool::new(false);
  let (done, watch) = std::sync::mpsc::channel::<()>();
  let (out, suite_ended, cpu) = std::thread::scope(|scope| {
    let (finished, timed_out) = (&finished, &timed_out);
    scope.spawn(move || {
      if watch.recv_timeout(limit) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
        let finished = finished.lock().unwrap();
        if !*finished {
          timed_out.store(true, std::sync::atomic::Ordering::SeqCst);
          // SAFETY: signals only the process group this run created, which has not been reaped whole (`finished`).
          unsafe { libc::kill(-group, libc::SIGKILL) };
        }
      }
    });
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let (mut suite_status, mut suite_ended, mut cpu) = (0, started, 0.0);
    loop {
      // Which of the group's processes (our children: the suite and its orphans) ended, left unreaped (WNOWAIT).
      // SAFETY: an all-zero siginfo is valid for waitid to fill.
      let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
      if unsafe { libc::waitid(libc::P_PGID, group as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) } != 0 {
        let error = std::io::Error::last_os_error();
        assert_eq!(error.kind(), std::io::ErrorKind::Interrupted, "waitid on {rel}'s group: {error}");
        continue;
      }
      // SAFETY: waitid succeeded with WEXITED, so the siginfo is a SIGCHLD's, which carries a pid.
      let pid = unsafe { info.si_pid() };
      let mut finished = finished.lock().unwrap();
      let mut status = 0;
      // SAFETY: an all-zero rusage is valid; wait4 reaps our own child that has ended, which nothing else waits for.
      let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
      let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
      assert_eq!(reaped, pid, "wait4 on {rel}'s process {pid}: {}", std::io::Error::last_os_error());
      cpu += secs(usage.ru_utime) + secs(usage.ru_stime);
      if pid == group {
        (suite_status, suite_ended) = (status, std::time::Instant::now());
      }
      // SAFETY: signal 0 only asks whether the group has a process left (an unreaped one counts).
      if unsafe { libc::kill(-group, 0) } != 0 {
        *finished = true;
        break;
      }
    }
    let out = Output { status: std::process::ExitStatus::from_raw(suite_status), stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() };
    drop(done);
    (out, suite_ended, cpu)
  });
  let seconds = started.elapsed().as_secs_f64();
  // What the processes it left running added to its time.
  let left = match suite_ended.elapsed().as_secs_f64() {
    s if s >= 0.1 => format!(", {s:.1} s of it after the suite ended"),
    _ => String::new(),
  };
  let (stdout, stderr) = text(&out);
  let failure = if timed_out.load(std::sync::atomic::Ordering::SeqCst) {
    let limit = limit.as_secs_f64();
    eprintln!("{rel}: HUNG, killed after {limit:.0} s (CPU {cpu:.1} s)");
    Some(format!("{rel} hung: killed after {limit:.0} s; its output until then:\n{stdout}\n{stderr}"))
  } else {
    let summary = stdout.lines().last().unwrap_or("").to_owned();
    eprintln!("{rel}: {summary} ({seconds:.1} s{left}, CPU {cpu:.1} s)");
    let clean = out.status.success() && summary.ends_with(" 0 failed") && !summary.starts_with("0 passed");
    (!clean).then(|| format!("{rel} ({:?}):\n{stdout}\n{stderr}", out.status.code()))
  };
  SuiteRun { rel: rel.to_owned(), started, times: Times { wall: seconds, cpu }, failure }
}

/// Every `js/test/*.ts` suite through the real binary. Suites are separate
/// processes with their own worlds, so they run side by side, the longest of
/// the last run first (by wall time: how long each holds its lane): busy ones
/// one per core; from the start, beside them,
/// the suites that wait, as many more at once as there are cores (their
/// waiting — the soak's minute, browsers, servers' timeouts — then overlaps
/// the busy ones' work, and each uses a small share of a core); and once the
/// busy ones are done, the `exclusive` ones, one at a time, with at most the
/// last waiting ones beside them.
#[test]
fn every_js_suite_passes() {
  let dir = repo_root().join("js/test");
  let mut suites: Vec<(String, Directive)> = std::fs::read_dir(&dir)
    .unwrap()
    .map(|e| e.unwrap().path())
    .filter(|p| p.extension().is_some_and(|e| e == "ts"))
    .map(|p| (p.strip_prefix(repo_root()).unwrap().to_str().unwrap().to_owned(), directive(&p)))
    .collect();
  assert!(!suites.is_empty(), "no suites in {}", dir.display());
  let last = last_suite_times();
  // Unknown suites (new ones) count as long: they start early.
  let weight = |rel: &str| last.get(rel).map_or(f64::INFINITY, |t| t.wall);
  suites.sort_by(|a, b| weight(&b.0).total_cmp(&weight(&a.0)).then_with(|| a.0.cmp(&b.0)));
  let (exclusive, shared): (Vec<_>, Vec<_>) = suites.into_iter().partition(|(_, d)| d.exclusive);
  let (waiting, busy): (Vec<_>, Vec<_>) = shared.into_iter().partition(|(_, d)| d.waits);

  let jobs = suite_jobs();
  let busy = std::sync::Mutex::new(busy.into_iter());
  let waiting = std::sync::Mutex::new(waiting.into_iter());
  // Busy lanes 0..jobs (the last to run out of busy suites runs the exclusive ones), waiting lanes jobs..2 × jobs.
  let lanes_done = std::sync::Mutex::new(0);
  let runs = std::sync::Mutex::new(Vec::new());
  let run = |lane: usize, rel: &str, d: &Directive| {
    let run = run_suite(rel, &d.flags, suite_limit(last.get(rel).map(|t| t.wall)));
    runs.lock().unwrap().push((lane, run));
  };
  let origin = std::time::Instant::now();
  std::thread::scope(|scope| {
    let (busy, waiting, lanes_done, run, exclusive) = (&busy, &waiting, &lanes_done, &run, &exclusive);
    let drain = move |lane: usize, queue: &std::sync::Mutex<std::vec::IntoIter<(String, Directive)>>| loop {
      let Some((rel, d)) = queue.lock().unwrap().next() else { break };
      run(lane, &rel, &d);
    };
    for lane in 0..jobs {
      scope.spawn(move || {
        drain(lane, busy);
        let done = {
          let mut done = lanes_done.lock().unwrap();
          *done += 1;
          *done
        };
        if done == jobs {
          exclusive.iter().for_each(|(rel, d)| run(lane, rel, d));
        }
      });
      scope.spawn(move || drain(jobs + lane, waiting));
    }
  });
  reap_strays();
  let mut runs = runs.into_inner().unwrap();
  // The timeline, so a slow run shows which lane waited on what.
  runs.sort_by_key(|(_, r)| r.started);
  for (lane, r) in &runs {
    let start = r.started.duration_since(origin).as_secs_f64();
    eprintln!("lane {lane}: {start:6.1} – {:6.1} s  {}", start + r.times.wall, r.rel);
  }
  // Against the wall time: the CPU spread over the cores, the least the run could take.
  let cpu: f64 = runs.iter().map(|(_, r)| r.times.cpu).sum();
  eprintln!("{} suites: {:.1} s of wall, {cpu:.1} s of CPU ({:.1} s a core)", runs.len(), origin.elapsed().as_secs_f64(), cpu / jobs as f64);
  let runs: Vec<SuiteRun> = runs.into_iter().map(|(_, r)| r).collect();
  let times: String = runs.iter().map(|r| format!("{:.2}\t{:.2}\t{}\n", r.times.wall, r.times.cpu, r.rel)).collect();
  let _ = std::fs::write(suite_times_file(), times);
  let failures: Vec<String> = runs.into_iter().filter_map(|r| r.failure).collect();
  assert!(failures.is_empty(), "failing suites:\n{}", failures.join("\n"));
}

#[test]
fn a_hung_suite_fails_with_its_name_and_its_output_so_far() {
  let run = run_suite("tests/fixtures/hangs.ts", &[], std::time::Duration::from_secs(30));
  let failure = run.failure.expect("a hung suite fails");
  assert!(failure.starts_with("tests/fixtures/hangs.ts hung: killed after 30 s"), "{failure}");
  assert!(failure.contains("started: waiting on what never comes"), "{failure}");
}

#[test]
fn a_suite_lasts_until_the_processes_it_left_end_and_their_cpu_counts() {
  let run = run_suite("tests/fixtures/leaves_a_process.ts", &[], std::time::Duration::from_secs(120));
  assert!(run.failure.is_none(), "{:?}", run.failure);
  // The suite itself uses a fraction of that: the left process's second counts only once it was reaped here, so it ended too.
  assert!(run.times.cpu >= 1.0, "the suite and the process it left used {:.2} s of CPU", run.times.cpu);
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
  // It ends as soon as the frames have run, not after the settling time work under way may take.
  assert!(!stderr.contains("still pending after"), "{stderr}");
  let lines: Vec<_> = stdout.lines().collect();
  assert_eq!(
    lines,
    (1..=5).map(|n| format!("frame steps={n} alpha=0")).collect::<Vec<_>>(),
    "{stdout}"
  );
}

#[test]
fn frames_stop_a_module_still_awaiting_steps_with_a_clear_line() {
  // The README's first module awaits 180 steps; 30 frames stop it first.
  let out = limina(&["--frames", "30", "--deterministic", "tests/fixtures/awaits_steps.ts"]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stderr}");
  assert_eq!(stdout.lines().count(), 30, "the loop ran its 30 frames: {stdout}");
  assert!(
    stderr.contains("stopped after 30 frames (--frames 30); the module's top-level code was still waiting at")
      && stderr.contains("awaits_steps.ts:")
      && stderr.contains("did not finish"),
    "{stderr}"
  );
  assert!(!stderr.contains("Top-level await promise never resolved") && !stderr.contains("still pending after"), "{stderr}");
  // Given the frames it needs, it finishes on its own.
  let out = limina(&["--frames", "400", "--deterministic", "tests/fixtures/awaits_steps.ts"]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success() && stdout.contains("done after 180 steps") && !stderr.contains("stopped after"), "{stdout}{stderr}");
}

#[test]
fn the_readme_first_module_runs_whole_and_under_frames() {
  let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
  let from = readme.find("### Your first module").expect("the README has a first module");
  let block = readme[from..].split("```ts\n").nth(1).and_then(|b| b.split("\n```").next()).expect("a ts block");
  let dir = std::env::temp_dir().join(format!("limina-readme-{}", std::process::id()));
  std::fs::create_dir_all(&dir).unwrap();
  let module = dir.join("game.ts");
  std::fs::write(&module, block).unwrap();
  let module = module.to_str().unwrap();
  let out = limina(&["--deterministic", module]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stderr}");
  assert_eq!(stdout.lines().map(|l| l.split(' ').next().unwrap()).collect::<Vec<_>>(), ["t=1s", "t=2s", "t=3s"], "{stdout}");
  let ball: f32 = stdout.lines().last().unwrap().split("y=").nth(1).unwrap().parse().unwrap();
  assert!((ball - 0.5).abs() < 0.05, "the ball rests on the floor: {stdout}");
  let out = limina(&["--frames", "90", "--deterministic", module]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success() && stdout.trim().starts_with("t=1s") && stdout.lines().count() == 1, "{stdout}{stderr}");
  std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_screenshot_that_was_never_taken_is_an_error_naming_why() {
  let png = std::env::temp_dir().join(format!("limina-no-shot-{}.png", std::process::id()));
  let png_arg = png.to_str().unwrap();
  // A module that renders nothing.
  let out = limina(&["--frames", "3", "--deterministic", "--screenshot", png_arg, "tests/fixtures/frames.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stderr}");
  assert!(stderr.contains(&format!("--screenshot {png_arg}: no file written: nothing was rendered")) && stderr.contains("createEngine()"), "{stderr}");
  assert!(!png.exists());
  // A module that stops its loop before the frame the screenshot is of.
  let out = limina(&["--frames", "50", "--deterministic", "--screenshot", png_arg, "tests/fixtures/stop.ts"]);
  let (_, stderr) = text(&out);
  assert_eq!(out.status.code(), Some(1), "{stderr}");
  assert!(stderr.contains("the program ended after 10 of the 50 frames"), "{stderr}");
  assert!(!png.exists());
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
  for flag in ["--window", "--frames", "--fullscreen", "--mcp-stdio", "--mcp-ws", "--port", "--host", "--profile", "--max-message-bytes", "--deterministic", "--bench-ops"] {
    assert!(stdout.contains(flag), "help lacks {flag}");
  }
  for command in ["demo", "types", "skills", "trace"] {
    assert!(stdout.contains(command), "help lacks the {command} command");
  }
}

#[test]
fn demos_are_listed_and_an_unknown_one_is_a_clear_error() {
  let out = limina(&["demo"]);
  let (stdout, _) = text(&out);
  assert!(out.status.success());
  for demo in ["billiards", "builder", "fidelity_scene", "player", "particles", "billiards_headless"] {
    assert!(stdout.lines().any(|l| l.split_whitespace().next() == Some(demo)), "{demo} is not listed:\n{stdout}");
  }
  // Each with a line saying what it shows.
  for line in stdout.lines().skip(1) {
    let described = line.split_whitespace().count() > 4 && line.trim_end().ends_with('.');
    assert!(described, "a demo without a description: {line:?}");
  }
  assert!(stdout.contains("builder  ") && stdout.contains("MCP tool calls"), "{stdout}");
  assert!(!stdout.contains("_core"), "helper modules are not demos:\n{stdout}");
  let out = limina(&["demo", "nope"]);
  assert_eq!(out.status.code(), Some(2));
  assert!(text(&out).1.contains("no demo named \"nope\"; the demos are: "), "{}", text(&out).1);
}

#[test]
fn types_are_the_committed_declarations() {
  let out = limina(&["types"]);
  assert!(out.status.success());
  let committed = std::fs::read_to_string(repo_root().join("js/build/limina.d.ts")).unwrap();
  assert_eq!(text(&out).0, committed, "limina types prints js/build/limina.d.ts");
  for module in ["declare module \"limina\"", "declare module \"limina/testing\"", "declare module \"three\"", "declare const Limina: LiminaGlobal"] {
    assert!(committed.contains(module), "the typings lack {module}");
  }
}

#[test]
fn the_skills_reference_in_docs_is_current() {
  let out = limina(&["skills", "--markdown"]);
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stderr}");
  let committed = std::fs::read_to_string(repo_root().join("docs/skills.md")).unwrap_or_default();
  assert!(
    stdout == committed,
    "docs/skills.md is not what `limina skills --markdown` prints: regenerate it with\n  limina skills --markdown > docs/skills.md"
  );
}

/// The files of the source tree that are JavaScript or TypeScript modules.
fn modules_under(dir: &Path, out: &mut Vec<PathBuf>) {
  for entry in std::fs::read_dir(dir).unwrap().flatten() {
    let path = entry.path();
    let name = entry.file_name().to_string_lossy().into_owned();
    if path.is_dir() {
      if !matches!(name.as_str(), "node_modules" | "target" | ".git" | "build" | ".venv") {
        modules_under(&path, out);
      }
    } else if [".ts", ".mjs", ".js"].iter().any(|ext| name.ends_with(ext)) {
      out.push(path);
    }
  }
}

#[test]
fn only_the_native_crates_js_faces_touch_the_op_table() {
  let root = repo_root();
  let mut files = Vec::new();
  modules_under(&root, &mut files);
  assert!(files.len() > 50, "found only {} modules", files.len());
  let mut offenders = Vec::new();
  for file in &files {
    let rel = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
    // A crate's JS: its typed face (crates/*/js/*.ts) and its ext: bootstrap (crates/*/js/*.js).
    let face = rel.starts_with("crates/") && rel.split('/').nth(2) == Some("js");
    let source = std::fs::read_to_string(file).unwrap();
    if !face && (source.contains("Limina.ops") || source.contains("Deno.core.ops") || source.contains("ext:core/ops")) {
      offenders.push(rel);
    }
  }
  assert!(offenders.is_empty(), "outside the crates' JS faces, these reach into the op table: {offenders:?}");
}

#[test]
fn engine_modules_import_libraries_by_their_public_names() {
  let root = repo_root();
  let mut files = Vec::new();
  for dir in ["js/src", "js/test", "js/bench", "examples", "tests", "crates"] {
    modules_under(&root.join(dir), &mut files);
  }
  let offenders: Vec<String> = files
    .iter()
    .filter(|f| f.extension().is_some_and(|e| e == "ts"))
    .filter(|f| std::fs::read_to_string(f).unwrap().contains(".bundle.mjs\""))
    .map(|f| f.strip_prefix(&root).unwrap().to_string_lossy().into_owned())
    .collect();
  assert!(offenders.is_empty(), "import \"three\", \"zod\" or \"bitecs\", not the bundle files: {offenders:?}");
  // Outside the engine, modules reach Limina only through its public specifiers.
  let reaching_in: Vec<String> = files
    .iter()
    .filter(|f| !f.starts_with(root.join("js/src")) && !f.starts_with(root.join("crates")))
    .filter(|f| {
      let source = std::fs::read_to_string(f).unwrap();
      source.contains("/js/src/") || source.contains("crates/limina-")
    })
    .map(|f| f.strip_prefix(&root).unwrap().to_string_lossy().into_owned())
    .collect();
  assert!(reaching_in.is_empty(), "import \"limina\" (or limina/testing, limina/bench) instead of engine files: {reaching_in:?}");
}

/// Runs `script` with the repository hidden behind an empty tmpfs (a private
/// mount namespace), as a machine with only the binary would see it. Needs
/// root, as CI and setup have; elsewhere the tree stays visible.
fn hidden_repo_shell(script: &str, cwd: &Path) -> Output {
  let root = repo_root();
  let hide = format!("mount -t tmpfs -o size=1m limina-hidden {} && test ! -e {}/js && ", root.display(), root.display());
  let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
  let mut cmd = if is_root {
    let mut c = Command::new("unshare");
    c.args(["--mount", "sh", "-c", &format!("{hide}{script}")]);
    c
  } else {
    eprintln!("not root: the repository stays visible to the copied binary");
    let mut c = Command::new("sh");
    c.args(["-c", script]);
    c
  };
  cmd.current_dir(cwd).env_remove("LIMINA_SOURCE_DIR").output().unwrap()
}

#[test]
fn the_binary_alone_runs_user_modules_mcp_demos_and_screenshots() {
  let dir = std::env::temp_dir().join(format!("limina-standalone-{}", std::process::id()));
  let _ = std::fs::remove_dir_all(&dir);
  std::fs::create_dir_all(&dir).unwrap();
  let bin = dir.join("limina");
  std::fs::copy(env!("CARGO_BIN_EXE_limina"), &bin).unwrap();
  std::fs::write(
    dir.join("game.ts"),
    r#"import { onFixedStep, waitSteps, WorldSession } from "limina";
import * as THREE from "three";
import { z } from "zod";
const session = new WorldSession();
const ball = session.entities.create({ shape: "sphere", size: 1, color: new THREE.Color(0xff0000).getHex(), position: [0, 5, 0], dynamic: true, static: false, friction: 0.5, restitution: 0 });
let steps = 0;
onFixedStep(() => steps++);
await waitSteps(30);
const y = z.number().parse(session.world.position(ball.eid)[1]);
console.log(`${ball.id} fell to y=${y.toFixed(2)} after ${steps} steps; entities=${session.world.entities.size}`);
Limina.loop.stop();
"#,
  )
  .unwrap();
  let out = hidden_repo_shell(
    "set -e; ./limina --deterministic game.ts; ./limina demo billiards --frames 3 --screenshot shot.png; ./limina types > limina.d.ts; \
     ./limina demo builder; for d in billiards_headless particles fidelity_scene player; do ./limina demo $d --deterministic --frames 2 > /dev/null; done; \
     (timeout 5 ./limina --mcp-ws --port 0 2> ws.log || true); grep 'listening on ws://127.0.0.1:' ws.log; \
     if command -v xvfb-run > /dev/null; then xvfb-run -a ./limina demo billiards --window --frames 3 && echo windowed-ok; fi",
    &dir,
  );
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stdout}\n{stderr}");
  assert!(stdout.contains("ent_1 fell to y="), "{stdout}");
  assert!(stdout.contains("after 30 steps; entities=1"), "{stdout}");
  let fell: f64 = stdout.split("fell to y=").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
  assert!(fell < 5.0, "the ball fell: {stdout}");
  assert!(stdout.contains("chain verified"), "the builder demo ran: {stdout}");
  assert!(stdout.contains("MCP world server listening on ws://127.0.0.1:"), "the WebSocket server started: {stdout}");
  if Command::new("sh").args(["-c", "command -v xvfb-run"]).output().is_ok_and(|o| o.status.success()) {
    assert!(stdout.contains("windowed-ok"), "a windowed demo ran: {stdout}\n{stderr}");
  }
  let png = std::fs::read(dir.join("shot.png")).unwrap();
  assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
  assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1280, "width");
  assert!(std::fs::read_to_string(dir.join("limina.d.ts")).unwrap().contains("declare module \"limina\""));

  // A standard MCP client (the official TypeScript SDK, run from the
  // repository) talks to the copied binary, which runs with the tree hidden.
  let root = repo_root();
  let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
  let server: Vec<String> = if is_root {
    vec![
      "unshare".into(),
      "--mount".into(),
      "sh".into(),
      "-c".into(),
      format!("mount -t tmpfs -o size=1m limina-hidden {} && exec {} --mcp-stdio", root.display(), bin.display()),
    ]
  } else {
    vec![bin.display().to_string(), "--mcp-stdio".into()]
  };
  let out = Command::new("node")
    .arg(root.join("js/test/node/standalone_client.mjs"))
    .args(&server)
    .current_dir(&dir)
    .output()
    .unwrap();
  let (stdout, stderr) = text(&out);
  assert!(out.status.success(), "{stdout}\n{stderr}");
  assert!(stdout.contains("\"ok\":true"), "{stdout}");
  let _ = std::fs::remove_dir_all(&dir);
}

/// Waits (up to a minute) for the background child to store `kind`'s snapshot in `cache`.
fn wait_for_snapshot(cache: &Path, kind: &str) {
  let ready = || {
    let files: Vec<String> = std::fs::read_dir(cache.join(concat!("code-", env!("CARGO_PKG_VERSION"))))
      .into_iter()
      .flatten()
      .flatten()
      .map(|e| e.file_name().to_string_lossy().into_owned())
      .collect();
    let prefix = format!("snapshot-{kind}-");
    files.iter().any(|f| f.starts_with(&prefix) && f.ends_with(".bin")) && !files.iter().any(|f| f.starts_with(&prefix) && f.ends_with(".lock"))
  };
  for _ in 0..600 {
    if ready() {
      return;
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
  }
  panic!("no {kind} snapshot in {} after a minute", cache.display());
}

#[test]
fn start_up_snapshots_change_nothing_but_the_start() {
  let dir = std::env::temp_dir().join(format!("limina-snapshots-{}", std::process::id()));
  let _ = std::fs::remove_dir_all(&dir);
  std::fs::create_dir_all(&dir).unwrap();
  let cache = dir.join("cache");
  // Three's evaluation reaches WebGPU's bindings, so an engine snapshot holds
  // them; their functions compile on first call, from the snapshot's source.
  std::fs::write(
    dir.join("world.ts"),
    r#"import { env, waitSteps, WorldSession } from "limina";
import * as THREE from "three";
const session = new WorldSession();
const ball = session.entities.create({ shape: "sphere", size: 1, color: new THREE.Color(0x00ff00).getHex(), position: [0, 5, 0], dynamic: true, static: false, friction: 0.5, restitution: 0 });
await waitSteps(30);
const y = session.world.position(ball.eid)[1];
const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
const buffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
await buffer.mapAsync(GPUMapMode.READ);
console.log(`y=${y} mapped=${buffer.getMappedRange().byteLength}`);
console.log(`args=${Limina.args.join(",")} env=${env("LIMINA_SNAPSHOT_TEST")} clock=${Math.abs(performance.timeOrigin + performance.now() - Date.now()) < 1000}`);
Limina.loop.stop();
"#,
  )
  .unwrap();
  std::fs::write(dir.join("hello.ts"), "console.log(`hello ${Limina.args.join(\",\")}`);\n").unwrap();
  let run = |module: &str, arg: &str, cache_dir: &Path| {
    let out = Command::new(env!("CARGO_BIN_EXE_limina"))
      .args(["--deterministic", module, arg])
      .current_dir(&dir)
      .env("LIMINA_CACHE_DIR", cache_dir)
      .env("LIMINA_STARTUP_LOG", "1")
      .env("LIMINA_SNAPSHOT_TEST", arg)
      .output()
      .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{module} {arg}: {stdout}\n{stderr}");
    (stdout, stderr)
  };

  let (fresh, log) = run("world.ts", "first", &cache);
  assert!(log.contains("start-up snapshot \"engine\" not ready"), "{log}");
  assert!(fresh.contains("mapped=16") && fresh.contains("args=first env=first clock=true"), "{fresh}");
  wait_for_snapshot(&cache, "engine");
  let (restored, log) = run("world.ts", "second", &cache);
  assert!(log.contains("start-up snapshot \"engine\" used"), "{log}");
  // The same world to the last bit; the process's own arguments, environment and clock.
  assert_eq!(restored, fresh.replace("first", "second"));

  let (hello, log) = run("hello.ts", "one", &cache);
  assert!(log.contains("start-up snapshot \"base\" not ready") && hello == "hello one\n", "{hello}{log}");
  wait_for_snapshot(&cache, "base");
  let (hello, log) = run("hello.ts", "two", &cache);
  assert!(log.contains("start-up snapshot \"base\" used") && hello == "hello two\n", "{hello}{log}");

  // LIMINA_CACHE_DIR=off: nothing is made or used.
  let (_, log) = run("hello.ts", "three", Path::new("off"));
  assert!(log.contains("start-up snapshot \"base\" not ready"), "{log}");
  let _ = std::fs::remove_dir_all(&dir);
}
