//! Deforming a region's heights in place: raise, lower, flatten or smooth
//! within a radius, with a smooth falloff to the rim.

use limina_ops::OpError;

use crate::noise::smoothstep;
use crate::region::Layout;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
  /// Adds `delta` metres at the centre.
  Raise,
  /// Takes `delta` metres away at the centre.
  Lower,
  /// Pulls heights toward the centre's height plus `delta`: level within half the radius.
  Flatten,
  /// Pulls heights toward their neighbours' mean by `delta` (0 to 1) at the centre.
  Smooth,
}

/// The samples a deformation touched: `[x0, z0, x1, z1]`, inclusive; empty when x1 < x0.
pub type Touched = [i64; 4];

/// Deforms `heights` (a `layout` region) around world point `center`; returns the samples changed.
pub fn deform(heights: &mut [f32], layout: &Layout, center: [f32; 2], radius: f32, delta: f32, mode: Mode) -> Result<Touched, OpError> {
  if !(radius.is_finite() && radius > 0.0) || !delta.is_finite() {
    return Err(OpError::invalid_input(format!("deform needs a positive radius and a finite delta, got {radius} and {delta}")));
  }
  let n = layout.samples as i64;
  let s = layout.spacing;
  let cx = (center[0] - layout.origin[0]) / s;
  let cz = (center[1] - layout.origin[1]) / s;
  let rc = radius / s;
  let x0 = ((cx - rc).floor() as i64).max(0);
  let x1 = ((cx + rc).ceil() as i64).min(n - 1);
  let z0 = ((cz - rc).floor() as i64).max(0);
  let z1 = ((cz + rc).ceil() as i64).min(n - 1);
  if x1 < x0 || z1 < z0 {
    return Ok([0, 0, -1, -1]);
  }
  let nu = n as usize;
  let target = {
    let ix = (cx.round() as i64).clamp(0, n - 1) as usize;
    let iz = (cz.round() as i64).clamp(0, n - 1) as usize;
    heights[iz * nu + ix] + delta
  };
  let old: Vec<f32> = if mode == Mode::Smooth { heights.to_vec() } else { Vec::new() };
  let strength = if delta < 0.0 { 0.0 } else if delta > 1.0 { 1.0 } else { delta };
  for z in z0..=z1 {
    for x in x0..=x1 {
      let wx = layout.origin[0] + x as f32 * s;
      let wz = layout.origin[1] + z as f32 * s;
      let dx = wx - center[0];
      let dz = wz - center[1];
      let d = (dx * dx + dz * dz).sqrt();
      if d >= radius {
        continue;
      }
      // Flatten keeps a level core (half the radius) so things can stand on it.
      let inner = if mode == Mode::Flatten { radius * 0.5 } else { 0.0 };
      let f = 1.0 - smoothstep(inner, radius, d);
      let i = z as usize * nu + x as usize;
      let h = heights[i];
      heights[i] = match mode {
        Mode::Raise => h + delta * f,
        Mode::Lower => h - delta * f,
        Mode::Flatten => h + (target - h) * f,
        Mode::Smooth => {
          let (xu, zu) = (x as usize, z as usize);
          let l = old[zu * nu + xu.saturating_sub(1)];
          let r = old[zu * nu + (xu + 1).min(nu - 1)];
          let u = old[zu.saturating_sub(1) * nu + xu];
          let w = old[(zu + 1).min(nu - 1) * nu + xu];
          let mean = (l + r + u + w) * 0.25;
          h + (mean - h) * (strength * f)
        }
      };
    }
  }
  Ok([x0, z0, x1, z1])
}
