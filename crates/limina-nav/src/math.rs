//! Small vector helpers on plain `[f32; 3]`. Everything that feeds a path or
//! an agent's position goes through these: only `+ - * /` and `sqrt`, all
//! correctly rounded IEEE operations, never fused and never a libm call, so
//! results are the same bits on every machine.

pub type V3 = [f32; 3];

#[inline]
pub fn add(a: V3, b: V3) -> V3 {
  [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
pub fn sub(a: V3, b: V3) -> V3 {
  [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub fn scale(a: V3, s: f32) -> V3 {
  [a[0] * s, a[1] * s, a[2] * s]
}

#[inline]
pub fn dot(a: V3, b: V3) -> f32 {
  a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub fn cross(a: V3, b: V3) -> V3 {
  [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

#[inline]
pub fn len(a: V3) -> f32 {
  dot(a, a).sqrt()
}

#[inline]
pub fn dist(a: V3, b: V3) -> f32 {
  len(sub(a, b))
}

/// Distance in the ground plane (x, z).
#[inline]
pub fn dist_xz(a: V3, b: V3) -> f32 {
  let dx = a[0] - b[0];
  let dz = a[2] - b[2];
  (dx * dx + dz * dz).sqrt()
}

#[inline]
pub fn lerp(a: V3, b: V3, t: f32) -> V3 {
  [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// The ground-plane cross product `u.x * v.z - u.z * v.x`: negative when `v`
/// lies to the left of `u` for someone standing upright (y up) facing `u`.
#[inline]
pub fn cross_xz(u: V3, v: V3) -> f32 {
  u[0] * v[2] - u[2] * v[0]
}

/// `v` rotated by the unit quaternion `q = [x, y, z, w]`.
pub fn rotate(q: [f32; 4], v: V3) -> V3 {
  let u = [q[0], q[1], q[2]];
  let w = q[3];
  // v' = v + 2w (u × v) + 2 u × (u × v)
  let t = scale(cross(u, v), 2.0);
  add(add(v, scale(t, w)), cross(u, t))
}

/// The cosine of `degrees` (0–90) by its Taylor series in f64: platform
/// independent, and exact to f32 precision over that range.
pub fn cos_degrees(degrees: f32) -> f32 {
  let x = degrees as f64 * (std::f64::consts::PI / 180.0);
  let x2 = x * x;
  let mut term = 1.0f64;
  let mut sum = 1.0f64;
  for k in 1..=12 {
    let k = k as f64;
    term *= -x2 / ((2.0 * k - 1.0) * (2.0 * k));
    sum += term;
  }
  sum as f32
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn cosine_matches_known_values() {
    for (deg, want) in [(0.0f32, 1.0f32), (30.0, 0.866_025_4), (45.0, 0.707_106_77), (60.0, 0.5), (90.0, 0.0)] {
      assert!((cos_degrees(deg) - want).abs() < 1e-6, "cos({deg}) = {}", cos_degrees(deg));
    }
  }

  #[test]
  fn quaternion_rotation_turns_x_into_minus_z_about_y() {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let v = rotate([0.0, h, 0.0, h], [1.0, 0.0, 0.0]);
    assert!((v[0]).abs() < 1e-6 && (v[2] + 1.0).abs() < 1e-6, "{v:?}");
  }
}
