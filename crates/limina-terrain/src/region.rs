//! A region: its parameters (what the world log records), its layout (how
//! many tiles, how many samples, where) and the generation of its heights —
//! a preset's noise, then droplet and thermal erosion.

use limina_ops::OpError;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::erosion::{self, ALGORITHM_VERSION, Hydraulic, MAX_RADIUS};
use crate::noise::{fbm, hash1, ridged, smoothstep, unit};

/// The most samples one region holds (2049² at 4 bytes a height: 16 MiB).
pub const MAX_SAMPLES: usize = 2049 * 2049;

/// The shape of the land.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
  /// A domain-warped island with ridged peaks, beaches and an inland lake basin.
  Island,
  /// Ridged mountain ranges over rolling foothills.
  Mountains,
  /// Rolling hills.
  Hills,
  /// Nearly flat lowland.
  Plains,
}

/// Erosion of a region: droplets and thermal iterations.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ErosionParams {
  #[serde(flatten)]
  pub hydraulic: Hydraulic,
  pub thermal: u32,
  /// The slope (rise over run) above which thermal erosion moves material.
  pub talus: f32,
}

impl Default for ErosionParams {
  fn default() -> Self {
    Self { hydraulic: Hydraulic::default(), thermal: 0, talus: 0.9 }
  }
}

/// Everything that determines a region's heights.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegionParams {
  pub seed: u32,
  /// The region's centre, `[x, z]` in metres.
  pub center: [f32; 2],
  /// The side of the (square) region in metres; rounded up to whole tiles.
  pub size: f32,
  /// Samples along a tile's side: 2^k + 1, 17 to 513.
  pub resolution: u32,
  /// A tile's side in metres.
  pub tile_size: f32,
  pub preset: Preset,
  /// The height of the land's highest features, in metres.
  pub height_scale: f32,
  pub sea_level: f32,
  pub erosion: ErosionParams,
  /// The generation algorithm's version (1 to [`ALGORITHM_VERSION`], the latest when
  /// absent): a new version changes the heights of the same parameters, and the old
  /// ones stay selectable so that saved worlds keep theirs.
  #[serde(default = "latest_algorithm")]
  pub algorithm: u32,
}

fn latest_algorithm() -> u32 {
  ALGORITHM_VERSION
}

/// Where a region's samples are: `samples`² heights, row-major by z, sample
/// (i, k) at `(origin[0] + i·spacing, origin[1] + k·spacing)`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Layout {
  pub tiles: u32,
  pub samples: u32,
  pub spacing: f32,
  pub origin: [f32; 2],
  pub tile_samples: u32,
  pub extent: f32,
}

fn check(ok: bool, msg: impl FnOnce() -> String) -> Result<(), OpError> {
  if ok { Ok(()) } else { Err(OpError::invalid_input(msg())) }
}

