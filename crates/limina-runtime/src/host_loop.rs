//! The host-owned loop: Rust measures time, runs the JS fixed-step callback
//! in whole `FIXED_DT` steps and the frame callback once per frame, and
//! polls the event loop between frames so promise jobs, timers and async op
//! results land between ticks, never inside one.
//!
//! Input from the transports is applied on arrival: a transport rings the
//! [`Arrivals`] doorbell, which wakes the loop while it waits for its next
//! frame, and the loop calls the JS arrivals callback right away — between
//! frames, so never inside a step. Each call gets `ARRIVAL_BUDGET` of the
//! loop thread's CPU time; work left over rings the doorbell again and
//! continues after the loop has checked for a due frame, so a flood of
//! input delays a fixed step by at most one budget of CPU (plus the one
//! request running when it expires).
//!
//! Under the virtual clock no frame runs while bounded async work is in
//! flight (an asset read, a file written, a provider's HTTP call: see
//! `limina_ops::Work`), so that work completes at the same tick on every
//! run, however slow or loaded the machine.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use deno_core::error::{CoreError, JsError};
use deno_core::{op2, v8, JsRuntime, OpState, PollEventLoopOptions};
use limina_ops::{Arrivals, Work};

use crate::fixed_step::{FixedStepAccumulator, FIXED_DT};

/// How frame time is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockMode {
  /// Wall-clock time; headless frames are paced at 60 per second.
  RealTime,
  /// Each frame advances a virtual clock by exactly one fixed step, so a run
  /// is reproducible and goes as fast as the CPU allows.
  Virtual,
}

impl ClockMode {
  fn as_str(self) -> &'static str {
    match self {
      ClockMode::RealTime => "realtime",
      ClockMode::Virtual => "virtual",
    }
  }
}

#[derive(Debug, Clone, Copy)]
pub struct LoopConfig {
  pub clock: ClockMode,
  /// Stop after this many frames; `None` runs until JS stops the loop or exits.
  pub max_frames: Option<u64>,
}

/// The loop's state in `OpState`: the registered callbacks and counters.
pub struct HostLoop {
  fixed_step: Option<v8::Global<v8::Function>>,
  frame: Option<v8::Global<v8::Function>>,
  arrivals: Option<v8::Global<v8::Function>>,
  /// A callback is registered and the loop has not been stopped: the loop
  /// counts as pending work, so a top-level await on a later tick is valid.
  active: bool,
  /// Nothing is registered to step or draw (none yet — a server waiting for
  /// its first request to need a world — or the "limina" module's systems
  /// are all gone): under the virtual clock no frame runs until one is, so a
  /// run that waits on something else (a child process, a browser, a
  /// client) does not spin a core stepping nothing, and its clock stands
  /// still meanwhile.
  idle: bool,
  stopped: bool,
  clock: Option<ClockMode>,
  steps: u64,
  frames: u64,
  /// The frames' clock: the elapsed seconds handed to the accumulator, summed.
  frame_clock: f64,
  /// Of those, the seconds the catch-up clamp dropped, and those carried into the next frame.
  dropped: f64,
  carried: f64,
}

impl Default for HostLoop {
  fn default() -> Self {
    Self { fixed_step: None, frame: None, arrivals: None, active: false, idle: true, stopped: false, clock: None, steps: 0, frames: 0, frame_clock: 0.0, dropped: 0.0, carried: 0.0 }
  }
}

impl HostLoop {
  fn activate(&mut self, state_ops: &deno_core::ExternalOpsTracker) {
    if !self.active && !self.stopped {
      self.active = true;
      state_ops.ref_op();
    }
  }
}

#[op2]
pub fn op_set_fixed_step_callback(state: &mut OpState, #[scoped] callback: v8::Global<v8::Function>) {
  let tracker = state.external_ops_tracker.clone();
  let host = state.borrow_mut::<HostLoop>();
  host.fixed_step = Some(callback);
  host.idle = false;
  host.activate(&tracker);
}

#[op2]
pub fn op_set_frame_callback(state: &mut OpState, #[scoped] callback: v8::Global<v8::Function>) {
  let tracker = state.external_ops_tracker.clone();
  let host = state.borrow_mut::<HostLoop>();
  host.frame = Some(callback);
  host.idle = false;
  host.activate(&tracker);
}

