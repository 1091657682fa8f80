//! The surface between samples: two triangles per cell, split along the
//! diagonal from (x0, z1) to (x1, z0) — the triangles Rapier's heightfield
//! collider and the render mesh use, so a sampled height, a ray hit and the
//! drawn ground agree.

use crate::region::Layout;

/// The height at world point (x, z), clamped to the region's edge.
pub fn height_at(heights: &[f32], layout: &Layout, x: f32, z: f32) -> f32 {
  let n = layout.samples as usize;
  let last = (n - 1) as f32;
  let gx = ((x - layout.origin[0]) / layout.spacing).clamp(0.0, last);
  let gz = ((z - layout.origin[1]) / layout.spacing).clamp(0.0, last);
  let ix = (gx.floor() as usize).min(n - 2);
  let iz = (gz.floor() as usize).min(n - 2);
  let fx = gx - ix as f32;
  let fz = gz - iz as f32;
  let h00 = heights[iz * n + ix];
  let h10 = heights[iz * n + ix + 1];
  let h01 = heights[(iz + 1) * n + ix];
  let h11 = heights[(iz + 1) * n + ix + 1];
  if fx + fz <= 1.0 {
    h00 + (h10 - h00) * fx + (h01 - h00) * fz
  } else {
    h11 + (h01 - h11) * (1.0 - fx) + (h10 - h11) * (1.0 - fz)
  }
}
