//! WebGPU for Limina: registers `deno_webgpu` (with the `deno_webidl` and
//! `deno_web` pieces it needs) so `navigator.gpu` and the `GPU*` classes
//! exist inside V8, owns the native window and its surface, and captures
//! rendered frames to PNG files natively, and lays out and rasterizes UI
//! text (`text`), and draws it on the GPU from a glyph atlas (`sdf`).

pub mod bake_cache;
pub mod gpu;
pub mod sdf;
pub mod text;
pub mod window;

use std::cell::RefCell;
use std::io::BufWriter;
use std::rc::Rc;
use std::sync::Arc;

use deno_core::{op2, Extension, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::work::Busy;
use limina_ops::{OpError, Work};

/// How the command line asked to render.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderConfig {
  /// Write the last frame here.
  pub screenshot: Option<String>,
  pub width: u32,
  pub height: u32,
  pub max_frames: Option<u64>,
  /// The render quality tier asked for (`--quality`): low, balanced or cinematic.
  pub quality: Option<String>,
  /// Set once the screenshot file has been written.
  #[serde(skip)]
  pub screenshot_written: bool,
}

/// Whether the `--screenshot` file was written in this run.
pub fn screenshot_written(state: &OpState) -> bool {
  state.try_borrow::<RenderConfig>().is_some_and(|c| c.screenshot_written)
}

#[op2]
#[serde]
pub fn op_render_config(state: &mut OpState) -> RenderConfig {
  state.borrow::<RenderConfig>().clone()
}

/// Writes tightly packed RGBA8 pixels (`width * height * 4` bytes, rows top
/// to bottom) to a PNG file.
#[op2(fast)]
pub fn op_render_write_png(state: &mut OpState, #[string] path: &str, width: u32, height: u32, #[buffer] rgba: &[u8]) -> Result<(), OpError> {
  write_png(path, width, height, rgba)?;
  if let Some(config) = state.try_borrow_mut::<RenderConfig>() {
    if config.screenshot.as_deref() == Some(path) {
      config.screenshot_written = true;
    }
  }
  Ok(())
}

pub fn write_png(path: &str, width: u32, height: u32, rgba: &[u8]) -> Result<(), OpError> {
  check_rgba(width, height, rgba)?;
  let file = std::fs::File::create(path).map_err(|e| OpError::io(format!("cannot write {path}"), e))?;
  encode_into(BufWriter::new(file), width, height, rgba).map_err(|e| OpError::internal(format!("cannot encode {path}: {e}")))
}

/// Encodes tightly packed RGBA8 pixels (rows top to bottom) as PNG bytes, on
/// a blocking thread: compressing a 1024×1024 frame takes tens of ms, which
/// the loop thread must not spend.
#[op2]
#[buffer]
pub async fn op_render_encode_png(state: Rc<RefCell<OpState>>, width: u32, height: u32, #[buffer(copy)] rgba: Vec<u8>) -> Result<Vec<u8>, OpError> {
  let _busy = limina_ops::Work::begin(&state.borrow());
  tokio::task::spawn_blocking(move || encode_png(width, height, &rgba))
    .await
    .map_err(|e| OpError::internal(format!("PNG encoding failed: {e}")))?
}

pub fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, OpError> {
  check_rgba(width, height, rgba)?;
  let mut out = Vec::new();
  encode_into(&mut out, width, height, rgba).map_err(|e| OpError::internal(format!("cannot encode PNG: {e}")))?;
  Ok(out)
}

fn check_rgba(width: u32, height: u32, rgba: &[u8]) -> Result<(), OpError> {
  let expected = width as usize * height as usize * 4;
  if width == 0 || height == 0 || rgba.len() != expected {
    return Err(OpError::invalid_input(format!(
      "a {width}×{height} RGBA image needs {expected} bytes, got {}",
      rgba.len()
    )));
  }
  Ok(())
}

fn encode_into<W: std::io::Write>(out: W, width: u32, height: u32, rgba: &[u8]) -> Result<(), png::EncodingError> {
  let mut encoder = png::Encoder::new(out, width, height);
  encoder.set_color(png::ColorType::Rgba);
  encoder.set_depth(png::BitDepth::Eight);
  let mut writer = encoder.write_header()?;
  writer.write_image_data(rgba)?;
  writer.finish()
}

