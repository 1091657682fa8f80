//! Climate and biomes: temperature from altitude and latitude, moisture from
//! noise and the distance to water, and the biome every sample falls in.

use limina_ops::OpError;
use rayon::prelude::*;

use crate::noise::{fbm, smoothstep};
use crate::region::Layout;

/// The biomes, by id (what the biome map holds and `terrain.sampleBiome` names).
pub const BIOMES: [&str; 8] = ["ocean", "beach", "desert", "grassland", "forest", "taiga", "snow", "rock"];
pub const OCEAN: u8 = 0;
pub const BEACH: u8 = 1;
pub const DESERT: u8 = 2;
pub const GRASSLAND: u8 = 3;
pub const FOREST: u8 = 4;
pub const TAIGA: u8 = 5;
pub const SNOW: u8 = 6;
pub const ROCK: u8 = 7;

/// The climate model's constants.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Climate {
  /// Temperature at sea level on the region's centre line, °C.
  pub temperature: f32,
  /// Cooling per metre of altitude above the sea, °C (stylised: game peaks are low).
  pub lapse_rate: f32,
  /// Cooling per metre north or south of the centre line, °C.
  pub latitude_gradient: f32,
  /// The mean moisture, 0 to 1.
  pub moisture: f32,
  /// Slopes steeper than this (rise over run) are bare rock.
  pub rock_slope: f32,
}

impl Default for Climate {
  fn default() -> Self {
    Self { temperature: 16.0, lapse_rate: 0.09, latitude_gradient: 0.0, moisture: 0.5, rock_slope: 1.1 }
  }
}

impl Climate {
  pub fn validate(&self) -> Result<(), OpError> {
    for (name, v, lo, hi) in [
      ("temperature", self.temperature, -80.0, 80.0),
      ("lapseRate", self.lapse_rate, 0.0, 10.0),
      ("latitudeGradient", self.latitude_gradient, 0.0, 10.0),
      ("moisture", self.moisture, 0.0, 1.0),
      ("rockSlope", self.rock_slope, 0.0, 100.0),
    ] {
      if !(v.is_finite() && v >= lo && v <= hi) {
        return Err(OpError::invalid_input(format!("climate {name} must be in [{lo}, {hi}], got {v}")));
      }
    }
    Ok(())
  }
}

/// Chamfer (3-4) distance in metres from every sample to the nearest one under `sea`.
pub fn water_distance(heights: &[f32], n: usize, spacing: f32, sea: f32) -> Vec<f32> {
  const FAR: u32 = u32::MAX / 2;
  let mut d: Vec<u32> = heights.iter().map(|&h| if h < sea { 0 } else { FAR }).collect();
  for z in 0..n {
    for x in 0..n {
      let i = z * n + x;
      let mut v = d[i];
      if x > 0 { v = v.min(d[i - 1] + 3); }
      if z > 0 {
        v = v.min(d[i - n] + 3);
        if x > 0 { v = v.min(d[i - n - 1] + 4); }
        if x + 1 < n { v = v.min(d[i - n + 1] + 4); }
      }
      d[i] = v;
    }
  }
  for z in (0..n).rev() {
    for x in (0..n).rev() {
      let i = z * n + x;
      let mut v = d[i];
      if x + 1 < n { v = v.min(d[i + 1] + 3); }
      if z + 1 < n {
        v = v.min(d[i + n] + 3);
        if x + 1 < n { v = v.min(d[i + n + 1] + 4); }
        if x > 0 { v = v.min(d[i + n - 1] + 4); }
      }
      d[i] = v;
    }
  }
  let unit = spacing / 3.0;
  d.into_iter().map(|v| if v >= FAR { 1e6 } else { v as f32 * unit }).collect()
}

/// The slope (rise over run) at sample (x, z), from central differences.
#[inline]
pub fn slope_at(h: &[f32], n: usize, spacing: f32, x: usize, z: usize) -> f32 {
  let xl = x.saturating_sub(1);
  let xr = (x + 1).min(n - 1);
  let zl = z.saturating_sub(1);
  let zr = (z + 1).min(n - 1);
  let gx = (h[z * n + xr] - h[z * n + xl]) / ((xr - xl) as f32 * spacing);
  let gz = (h[zr * n + x] - h[zl * n + x]) / ((zr - zl) as f32 * spacing);
  (gx * gx + gz * gz).sqrt()
}

/// The biome of one sample from its climate.
#[inline]
pub fn biome(h: f32, sea: f32, slope: f32, temperature: f32, moisture: f32, c: &Climate) -> u8 {
  if h < sea {
    OCEAN
  } else if slope > c.rock_slope {
    ROCK
  } else if temperature < -1.0 {
    SNOW
  } else if h < sea + 2.5 && slope < 0.35 {
    BEACH
  } else if temperature < 5.0 {
    TAIGA
  } else if moisture < 0.3 {
    if temperature > 14.0 { DESERT } else { GRASSLAND }
  } else if moisture > 0.5 {
    FOREST
  } else {
    GRASSLAND
  }
}

/// Temperature, moisture and biome for every sample of rows `z0..z1` (all rows by default),
/// written into the given maps.
#[allow(clippy::too_many_arguments)]
pub fn classify(
  heights: &[f32],
  layout: &Layout,
  center_z: f32,
  sea: f32,
  seed: u32,
  c: &Climate,
  rows: std::ops::Range<usize>,
  water: &[f32],
  temperature: &mut [f32],
  moisture: &mut [f32],
  biomes: &mut [u8],
) {
  let n = layout.samples as usize;
  let inv = 1.0 / layout.extent;
  let start = rows.start * n;
  let end = rows.end * n;
  temperature[start..end]
    .par_chunks_mut(n)
    .zip(moisture[start..end].par_chunks_mut(n))
    .zip(biomes[start..end].par_chunks_mut(n))
    .enumerate()
    .for_each(|(r, ((t_row, m_row), b_row))| {
      let z = rows.start + r;
      let wz = layout.origin[1] + z as f32 * layout.spacing;
      for x in 0..n {
        let wx = layout.origin[0] + x as f32 * layout.spacing;
        let i = z * n + x;
        let h = heights[i];
        let above = if h > sea { h - sea } else { 0.0 };
        let lat = (wz - center_z).abs();
        let wobble = fbm(wx * inv * 6.0, wz * inv * 6.0, seed ^ 0x7e3a, 3, 0.5);
        let t = c.temperature - above * c.lapse_rate - lat * c.latitude_gradient + wobble * 3.0;
        let noise = fbm(wx * inv * 4.0, wz * inv * 4.0, seed ^ 0x4d4f, 4, 0.5);
        let near = 1.0 - smoothstep(0.0, layout.extent * 0.12, water[i]);
        let mut m = c.moisture + noise * 0.9 + near * 0.35 - 0.15;
        m = if m < 0.0 { 0.0 } else if m > 1.0 { 1.0 } else { m };
        let s = slope_at(heights, n, layout.spacing, x, z);
        t_row[x] = t;
        m_row[x] = m;
        b_row[x] = biome(h, sea, s, t, m, c);
      }
    });
}
