//! Integer-hash gradient noise in plain `f32` arithmetic.
//!
//! Every height must be the same bits on every machine and build, so this
//! module uses only IEEE-exact operations (add, sub, mul, div, floor, sqrt,
//! comparisons, integer hashing): no `mul_add`, no libm transcendentals,
//! and each operation is written out so a JS port with `Math.fround` after
//! every step (js/bench/terrain_oracle.ts) gives the same bits.

/// A 32-bit integer hash of a lattice point and a seed (wrapping arithmetic).
#[inline]
pub fn hash2(x: i32, z: i32, seed: u32) -> u32 {
  let mut h = seed ^ (x as u32).wrapping_mul(0x27d4_eb2d) ^ (z as u32).wrapping_mul(0x1656_67b1);
  h ^= h >> 15;
  h = h.wrapping_mul(0x2c1b_3c6d);
  h ^= h >> 12;
  h = h.wrapping_mul(0x297a_2d39);
  h ^= h >> 15;
  h
}

/// A hash of one integer and a seed.
#[inline]
pub fn hash1(i: u32, seed: u32) -> u32 {
  hash2(i as i32, 0x5bd1_e995u32 as i32, seed)
}

/// A uniform value in [0, 1) from a hash's top 24 bits (exact in `f32`).
#[inline]
pub fn unit(h: u32) -> f32 {
  (h >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// Eight unit gradients: the axes and the diagonals (0.70710677 = √½ rounded to f32).
const GRADIENTS: [(f32, f32); 8] = [
  (1.0, 0.0),
  (-1.0, 0.0),
  (0.0, 1.0),
  (0.0, -1.0),
  (0.707_106_77, 0.707_106_77),
  (-0.707_106_77, 0.707_106_77),
  (0.707_106_77, -0.707_106_77),
  (-0.707_106_77, -0.707_106_77),
];

/// The quintic fade 6t⁵ − 15t⁴ + 10t³, evaluated as t·t·t·(t·(t·6 − 15) + 10).
#[inline]
pub fn fade(t: f32) -> f32 {
  let a = t * 6.0;
  let b = a - 15.0;
  let c = t * b;
  let d = c + 10.0;
  let t3 = t * t * t;
  t3 * d
}

/// Cubic smoothstep 3t² − 2t³ of t clamped to [0, 1].
#[inline]
pub fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
  let mut t = (x - edge0) / (edge1 - edge0);
  t = if t < 0.0 { 0.0 } else if t > 1.0 { 1.0 } else { t };
  let a = t * 2.0;
  let b = 3.0 - a;
  t * t * b
}

/// `x.floor()`, exactly, without the libm call that `f32::floor` becomes on
/// baseline x86-64 (no SSE4.1 `roundss`). Values of magnitude 2²³ and above
/// (and NaN, ±∞) are already integral; below that the cast is exact.
#[inline]
pub fn floor(x: f32) -> f32 {
  if !(x.abs() < 8_388_608.0) {
    return x;
  }
  let t = x as i32 as f32;
  if t == x {
    x
  } else if t > x {
    t - 1.0
  } else {
    t
  }
}

#[inline]
fn grad(ix: i32, iz: i32, seed: u32, fx: f32, fz: f32) -> f32 {
  let (gx, gz) = GRADIENTS[(hash2(ix, iz, seed) >> 29) as usize];
  let a = gx * fx;
  let b = gz * fz;
  a + b
}

#[inline]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
  let d = b - a;
  let e = d * t;
  a + e
}

/// 2D gradient noise at (x, z), roughly in [-0.71, 0.71].
#[inline]
pub fn gradient(x: f32, z: f32, seed: u32) -> f32 {
  let x0 = floor(x);
  let z0 = floor(z);
  let fx = x - x0;
  let fz = z - z0;
  let ix = x0 as i32;
  let iz = z0 as i32;
  let n00 = grad(ix, iz, seed, fx, fz);
  let n10 = grad(ix.wrapping_add(1), iz, seed, fx - 1.0, fz);
  let n01 = grad(ix, iz.wrapping_add(1), seed, fx, fz - 1.0);
  let n11 = grad(ix.wrapping_add(1), iz.wrapping_add(1), seed, fx - 1.0, fz - 1.0);
  let u = fade(fx);
  let v = fade(fz);
  let a = lerp(n00, n10, u);
  let b = lerp(n01, n11, u);
  lerp(a, b, v)
}

