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
use crate::start_up_memory;

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
    start_up_memory::op_start_up_over,
    process::op_limina_run,
    host_loop::op_set_fixed_step_callback,
    host_loop::op_set_frame_callback,
    host_loop::op_set_arrivals_callback,
    host_loop::op_loop_wake,
    host_loop::op_loop_idle,
    host_loop::op_loop_stop,
    host_loop::op_loop_stats,
    host_loop::op_loop_steps,
    host_loop::op_loop_cpu_ms,
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
  /// `--mcp-stdio`: stdin's first line, being read (and answered) while V8 starts.
  pub first_line: Option<limina_mcp::stdio::FirstLine>,
}

include!(concat!(env!("OUT_DIR"), "/extension_sources.rs"));

/// The embedded copy of an extension file deno_core would read from disk.
fn embedded_source(path: &str) -> &'static str {
  EXTENSION_SOURCES
    .iter()
    .find(|(key, _)| path.ends_with(key) && path[..path.len() - key.len()].ends_with('/'))
    .map(|(_, source)| *source)
    .unwrap_or_else(|| panic!("{path} was not embedded at build time"))
}

/// The lazily loaded extension files, `(specifier, source)`: JS, then ESM.
type LazySources = (Vec<(&'static str, &'static str)>, Vec<(&'static str, &'static str)>);

/// deno_core reads an extension's JS from its crate's source directory when a
/// runtime starts without a snapshot (from one, it skips those files): with
/// `embed_files`, give it the copies embedded at build time instead, so the
/// binary needs no sources.
///
/// The lazily loaded files are taken out and returned, to be served from the
/// residual tables: deno_core 0.413 bakes a lazy module that a snapshot's
/// making loaded as an external string it never stores, so WebGPU's
/// bindings (three's evaluation reaches them) would come back from a
/// snapshot without source; a residual table's source is copied in whole.
fn embed_extension_sources(extension: &mut deno_core::Extension, embed_files: bool) -> LazySources {
  use deno_core::{ExtensionFileSource, ExtensionFileSourceCode};
  let embed = |files: &mut std::borrow::Cow<'static, [ExtensionFileSource]>| {
    for file in files.to_mut().iter_mut() {
      let ExtensionFileSourceCode::LoadedFromFsDuringSnapshot(path) = file.code else { continue };
      *file = ExtensionFileSource::new_computed(file.specifier, std::sync::Arc::from(embedded_source(path)));
    }
  };
  let take = |files: &mut std::borrow::Cow<'static, [ExtensionFileSource]>| {
    let taken = std::mem::take(files);
    taken
      .iter()
      .map(|file| {
        let ExtensionFileSourceCode::LoadedFromFsDuringSnapshot(path) = file.code else {
          panic!("{}: a lazily loaded file is expected to be one of the crate's files", file.specifier)
        };
        let source = embedded_source(path);
        // deno_core reads residual sources as one-byte strings.
        assert!(source.is_ascii(), "{} is not ASCII", file.specifier);
        (file.specifier, source)
      })
      .collect::<Vec<_>>()
  };
  if embed_files {
    embed(&mut extension.js_files);
    embed(&mut extension.esm_files);
  }
  (take(&mut extension.lazy_loaded_js_files), take(&mut extension.lazy_loaded_esm_files))
}

/// Sorted, as deno_core looks them up by binary search; they live as long as the process.
fn residual(mut files: Vec<(&'static str, &'static str)>) -> &'static [(&'static str, &'static str)] {
  files.sort_unstable();
  Box::leak(files.into_boxed_slice())
}

