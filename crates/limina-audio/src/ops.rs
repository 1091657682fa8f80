//! Thin ops over [`AudioState`]: the main thread's side of the audio thread.
//! Every op only sends; which handles are live it learns from the audio
//! thread's reports, read without waiting. Each world session is a scene
//! with its own listener, and may address only its own sounds.

use std::collections::HashMap;

use deno_core::{op2, JsBuffer, OpState};
use limina_ops::OpError;

use crate::engine::{Backend, BlockStats, Engine, Message, Report};
use crate::mixer::{Bus, Command, Placement};
use crate::spatial::Listener;
use crate::tts::{self, Job, Voice};
use crate::voice::{Ambience, Pcm, Sound, Tone, SAMPLE_RATE};

/// What the process was started with.
pub struct AudioConfig {
  pub backend: Backend,
  pub deterministic: bool,
  /// `LIMINA_TTS`'s value (None when unset).
  pub tts: Option<String>,
}

/// The main thread's audio state, in `OpState`. The audio thread starts on
/// the first sound, so a program that plays none opens no device.
pub struct AudioState {
  config: AudioConfig,
  running: Option<Running>,
  next_scene: u32,
  /// Each live scene's listener pose.
  scenes: HashMap<u32, Listener>,
  next_id: u64,
  /// Live sounds and the scene each belongs to.
  live: HashMap<u64, u32>,
}

struct Running {
  engine: Engine,
  voice: Result<Voice, String>,
  speech: Option<std::sync::mpsc::Sender<Job>>,
}

impl AudioState {
  pub fn new(config: AudioConfig) -> Self {
    Self { config, running: None, next_scene: 0, scenes: HashMap::new(), next_id: 0, live: HashMap::new() }
  }

  fn running(&mut self) -> &mut Running {
    if self.running.is_none() {
      let engine = Engine::start(self.config.backend.clone(), self.config.deterministic);
      for (&scene, &pose) in &self.scenes {
        let _ = engine.tx.send(Message::Mix(Command::SetListener { scene, pose }));
      }
      let voice = tts::select(self.config.tts.as_deref());
      match &voice {
        Err(why) if self.config.tts.as_deref() != Some("none") => eprintln!("limina: audio: {why}; audio.speak will fail"),
        _ => {}
      }
      self.running = Some(Running { engine, voice, speech: None });
    }
    self.running.as_mut().expect("just started")
  }

  fn send(&mut self, command: Command) {
    // The audio thread outlives the isolate; a failed send means it is gone
    // with the process.
    let _ = self.running().engine.tx.send(Message::Mix(command));
  }

  /// Forgets the sounds the audio thread reported ended.
  fn drain_reports(&mut self) {
    let Some(r) = &self.running else { return };
    while let Ok(Report::Ended(id)) = r.engine.reports.try_recv() {
      self.live.remove(&id);
    }
  }

  fn scene(&self, scene: u32) -> Result<(), OpError> {
    if self.scenes.contains_key(&scene) {
      Ok(())
    } else {
      Err(OpError::not_found(format!("no audio scene {scene} (never created or already dropped)")))
    }
  }

  fn start_sound(&mut self, scene: u32, bus: Bus, volume: f32, sound: Sound, place: Option<Placement>) -> u64 {
    self.next_id += 1;
    let id = self.next_id;
    self.live.insert(id, scene);
    self.send(Command::Play { id, scene, bus, volume, sound, place });
    id
  }

  /// Whether `id` is a live sound of `scene`.
  fn owns(&mut self, scene: u32, id: u64) -> bool {
    self.drain_reports();
    self.live.get(&id) == Some(&scene)
  }

  /// One fixed step of the loop: a deterministic run's mixer renders its
  /// step of frames (the host calls this after each step's systems ran).
  pub fn fixed_step(&mut self, dt: f64) {
    if self.config.deterministic {
      if let Some(r) = &self.running {
        let _ = r.engine.tx.send(Message::Advance((dt * SAMPLE_RATE as f64).round() as u32));
      }
    }
  }

