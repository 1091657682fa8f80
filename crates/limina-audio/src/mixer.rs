//! The 4-bus mixer: every live voice sits on one bus (master, sfx,
//! ambience, voice); a voice's gain is its own volume × its bus's × the
//! master's (× where it is heard from, for a positional one), recomputed for
//! every block, so a bus volume re-gains every live sound on it at once.
//! Gains ramp across a block so a change never clicks.

use std::collections::HashMap;

use crate::spatial::{self, Listener};
use crate::voice::Sound;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bus {
  Master = 0,
  Sfx = 1,
  Ambience = 2,
  Voice = 3,
}

impl Bus {
  pub const NAMES: [&'static str; 4] = ["master", "sfx", "ambience", "voice"];

  pub fn parse(name: &str) -> Option<Bus> {
    Some(match name {
      "master" => Bus::Master,
      "sfx" => Bus::Sfx,
      "ambience" => Bus::Ambience,
      "voice" => Bus::Voice,
      _ => return None,
    })
  }
}

/// Where a positional voice is (heard by its scene's listener).
#[derive(Clone, Copy, Debug)]
pub struct Placement {
  pub position: [f32; 3],
  pub max_distance: Option<f32>,
}

/// What the main thread (and the speech synthesiser) ask of the mixer.
/// A scene is a world session's: its sounds, and its listener, which
/// follows the world's camera.
pub enum Command {
  Play { id: u64, scene: u32, bus: Bus, volume: f32, sound: Sound, place: Option<Placement> },
  /// The samples of a `Sound::Pending` voice; dropped if it was stopped meanwhile.
  Deliver { id: u64, sound: Sound },
  Stop { id: u64 },
  SetVolume { id: u64, volume: f32 },
  SetBusVolume { bus: Bus, volume: f32 },
  SetListener { scene: u32, pose: Listener },
  /// The scene's world is gone: so are its voices and its listener.
  DropScene { scene: u32 },
}

struct Voice {
  id: u64,
  scene: u32,
  bus: Bus,
  volume: f32,
  sound: Sound,
  place: Option<Placement>,
  /// The gains the last block ended on: where the next block's ramp starts.
  gains: Option<(f32, f32)>,
  /// Played out: removed at the end of the block.
  done: bool,
}

/// Frames rendered per ramp: whatever size a backend asks for is cut into these.
const CHUNK: usize = 512;

pub struct Mixer {
  voices: Vec<Voice>,
  buses: [f32; 4],
  /// Each scene's listener.
  listeners: HashMap<u32, Listener>,
  scratch: Vec<[f32; 2]>,
  ended: Vec<u64>,
}

impl Default for Mixer {
  fn default() -> Self {
    Self { voices: Vec::new(), buses: [1.0; 4], listeners: HashMap::new(), scratch: vec![[0.0; 2]; CHUNK], ended: Vec::new() }
  }
}

impl Mixer {
  pub fn apply(&mut self, command: Command) {
    match command {
      Command::Play { id, scene, bus, volume, sound, place } => self.voices.push(Voice { id, scene, bus, volume, sound, place, gains: None, done: false }),
      Command::Deliver { id, sound } => {
        if let Some(v) = self.voices.iter_mut().find(|v| v.id == id) {
          v.sound = sound;
        }
      }
      Command::Stop { id } => self.remove(|v| v.id == id),
      Command::SetVolume { id, volume } => {
        if let Some(v) = self.voices.iter_mut().find(|v| v.id == id) {
          v.volume = volume;
        }
      }
      Command::SetBusVolume { bus, volume } => self.buses[bus as usize] = volume,
      Command::SetListener { scene, pose } => {
        self.listeners.insert(scene, pose);
      }
      Command::DropScene { scene } => {
        self.listeners.remove(&scene);
        self.remove(|v| v.scene == scene);
      }
    }
  }

  /// Removes the voices `gone` picks, reporting each as ended.
  fn remove(&mut self, gone: impl Fn(&Voice) -> bool) {
    let ended = &mut self.ended;
    self.voices.retain(|v| {
      let keep = !gone(v);
      if !keep {
        ended.push(v.id);
      }
      keep
    });
  }

  /// Live voices (pending speech included).
  pub fn voice_count(&self) -> usize {
    self.voices.len()
  }

  /// Voices that ended (played out, stopped or failed) since the last call.
  pub fn take_ended(&mut self) -> Vec<u64> {
    std::mem::take(&mut self.ended)
  }

  /// Mixes the next `out.len()` frames into `out` (overwriting it).
  pub fn render(&mut self, out: &mut [[f32; 2]]) {
    for chunk in out.chunks_mut(CHUNK) {
      self.render_chunk(chunk);
    }
  }

