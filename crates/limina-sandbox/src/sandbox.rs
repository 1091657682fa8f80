//! One QuickJS runtime per untrusted agent or package: a standard-ECMAScript
//! global plus `host` (see `prelude.js`), a memory limit, a stack limit and
//! a CPU-time deadline enforced by QuickJS's interrupt handler. Everything
//! runs on the calling thread and returns before the host's JS runs again:
//! `host.invoke` only records intents; the host performs them and settles
//! their promises with [`Sandbox::settle`].

use std::cell::Cell;
use std::rc::Rc;

use rquickjs::allocator::{Allocator, RustAllocator};
use rquickjs::context::EvalOptions;
use rquickjs::{qjs, Array, Context, Ctx, Function, Object, Persistent, Runtime, Value};
use serde::Serialize;

const PRELUDE: &str = include_str!("prelude.js");

/// The budgets of one sandbox.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
  /// Most bytes the runtime may allocate.
  pub memory_bytes: usize,
  /// Most bytes of native stack its JS may use.
  pub stack_bytes: usize,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
  /// It ran to the end (its own exceptions, caught or not, included).
  Ok,
  /// Code threw and nothing caught it.
  Threw,
  /// Stopped by the interrupt handler at its CPU deadline.
  CpuBudget,
  /// An allocation would have crossed the memory limit.
  MemoryBudget,
  /// Recursion crossed the stack limit.
  StackOverflow,
}

/// One `host.invoke(skill, input)`, waiting for the host.
#[derive(Debug, Serialize)]
pub struct Intent {
  pub id: u32,
  pub skill: String,
  /// The input as the sandbox's `JSON.stringify` wrote it.
  pub input: String,
}

/// What one entry into the sandbox did.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
  pub status: Status,
  /// Why, when not `Ok`.
  pub error: Option<String>,
  /// The current call's state: "pending", "done" or "failed".
  pub call: &'static str,
  /// Its result as JSON once done, or why it failed.
  pub result: Option<String>,
  pub intents: Vec<Intent>,
  /// Whether promise jobs are still queued (the deadline came first).
  pub jobs_pending: bool,
  /// Thread CPU time this entry used.
  pub cpu_ms: f64,
  /// Bytes the runtime holds after it.
  pub mem_bytes: u64,
}

/// The interrupt handler's view: the deadline, and whether it fired.
#[derive(Default)]
struct Clock {
  deadline_ns: Cell<u64>,
  fired: Cell<bool>,
}

/// The system allocator, metered: QuickJS enforces the limit before it
/// allocates, so the peak seen here tells an exhausted runtime (which may
/// not even manage to build its "out of memory" error, and throws `null`)
/// from code that throws `null` itself.
struct Metered {
  used: Rc<Cell<usize>>,
  peak: Rc<Cell<usize>>,
}

impl Metered {
  fn grew(&self, bytes: usize) {
    let used = self.used.get() + bytes;
    self.used.set(used);
    if used > self.peak.get() {
      self.peak.set(used);
    }
  }

  fn shrank(&self, bytes: usize) {
    self.used.set(self.used.get().saturating_sub(bytes));
  }
}

// SAFETY: every block comes from RustAllocator and goes back to it; the
// meter only reads sizes.
unsafe impl Allocator for Metered {
  fn alloc(&mut self, size: usize) -> *mut u8 {
    let p = RustAllocator.alloc(size);
    if !p.is_null() {
      self.grew(unsafe { RustAllocator::usable_size(p) });
    }
    p
  }

  fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
    let p = RustAllocator.calloc(count, size);
    if !p.is_null() {
      self.grew(unsafe { RustAllocator::usable_size(p) });
    }
    p
  }

  unsafe fn dealloc(&mut self, ptr: *mut u8) {
    self.shrank(RustAllocator::usable_size(ptr));
    RustAllocator.dealloc(ptr)
  }

  unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
    let old = RustAllocator::usable_size(ptr);
    let p = RustAllocator.realloc(ptr, new_size);
    if !p.is_null() {
      self.shrank(old);
      self.grew(RustAllocator::usable_size(p));
    }
    p
  }

  unsafe fn usable_size(ptr: *mut u8) -> usize {
    RustAllocator::usable_size(ptr)
  }
}

/// This thread's CPU time in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
  let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
  // SAFETY: a valid pointer to a timespec; CLOCK_THREAD_CPUTIME_ID always exists on Linux.
  unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
  ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

// Fields drop in order: the control object before the context before the
// runtime (QuickJS asserts that nothing outlives its runtime).
pub struct Sandbox {
  control: Persistent<Object<'static>>,
  context: Context,
  runtime: Runtime,
  clock: Rc<Clock>,
  limits: Limits,
  /// The most bytes held at once since the current entry began.
  peak: Rc<Cell<usize>>,
  used: Rc<Cell<usize>>,
}

/// Why an entry stopped short.
type Failure = (Status, String);

const CPU_STOPPED: &str = "stopped at its CPU-time deadline";

