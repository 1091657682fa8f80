//! Thin ops: generation runs on a blocking thread and hands its heights
//! back as a new buffer; everything after that works in place on the
//! JS-owned `Float32Array`/`Uint8Array` maps of the region.

use deno_core::{op2, ToJsBuffer};
use limina_ops::OpError;

use crate::cache::TileCache;
use crate::climate::{self, Climate};
use crate::region::{self, Layout, RegionParams};
use crate::scatter::{self, Kind};
use crate::sculpt::{self, Mode};

fn params(value: serde_json::Value) -> Result<RegionParams, OpError> {
  serde_json::from_value(value).map_err(|e| OpError::invalid_input(format!("bad region parameters: {e}")))
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutOut {
  #[serde(flatten)]
  layout: Layout,
  /// The island preset's lake basin: centre `[x, z]` and radius.
  lake: Option<([f32; 2], f32)>,
  key: String,
}

/// Validates region parameters; returns where the region's samples lie.
#[op2]
#[serde]
pub fn op_terrain_layout(#[serde] value: serde_json::Value) -> Result<LayoutOut, OpError> {
  let p = params(value)?;
  let layout = p.validate()?;
  let lake = (p.preset == region::Preset::Island).then(|| region::island_lake(&p, &layout));
  Ok(LayoutOut { layout, lake, key: p.key() })
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Generated {
  heights: ToJsBuffer,
  digest: String,
  min_height: f32,
  max_height: f32,
  /// `hit`, `stored`, `off`, or `unavailable: <why>` (a default cache directory that cannot be used).
  cache: String,
}

fn generate(p: RegionParams) -> Result<Generated, OpError> {
  let layout = p.validate()?;
  let key = p.key();
  let cache = TileCache::from_env();
  let cached = cache.as_ref().and_then(|c| c.load(&key, &layout));
  let (heights, status) = match (cached, cache) {
    (Some(h), _) => (h, "hit".to_string()),
    (None, None) => (region::generate(&p)?.1, "off".to_string()),
    (None, Some(c)) => {
      let h = region::generate(&p)?.1;
      match c.store(&key, &layout, &h) {
        Ok(()) => (h, "stored".to_string()),
        Err(e) if !c.strict => (h, format!("unavailable: {}", e.message)),
        Err(e) => return Err(e),
      }
    }
  };
  let (lo, hi) = heights.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
  let digest = region::digest(&heights);
  let bytes: Vec<u8> = heights.iter().flat_map(|v| v.to_le_bytes()).collect();
  Ok(Generated { heights: bytes.into(), digest, min_height: lo, max_height: hi, cache: status })
}

/// Generates a region's heights off the loop thread (through the tile cache);
/// `threads` 0 uses the shared pool, otherwise a pool of that many threads.
#[op2]
#[serde]
pub async fn op_terrain_generate(#[serde] value: serde_json::Value, threads: u32) -> Result<Generated, OpError> {
  let p = params(value)?;
  tokio::task::spawn_blocking(move || {
    if threads == 0 {
      return generate(p);
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads as usize).build().map_err(|e| OpError::internal(format!("no thread pool: {e}")))?;
    pool.install(|| generate(p))
  })
  .await
  .map_err(|e| OpError::internal(format!("terrain generation failed: {e}")))?
}

/// Generates through the tile cache now, on this thread (with the rayon pool): the loop
/// waits, so a world's steps never overtake its terrain.
#[op2]
#[serde]
pub fn op_terrain_generate_sync(#[serde] value: serde_json::Value) -> Result<Generated, OpError> {
  generate(params(value)?)
}

/// Generates without the cache, on this thread (what benchmarks time); `threads` as above.
#[op2]
#[buffer]
pub fn op_terrain_generate_now(#[serde] value: serde_json::Value, threads: u32) -> Result<Vec<u8>, OpError> {
  let p = params(value)?;
  let run = || region::generate(&p).map(|(_, h)| h.iter().flat_map(|v| v.to_le_bytes()).collect());
  if threads == 0 {
    return run();
  }
  let pool = rayon::ThreadPoolBuilder::new().num_threads(threads as usize).build().map_err(|e| OpError::internal(format!("no thread pool: {e}")))?;
  pool.install(run)
}

/// `"sha256:…"` of heights as little-endian floats.
#[op2]
#[string]
pub fn op_terrain_digest(#[buffer] heights: &[f32]) -> String {
  region::digest(heights)
}

fn sized<T>(name: &str, buf: &[T], n: usize) -> Result<(), OpError> {
  if buf.len() == n {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name} holds {} samples, the region {n}", buf.len())))
  }
}

/// Temperature, moisture and biome of every sample in rows `z0..z1` (the distance to
/// water is measured over the whole region).
#[op2]
#[allow(clippy::too_many_arguments)]
pub fn op_terrain_classify(
  #[serde] region: serde_json::Value,
  #[serde] climate: serde_json::Value,
  #[buffer] heights: &[f32],
  #[buffer] temperature: &mut [f32],
  #[buffer] moisture: &mut [f32],
  #[buffer] biomes: &mut [u8],
  z0: u32,
  z1: u32,
) -> Result<(), OpError> {
  let p = params(region)?;
  let layout = p.validate()?;
  let c: Climate = serde_json::from_value(climate).map_err(|e| OpError::invalid_input(format!("bad climate: {e}")))?;
  c.validate()?;
  let n = layout.samples as usize;
  for (name, len) in [("heights", heights.len()), ("temperature", temperature.len()), ("moisture", moisture.len()), ("biomes", biomes.len())] {
    if len != n * n {
      return Err(OpError::invalid_input(format!("{name} holds {len} samples, the region {}", n * n)));
    }
  }
  let z1 = (z1 as usize).min(n);
  let z0 = (z0 as usize).min(z1);
  let water = climate::water_distance(heights, n, layout.spacing, p.sea_level);
  climate::classify(heights, &layout, p.center[1], p.sea_level, p.seed, &c, z0..z1, &water, temperature, moisture, biomes);
  Ok(())
}

/// Deforms the heights in place; writes the changed samples' `[x0, z0, x1, z1]` into `touched`.
#[op2]
#[allow(clippy::too_many_arguments)]
pub fn op_terrain_deform(
  #[serde] region: serde_json::Value,
  #[buffer] heights: &mut [f32],
  cx: f32,
  cz: f32,
  radius: f32,
  delta: f32,
  #[string] mode: String,
  #[buffer] touched: &mut [f64],
) -> Result<(), OpError> {
  let p = params(region)?;
  let layout = p.validate()?;
  sized("heights", heights, (layout.samples * layout.samples) as usize)?;
  let mode: Mode = serde_json::from_value(serde_json::Value::String(mode.clone())).map_err(|_| OpError::invalid_input(format!("unknown deform mode {mode:?}")))?;
  let t = sculpt::deform(heights, &layout, [cx, cz], radius, delta, mode)?;
  for (k, v) in t.iter().enumerate().take(touched.len()) {
    touched[k] = *v as f64;
  }
  Ok(())
}

/// The instances of one kind (x, y, z, scale, yaw per instance) as little-endian floats.
#[op2]
#[buffer]
pub fn op_terrain_scatter(
  #[serde] region: serde_json::Value,
  #[buffer] heights: &[f32],
  #[buffer] biomes: &[u8],
  #[string] kind: String,
  density: f32,
  limit: u32,
) -> Result<Vec<u8>, OpError> {
  let p = params(region)?;
  let layout = p.validate()?;
  let n = (layout.samples * layout.samples) as usize;
  sized("heights", heights, n)?;
  sized("biomes", biomes, n)?;
  let kind: Kind = serde_json::from_value(serde_json::Value::String(kind.clone())).map_err(|_| OpError::invalid_input(format!("unknown scatter kind {kind:?}")))?;
  if !(density.is_finite() && (0.0..=1.0).contains(&density)) {
    return Err(OpError::invalid_input(format!("density must be in [0, 1], got {density}")));
  }
  let out = scatter::scatter(heights, biomes, &layout, p.seed, kind, density, limit as usize)?;
  Ok(out.iter().flat_map(|v| v.to_le_bytes()).collect())
}

/// The biome names, by id.
#[op2]
#[serde]
pub fn op_terrain_biomes() -> Vec<&'static str> {
  climate::BIOMES.to_vec()
}

/// The latest generation algorithm's version (what a region gets unless it names another).
#[op2(fast)]
pub fn op_terrain_algorithm_version() -> u32 {
  crate::erosion::ALGORITHM_VERSION
}