impl RegionParams {
  pub fn validate(&self) -> Result<Layout, OpError> {
    check(self.center.iter().all(|c| c.is_finite() && c.abs() <= 1e5), || format!("center must be within ±100000 m, got {:?}", self.center))?;
    check(self.size.is_finite() && self.size > 0.0 && self.size <= 65_536.0, || format!("size must be in (0, 65536] metres, got {}", self.size))?;
    check(self.tile_size.is_finite() && self.tile_size >= 4.0 && self.tile_size <= 8192.0, || format!("tileSize must be in [4, 8192] metres, got {}", self.tile_size))?;
    check((1..=ALGORITHM_VERSION).contains(&self.algorithm), || format!("algorithm version {} is not one this build generates (1 to {ALGORITHM_VERSION})", self.algorithm))?;
    let r = self.resolution;
    check((17..=513).contains(&r) && (r - 1).is_power_of_two(), || format!("resolution must be 2^k + 1 samples between 17 and 513, got {r}"))?;
    check(self.height_scale.is_finite() && self.height_scale > 0.0 && self.height_scale <= 10_000.0, || format!("heightScale must be in (0, 10000] metres, got {}", self.height_scale))?;
    check(self.sea_level.is_finite() && self.sea_level.abs() <= 10_000.0, || format!("seaLevel must be within ±10000 m, got {}", self.sea_level))?;
    let e = &self.erosion;
    check(e.hydraulic.radius >= 1 && e.hydraulic.radius <= MAX_RADIUS, || format!("erosion radius must be 1 to {MAX_RADIUS} cells, got {}", e.hydraulic.radius))?;
    check(e.hydraulic.max_steps <= 256, || format!("erosion maxSteps must be at most 256, got {}", e.hydraulic.max_steps))?;
    check(e.thermal <= 500, || format!("erosion thermal iterations must be at most 500, got {}", e.thermal))?;
    let h = &e.hydraulic;
    for (name, v, lo, hi) in [
      ("inertia", h.inertia, 0.0, 1.0),
      ("capacity", h.capacity, 0.0, 1000.0),
      ("minCapacity", h.min_capacity, 0.0, 1000.0),
      ("deposit", h.deposit, 0.0, 1.0),
      ("erode", h.erode, 0.0, 1.0),
      ("evaporate", h.evaporate, 0.0, 1.0),
      ("gravity", h.gravity, 0.0, 100.0),
      ("talus", e.talus, 0.0, 100.0),
    ] {
      check(v.is_finite() && v >= lo && v <= hi, || format!("erosion {name} must be in [{lo}, {hi}], got {v}"))?;
    }
    let tiles = (self.size / self.tile_size).ceil().max(1.0) as u32;
    let samples = tiles as usize * (r as usize - 1) + 1;
    check(samples * samples <= MAX_SAMPLES, || format!("a region holds at most {MAX_SAMPLES} samples; {tiles}×{tiles} tiles of {r} samples make {}", samples * samples))?;
    let spacing = self.tile_size / (r - 1) as f32;
    let extent = tiles as f32 * self.tile_size;
    let half = extent * 0.5;
    let layout = Layout { tiles, samples: samples as u32, spacing, origin: [self.center[0] - half, self.center[1] - half], tile_samples: r, extent };
    check(layout.origin.iter().all(|o| o.abs() <= 1e5) && (layout.origin[0] + extent).abs() <= 1e5 && (layout.origin[1] + extent).abs() <= 1e5, || "the region must lie within ±100000 m".into())?;
    check(self.erosion.hydraulic.droplets as u64 <= 64 * (samples * samples) as u64, || format!("at most 64 droplets per sample, got {}", self.erosion.hydraulic.droplets))?;
    Ok(layout)
  }

  /// A stable key of everything the heights depend on (the algorithm's version among them).
  pub fn key(&self) -> String {
    let json = serde_json::to_string(self).expect("params serialise");
    let mut h = Sha256::new();
    h.update(json.as_bytes());
    hex(&h.finalize())
  }
}