/// Resolves when everything submitted to `device` so far has finished,
/// waiting on a blocking thread. deno_webgpu's `mapAsync` waits for the GPU
/// on the calling thread, which is the loop's: a readback that first awaits
/// this finds the work done and maps at once, so the fixed steps keep their
/// pace while a software adapter renders.
#[op2]
pub fn op_render_gpu_idle(#[cppgc] device: &deno_webgpu::device::GPUDevice) -> impl std::future::Future<Output = Result<(), OpError>> {
  let instance = device.instance.clone();
  let id = device.id;
  async move {
    tokio::task::spawn_blocking(move || instance.device_poll(id, deno_webgpu::wgpu_types::PollType::wait_indefinitely()))
      .await
      .map_err(|e| OpError::internal(format!("waiting for the GPU failed: {e}")))?
      .map(|_| ())
      .map_err(|e| OpError::internal(format!("waiting for the GPU failed: {e}")))
  }
}

/// `GPUBuffer.mapAsync` (READ or WRITE, on an unmapped buffer; 00_gpu.js routes other calls to
/// deno_webgpu's): the buffer mapped now, as deno_webgpu's does it, waiting for the GPU on the calling
/// thread, but without the 10 ms sleep its poll loop takes after the wait has already mapped the buffer,
/// which every readback paid (a capture, a frame read back, a bake stored). Returns why it failed (the
/// promise's rejection) or null; a call wgpu refuses is also the device's validation error, as there.
#[op2]
#[string]
pub fn op_render_buffer_map(#[cppgc] buffer: &deno_webgpu::buffer::GPUBuffer, mode: u32, #[number] offset: u64, #[number] size: u64) -> Option<String> {
  use deno_webgpu::wgpu_core::{device::HostMap, resource::BufferMapOperation};
  let host = if mode == 1 { HostMap::Read } else { HostMap::Write };
  let result = Arc::new(std::sync::Mutex::new(None));
  let callback = {
    let result = result.clone();
    Box::new(move |status| *result.lock().unwrap() = Some(status))
  };
  *buffer.map_state.borrow_mut() = "pending";
  if let Err(e) = buffer.instance.buffer_map_async(buffer.id, offset, Some(size), BufferMapOperation { host, callback: Some(callback) }) {
    *buffer.map_state.borrow_mut() = "unmapped";
    let message = e.to_string();
    buffer.error_handler.push_error(Some(e));
    return Some(message);
  }
  // The wait completes the mapping (wgpu calls back from within the poll); a second poll is only for safety.
  for _ in 0..2 {
    if let Err(e) = buffer.instance.device_poll(buffer.device, deno_webgpu::wgpu_types::PollType::wait_indefinitely()) {
      *buffer.map_state.borrow_mut() = "unmapped";
      return Some(format!("waiting for the GPU failed: {e}"));
    }
    let status = result.lock().unwrap().take();
    match status {
      Some(Ok(())) => {
        *buffer.map_state.borrow_mut() = "mapped";
        *buffer.map_mode.borrow_mut() = Some(host);
        return None;
      }
      Some(Err(e)) => {
        *buffer.map_state.borrow_mut() = "unmapped";
        return Some(e.to_string());
      }
      None => {}
    }
  }
  *buffer.map_state.borrow_mut() = "unmapped";
  Some("the GPU did not map the buffer".to_owned())
}

/// Marks a readback (the copy, the wait for the GPU, the mapping) as work in
/// flight until `op_render_readback_end`: the wait runs on a blocking thread
/// (op_render_gpu_idle), and a virtual clock (`--deterministic`) that stepped
/// meanwhile would spin a core and run ahead of the frame being read.
#[op2(fast)]
pub fn op_render_readback_begin(state: &mut OpState) -> u32 {
  let busy = Work::begin(state);
  resource_mut::<Handles<Busy>>(state).insert(busy)
}

#[op2(fast)]
pub fn op_render_readback_end(state: &mut OpState, id: u32) -> Result<(), OpError> {
  resource_mut::<Handles<Busy>>(state).remove(id).map(drop).ok_or_else(|| OpError::not_found(format!("no readback {id} in flight")))
}

/// A decoded image: RGBA8, rows top to bottom.
#[derive(serde::Serialize)]
pub struct DecodedImage {
  pub width: u32,
  pub height: u32,
  pub data: deno_core::ToJsBuffer,
}

/// Decodes PNG bytes (any bit depth or colour type) to RGBA8: glTF textures
/// and screenshots, with no browser image stack.
#[op2]
#[serde]
pub fn op_render_decode_png(#[anybuffer] bytes: &[u8]) -> Result<DecodedImage, OpError> {
  decoded(bytes)
}

fn decoded(bytes: &[u8]) -> Result<DecodedImage, OpError> {
  let (width, height, rgba) = decode_png(bytes)?;
  Ok(DecodedImage { width, height, data: rgba.into() })
}

