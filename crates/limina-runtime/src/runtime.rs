//! Builds the V8 host: one `JsRuntime` with the TypeScript loader, the
//! shared op conventions and the runtime's own globals.

use std::rc::Rc;

use deno_core::{op2, JsRuntime, OpState, RuntimeOptions};

use crate::assets;
use crate::mcp;
use crate::host_loop::{self, HostLoop};
use crate::http;
use crate::module_loader::TsModuleLoader;
use crate::process::{self, ScriptArgs};
use crate::trace_ops;

/// How the command line asked to render.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderConfig {
  /// Write the last frame here.
  pub screenshot: Option<String>,
  pub width: u32,
  pub height: u32,
  pub max_frames: Option<u64>,
}

#[op2]
#[serde]
fn op_render_config(state: &mut OpState) -> RenderConfig {
  state.borrow::<RenderConfig>().clone()
}

deno_core::extension!(
  limina_runtime,
  deps = [limina_ops],
  ops = [
    op_render_config,
    process::op_limina_now,
    process::op_limina_print,
    process::op_limina_args,
    process::op_limina_version,
    process::op_limina_env,
    process::op_limina_exec_path,
    process::op_limina_exit,
    process::op_limina_run,
    host_loop::op_set_fixed_step_callback,
    host_loop::op_set_frame_callback,
    host_loop::op_loop_stop,
    host_loop::op_loop_stats,
    host_loop::op_loop_steps,
    trace_ops::op_trace_seal,
    trace_ops::op_trace_verify,
    trace_ops::op_trace_write,
    trace_ops::op_trace_export,
    trace_ops::op_trace_read,
    trace_ops::op_trace_dir,
    assets::op_assets_resolve,
    assets::op_assets_read,
    http::op_http_post,
    mcp::op_mcp_config,
    mcp::op_mcp_listen_stdio,
    mcp::op_mcp_listen_ws,
    mcp::op_mcp_next,
    mcp::op_mcp_send,
    mcp::op_mcp_broadcast,
    mcp::op_mcp_backlog,
    mcp::op_mcp_close,
  ],
  esm_entry_point = "ext:limina_runtime/02_limina.js",
  esm = [dir "js", "00_console.js", "01_globals.js", "02_limina.js"],
  options = { args: Vec<String>, serve: Option<mcp::ServeConfig>, render: RenderConfig },
  state = |state, options| {
    state.put(ScriptArgs(options.args));
    state.put(options.render);
    state.put(HostLoop::default());
    if let Some(serve) = options.serve {
      state.put(serve);
    }
  },
);

/// A fresh V8 host with every Limina extension registered.
pub fn new_runtime(
  args: Vec<String>,
  serve: Option<mcp::ServeConfig>,
  render: RenderConfig,
  window: Option<limina_render::window::NativeWindow>,
) -> JsRuntime {
  JsRuntime::new(RuntimeOptions {
    module_loader: Some(TsModuleLoader::new() as Rc<_>),
    extensions: [limina_ops::limina_ops::init(), limina_physics::limina_physics::init(), limina_ecs::limina_ecs::init()]
      .into_iter()
      .chain(limina_render::extensions(window))
      .chain([limina_runtime::init(args, serve, render)])
      .collect(),
    ..Default::default()
  })
}
