//! Loads modules: the user's from disk (`file:`), Limina's own from the
//! binary (`limina:`, see `embedded.rs`), reached through the public
//! specifiers ("limina", "three", "zod", …). TypeScript is transpiled
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

use crate::code_cache::CodeCache;
use crate::embedded;

pub struct TsModuleLoader {
  source_maps: RefCell<HashMap<String, Vec<u8>>>,
  code_cache: Rc<CodeCache>,
}

impl TsModuleLoader {
  pub fn new(code_cache: Rc<CodeCache>) -> Rc<Self> {
    Rc::new(Self { source_maps: RefCell::default(), code_cache })
  }

  /// A module's source text and media type, from disk or from the binary.
  fn read(specifier: &ModuleSpecifier) -> Result<(String, MediaType), JsErrorBox> {
    if specifier.scheme() == embedded::SCHEME {
      let path = specifier.path().trim_start_matches('/');
      let bytes = embedded::get(path)
        .ok_or_else(|| JsErrorBox::new("NotFound", format!("cannot load {specifier}: no such module in Limina")))?;
      let code = String::from_utf8(bytes.into_owned())
        .map_err(|_| JsErrorBox::type_error(format!("{specifier} is not UTF-8")))?;
      return Ok((code, MediaType::from_path(std::path::Path::new(path))));
    }
    let path = specifier.to_file_path().map_err(|_| {
      JsErrorBox::generic(format!("only file: and limina: modules can be loaded, not {specifier}"))
    })?;
    let code = std::fs::read_to_string(&path).map_err(|e| {
      JsErrorBox::new("NotFound", format!("cannot read module {}: {e}", path.display()))
    })?;
    Ok((code, MediaType::from_path(&path)))
  }

  fn load_module(&self, specifier: &ModuleSpecifier, requested: &RequestedModuleType) -> Result<ModuleSource, JsErrorBox> {
    let (code, media_type) = Self::read(specifier)?;
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
    let cached = self.code_cache.lookup(specifier.as_str(), code.as_bytes());
    Ok(ModuleSource::new(ModuleType::JavaScript, ModuleSourceCode::String(code.into()), specifier, cached))
  }

  fn transpile(&self, specifier: &ModuleSpecifier, media_type: MediaType, code: String) -> Result<String, JsErrorBox> {
    if let Some((js, map)) = self.code_cache.transpiled(specifier.as_str(), &code) {
      self.source_maps.borrow_mut().insert(specifier.to_string(), map);
      return Ok(js);
    }
    let parsed = deno_ast::parse_module(ParseParams {
      specifier: specifier.clone(),
      text: code.as_str().into(),
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
    let map = emitted.source_map.map(String::into_bytes).unwrap_or_default();
    self.code_cache.store_transpiled(specifier.as_str(), &code, &emitted.text, &map);
    self.source_maps.borrow_mut().insert(specifier.to_string(), map);
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
    if let Some(path) = embedded::public_module(specifier) {
      return Ok(embedded::url(path));
    }
    let resolved = resolve_import(specifier, referrer).map_err(|_| {
      let names: Vec<&str> = embedded::PUBLIC_SPECIFIERS.iter().map(|(name, _)| *name).collect();
      JsErrorBox::type_error(format!(
        "cannot resolve \"{specifier}\" from {referrer}: it is neither a relative or absolute path nor one of \
         Limina's modules ({})",
        names.join(", ")
      ))
    })?;
    match resolved.scheme() {
      "file" => Ok(resolved),
      embedded::SCHEME => Ok(resolved),
      scheme => Err(JsErrorBox::type_error(format!(
        "cannot import {resolved} from {referrer}: {scheme}: imports are not supported, modules load from local files and Limina's own"
      ))),
    }
  }

  fn load(
    &self,
    specifier: &ModuleSpecifier,
    _referrer: Option<&ModuleLoadReferrer>,
    options: ModuleLoadOptions,
  ) -> ModuleLoadResponse {
    ModuleLoadResponse::Sync(self.load_module(specifier, &options.requested_module_type))
  }

  fn code_cache_ready(
    &self,
    specifier: ModuleSpecifier,
    hash: u64,
    code_cache: &[u8],
  ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
    self.code_cache.store(specifier.as_str(), hash, code_cache);
    Box::pin(std::future::ready(()))
  }

  fn get_source_map(&self, specifier: &str) -> Option<Cow<'_, [u8]>> {
    self.source_maps.borrow().get(specifier).map(|v| Cow::Owned(v.clone()))
  }

  /// Maps named by `//# sourceMappingURL=` (the minified bundles ship them),
  /// read only when a stack trace needs them.
  fn load_external_source_map(&self, url: &str) -> Option<Cow<'_, [u8]>> {
    let url = ModuleSpecifier::parse(url).ok()?;
    if url.scheme() == embedded::SCHEME {
      return embedded::get(url.path().trim_start_matches('/'));
    }
    std::fs::read(url.to_file_path().ok()?).ok().map(Cow::Owned)
  }

  fn source_map_source_exists(&self, url: &str) -> Option<bool> {
    let url = ModuleSpecifier::parse(url).ok()?;
    if url.scheme() == embedded::SCHEME {
      return Some(embedded::get(url.path().trim_start_matches('/')).is_some());
    }
    Some(url.to_file_path().ok()?.is_file())
  }
}
