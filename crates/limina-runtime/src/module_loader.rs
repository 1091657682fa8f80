//! Loads the main module and its imports from disk: TypeScript is transpiled
//! in-process by deno_ast, JavaScript and JSON load as they are, and each
//! transpiled module's source map is kept so stack traces point at .ts lines
//! (and external maps, like the bundles', at their original sources).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use deno_ast::{MediaType, ParseParams, SourceMapOption};
use deno_core::{
  resolve_import, ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader,
  ModuleSource, ModuleSourceCode, ModuleSpecifier, ModuleType, RequestedModuleType,
  ResolutionKind,
};
use deno_error::JsErrorBox;

#[derive(Default)]
pub struct TsModuleLoader {
  source_maps: RefCell<HashMap<String, Vec<u8>>>,
}

impl TsModuleLoader {
  pub fn new() -> Rc<Self> {
    Rc::new(Self::default())
  }

  fn load_file(&self, specifier: &ModuleSpecifier, requested: &RequestedModuleType) -> Result<ModuleSource, JsErrorBox> {
    let path = specifier.to_file_path().map_err(|_| {
      JsErrorBox::generic(format!("only file: modules can be loaded, not {specifier}"))
    })?;
    let media_type = MediaType::from_path(&path);
    let code = std::fs::read_to_string(&path).map_err(|e| {
      JsErrorBox::new("NotFound", format!("cannot read module {}: {e}", path.display()))
    })?;
    if matches!(requested, RequestedModuleType::Json) || media_type == MediaType::Json {
      if !matches!(requested, RequestedModuleType::Json) {
        return Err(JsErrorBox::type_error(format!(
          "{specifier} is JSON: import it with {{ type: \"json\" }}"
        )));
      }
      return Ok(ModuleSource::new(
        ModuleType::Json,
        ModuleSourceCode::String(code.into()),
        specifier,
        None,
      ));
    }
    let code = match media_type {
      MediaType::JavaScript | MediaType::Mjs => code,
      MediaType::TypeScript | MediaType::Mts | MediaType::Tsx | MediaType::Jsx => {
        self.transpile(specifier, media_type, code)?
      }
      other => {
        return Err(JsErrorBox::type_error(format!(
          "cannot load {specifier}: unsupported module type {other}"
        )))
      }
    };
    Ok(ModuleSource::new(ModuleType::JavaScript, ModuleSourceCode::String(code.into()), specifier, None))
  }

  fn transpile(&self, specifier: &ModuleSpecifier, media_type: MediaType, code: String) -> Result<String, JsErrorBox> {
    let parsed = deno_ast::parse_module(ParseParams {
      specifier: specifier.clone(),
      text: code.into(),
      media_type,
      capture_tokens: false,
      scope_analysis: false,
      maybe_syntax: None,
    })
    .map_err(|e| JsErrorBox::new("SyntaxError", e.to_string()))?;
    let emitted = parsed
      .transpile(
        &deno_ast::TranspileOptions {
          imports_not_used_as_values: deno_ast::ImportsNotUsedAsValues::Remove,
          decorators: deno_ast::DecoratorsTranspileOption::Ecma,
          ..Default::default()
        },
        &deno_ast::TranspileModuleOptions { module_kind: None },
        &deno_ast::EmitOptions {
          source_map: SourceMapOption::Separate,
          inline_sources: true,
          ..Default::default()
        },
      )
      .map_err(|e| JsErrorBox::new("SyntaxError", e.to_string()))?
      .into_source();
    if let Some(map) = emitted.source_map {
      self.source_maps.borrow_mut().insert(specifier.to_string(), map.into_bytes());
    }
    Ok(emitted.text)
  }
}

impl ModuleLoader for TsModuleLoader {
  fn resolve(
    &self,
    specifier: &str,
    referrer: &str,
    _kind: ResolutionKind,
  ) -> deno_core::ModuleResolveResponse {
    let resolved = resolve_import(specifier, referrer).map_err(|_| {
      JsErrorBox::type_error(format!(
        "cannot resolve \"{specifier}\" from {referrer}: only relative, absolute and file: imports are supported \
         (third-party libraries are imported from js/build/*.bundle.mjs by relative path)"
      ))
    })?;
    match resolved.scheme() {
      "file" => Ok(resolved),
      scheme => Err(JsErrorBox::type_error(format!(
        "cannot import {resolved} from {referrer}: {scheme}: imports are not supported, modules load from local files only"
      ))),
    }
  }

  fn load(
    &self,
    specifier: &ModuleSpecifier,
    _referrer: Option<&ModuleLoadReferrer>,
    options: ModuleLoadOptions,
  ) -> ModuleLoadResponse {
    ModuleLoadResponse::Sync(self.load_file(specifier, &options.requested_module_type))
  }

  fn get_source_map(&self, specifier: &str) -> Option<Cow<'_, [u8]>> {
    self.source_maps.borrow().get(specifier).map(|v| Cow::Owned(v.clone()))
  }

  /// Maps named by `//# sourceMappingURL=` (the minified bundles ship them),
  /// read only when a stack trace needs them.
  fn load_external_source_map(&self, url: &str) -> Option<Cow<'_, [u8]>> {
    let path = ModuleSpecifier::parse(url).ok()?.to_file_path().ok()?;
    std::fs::read(path).ok().map(Cow::Owned)
  }

  fn source_map_source_exists(&self, url: &str) -> Option<bool> {
    let path = ModuleSpecifier::parse(url).ok()?.to_file_path().ok()?;
    Some(path.is_file())
  }
}