/// Registers the arrivals callback: called with a CPU time budget in
/// milliseconds whenever the doorbell has rung, and once soon after
/// registering for input that arrived before it. Input keeps the loop
/// going as a system does: a server serves before anything steps.
#[op2]
pub fn op_set_arrivals_callback(state: &mut OpState, #[scoped] callback: v8::Global<v8::Function>) {
  let tracker = state.external_ops_tracker.clone();
  let host = state.borrow_mut::<HostLoop>();
  host.arrivals = Some(callback);
  host.activate(&tracker);
  state.borrow::<Arrivals>().ring();
}

/// Rings the doorbell: the arrivals callback runs again soon, after any due frame.
#[op2(fast)]
pub fn op_loop_wake(state: &mut OpState) {
  state.borrow::<Arrivals>().ring();
}

/// Says whether anything is left to step or draw behind the callbacks
/// (see `HostLoop::idle`); setting a callback clears it.
#[op2(fast)]
pub fn op_loop_idle(state: &mut OpState, idle: bool) {
  state.borrow_mut::<HostLoop>().idle = idle;
}

/// The loop thread's CPU time one arrivals call may take before yielding
/// to a due frame (CPU, not wall time: a call awaiting I/O or a thread
/// preempted by other processes does not use it up).
const ARRIVAL_BUDGET: Duration = Duration::from_millis(2);

/// How long a `--frames` run waits, after its last frame, for work under way.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// Stops the loop after the current step: callbacks are dropped and the
/// process exits once the remaining event-loop work is done.
#[op2(fast)]
pub fn op_loop_stop(state: &mut OpState) {
  stop_loop(state);
}

fn stop_loop(state: &mut OpState) {
  let tracker = state.external_ops_tracker.clone();
  let host = state.borrow_mut::<HostLoop>();
  host.fixed_step = None;
  host.frame = None;
  host.arrivals = None;
  host.stopped = true;
  if host.active {
    host.active = false;
    tracker.unref_op();
  }
}

