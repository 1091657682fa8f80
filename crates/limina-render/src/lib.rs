//! WebGPU for Limina: registers `deno_webgpu` (with the `deno_webidl` and
//! `deno_web` pieces it needs) so `navigator.gpu` and the `GPU*` classes
//! exist inside V8, and captures rendered frames to PNG files natively.

use std::io::BufWriter;
use std::sync::Arc;

use deno_core::{op2, Extension};
use limina_ops::OpError;

/// Writes tightly packed RGBA8 pixels (`width * height * 4` bytes, rows top
/// to bottom) to a PNG file.
#[op2(fast)]
pub fn op_render_write_png(#[string] path: &str, width: u32, height: u32, #[buffer] rgba: &[u8]) -> Result<(), OpError> {
  let expected = width as usize * height as usize * 4;
  if width == 0 || height == 0 || rgba.len() != expected {
    return Err(OpError::invalid_input(format!(
      "a {width}×{height} RGBA image needs {expected} bytes, got {}",
      rgba.len()
    )));
  }
  let file = std::fs::File::create(path).map_err(|e| OpError::io(format!("cannot write {path}"), e))?;
  let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
  encoder.set_color(png::ColorType::Rgba);
  encoder.set_depth(png::BitDepth::Eight);
  let mut writer = encoder
    .write_header()
    .map_err(|e| OpError::internal(format!("cannot encode {path}: {e}")))?;
  writer
    .write_image_data(rgba)
    .map_err(|e| OpError::internal(format!("cannot encode {path}: {e}")))?;
  writer.finish().map_err(|e| OpError::internal(format!("cannot encode {path}: {e}")))
}

deno_core::extension!(
  limina_render,
  deps = [limina_ops, deno_webgpu],
  ops = [op_render_write_png],
  esm_entry_point = "ext:limina_render/00_gpu.js",
  esm = [dir "js", "00_gpu.js"],
);

/// The extensions rendering needs, in dependency order.
pub fn extensions() -> Vec<Extension> {
  vec![
    deno_webidl::deno_webidl::init(),
    deno_web::deno_web::init(
      Arc::new(deno_web::BlobStore::default()),
      None,
      false,
      deno_web::InMemoryBroadcastChannel::default(),
    ),
    deno_webgpu::deno_webgpu::init(),
    limina_render::init(),
  ]
}