  /// The process is ending: what the mixer produced reaches the output.
  pub fn close(&mut self) {
    if let Some(mut r) = self.running.take() {
      r.engine.shutdown();
    }
  }
}

fn check_volume(volume: f64) -> Result<f32, OpError> {
  if (0.0..=1.0).contains(&volume) {
    Ok(volume as f32)
  } else {
    Err(OpError::invalid_input(format!("volume must be within 0..1, got {volume}")))
  }
}

/// The bus and volume every sound is started with.
fn check_mix(bus: &str, volume: f64) -> Result<(Bus, f32), OpError> {
  let bus = Bus::parse(bus).ok_or_else(|| OpError::invalid_input(format!("unknown bus {bus:?}: one of {}", Bus::NAMES.join(", "))))?;
  Ok((bus, check_volume(volume)?))
}

fn tone(freq: f64, secs: f64) -> Result<Sound, OpError> {
  if !(freq.is_finite() && freq > 0.0 && freq <= SAMPLE_RATE as f64 / 2.0) {
    return Err(OpError::invalid_input(format!("freq must be > 0 and at most {} Hz, got {freq}", SAMPLE_RATE / 2)));
  }
  if !(secs > 0.0 && secs <= 10.0) {
    return Err(OpError::invalid_input(format!("secs must be > 0 and at most 10, got {secs}")));
  }
  Ok(Sound::Tone(Tone::new(freq as f32, secs as f32)))
}

fn check_position(p: [f64; 3]) -> Result<[f32; 3], OpError> {
  if p.iter().all(|c| c.is_finite() && c.abs() <= 1e5) {
    Ok([p[0] as f32, p[1] as f32, p[2] as f32])
  } else {
    Err(OpError::invalid_input(format!("position must be finite and within ±1e5 m, got {p:?}")))
  }
}

/// A negative `max_distance` means none.
fn placement(position: [f64; 3], max_distance: f64) -> Result<Placement, OpError> {
  let position = check_position(position)?;
  if max_distance.is_nan() {
    return Err(OpError::invalid_input("maxDistance must be a number"));
  }
  Ok(Placement { position, max_distance: (max_distance >= 0.0).then_some(max_distance as f32) })
}

fn audio(state: &mut OpState) -> &mut AudioState {
  state.borrow_mut::<AudioState>()
}

/// A new scene (one per world session) with its listener at the origin; returns its id.
#[op2(fast)]
pub fn op_audio_scene_create(state: &mut OpState) -> u32 {
  let a = audio(state);
  a.next_scene += 1;
  a.scenes.insert(a.next_scene, Listener::default());
  a.next_scene
}

/// Drops a scene: its sounds stop. Returns whether it existed.
#[op2(fast)]
pub fn op_audio_scene_drop(state: &mut OpState, scene: u32) -> bool {
  let a = audio(state);
  if a.scenes.remove(&scene).is_none() {
    return false;
  }
  a.live.retain(|_, s| *s != scene);
  if a.running.is_some() {
    a.send(Command::DropScene { scene });
  }
  true
}

/// Moves a scene's listener (its camera): position and unit quaternion.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_audio_set_listener(state: &mut OpState, scene: u32, px: f64, py: f64, pz: f64, qx: f64, qy: f64, qz: f64, qw: f64) -> Result<(), OpError> {
  let a = audio(state);
  a.scene(scene)?;
  let position = check_position([px, py, pz])?;
  let n = (qx * qx + qy * qy + qz * qz + qw * qw).sqrt();
  if !(n.is_finite() && n > 1e-6) {
    return Err(OpError::invalid_input("the listener's rotation must be a finite non-zero quaternion"));
  }
  let pose = Listener { position, rotation: [(qx / n) as f32, (qy / n) as f32, (qz / n) as f32, (qw / n) as f32] };
  if a.scenes.insert(scene, pose) != Some(pose) && a.running.is_some() {
    a.send(Command::SetListener { scene, pose });
  }
  Ok(())
}