impl Sandbox {
  pub fn new(limits: Limits) -> Result<Self, String> {
    let used = Rc::new(Cell::new(0));
    let peak = Rc::new(Cell::new(0));
    let runtime = Runtime::new_with_alloc(Metered { used: used.clone(), peak: peak.clone() }).map_err(|e| format!("cannot create a QuickJS runtime: {e}"))?;
    runtime.set_memory_limit(limits.memory_bytes);
    runtime.set_max_stack_size(limits.stack_bytes);
    let clock = Rc::new(Clock::default());
    let watch = clock.clone();
    runtime.set_interrupt_handler(Some(Box::new(move || {
      if thread_cpu_ns() >= watch.deadline_ns.get() {
        watch.fired.set(true);
      }
      watch.fired.get()
    })));
    let context = Context::full(&runtime).map_err(|e| format!("cannot create a QuickJS context: {e}"))?;
    clock.deadline_ns.set(u64::MAX);
    let control = context.with(|ctx| -> Result<_, String> {
      let control: Object = ctx.eval(PRELUDE).map_err(|e| format!("the sandbox prelude failed: {}", describe(&ctx, e)))?;
      Ok(Persistent::save(&ctx, control))
    })?;
    Ok(Self { control, context, runtime, clock, limits, peak, used })
  }

  /// Runs a script's top-level code, then its promise jobs, within `cpu_ms`.
  pub fn eval(&mut self, source: &str, filename: &str, cpu_ms: f64) -> Outcome {
    let mut options = EvalOptions::default();
    options.global = true;
    options.strict = false;
    options.filename = Some(filename.to_owned());
    self.enter(cpu_ms, |ctx, control| {
      control.get::<_, Function>("reset")?.call::<_, ()>(())?;
      ctx.eval_with_options::<(), _>(source, options)
    })
  }

  /// Calls the `host.onTick` handler (`name` None) or a global function
  /// with one JSON argument; a returned promise is followed to its end.
  pub fn call(&mut self, name: Option<&str>, arg_json: &str, cpu_ms: f64) -> Outcome {
    self.enter(cpu_ms, |ctx, control| {
      let start: Function = control.get("start")?;
      let name = match name {
        Some(n) => rquickjs::String::from_str(ctx.clone(), n)?.into_value(),
        None => Value::new_null(ctx.clone()),
      };
      start.call::<_, ()>((name, arg_json))
    })
  }

  /// Settles `host.invoke` promises with the host's answers (ok, JSON value
  /// or error message), then runs the jobs that follow, within `cpu_ms`.
  pub fn settle(&mut self, answers: &[(u32, bool, String)], cpu_ms: f64) -> Outcome {
    self.enter(cpu_ms, |_, control| {
      let settle: Function = control.get("settle")?;
      for (id, ok, text) in answers {
        settle.call::<_, ()>((*id, *ok, text.as_str()))?;
      }
      Ok(())
    })
  }

  /// Injects the perception snapshot `host.perception` reads (JSON) until
  /// the next one: reads are answered from it, inside the sandbox, without
  /// a crossing. It counts against the sandbox's memory like its own data.
  pub fn perceive(&mut self, json: &str) -> Result<(), String> {
    self.context.with(|ctx| {
      let control = self.control.clone().restore(&ctx).map_err(|e| describe(&ctx, e))?;
      control.get::<_, Function>("perceive").and_then(|f| f.call::<_, ()>((json,))).map_err(|e| describe(&ctx, e))
    })
  }

  /// Whether the code registered a `host.onTick` handler.
  pub fn has_tick(&self) -> bool {
    self.context.with(|ctx| {
      let Ok(control) = self.control.clone().restore(&ctx) else { return false };
      control.get::<_, Function>("hasTick").and_then(|f| f.call::<_, bool>(())).unwrap_or(false)
    })
  }

  /// Bytes the runtime holds now, as its allocator counts them (QuickJS's
  /// own memory report walks the whole heap: too slow for every entry).
  pub fn memory_bytes(&self) -> u64 {
    self.used.get() as u64
  }