pub fn hex(bytes: &[u8]) -> String {
  bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The lake basin of the island preset: its centre `[x, z]` and radius, in metres.
pub fn island_lake(p: &RegionParams, layout: &Layout) -> ([f32; 2], f32) {
  let half = layout.extent * 0.5;
  let a = unit(hash1(1, p.seed ^ 0x1a4e)) * 0.5 - 0.25;
  let b = unit(hash1(2, p.seed ^ 0x1a4e)) * 0.5 - 0.25;
  let lx = p.center[0] + a * half;
  let lz = p.center[1] + b * half;
  ([lx, lz], half * 0.16)
}

/// The height of the land before erosion at world point (x, z).
#[inline]
pub fn preset_height(p: &RegionParams, layout: &Layout, lake: ([f32; 2], f32), x: f32, z: f32) -> f32 {
  let s = p.seed;
  let hs = p.height_scale;
  let inv = 1.0 / layout.extent;
  // Coordinates relative to the region, in units of its side (so a preset looks alike at every size).
  let rx = (x - p.center[0]) * inv;
  let rz = (z - p.center[1]) * inv;
  match p.preset {
    Preset::Plains => {
      let n = fbm(rx * 3.0, rz * 3.0, s, 5, 0.5);
      p.sea_level + 2.0 + n * hs * 0.15
    }
    Preset::Hills => {
      let n = fbm(rx * 4.0, rz * 4.0, s, 6, 0.5);
      let m = n + 0.5;
      p.sea_level + 1.0 + m * hs * 0.5
    }
    Preset::Mountains => {
      let wx = rx + fbm(rx * 2.0 + 5.2, rz * 2.0 + 1.3, s ^ 0xa5a5, 3, 0.5) * 0.15;
      let wz = rz + fbm(rx * 2.0 + 9.7, rz * 2.0 + 2.8, s ^ 0x5a5a, 3, 0.5) * 0.15;
      let r = ridged(wx * 3.0, wz * 3.0, s, 6, 0.5);
      let hills = fbm(rx * 6.0, rz * 6.0, s ^ 0x77, 4, 0.5);
      p.sea_level + 5.0 + r * hs * 0.55 + hills * hs * 0.08
    }
    Preset::Island => {
      let wx = rx + fbm(rx * 2.5 + 5.2, rz * 2.5 + 1.3, s ^ 0xa5a5, 4, 0.5) * 0.12;
      let wz = rz + fbm(rx * 2.5 + 9.7, rz * 2.5 + 2.8, s ^ 0x5a5a, 4, 0.5) * 0.12;
      let d = (wx * wx + wz * wz).sqrt() * 2.0;
      let land = 1.0 - smoothstep(0.45, 0.95, d);
      let core = 1.0 - smoothstep(0.0, 0.55, d);
      let base = fbm(rx * 5.0, rz * 5.0, s, 6, 0.5);
      let peaks = ridged(wx * 4.0, wz * 4.0, s ^ 0x3c3c, 6, 0.5);
      let up = land * (hs * 0.12 + base * hs * 0.12) + core * peaks * hs * 0.55;
      let mut h = p.sea_level - hs * 0.15 + up;
      // The lake basin: a bowl pressed into the land.
      let ([lx, lz], lr) = lake;
      let ex = x - lx;
      let ez = z - lz;
      let ld = (ex * ex + ez * ez).sqrt();
      let bowl = 1.0 - smoothstep(0.0, lr, ld);
      h -= bowl * hs * 0.2;
      h
    }
  }
}

/// The region's heights: the preset's noise sampled row-parallel, then erosion.
pub fn generate(p: &RegionParams) -> Result<(Layout, Vec<f32>), OpError> {
  let layout = p.validate()?;
  let n = layout.samples as usize;
  let lake = island_lake(p, &layout);
  let mut heights = vec![0.0f32; n * n];
  heights.par_chunks_mut(n).enumerate().for_each(|(k, row)| {
    let z = layout.origin[1] + k as f32 * layout.spacing;
    for (i, h) in row.iter_mut().enumerate() {
      let x = layout.origin[0] + i as f32 * layout.spacing;
      *h = preset_height(p, &layout, lake, x, z);
    }
  });
  erosion::hydraulic(&mut heights, n, p.seed, &p.erosion.hydraulic, erosion::blocks(p.algorithm));
  if p.erosion.thermal > 0 {
    erosion::thermal(&mut heights, n, p.erosion.thermal, p.erosion.talus * layout.spacing, 0.1);
  }
  Ok((layout, heights))
}

/// `"sha256:…"` over the heights as little-endian `f32` bytes.
pub fn digest(heights: &[f32]) -> String {
  let mut h = Sha256::new();
  for chunk in heights.chunks(4096) {
    let mut buf = [0u8; 4096 * 4];
    for (k, v) in chunk.iter().enumerate() {
      buf[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    h.update(&buf[..chunk.len() * 4]);
  }
  format!("sha256:{}", hex(&h.finalize()))
}

#[cfg(test)]
mod tests {
  use super::*;

  pub(crate) fn params(seed: u32) -> RegionParams {
    RegionParams {
      seed,
      center: [0.0, 0.0],
      size: 512.0,
      resolution: 129,
      tile_size: 256.0,
      preset: Preset::Island,
      height_scale: 200.0,
      sea_level: 0.0,
      erosion: ErosionParams { hydraulic: Hydraulic { droplets: 30_000, ..Hydraulic::default() }, thermal: 5, talus: 0.9 },
      algorithm: ALGORITHM_VERSION,
    }
  }

  /// The cross-machine check: these bits, on every machine and build, for every algorithm
  /// version (version 1's as they were before version 2 existed).
  #[test]
  fn a_fixed_seed_gives_pinned_heights() {
    for (algorithm, pinned) in [(1, "sha256:1540958bdfc26e55136f69707f056a9bbf685bb0179acf4caed092d4309049ea"), (2, "sha256:0e6cf8bebd34da597211633ce3e6d996e3eb65d5fcc75faa62dd1e6d6faf59a1")] {
      let (layout, h) = generate(&RegionParams { algorithm, ..params(1234) }).unwrap();
      assert_eq!((layout.tiles, layout.samples, layout.spacing), (2, 257, 2.0));
      assert_eq!(digest(&h), pinned, "version {algorithm}");
    }
  }

  #[test]
  fn parameters_without_a_version_get_the_latest_and_unknown_versions_are_refused() {
    let mut json = serde_json::to_value(params(1)).unwrap();
    json.as_object_mut().unwrap().remove("algorithm");
    assert_eq!(serde_json::from_value::<RegionParams>(json).unwrap().algorithm, ALGORITHM_VERSION);
    for algorithm in [0, ALGORITHM_VERSION + 1] {
      let e = RegionParams { algorithm, ..params(1) }.validate().unwrap_err();
      assert!(e.message.contains(&format!("algorithm version {algorithm} is not one this build generates")), "{}", e.message);
    }
  }

  #[test]
  fn thread_counts_give_the_same_heights() {
    let p = params(77);
    let run = |threads| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| digest(&generate(&p).unwrap().1));
    let one = run(1);
    assert_eq!(run(2), one);
    assert_eq!(run(5), one);
    assert_ne!(digest(&generate(&params(78)).unwrap().1), one, "another seed, other heights");
  }

  #[test]
  fn every_preset_makes_land_and_sea_in_range() {
    for preset in [Preset::Island, Preset::Mountains, Preset::Hills, Preset::Plains] {
      let p = RegionParams { preset, erosion: ErosionParams::default(), ..params(5) };
      let (_, h) = generate(&p).unwrap();
      let (lo, hi) = h.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
      assert!(h.iter().all(|v| v.is_finite()) && hi > lo && hi < 400.0 && lo > -200.0, "{preset:?}: {lo}..{hi}");
    }
  }

  /// The erosion bench's tile (js/bench/terrain.ts), per algorithm version: noise, droplets
  /// and thermal timed apart, on one thread and on the pool; each droplet block's one-thread
  /// time, the graph's critical path, and the droplets' time on 2 and 16 workers estimated
  /// by list-scheduling the measured blocks.
  /// `cargo test --release -p limina-terrain -- --ignored --nocapture bench_`
  #[test]
  #[ignore]
  fn bench_generation_of_a_257_tile() {
    for algorithm in 1..=ALGORITHM_VERSION {
      let p = RegionParams {
        seed: 20250,
        size: 256.0,
        resolution: 257,
        tile_size: 256.0,
        height_scale: 220.0,
        erosion: ErosionParams { hydraulic: Hydraulic { droplets: 50_000, ..Hydraulic::default() }, thermal: 4, talus: 0.9 },
        algorithm,
        ..params(0)
      };
      let (n, blocks) = (257, erosion::blocks(algorithm));
      let noise = RegionParams { erosion: ErosionParams::default(), ..p.clone() };
      let base = generate(&noise).unwrap().1;
      let ms = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1e3;
      for threads in [1, 0] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let best = |f: &dyn Fn()| (0..5).map(|_| { let t = std::time::Instant::now(); f(); ms(t) }).fold(f64::MAX, f64::min);
        pool.install(|| {
          let noise_ms = best(&|| { generate(&noise).unwrap(); });
          let droplets_ms = best(&|| { let mut m = base.clone(); erosion::hydraulic(&mut m, n, p.seed, &p.erosion.hydraulic, blocks); });
          let thermal_ms = best(&|| { let mut m = base.clone(); erosion::thermal(&mut m, n, 4, 0.9, 0.1); });
          let total_ms = best(&|| { generate(&p).unwrap(); });
          println!("{{\"algorithm\":{algorithm},\"threads\":{},\"noiseMs\":{noise_ms:.2},\"dropletsMs\":{droplets_ms:.2},\"thermalMs\":{thermal_ms:.2},\"totalMs\":{total_ms:.2},\"digest\":\"{}\"}}", pool.current_num_threads(), digest(&generate(&p).unwrap().1));
        });
      }
      // Each block's least time of 5 runs, so one preempted run does not count.
      let mut costs: Vec<f64> = Vec::new();
      let mut then = Vec::new();
      for _ in 0..5 {
        let mut m = base.clone();
        let (c, t) = erosion::block_costs(&mut m, n, p.seed, &p.erosion.hydraulic, blocks);
        costs = if costs.is_empty() { c } else { costs.iter().zip(&c).map(|(a, b)| a.min(*b)).collect() };
        then = t;
      }
      let total: f64 = costs.iter().sum();
      let mut waits = vec![0usize; costs.len()];
      for t in &then {
        for &d in t {
          waits[d] += 1;
        }
      }
      // The longest path, blocks in index order within each colour being a topological order by colour.
      let mut finish = vec![0.0f64; costs.len()];
      let mut order: Vec<usize> = (0..costs.len()).collect();
      let row = (n - 1).div_ceil(blocks.side);
      order.sort_by_key(|&b| erosion::colour(row, b));
      for &b in &order {
        finish[b] += costs[b];
        for &d in &then[b] {
          finish[d] = finish[d].max(finish[b]);
        }
      }
      let critical = finish.iter().cloned().fold(0.0, f64::max);
      let schedule = |workers: usize| {
        let mut waits = waits.clone();
        let mut ready: Vec<usize> = (0..costs.len()).filter(|&b| waits[b] == 0 && costs[b] > 0.0).collect();
        let mut running: Vec<(f64, usize)> = Vec::new();
        let mut now = 0.0f64;
        loop {
          while running.len() < workers && !ready.is_empty() {
            let b = ready.remove(0);
            running.push((now + costs[b], b));
          }
          let Some(k) = (0..running.len()).min_by(|&a, &b| running[a].0.total_cmp(&running[b].0)) else { break };
          let (t, b) = running.swap_remove(k);
          now = t;
          for &d in &then[b] {
            waits[d] -= 1;
            if waits[d] == 0 {
              ready.push(d);
            }
          }
        }
        now
      };
      let (lo, hi) = costs.iter().filter(|&&c| c > 0.0).fold((f64::MAX, 0.0f64), |(a, b), &c| (a.min(c), b.max(c)));
      println!("{{\"algorithm\":{algorithm},\"block\":{},\"blocks\":{},\"blockMs\":[{lo:.3},{hi:.3}],\"sumMs\":{total:.2},\"criticalPathMs\":{critical:.2},\"criticalShare\":{:.3},\"estimated2WorkersMs\":{:.2},\"estimated16WorkersMs\":{:.2}}}", blocks.side, costs.len(), critical / total, schedule(2), schedule(16));
    }
  }

  #[test]
  fn bad_parameters_are_named() {
    for (p, needle) in [
      (RegionParams { resolution: 100, ..params(1) }, "resolution"),
      (RegionParams { size: f32::NAN, ..params(1) }, "size"),
      (RegionParams { center: [2e5, 0.0], ..params(1) }, "center"),
      (RegionParams { size: 60_000.0, tile_size: 16.0, ..params(1) }, "at most"),
    ] {
      let e = p.validate().unwrap_err();
      assert!(e.message.contains(needle), "{}", e.message);
    }
  }
}