/// A one-shot tone on a bus; returns its handle.
#[op2(fast)]
#[number]
pub fn op_audio_play(state: &mut OpState, scene: u32, freq: f64, secs: f64, #[string] bus: &str, volume: f64) -> Result<u64, OpError> {
  let a = audio(state);
  a.scene(scene)?;
  let sound = tone(freq, secs)?;
  let (bus, volume) = check_mix(bus, volume)?;
  Ok(a.start_sound(scene, bus, volume, sound, None))
}

/// A positional one-shot tone heard from the scene's listener; a negative
/// `max_distance` means no cutoff.
#[op2(fast)]
#[number]
#[allow(clippy::too_many_arguments)]
pub fn op_audio_play_at(
  state: &mut OpState,
  scene: u32,
  freq: f64,
  secs: f64,
  #[string] bus: &str,
  volume: f64,
  x: f64,
  y: f64,
  z: f64,
  max_distance: f64,
) -> Result<u64, OpError> {
  let a = audio(state);
  a.scene(scene)?;
  let sound = tone(freq, secs)?;
  let (bus, volume) = check_mix(bus, volume)?;
  let place = placement([x, y, z], max_distance)?;
  Ok(a.start_sound(scene, bus, volume, sound, Some(place)))
}

/// A looping ambience bed on a bus, until stopped; returns its handle.
#[op2(fast)]
#[number]
pub fn op_audio_ambient(state: &mut OpState, scene: u32, #[string] bus: &str, volume: f64) -> Result<u64, OpError> {
  let a = audio(state);
  a.scene(scene)?;
  let (bus, volume) = check_mix(bus, volume)?;
  let seed = a.next_id + 1;
  Ok(a.start_sound(scene, bus, volume, Sound::Ambience(Ambience::new(seed)), None))
}

/// Speaks `text` at a position on the voice bus. Returns at once with the
/// handle; the line is synthesised off-thread and plays when ready.
#[op2(fast)]
#[number]
pub fn op_audio_speak(state: &mut OpState, scene: u32, #[string] text: &str, x: f64, y: f64, z: f64, volume: f64) -> Result<u64, OpError> {
  let a = audio(state);
  a.scene(scene)?;
  let chars = text.chars().count();
  if !(1..=500).contains(&chars) {
    return Err(OpError::invalid_input(format!("text must be 1 to 500 characters, got {chars}")));
  }
  let volume = check_volume(volume)?;
  let place = placement([x, y, z], -1.0)?;
  let r = a.running();
  let voice = r.voice.clone().map_err(OpError::unavailable)?;
  let mixer = r.engine.tx.clone();
  let speech = r.speech.get_or_insert_with(|| tts::start(voice, mixer)).clone();
  let id = a.start_sound(scene, Bus::Voice, volume, Sound::Pending, Some(place));
  let _ = speech.send(Job { id, text: text.to_owned() });
  Ok(id)
}

/// The samples of a module's own PCM buffer (f32 at 48 kHz, 1 or 2
/// channels interleaved): the buffer is detached from JS and handed to the
/// audio thread as it is, without a copy. `positional` places it at x, y, z.
#[op2]
#[number]
#[allow(clippy::too_many_arguments)]
pub fn op_audio_play_pcm(
  state: &mut OpState,
  scene: u32,
  #[buffer(detach)] samples: JsBuffer,
  channels: u32,
  #[string] bus: &str,
  volume: f64,
  positional: bool,
  x: f64,
  y: f64,
  z: f64,
  max_distance: f64,
) -> Result<u64, OpError> {
  let a = audio(state);
  a.scene(scene)?;
  let (bus, volume) = check_mix(bus, volume)?;
  let place = if positional { Some(placement([x, y, z], max_distance)?) } else { None };
  let pcm = F32Samples::new(samples, channels)?;
  let channels = channels as usize;
  Ok(a.start_sound(scene, bus, volume, Sound::Pcm(Pcm::new(Box::new(pcm), channels)), place))
}

/// A detached JS buffer read as f32 samples in place.
struct F32Samples(JsBuffer);

