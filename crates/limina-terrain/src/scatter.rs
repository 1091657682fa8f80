//! Deterministic biome scatter: Poisson-disk points (one candidate per grid
//! cell of side spacing/√2, placed by hash, kept when no kept point is
//! within `spacing` and the biome's density for the kind passes a hashed
//! draw), scanned in row order so the same inputs give the same points.

use limina_ops::OpError;

use crate::noise::{hash2, unit};
use crate::region::Layout;
use crate::surface::height_at;

/// What can be scattered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
  Tree,
  Rock,
  Bush,
  Grass,
}

impl Kind {
  /// The least distance between two instances, in metres.
  pub fn spacing(self) -> f32 {
    match self {
      Kind::Tree => 7.0,
      Kind::Rock => 11.0,
      Kind::Bush => 4.5,
      Kind::Grass => 0.7,
    }
  }
  /// How likely a candidate is kept in each biome (ocean … rock, see `climate::BIOMES`).
  fn weights(self) -> [f32; 8] {
    match self {
      Kind::Tree => [0.0, 0.0, 0.02, 0.12, 0.9, 0.7, 0.02, 0.0],
      Kind::Rock => [0.0, 0.12, 0.25, 0.04, 0.05, 0.1, 0.3, 0.55],
      Kind::Bush => [0.0, 0.04, 0.12, 0.35, 0.45, 0.25, 0.0, 0.0],
      Kind::Grass => [0.0, 0.0, 0.04, 0.95, 0.55, 0.3, 0.0, 0.0],
    }
  }
  fn scale(self) -> (f32, f32) {
    match self {
      Kind::Tree => (0.75, 1.35),
      Kind::Rock => (0.5, 2.2),
      Kind::Bush => (0.6, 1.3),
      Kind::Grass => (0.7, 1.3),
    }
  }
  fn salt(self) -> u32 {
    match self {
      Kind::Tree => 0x7433,
      Kind::Rock => 0x5c0c,
      Kind::Bush => 0xb005,
      Kind::Grass => 0x6a55,
    }
  }
}

/// Floats per instance: x, y, z, scale, yaw (radians).
pub const STRIDE: usize = 5;

/// The instances of `kind` over the region, `density` (0 to 1) times each biome's own.
pub fn scatter(heights: &[f32], biomes: &[u8], layout: &Layout, seed: u32, kind: Kind, density: f32, limit: usize) -> Result<Vec<f32>, OpError> {
  let spacing = kind.spacing();
  let cell = spacing * 0.707_106_77;
  let cells = (layout.extent / cell).ceil() as usize;
  if cells * cells > 64 << 20 {
    return Err(OpError::invalid_input(format!("scattering {kind:?} over this region takes {cells}² cells (at most 2^26)")));
  }
  let weights = kind.weights();
  let (lo, hi) = kind.scale();
  let salt = seed ^ kind.salt();
  let mut kept: Vec<u32> = vec![u32::MAX; cells * cells];
  let mut out = Vec::new();
  let n = layout.samples as usize;
  let min2 = spacing * spacing;
  for cz in 0..cells {
    for cx in 0..cells {
      let h = hash2(cx as i32, cz as i32, salt);
      let x = layout.origin[0] + (cx as f32 + unit(h)) * cell;
      let z = layout.origin[1] + (cz as f32 + unit(hash2(cz as i32, cx as i32, salt ^ 0x9e37))) * cell;
      let gx = ((x - layout.origin[0]) / layout.spacing).round();
      let gz = ((z - layout.origin[1]) / layout.spacing).round();
      if gx < 0.0 || gz < 0.0 || gx >= n as f32 || gz >= n as f32 {
        continue;
      }
      let b = biomes[gz as usize * n + gx as usize] as usize;
      let w = weights.get(b).copied().unwrap_or(0.0) * density;
      let draw = unit(hash2(cx as i32 ^ 0x55, cz as i32, salt ^ 0x1234));
      if draw >= w {
        continue;
      }
      let mut free = true;
      'near: for nz in cz.saturating_sub(2)..=(cz + 2).min(cells - 1) {
        for nx in cx.saturating_sub(2)..=(cx + 2).min(cells - 1) {
          let k = kept[nz * cells + nx];
          if k == u32::MAX {
            continue;
          }
          let (ox, oz) = (out[k as usize * STRIDE], out[k as usize * STRIDE + 2]);
          let (dx, dz) = (ox - x, oz - z);
          if dx * dx + dz * dz < min2 {
            free = false;
            break 'near;
          }
        }
      }
      if !free {
        continue;
      }
      if out.len() / STRIDE >= limit {
        return Err(OpError::capacity_exceeded(format!("more than {limit} {kind:?} instances; lower the density")));
      }
      kept[cz * cells + cx] = (out.len() / STRIDE) as u32;
      let y = height_at(heights, layout, x, z);
      let scale = lo + (hi - lo) * unit(hash2(cx as i32, cz as i32, salt ^ 0x5ca1));
      let yaw = unit(hash2(cz as i32, cx as i32, salt ^ 0x0a11)) * 6.283_185_5;
      out.extend_from_slice(&[x, y, z, scale, yaw]);
    }
  }
  Ok(out)
}
