//! Audio for Limina: a dedicated audio thread owning the output (the device
//! through rodio/cpal, the null sink, or a WAV capture) and a 4-bus mixer
//! (master, sfx, ambience, voice) playing synthesised tones, ambience beds,
//! positional one-shots heard from each world's camera, PCM buffers from JS
//! and off-thread speech. The main thread only sends it commands. The typed
//! JS face is `js/audio.ts`.

mod engine;
mod mixer;
mod ops;
mod spatial;
mod tts;
mod voice;
mod wav;

pub use engine::Backend;
pub use mixer::{Bus, Command, Mixer, Placement};
pub use ops::{AudioConfig, AudioState};
pub use spatial::{gains, Listener};
pub use voice::{Ambience, Pcm, Sound, Tone, SAMPLE_RATE};
pub use wav::{parse as parse_wav, Wav, WavWriter};

deno_core::extension!(
  limina_audio,
  deps = [limina_ops],
  ops = [
    ops::op_audio_scene_create,
    ops::op_audio_scene_drop,
    ops::op_audio_set_listener,
    ops::op_audio_play,
    ops::op_audio_play_at,
    ops::op_audio_ambient,
    ops::op_audio_speak,
    ops::op_audio_play_pcm,
    ops::op_audio_stop,
    ops::op_audio_set_volume,
    ops::op_audio_playing,
    ops::op_audio_set_bus_volume,
    ops::op_audio_info,
    ops::op_audio_block_stats,
  ],
  options = { config: AudioConfig },
  state = |state, options| {
    state.put(AudioState::new(options.config));
  },
);

/// One fixed step ran: a `--deterministic` run mixes exactly `dt` of audio.
pub fn fixed_step(state: &mut deno_core::OpState, dt: f64) {
  if let Some(audio) = state.try_borrow_mut::<AudioState>() {
    audio.fixed_step(dt);
  }
}

/// The process is ending: lets the audio thread write what it mixed (a WAV
/// capture's last block) and close the output.
pub fn close(state: &mut deno_core::OpState) {
  if let Some(audio) = state.try_borrow_mut::<AudioState>() {
    audio.close();
  }
}
