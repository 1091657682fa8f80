//! What a voice plays: a synthesised one-shot tone (sine + envelope), an
//! endless synthesised ambience bed, or a PCM buffer (speech, or samples a
//! module synthesised). Each renders stereo frames at [`SAMPLE_RATE`].

use std::f32::consts::TAU;

/// The mixer's rate, fixed: every backend and every capture runs at it.
pub const SAMPLE_RATE: u32 = 48_000;

/// A tone's peak amplitude at volume 1: -6 dBFS leaves headroom for a few
/// sounds at once before the output clips.
const TONE_PEAK: f32 = 0.5;

pub enum Sound {
  Tone(Tone),
  Ambience(Ambience),
  Pcm(Pcm),
  /// Speech still being synthesised: silent until its samples arrive, but
  /// already stoppable and re-gainable by its handle.
  Pending,
}

impl Sound {
  /// Writes up to `out.len()` frames; returns how many, and whether the
  /// sound has nothing more to play.
  pub fn render(&mut self, out: &mut [[f32; 2]]) -> (usize, bool) {
    match self {
      Sound::Tone(t) => t.render(out),
      Sound::Ambience(a) => (a.render(out), false),
      Sound::Pcm(p) => p.render(out),
      Sound::Pending => (0, false),
    }
  }
}

/// A sine with a short linear attack and release, so it starts and ends
/// without a click. The sine is a unit phasor turned by a fixed rotation
/// each frame (two multiply-adds instead of a `sin`), renormalised once per
/// block so rounding never drifts its amplitude.
pub struct Tone {
  phasor: (f64, f64),
  turn: (f64, f64),
  frame: u64,
  frames: u64,
  attack: u64,
  release: u64,
}

impl Tone {
  pub fn new(freq: f32, secs: f32) -> Self {
    let frames = (secs as f64 * SAMPLE_RATE as f64).round() as u64;
    let ramp = |s: f64| ((s * SAMPLE_RATE as f64) as u64).min(frames / 4).max(1);
    let w = std::f64::consts::TAU * freq as f64 / SAMPLE_RATE as f64;
    Self { phasor: (1.0, 0.0), turn: (w.cos(), w.sin()), frame: 0, frames, attack: ramp(0.005), release: ramp(0.02) }
  }

  fn render(&mut self, out: &mut [[f32; 2]]) -> (usize, bool) {
    let n = out.len().min((self.frames - self.frame) as usize);
    for o in &mut out[..n] {
      let f = self.frame;
      let env = if f < self.attack {
        f as f32 / self.attack as f32
      } else if self.frames - f <= self.release {
        (self.frames - f) as f32 / self.release as f32
      } else {
        1.0
      };
      let (c, s) = self.phasor;
      let v = s as f32 * TONE_PEAK * env;
      *o = [v, v];
      self.phasor = (c * self.turn.0 - s * self.turn.1, c * self.turn.1 + s * self.turn.0);
      self.frame += 1;
    }
    let (c, s) = self.phasor;
    let norm = (c * c + s * s).sqrt();
    self.phasor = (c / norm, s / norm);
    (n, self.frame >= self.frames)
  }
}

/// A soft wind-like bed: low-passed noise per channel (decorrelated, so it
/// sounds wide) swelling slowly, over a quiet low drone. Seeded, so a
/// capture of it is reproducible.
pub struct Ambience {
  noise: [u32; 2],
  low: [f32; 2],
  swell: f32,
  drone: f32,
}

impl Ambience {
  pub fn new(seed: u64) -> Self {
    let s = (seed as u32 ^ 0x9E37_79B9) | 1;
    Self { noise: [s, s.rotate_left(16) ^ 0x85EB_CA6B | 1], low: [0.0; 2], swell: 0.0, drone: 0.0 }
  }

  fn render(&mut self, out: &mut [[f32; 2]]) -> usize {
    const SWELL_STEP: f32 = TAU * 0.08 / SAMPLE_RATE as f32;
    const DRONE_STEP: f32 = TAU * 55.0 / SAMPLE_RATE as f32;
    // One-pole low-pass at about 500 Hz.
    const K: f32 = 0.063;
    for o in out.iter_mut() {
      let swell = 0.6 + 0.4 * self.swell.sin();
      let drone = 0.04 * self.drone.sin();
      for c in 0..2 {
        let x = &mut self.noise[c];
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        let white = (*x as f32 / u32::MAX as f32) * 2.0 - 1.0;
        self.low[c] += K * (white - self.low[c]);
        o[c] = self.low[c] * 0.9 * swell + drone;
      }
      self.swell = (self.swell + SWELL_STEP) % TAU;
      self.drone = (self.drone + DRONE_STEP) % TAU;
    }
    out.len()
  }
}

/// Samples at [`SAMPLE_RATE`], mono or interleaved stereo, owned by the
/// voice: a `Vec` from the speech synthesiser, or a module's own buffer
/// handed over without a copy.
pub struct Pcm {
  samples: Box<dyn AsRef<[f32]> + Send>,
  channels: usize,
  frame: usize,
}

impl Pcm {
  /// `channels` is 1 or 2 and divides the sample count (checked by the caller).
  pub fn new(samples: Box<dyn AsRef<[f32]> + Send>, channels: usize) -> Self {
    debug_assert!(matches!(channels, 1 | 2) && (*samples).as_ref().len() % channels == 0);
    Self { samples, channels, frame: 0 }
  }

  fn render(&mut self, out: &mut [[f32; 2]]) -> (usize, bool) {
    let samples = (*self.samples).as_ref();
    let total = samples.len() / self.channels;
    let n = out.len().min(total - self.frame);
    let from = &samples[self.frame * self.channels..(self.frame + n) * self.channels];
    if self.channels == 1 {
      for (o, s) in out.iter_mut().zip(from) {
        *o = [*s, *s];
      }
    } else {
      for (o, s) in out.iter_mut().zip(from.chunks_exact(2)) {
        *o = [s[0], s[1]];
      }
    }
    self.frame += n;
    (n, self.frame >= total)
  }
}
