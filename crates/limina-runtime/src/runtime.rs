//! Builds the V8 host: one `JsRuntime` with the TypeScript loader, the
//! shared op conventions and the runtime's own globals.

use std::io::Write;
use std::rc::Rc;
use std::time::Instant;

use deno_core::{op2, JsRuntime, OpState, RuntimeOptions};

use crate::host_loop::{self, HostLoop};
use crate::module_loader::TsModuleLoader;

/// Arguments after the module on the command line, for `Limina.args`.
struct ScriptArgs(Vec<String>);

/// The process's time origin for `performance.now()`.
struct TimeOrigin(Instant);

/// Milliseconds since start-up, sub-microsecond resolution.
#[op2(fast)]
fn op_limina_now(state: &mut OpState) -> f64 {
  state.borrow::<TimeOrigin>().0.elapsed().as_secs_f64() * 1000.0
}

#[op2]
#[serde]
fn op_limina_args(state: &mut OpState) -> Vec<String> {
  state.borrow::<ScriptArgs>().0.clone()
}

#[op2]
#[string]
fn op_limina_version() -> &'static str {
  env!("CARGO_PKG_VERSION")
}

/// Ends the process with `code` once stdout and stderr are flushed.
#[op2(fast)]
fn op_limina_exit(code: i32) {
  let _ = std::io::stdout().flush();
  let _ = std::io::stderr().flush();
  std::process::exit(code);
}

deno_core::extension!(
  limina_runtime,
  deps = [limina_ops],
  ops = [
    op_limina_now,
    op_limina_args,
    op_limina_version,
    op_limina_exit,
    host_loop::op_set_fixed_step_callback,
    host_loop::op_set_frame_callback,
    host_loop::op_loop_stop,
    host_loop::op_loop_stats,
  ],
  esm_entry_point = "ext:limina_runtime/02_limina.js",
  esm = [dir "js", "00_console.js", "01_globals.js", "02_limina.js"],
  options = { args: Vec<String> },
  state = |state, options| {
    state.put(TimeOrigin(Instant::now()));
    state.put(ScriptArgs(options.args));
    state.put(HostLoop::default());
  },
);

/// A fresh V8 host with every Limina extension registered.
pub fn new_runtime(args: Vec<String>) -> JsRuntime {
  JsRuntime::new(RuntimeOptions {
    module_loader: Some(TsModuleLoader::new() as Rc<_>),
    extensions: vec![limina_ops::limina_ops::init(), limina_runtime::init(args)],
    ..Default::default()
  })
}