/// Fixed steps run so far (the current tick while a step runs).
#[op2(fast)]
pub fn op_loop_steps(state: &mut OpState) -> f64 {
  state.borrow::<HostLoop>().steps as f64
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopStats {
  steps: u64,
  frames: u64,
  sim_time: f64,
  fixed_dt: f64,
  clock: &'static str,
  /// CPU time the loop's thread has used, in ms.
  cpu_ms: f64,
  /// The frames' clock in ms, the part of it the catch-up clamp dropped, and
  /// the part not yet stepped: `steps × fixedDt` is exactly the rest.
  frame_clock_ms: f64,
  dropped_ms: f64,
  carried_ms: f64,
}

#[op2]
#[serde]
pub fn op_loop_stats(state: &mut OpState) -> LoopStats {
  let host = state.borrow::<HostLoop>();
  LoopStats {
    steps: host.steps,
    frames: host.frames,
    sim_time: host.steps as f64 * FIXED_DT,
    fixed_dt: FIXED_DT,
    clock: host.clock.unwrap_or(ClockMode::RealTime).as_str(),
    cpu_ms: thread_cpu_ms(),
    frame_clock_ms: host.frame_clock * 1e3,
    dropped_ms: host.dropped * 1e3,
    carried_ms: host.carried * 1e3,
  }
}

/// CPU time the loop's thread has used, in ms: what an arrivals call's
/// budget is counted in, so a busy machine does not cut a drain short.
#[op2(fast)]
pub fn op_loop_cpu_ms() -> f64 {
  thread_cpu_ms()
}

/// Frames run so far.
pub fn frames_run(state: &OpState) -> u64 {
  state.borrow::<HostLoop>().frames
}

/// Whether an error is deno_core's report of a top-level await that can never settle.
fn is_stalled_top_level_await(e: &CoreError) -> bool {
  e.to_string().starts_with("Top-level await promise never resolved")
}

fn thread_cpu_ms() -> f64 {
  let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
  // SAFETY: a valid pointer to a timespec; CLOCK_THREAD_CPUTIME_ID always exists on Linux.
  unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
  ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// Calls a loop callback with one number; a throw becomes the run's error.
fn call_with_number(
  scope: &mut v8::PinScope,
  callback: &v8::Global<v8::Function>,
  arg: f64,
) -> Result<(), Box<JsError>> {
  v8::tc_scope!(let tc, scope);
  let func = v8::Local::new(tc, callback);
  let recv = v8::undefined(tc).into();
  let arg = v8::Number::new(tc, arg).into();
  func.call(tc, recv, &[arg]);
  if let Some(exception) = tc.exception() {
    return Err(JsError::from_v8_exception(tc, exception));
  }
  tc.perform_microtask_checkpoint();
  if let Some(exception) = tc.exception() {
    return Err(JsError::from_v8_exception(tc, exception));
  }
  Ok(())
}

fn callbacks(rt: &JsRuntime) -> (Option<v8::Global<v8::Function>>, Option<v8::Global<v8::Function>>, bool) {
  let state = rt.op_state();
  let state = state.borrow();
  let host = state.borrow::<HostLoop>();
  (host.fixed_step.clone(), host.frame.clone(), host.active)
}

/// Runs one frame: the window's events, the planned fixed steps, the frame
/// callback, then presenting what it drew. The counters advance before each
/// callback so it sees itself counted. `Ok(false)`: the window asked the
/// program to end.
fn run_frame(rt: &mut JsRuntime, acc: &mut FixedStepAccumulator, elapsed: f64) -> Result<bool, CoreError> {
  let state = rt.op_state();
  {
    deno_core::scope!(scope, rt);
    if limina_render::window::pump(scope, &state).is_some() {
      return Ok(false);
    }
  }
  let plan = acc.advance(elapsed);
  let (dropped, carried) = (acc.dropped(), acc.pending());
  bump(rt, |h| {
    h.frames += 1;
    h.frame_clock += elapsed;
    h.dropped = dropped;
    h.carried = carried;
  });
  for _ in 0..plan.steps {
    bump(rt, |h| h.steps += 1);
    // Re-read each step: a step may stop the loop or replace the callback.
    if let (Some(step), _, _) = callbacks(rt) {
      deno_core::scope!(scope, rt);
      call_with_number(scope, &step, FIXED_DT).map_err(CoreError::from)?;
    }
    // A deterministic run's mixer renders this step's audio, sounds started in it included.
    limina_audio::fixed_step(&mut state.borrow_mut(), FIXED_DT);
  }
  if let (_, Some(frame), _) = callbacks(rt) {
    deno_core::scope!(scope, rt);
    call_with_number(scope, &frame, plan.alpha).map_err(CoreError::from)?;
  }
  deno_core::scope!(scope, rt);
  limina_render::window::present(scope, &state).map_err(|e| CoreError::from(deno_error::JsErrorBox::generic(e)))?;
  Ok(true)
}

/// Applies arrived input if the doorbell rang; returns whether more is
/// waiting (the callback left work over, or more arrived meanwhile).
fn apply_arrivals(rt: &mut JsRuntime, arrivals: &Arrivals, cx: &Context) -> Result<bool, CoreError> {
  // Without a callback the doorbell stays rung for the one registered later.
  let Some(callback) = rt.op_state().borrow().borrow::<HostLoop>().arrivals.clone() else { return Ok(false) };
  if !arrivals.take(cx.waker()) {
    return Ok(false);
  }
  deno_core::scope!(scope, rt);
  call_with_number(scope, &callback, ARRIVAL_BUDGET.as_secs_f64() * 1000.0).map_err(CoreError::from)?;
  Ok(arrivals.is_rung())
}

fn bump(rt: &JsRuntime, f: impl FnOnce(&mut HostLoop)) {
  f(rt.op_state().borrow_mut().borrow_mut::<HostLoop>());
}

/// Evaluates the main module and drives the event loop and the fixed-step
/// loop until the program is done: the module settled with no pending work
/// and no active loop, `max_frames` frames ran, or JS stopped the loop.
pub async fn run_main_module(
  rt: &mut JsRuntime,
  main: &deno_core::ModuleSpecifier,
  config: LoopConfig,
) -> Result<(), CoreError> {
  rt.op_state().borrow_mut().borrow_mut::<HostLoop>().clock = Some(config.clock);
  let arrivals = rt.op_state().borrow().borrow::<Arrivals>().clone();
  let work = rt.op_state().borrow().borrow::<Work>().clone();
  let id = rt.load_main_es_module(main).await?;
  let mut evaluation = Box::pin(rt.mod_evaluate(id));
  let mut evaluated = false;
  let mut acc = FixedStepAccumulator::new();
  let mut frames: u64 = 0;
  let mut last_frame = Instant::now();
  let frame_interval = Duration::from_secs_f64(FIXED_DT);
  // Two frame timers, the next frame's always set: re-arming the one that
  // fired for the frame after it is then later than a timer the runtime
  // already knows of, and does not wake the loop's own thread (tokio's time
  // driver writes its eventfd whenever a timer is set earlier than the
  // earliest it knows of: ~50 syscalls a second, each an extra epoll round).
  let start = tokio::time::Instant::now();
  let mut pacers: [Pin<Box<tokio::time::Sleep>>; 2] =
    [Box::pin(tokio::time::sleep_until(start)), Box::pin(tokio::time::sleep_until(start + frame_interval))];
  // Registers the second with the time driver now (a sleep is registered when first polled or reset).
  pacers[1].as_mut().reset(start + frame_interval);
  let mut due = 0;
  let mut settle: Option<Pin<Box<tokio::time::Sleep>>> = None;

  poll_fn(|cx: &mut Context| loop {
    let event_loop = rt.poll_event_loop(cx, PollEventLoopOptions::default());
    if let Poll::Ready(Err(e)) = event_loop {
      if settle.is_some() && !evaluated && is_stalled_top_level_await(&e) {
        // The frames asked for ran; what the module's top level still awaits needed more of them.
        let at = e.to_string().lines().find_map(|l| l.trim().strip_prefix("at ").map(str::to_owned));
        eprintln!(
          "limina: stopped after {frames} frames (--frames {frames}); the module's top-level code was still waiting{} and did not finish (give it more frames, or run without --frames)",
          at.map(|a| format!(" at {a}")).unwrap_or_default()
        );
        return Poll::Ready(Ok(()));
      }
      return Poll::Ready(Err(e));
    }
    if !evaluated {
      if let Poll::Ready(result) = evaluation.as_mut().poll(cx) {
        result?;
        evaluated = true;
        // Start-up is over (a server serves from here on).
        crate::start_up_memory::release();
      }
    }
    if config.max_frames == Some(frames) {
      // The frame budget is spent: the loop stops, and work already under
      // way (a screenshot being read back, a file being written) may finish
      // — for a while.
      let settle = settle.get_or_insert_with(|| {
        stop_loop(&mut rt.op_state().borrow_mut());
        // The event loop looks again right away: with the loop stopped it may already be done.
        cx.waker().wake_by_ref();
        Box::pin(tokio::time::sleep(SETTLE_LIMIT))
      });
      if event_loop.is_ready() {
        return Poll::Ready(Ok(()));
      }
      if settle.as_mut().poll(cx).is_ready() {
        eprintln!("limina: {frames} frames done; exiting with work still pending after {} s", SETTLE_LIMIT.as_secs());
        return Poll::Ready(Ok(()));
      }
      return Poll::Pending;
    }
    let (_, _, active) = callbacks(rt);
    let stopped = rt.op_state().borrow().borrow::<HostLoop>().stopped;
    if !active && (config.max_frames.is_none() || stopped) {
      // Nothing to drive (or the module stopped the loop before its frames ran out): finish once the event loop has settled.
      if event_loop.is_ready() && evaluated {
        return Poll::Ready(Ok(()));
      }
      return Poll::Pending;
    }
    // Before the frame: input that arrived while the loop waited is applied
    // ahead of the next step, and its replies precede that step's output.
    let more = apply_arrivals(rt, &arrivals, cx)?;
    let elapsed = match config.clock {
      ClockMode::Virtual => {
        let idle = config.max_frames.is_none() && rt.op_state().borrow().borrow::<HostLoop>().idle;
        if idle || work.in_flight() > 0 {
          // Its completion (or the JS that registers a system) wakes the loop.
          if more {
            cx.waker().wake_by_ref();
          }
          return Poll::Pending;
        }
        FIXED_DT
      }
      ClockMode::RealTime => {
        if pacers[due].as_mut().poll(cx).is_pending() {
          if more {
            // Yield so replies are written and other input is read, then go on.
            cx.waker().wake_by_ref();
          }
          return Poll::Pending;
        }
        let now = Instant::now();
        let elapsed = now.duration_since(last_frame).as_secs_f64();
        last_frame = now;
        let next = pacers[due].deadline() + frame_interval;
        let at = tokio::time::Instant::now();
        if next < at {
          // After a stall, pace from now instead of bursting to catch up.
          pacers[1 - due].as_mut().reset(at);
          pacers[due].as_mut().reset(at + frame_interval);
        } else {
          pacers[due].as_mut().reset(next + frame_interval);
        }
        due = 1 - due;
        elapsed
      }
    };
    if !run_frame(rt, &mut acc, elapsed)? {
      // The window was closed (or Escape pressed): a normal end.
      stop_loop(&mut rt.op_state().borrow_mut());
      return Poll::Ready(Ok(()));
    }
    frames += 1;
    if config.clock == ClockMode::Virtual {
      // Let the reactor and other tasks run between virtual frames.
      cx.waker().wake_by_ref();
      return Poll::Pending;
    }
  })
  .await
}