/// Fractal Brownian motion: `octaves` layers of gradient noise, each at twice
/// the frequency and `gain` times the amplitude of the last, with its own seed.
#[inline]
pub fn fbm(x: f32, z: f32, seed: u32, octaves: u32, gain: f32) -> f32 {
  let mut sum = 0.0f32;
  let mut amp = 1.0f32;
  let mut fx = x;
  let mut fz = z;
  for o in 0..octaves {
    let n = gradient(fx, fz, seed.wrapping_add(o.wrapping_mul(0x9e37_79b9)));
    let a = n * amp;
    sum += a;
    amp *= gain;
    fx *= 2.0;
    fz *= 2.0;
  }
  sum
}

/// Ridged multifractal: sharp crests where the noise crosses zero; in [0, ~1.9].
#[inline]
pub fn ridged(x: f32, z: f32, seed: u32, octaves: u32, gain: f32) -> f32 {
  let mut sum = 0.0f32;
  let mut amp = 1.0f32;
  let mut weight = 1.0f32;
  let mut fx = x;
  let mut fz = z;
  for o in 0..octaves {
    let n = gradient(fx, fz, seed.wrapping_add(o.wrapping_mul(0x9e37_79b9)));
    let r = 1.0 - n.abs() * 1.4;
    let r = r * r;
    let s = r * weight;
    weight = if s > 1.0 { 1.0 } else { s };
    let a = s * amp;
    sum += a;
    amp *= gain;
    fx *= 2.0;
    fz *= 2.0;
  }
  sum
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn gradient_noise_is_zero_on_lattice_points_and_bounded() {
    for i in -5..5 {
      assert_eq!(gradient(i as f32, (i * 3) as f32, 7), 0.0);
    }
    let mut lo = f32::MAX;
    let mut hi = f32::MIN;
    for k in 0..20_000 {
      let v = gradient(k as f32 * 0.137, k as f32 * 0.071 - 300.0, 42);
      lo = lo.min(v);
      hi = hi.max(v);
    }
    assert!(lo > -0.75 && hi < 0.75 && lo < -0.3 && hi > 0.3, "{lo} {hi}");
  }

  #[test]
  fn fade_and_smoothstep_hit_their_ends() {
    assert_eq!((fade(0.0), fade(1.0), fade(0.5)), (0.0, 1.0, 0.5));
    assert_eq!((smoothstep(1.0, 3.0, 0.0), smoothstep(1.0, 3.0, 2.0), smoothstep(1.0, 3.0, 9.0)), (0.0, 0.5, 1.0));
  }

  #[test]
  fn floor_matches_the_standard_floor_bit_for_bit() {
    let mut cases = vec![0.0f32, -0.0, 0.5, -0.5, 1.0, -1.0, 8_388_607.5, -8_388_607.5, 8_388_608.0, -8_388_609.0, 3e9, -3e9, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE, -f32::MIN_POSITIVE];
    cases.extend((0..100_000u32).map(|k| f32::from_bits(hash1(k, 3))).filter(|v| !v.is_nan()));
    for x in cases {
      assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "{x}");
    }
    assert!(floor(f32::NAN).is_nan());
  }

  #[test]
  fn different_seeds_give_different_fields() {
    let a: Vec<f32> = (0..64).map(|k| fbm(k as f32 * 0.31, 1.7, 1, 5, 0.5)).collect();
    let b: Vec<f32> = (0..64).map(|k| fbm(k as f32 * 0.31, 1.7, 2, 5, 0.5)).collect();
    assert_ne!(a, b);
  }
}