/// Every Limina extension, in registration order, and their lazy files;
/// `from_snapshot`: a snapshot holds their evaluated JS.
fn extensions(options: HostOptions, from_snapshot: bool) -> (Vec<deno_core::Extension>, LazySources) {
  let mut extensions = vec![limina_ops::limina_ops::init()];
  if options.bench_ops {
    extensions.push(limina_ops::limina_bench::init());
  }
  extensions.extend([limina_physics::limina_physics::init(), limina_ecs::limina_ecs::init(), limina_audio::limina_audio::init(options.audio)]);
  extensions.push(limina_nav::limina_nav::init());
  extensions.push(limina_terrain::limina_terrain::init());
  // Environment bakes live beside the start-up cache, keyed by this very build (none when modules come from a source directory).
  let bakes = crate::snapshot::dir().zip(crate::snapshot::build()).map(|(dir, build)| limina_render::bake_cache::BakeCache::new(dir.join("bakes"), format!("{build:016x}")));
  extensions.extend(limina_render::extensions(options.window, options.render, bakes));
  extensions.extend([
    limina_trace::limina_trace::init(),
    limina_sandbox::limina_sandbox::init(),
    limina_mcp::limina_mcp::init(options.serve, options.first_line),
    limina_runtime::init(options.args),
  ]);
  let mut lazy: LazySources = Default::default();
  for extension in &mut extensions {
    let (js, esm) = embed_extension_sources(extension, !from_snapshot);
    lazy.0.extend(js);
    lazy.1.extend(esm);
  }
  (extensions, lazy)
}

/// A fresh V8 host with every Limina extension registered, starting from
/// `snapshot` when given (one `make_snapshot` made with the same extensions).
pub fn new_runtime(options: HostOptions, snapshot: Option<&'static [u8]>) -> JsRuntime {
  let (extensions, (lazy_js, lazy_esm)) = extensions(options, snapshot.is_some());
  JsRuntime::new(RuntimeOptions {
    module_loader: Some(TsModuleLoader::new(Rc::new(CodeCache::from_env())) as Rc<_>),
    extensions,
    startup_snapshot: snapshot,
    residual_lazy_js_sources: residual(lazy_js),
    residual_lazy_esm_sources: residual(lazy_esm),
    ..Default::default()
  })
}

/// A V8 startup snapshot: every extension evaluated, then the `preload`
/// modules loaded and evaluated; and, when `handshake` names one of them,
/// what its `nativeHandshake()` gives (see limina-mcp's `handshake`; None
/// if it gave no text: stdio clients are then answered by JS alone).
pub async fn make_snapshot(
  options: HostOptions,
  preload: &[deno_core::ModuleSpecifier],
  handshake: Option<&deno_core::ModuleSpecifier>,
) -> Result<(Box<[u8]>, Option<String>), deno_core::error::CoreError> {
  let (extensions, (lazy_js, lazy_esm)) = extensions(options, false);
  let mut rt = deno_core::JsRuntimeForSnapshot::new(RuntimeOptions {
    module_loader: Some(TsModuleLoader::new(Rc::new(CodeCache::from_env())) as Rc<_>),
    extensions,
    residual_lazy_js_sources: residual(lazy_js),
    residual_lazy_esm_sources: residual(lazy_esm),
    ..Default::default()
  });
  let mut data = None;
  for url in preload {
    let id = rt.load_side_es_module(url).await?;
    let evaluated = rt.mod_evaluate(id);
    rt.run_event_loop(Default::default()).await?;
    evaluated.await?;
    if Some(url) == handshake {
      data = exported_text(&mut rt, id, "nativeHandshake")?;
    }
  }
  Ok((rt.snapshot(), data))
}

/// What module `id`'s exported function `name` returns, called with no arguments, if it is a string.
fn exported_text(rt: &mut JsRuntime, id: deno_core::ModuleId, name: &str) -> Result<Option<String>, deno_core::error::CoreError> {
  use deno_core::v8;
  let namespace = rt.get_module_namespace(id)?;
  deno_core::scope!(scope, rt);
  v8::tc_scope!(let tc, scope);
  let namespace = v8::Local::new(tc, namespace);
  let Some(key) = v8::String::new(tc, name) else { return Ok(None) };
  let Some(f) = namespace.get(tc, key.into()).and_then(|v| v8::Local::<v8::Function>::try_from(v).ok()) else { return Ok(None) };
  let recv = v8::undefined(tc).into();
  let value = f.call(tc, recv, &[]);
  if let Some(exception) = tc.exception() {
    return Err(deno_core::error::JsError::from_v8_exception(tc, exception).into());
  }
  Ok(value.filter(|v| v.is_string()).map(|v| v.to_rust_string_lossy(tc)))
}
