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
  write_png(path, width, height, rgba)
}

pub fn write_png(path: &str, width: u32, height: u32, rgba: &[u8]) -> Result<(), OpError> {
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

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn pngs_round_trip_and_bad_sizes_are_refused() {
    let path = std::env::temp_dir().join(format!("limina-png-{}.png", std::process::id()));
    let path = path.to_str().unwrap();
    let pixels: Vec<u8> = (0..3 * 2).flat_map(|i| [i as u8 * 40, 255 - i as u8, 7, 255]).collect();
    write_png(path, 3, 2, &pixels).unwrap();
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (3, 2));
    assert_eq!(&buf[..info.buffer_size()], &pixels[..]);
    assert_eq!(write_png(path, 3, 3, &pixels).unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
    assert_eq!(write_png(path, 0, 2, &[]).unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
    assert!(write_png("/nonexistent-dir/x.png", 3, 2, &pixels).is_err());
  }
}