/// Reads and decodes a PNG file to RGBA8 (screenshots, to check them).
#[op2]
#[serde]
pub fn op_render_read_png(#[string] path: &str) -> Result<DecodedImage, OpError> {
  let bytes = std::fs::read(path).map_err(|e| OpError::io(format!("cannot read {path}"), e))?;
  decoded(&bytes)
}

pub fn decode_png(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), OpError> {
  let bad = |e: png::DecodingError| OpError::invalid_input(format!("not a decodable PNG: {e}"));
  let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
  decoder.set_transformations(png::Transformations::normalize_to_color8() | png::Transformations::ALPHA);
  let mut reader = decoder.read_info().map_err(bad)?;
  let size = reader
    .output_buffer_size()
    .ok_or_else(|| OpError::invalid_input("PNG dimensions overflow"))?;
  let mut buf = vec![0; size];
  let info = reader.next_frame(&mut buf).map_err(bad)?;
  buf.truncate(info.buffer_size());
  let rgba = match info.color_type {
    png::ColorType::Rgba => buf,
    png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
    other => return Err(OpError::internal(format!("PNG decoded to unexpected {other:?}"))),
  };
  Ok((info.width, info.height, rgba))
}

deno_core::extension!(
  limina_render,
  deps = [limina_ops, deno_webgpu],
  ops = [bake_cache::op_render_bake_load, bake_cache::op_render_bake_store, gpu::op_render_gpu_instance, gpu::op_render_gpu_started, gpu::op_render_gpu_installed, op_render_config, op_render_write_png, op_render_encode_png, op_render_gpu_idle, op_render_buffer_map, op_render_readback_begin, op_render_readback_end, op_render_decode_png, op_render_read_png, window::op_render_window_size, window::op_render_window_context, window::op_render_window_events, window::op_render_window_reconfigure, text::op_text_layout, text::op_text_paint, sdf::op_text_quads, sdf::op_text_atlas],
  esm_entry_point = "ext:limina_render/00_gpu.js",
  esm = [dir "js", "00_gpu.js"],
  options = { window: Option<window::NativeWindow>, config: RenderConfig, bakes: Option<bake_cache::BakeCache> },
  state = |state, options| {
    state.put(options.config);
    state.put(text::GlyphCache::default());
    if let Some(window) = options.window {
      state.put(window);
    }
    if let Some(bakes) = options.bakes {
      state.put(bakes);
    }
  },
);

/// The extensions rendering needs, in dependency order; `window` is the
/// native window frames are presented to, when the program has one;
/// `bakes`: the disk cache of environment bakes, when there is one.
pub fn extensions(window: Option<window::NativeWindow>, config: RenderConfig, bakes: Option<bake_cache::BakeCache>) -> Vec<Extension> {
  vec![
    deno_webidl::deno_webidl::init(),
    deno_web::deno_web::init(
      Arc::new(deno_web::BlobStore::default()),
      None,
      false,
      deno_web::InMemoryBroadcastChannel::default(),
    ),
    deno_webgpu::deno_webgpu::init(),
    limina_render::init(window, config, bakes),
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
    assert_eq!(decode_png(&std::fs::read(path).unwrap()).unwrap(), (3, 2, pixels.clone()));
    assert_eq!(write_png(path, 3, 3, &pixels).unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
    assert_eq!(write_png(path, 0, 2, &[]).unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
    assert!(write_png("/nonexistent-dir/x.png", 3, 2, &pixels).is_err());
    assert_eq!(decode_png(&encode_png(3, 2, &pixels).unwrap()).unwrap(), (3, 2, pixels.clone()));
    assert_eq!(encode_png(2, 2, &pixels).unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
  }

  #[test]
  fn grey_and_rgb_pngs_decode_to_rgba_and_garbage_is_refused() {
    let encode = |color: png::ColorType, data: &[u8]| {
      let mut out = Vec::new();
      let mut encoder = png::Encoder::new(&mut out, 2, 1);
      encoder.set_color(color);
      encoder.set_depth(png::BitDepth::Eight);
      encoder.write_header().unwrap().write_image_data(data).unwrap();
      out
    };
    let grey = encode(png::ColorType::Grayscale, &[10, 200]);
    assert_eq!(decode_png(&grey).unwrap(), (2, 1, vec![10, 10, 10, 255, 200, 200, 200, 255]));
    let rgb = encode(png::ColorType::Rgb, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(decode_png(&rgb).unwrap(), (2, 1, vec![1, 2, 3, 255, 4, 5, 6, 255]));
    assert_eq!(decode_png(b"\x89PNG but not really").unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
    assert_eq!(decode_png(&grey[..grey.len() - 20]).unwrap_err().code, limina_ops::ErrorCode::InvalidInput);
  }
}