  fn enter<F>(&mut self, cpu_ms: f64, f: F) -> Outcome
  where
    F: for<'js> FnOnce(&Ctx<'js>, &Object<'js>) -> rquickjs::Result<()>,
  {
    let started = thread_cpu_ns();
    let budget_ns = if cpu_ms.is_finite() && cpu_ms > 0.0 { (cpu_ms * 1e6) as u64 } else { 0 };
    self.clock.deadline_ns.set(started.saturating_add(budget_ns));
    self.clock.fired.set(false);
    self.peak.set(self.used.get());

    let mut failure = self.context.with(|ctx| {
      let control = self.control.clone().restore(&ctx).expect("the control object belongs to this runtime");
      // The host's stack is deeper or shallower on every op call: measure
      // the limit from here.
      unsafe { qjs::JS_UpdateStackTop(qjs::JS_GetRuntime(ctx.as_raw().as_ptr())) };
      f(&ctx, &control).err().map(|e| self.classify(&ctx, e))
    });
    if failure.is_none() {
      failure = self.run_jobs();
    }
    let (call, result, intents) = self.context.with(|ctx| {
      let control = self.control.clone().restore(&ctx).expect("the control object belongs to this runtime");
      // Reading back is the host's work: no deadline.
      let deadline = self.clock.deadline_ns.replace(u64::MAX);
      let fired = self.clock.fired.replace(false);
      let state = control
        .get::<_, Function>("result")
        .and_then(|f| f.call::<_, Array>(()))
        .and_then(|a| Ok((a.get::<i32>(0)?, a.get::<Option<String>>(1)?)));
      let intents = control.get::<_, Function>("take").and_then(|f| f.call::<_, Vec<Array>>(())).and_then(|list| {
        list.into_iter().map(|a| Ok(Intent { id: a.get(0)?, skill: a.get(1)?, input: a.get(2)? })).collect::<rquickjs::Result<Vec<_>>>()
      });
      self.clock.deadline_ns.set(deadline);
      self.clock.fired.set(fired);
      let (call, result) = match state {
        Ok((0, _)) => ("pending", None),
        Ok((1, json)) => ("done", json),
        Ok((_, why)) => ("failed", why),
        Err(e) => ("failed", Some(describe(&ctx, e))),
      };
      let intents = intents.unwrap_or_default();
      (call, result, intents)
    });
    let (status, error) = match failure {
      None => (Status::Ok, None),
      Some((s, why)) => (s, Some(why)),
    };
    Outcome {
      status,
      error,
      call,
      result,
      intents,
      jobs_pending: self.runtime.is_job_pending(),
      cpu_ms: (thread_cpu_ns() - started) as f64 / 1e6,
      mem_bytes: self.memory_bytes(),
    }
  }

  /// Runs queued promise jobs until none is left or the deadline passes.
  fn run_jobs(&mut self) -> Option<Failure> {
    // Reading the thread's CPU clock is a system call (about a microsecond):
    // the interrupt handler watches inside jobs; between them, every 32nd.
    let mut jobs = 0u32;
    loop {
      jobs = jobs.wrapping_add(1);
      if self.clock.fired.get() || (jobs % 32 == 0 && thread_cpu_ns() >= self.clock.deadline_ns.get()) {
        self.clock.fired.set(true);
        return Some((Status::CpuBudget, CPU_STOPPED.to_owned()));
      }
      match self.runtime.execute_pending_job() {
        Ok(true) => continue,
        Ok(false) => return None,
        Err(job) => {
          let failure = job.0.with(|ctx| {
            let e = ctx.catch();
            self.classify_value(&ctx, &e)
          });
          // A rejected job is the code's own business unless a budget stopped it.
          if failure.0 == Status::Threw {
            continue;
          }
          return Some(failure);
        }
      }
    }
  }

  fn classify<'js>(&self, ctx: &Ctx<'js>, e: rquickjs::Error) -> Failure {
    match e {
      rquickjs::Error::Exception => {
        let value = ctx.catch();
        self.classify_value(ctx, &value)
      }
      rquickjs::Error::Allocation => (Status::MemoryBudget, "out of memory: over its memory limit".to_owned()),
      other => (if self.clock.fired.get() { Status::CpuBudget } else { Status::Threw }, other.to_string()),
    }
  }

  fn classify_value<'js>(&self, ctx: &Ctx<'js>, value: &Value<'js>) -> Failure {
    if self.clock.fired.get() {
      return (Status::CpuBudget, CPU_STOPPED.to_owned());
    }
    // Per-block overheads are QuickJS's, not the meter's: a quarter of the limit covers them.
    let exhausted = || self.peak.get() + self.limits.memory_bytes / 4 >= self.limits.memory_bytes;
    if value.is_null() && exhausted() {
      return (Status::MemoryBudget, "out of memory: over its memory limit".to_owned());
    }
    let text = describe_value(ctx, value);
    let status = if text.contains("out of memory") {
      Status::MemoryBudget
    } else if text.contains("stack overflow") || text.contains("Maximum call stack size exceeded") {
      Status::StackOverflow
    } else {
      Status::Threw
    };
    (status, text)
  }
}

fn describe<'js>(ctx: &Ctx<'js>, e: rquickjs::Error) -> String {
  match e {
    rquickjs::Error::Exception => describe_value(ctx, &ctx.catch()),
    other => other.to_string(),
  }
}

/// "Name: message" for an Error, the value as text otherwise; never runs
/// sandboxed code (no toString, no getters).
fn describe_value<'js>(_ctx: &Ctx<'js>, value: &Value<'js>) -> String {
  if let Some(exception) = value.as_exception() {
    let message = exception.message().unwrap_or_default();
    return match exception.as_object().get::<_, Value>("name").ok().and_then(|n| n.as_string().and_then(|s| s.to_string().ok())) {
      Some(name) if !name.is_empty() => format!("{name}: {message}"),
      _ => message,
    };
  }
  if let Some(s) = value.as_string() {
    return s.to_string().unwrap_or_default();
  }
  if let Some(n) = value.as_number() {
    return n.to_string();
  }
  format!("a thrown {}", value.type_name())
}
