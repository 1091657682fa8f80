//! Builds the V8 host: one `JsRuntime` with the module loader, every native
//! crate's extension and the runtime's own globals.

use std::rc::Rc;

use deno_core::{JsRuntime, RuntimeOptions};

use crate::assets;
use crate::code_cache::CodeCache;
use crate::host_loop::{self, HostLoop};
use crate::http;
use crate::module_loader::TsModuleLoader;
use crate::process::{self, ScriptArgs};

deno_core::extension!(
  limina_runtime,
  deps = [limina_ops],
  ops = [
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
    host_loop::op_set_arrivals_callback,
    host_loop::op_loop_wake,
    host_loop::op_loop_stop,
    host_loop::op_loop_stats,
    host_loop::op_loop_steps,
    assets::op_assets_resolve,
    assets::op_assets_read,
    http::op_http_post,
  ],
  esm_entry_point = "ext:limina_runtime/02_limina.js",
  esm = [dir "js", "00_console.js", "01_globals.js", "02_limina.js"],
  options = { args: Vec<String> },
  state = |state, options| {
    state.put(ScriptArgs(options.args));
    state.put(HostLoop::default());
  },
);

/// What the command line asks of the host.
pub struct HostOptions {
  pub args: Vec<String>,
  pub serve: Option<limina_mcp::ServeConfig>,
  pub render: limina_render::RenderConfig,
  pub window: Option<limina_render::window::NativeWindow>,
  /// Register the benchmark-only reference ops (`--bench-ops`).
  pub bench_ops: bool,
  /// `LIMINA_AUDIO`, `LIMINA_TTS` and whether the run is deterministic.
  pub audio: limina_audio::AudioConfig,
}

include!(concat!(env!("OUT_DIR"), "/extension_sources.rs"));

/// deno_core reads an extension's JS from its crate's source directory when
/// the runtime starts (it expects a snapshot to carry it otherwise); give it
/// the copies embedded at build time instead, so the binary needs no sources.
fn embed_extension_sources(extension: &mut deno_core::Extension) {
  use deno_core::{ExtensionFileSource, ExtensionFileSourceCode};
  let embed = |files: &mut std::borrow::Cow<'static, [ExtensionFileSource]>| {
    for file in files.to_mut().iter_mut() {
      let ExtensionFileSourceCode::LoadedFromFsDuringSnapshot(path) = file.code else { continue };
      let source = EXTENSION_SOURCES
        .iter()
        .find(|(key, _)| path.ends_with(key) && path[..path.len() - key.len()].ends_with('/'))
        .unwrap_or_else(|| panic!("{} ({path}) was not embedded at build time", file.specifier));
      *file = ExtensionFileSource::new_computed(file.specifier, std::sync::Arc::from(source.1));
    }
  };
  embed(&mut extension.js_files);
  embed(&mut extension.esm_files);
  embed(&mut extension.lazy_loaded_esm_files);
  embed(&mut extension.lazy_loaded_js_files);
}

/// A fresh V8 host with every Limina extension registered.
pub fn new_runtime(options: HostOptions) -> JsRuntime {
  let mut extensions = vec![limina_ops::limina_ops::init()];
  if options.bench_ops {
    extensions.push(limina_ops::limina_bench::init());
  }
  extensions.extend([limina_physics::limina_physics::init(), limina_ecs::limina_ecs::init(), limina_audio::limina_audio::init(options.audio)]);
  extensions.extend(limina_render::extensions(options.window, options.render));
  extensions.extend([
    limina_trace::limina_trace::init(),
    limina_sandbox::limina_sandbox::init(),
    limina_mcp::limina_mcp::init(options.serve),
    limina_runtime::init(options.args),
  ]);
  extensions.iter_mut().for_each(embed_extension_sources);
  JsRuntime::new(RuntimeOptions {
    module_loader: Some(TsModuleLoader::new(Rc::new(CodeCache::from_env())) as Rc<_>),
    extensions,
    ..Default::default()
  })
}