  fn render_chunk(&mut self, out: &mut [[f32; 2]]) {
    out.fill([0.0; 2]);
    let len = out.len();
    let master = self.buses[Bus::Master as usize];
    let scratch = &mut self.scratch[..len];
    let mut finished = false;
    for v in &mut self.voices {
      let bus = if v.bus == Bus::Master { 1.0 } else { self.buses[v.bus as usize] };
      let gain = v.volume * bus * master;
      let (tl, tr) = match v.place {
        None => (gain, gain),
        Some(p) => {
          let ear = self.listeners.get(&v.scene).copied().unwrap_or_default();
          let (l, r) = spatial::gains(&ear, p.position, p.max_distance);
          (gain * l, gain * r)
        }
      };
      let (n, done) = v.sound.render(scratch);
      let (sl, sr) = v.gains.unwrap_or((tl, tr));
      let (dl, dr) = ((tl - sl) / len as f32, (tr - sr) / len as f32);
      for (i, (o, s)) in out.iter_mut().zip(&scratch[..n]).enumerate() {
        let k = (i + 1) as f32;
        o[0] += s[0] * (sl + dl * k);
        o[1] += s[1] * (sr + dr * k);
      }
      v.gains = Some((tl, tr));
      v.done = done;
      finished |= done;
    }
    if finished {
      self.remove(|v| v.done);
    }
    for o in out.iter_mut() {
      o[0] = o[0].clamp(-1.0, 1.0);
      o[1] = o[1].clamp(-1.0, 1.0);
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::voice::{Pcm, Tone, SAMPLE_RATE};

  fn tone(id: u64, bus: Bus, freq: f32) -> Command {
    Command::Play { id, scene: 1, bus, volume: 1.0, sound: Sound::Tone(Tone::new(freq, 1.0)), place: None }
  }

  fn peak(frames: &[[f32; 2]]) -> f32 {
    frames.iter().fold(0.0, |m, f| m.max(f[0].abs()))
  }

  #[test]
  fn a_bus_volume_regains_only_the_live_sounds_on_it() {
    let mut m = Mixer::default();
    m.apply(tone(1, Bus::Sfx, 440.0));
    let mut out = vec![[0.0; 2]; 4800];
    m.render(&mut out);
    assert!((peak(&out[2400..]) - 0.5).abs() < 1e-3);
    m.apply(Command::SetBusVolume { bus: Bus::Sfx, volume: 0.0 });
    m.apply(tone(2, Bus::Ambience, 440.0));
    m.render(&mut out[..CHUNK]); // the ramp down
    m.render(&mut out);
    assert!((peak(&out) - 0.5).abs() < 1e-3, "only the ambience tone is heard");
    m.apply(Command::Stop { id: 2 });
    m.render(&mut out);
    assert_eq!(peak(&out), 0.0);
    assert_eq!(m.take_ended(), vec![2]);
  }

  #[test]
  fn a_tone_plays_exactly_its_duration_and_is_reported_ended() {
    let mut m = Mixer::default();
    m.apply(tone(7, Bus::Master, 1000.0));
    let mut out = vec![[0.0; 2]; SAMPLE_RATE as usize + 100];
    m.render(&mut out);
    let last = out.iter().rposition(|f| f[0] != 0.0).unwrap();
    assert!(last < SAMPLE_RATE as usize && last > SAMPLE_RATE as usize - 10, "{last}");
    assert_eq!((m.take_ended(), m.voice_count()), (vec![7], 0));
  }

  #[test]
  fn dropping_a_scene_ends_all_its_voices_and_only_those() {
    let mut m = Mixer::default();
    m.apply(tone(1, Bus::Sfx, 440.0));
    let place = Some(Placement { position: [3.0, 0.0, 0.0], max_distance: None });
    m.apply(Command::Play { id: 2, scene: 1, bus: Bus::Sfx, volume: 1.0, sound: Sound::Tone(Tone::new(440.0, 1.0)), place });
    m.apply(Command::Play { id: 3, scene: 2, bus: Bus::Sfx, volume: 1.0, sound: Sound::Tone(Tone::new(440.0, 1.0)), place: None });
    m.apply(Command::DropScene { scene: 1 });
    let mut ended = m.take_ended();
    ended.sort();
    assert_eq!((ended, m.voice_count()), (vec![1, 2], 1));
  }

  #[test]
  fn speech_arriving_after_its_stop_is_dropped() {
    let mut m = Mixer::default();
    m.apply(Command::Play { id: 3, scene: 1, bus: Bus::Voice, volume: 1.0, sound: Sound::Pending, place: None });
    m.apply(Command::Stop { id: 3 });
    m.apply(Command::Deliver { id: 3, sound: Sound::Pcm(Pcm::new(Box::new(vec![0.5f32; 480]), 1)) });
    let mut out = vec![[0.0; 2]; 480];
    m.render(&mut out);
    assert_eq!((peak(&out), m.voice_count()), (0.0, 0));
  }
}