impl F32Samples {
  fn new(buffer: JsBuffer, channels: u32) -> Result<Self, OpError> {
    let bytes: &[u8] = &buffer;
    if !matches!(channels, 1 | 2) {
      return Err(OpError::invalid_input(format!("channels must be 1 or 2, got {channels}")));
    }
    if bytes.as_ptr() as usize % 4 != 0 || bytes.len() % (4 * channels as usize) != 0 || bytes.is_empty() {
      return Err(OpError::invalid_input("samples must be a non-empty Float32Array of whole frames"));
    }
    let samples = Self(buffer);
    if let Some(bad) = samples.as_ref().iter().find(|s| !s.is_finite()) {
      return Err(OpError::invalid_input(format!("samples must be finite, found {bad}")));
    }
    Ok(samples)
  }
}

impl AsRef<[f32]> for F32Samples {
  fn as_ref(&self) -> &[f32] {
    let bytes: &[u8] = &self.0;
    // SAFETY: checked 4-byte aligned and a whole number of f32s in `new`;
    // the buffer is detached, so nothing else writes it.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), bytes.len() / 4) }
  }
}

/// Stops a live sound of this scene; false for any other handle.
#[op2(fast)]
pub fn op_audio_stop(state: &mut OpState, scene: u32, #[number] id: u64) -> bool {
  let a = audio(state);
  if !a.owns(scene, id) {
    return false;
  }
  a.live.remove(&id);
  a.send(Command::Stop { id });
  true
}

/// Sets a live sound's volume; false for any handle not live in this scene.
#[op2(fast)]
pub fn op_audio_set_volume(state: &mut OpState, scene: u32, #[number] id: u64, volume: f64) -> Result<bool, OpError> {
  let volume = check_volume(volume)?;
  let a = audio(state);
  if !a.owns(scene, id) {
    return Ok(false);
  }
  a.send(Command::SetVolume { id, volume });
  Ok(true)
}

/// Whether a sound of this scene is still playing (or its speech still being made).
#[op2(fast)]
pub fn op_audio_playing(state: &mut OpState, scene: u32, #[number] id: u64) -> bool {
  audio(state).owns(scene, id)
}

/// Sets a mixer bus's volume: every live sound on it is re-gained at once.
#[op2(fast)]
pub fn op_audio_set_bus_volume(state: &mut OpState, #[string] bus: &str, volume: f64) -> Result<(), OpError> {
  let (bus, volume) = check_mix(bus, volume)?;
  audio(state).send(Command::SetBusVolume { bus, volume });
  Ok(())
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioInfo {
  backend: String,
  deterministic: bool,
  started: bool,
  /// The speech voice, or null with `voice_error` saying why there is none.
  voice: Option<String>,
  voice_error: Option<String>,
}

/// Which backend and voice this process has (the voice is chosen when the
/// first sound starts the audio thread).
#[op2]
#[serde]
pub fn op_audio_info(state: &mut OpState) -> AudioInfo {
  let a = audio(state);
  let backend = match &a.config.backend {
    Backend::Device => "device".to_owned(),
    Backend::Null => "null".to_owned(),
    Backend::Wav(p) => format!("wav:{}", p.display()),
  };
  let (voice, voice_error) = match a.running.as_ref().map(|r| &r.voice) {
    None => (None, None),
    Some(Ok(v)) => (Some(v.describe()), None),
    Some(Err(why)) => (None, Some(why.clone())),
  };
  AudioInfo { backend, deterministic: a.config.deterministic, started: a.running.is_some(), voice, voice_error }
}

/// The mixer's recent blocks as [frames, voices, microseconds] rows, for the benchmark.
#[op2]
#[serde]
pub fn op_audio_block_stats(state: &mut OpState) -> Vec<[f64; 3]> {
  let Some(r) = &audio(state).running else { return Vec::new() };
  let stats = r.engine.stats.lock().unwrap_or_else(|e| e.into_inner());
  let BlockStats { blocks, .. } = &*stats;
  blocks.iter().map(|&(f, v, ns)| [f as f64, v as f64, ns as f64 / 1000.0]).collect()
}
