//! Where a positional sound is heard: equal-power panning by the source's
//! direction in the listener's frame, and 1/d² attenuation in power (1/d in
//! amplitude, so doubling the distance costs 6 dB), silent beyond an
//! optional maximum distance.

/// Closer than this a source is as loud as at this distance (metres):
/// without a floor 1/d would blow up at the listener's position.
pub const REFERENCE_DISTANCE: f32 = 1.0;

/// The ear: a camera's pose. As in Three.js, it looks down its local -Z
/// with +X to its right and +Y up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Listener {
  pub position: [f32; 3],
  /// Unit quaternion [x, y, z, w].
  pub rotation: [f32; 4],
}

impl Default for Listener {
  fn default() -> Self {
    Self { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] }
  }
}

/// Rotates `v` by the inverse of the unit quaternion `q` (world → local).
fn rotate_inverse(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
  let [x, y, z, w] = q;
  let (qx, qy, qz) = (-x, -y, -z);
  // v' = v + 2w(u × v) + 2u × (u × v), u the vector part of the conjugate.
  let c1 = [qy * v[2] - qz * v[1], qz * v[0] - qx * v[2], qx * v[1] - qy * v[0]];
  let c2 = [qy * c1[2] - qz * c1[1], qz * c1[0] - qx * c1[2], qx * c1[1] - qy * c1[0]];
  [v[0] + 2.0 * (w * c1[0] + c2[0]), v[1] + 2.0 * (w * c1[1] + c2[1]), v[2] + 2.0 * (w * c1[2] + c2[2])]
}

/// Left and right amplitude gains of a source at `source` heard by
/// `listener`; (0, 0) beyond `max_distance`.
pub fn gains(listener: &Listener, source: [f32; 3], max_distance: Option<f32>) -> (f32, f32) {
  let d = [source[0] - listener.position[0], source[1] - listener.position[1], source[2] - listener.position[2]];
  let r = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
  if max_distance.is_some_and(|m| r > m) {
    return (0.0, 0.0);
  }
  let pan = if r > 1e-6 { (rotate_inverse(listener.rotation, d)[0] / r).clamp(-1.0, 1.0) } else { 0.0 };
  let theta = (pan + 1.0) * std::f32::consts::FRAC_PI_4;
  let attenuation = 1.0 / r.max(REFERENCE_DISTANCE);
  (attenuation * theta.cos(), attenuation * theta.sin())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn right_of_the_listener_is_louder_on_the_right_and_turning_swaps_it() {
    let ear = Listener::default();
    let (l, r) = gains(&ear, [3.0, 0.0, 0.0], None);
    assert!(r > 0.3 && l < 1e-6, "{l} {r}");
    // Turned 180° about +Y, the same source is on the left.
    let turned = Listener { position: [0.0; 3], rotation: [0.0, 1.0, 0.0, 0.0] };
    let (l, r) = gains(&turned, [3.0, 0.0, 0.0], None);
    assert!(l > 0.3 && r < 1e-6, "{l} {r}");
    // Straight ahead: centred at equal power.
    let (l, r) = gains(&ear, [0.0, 0.0, -2.0], None);
    assert!((l - r).abs() < 1e-6 && ((l * l + r * r).sqrt() - 0.5).abs() < 1e-6);
  }

  #[test]
  fn doubling_the_distance_halves_the_amplitude_and_max_distance_silences() {
    let ear = Listener { position: [1.0, 2.0, 3.0], rotation: [0.0, 0.0, 0.0, 1.0] };
    let power = |d: f32| {
      let (l, r) = gains(&ear, [1.0, 2.0, 3.0 - d], None);
      l * l + r * r
    };
    let db = 10.0 * (power(2.0) / power(4.0)).log10();
    assert!((db - 6.02).abs() < 0.01, "{db} dB");
    assert_eq!(gains(&ear, [1.0, 2.0, -7.0], Some(9.9)), (0.0, 0.0));
    assert!(gains(&ear, [1.0, 2.0, -7.0], Some(10.1)).0 > 0.0);
  }
}
