//! Speech: a pluggable local voice chosen by `LIMINA_TTS` — `none`,
//! `espeak` (espeak-ng), `piper` or `piper:<model>`; unset picks espeak-ng
//! when it is on PATH. Synthesis runs on its own thread, one line at a time,
//! as a child process; the samples go to the mixer as the pending voice's
//! sound, so the main thread never waits on a synthesiser.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};

use crate::engine::Message;
use crate::mixer::Command;
use crate::voice::{Pcm, Sound, SAMPLE_RATE};
use crate::wav;

/// The voice a line is spoken with.
#[derive(Clone, Debug)]
pub enum Voice {
  Espeak { program: PathBuf },
  Piper { program: PathBuf, model: String },
}

/// The model `LIMINA_TTS=piper` asks Piper for.
pub const DEFAULT_PIPER_MODEL: &str = "en_US-lessac-medium";

impl Voice {
  pub fn describe(&self) -> String {
    match self {
      Voice::Espeak { program } => format!("espeak-ng ({})", program.display()),
      Voice::Piper { program, model } => format!("piper ({}, model {model})", program.display()),
    }
  }
}

/// The voice `LIMINA_TTS` (its value, or None when unset) selects, or why
/// there is none: the reason `audio.speak` then fails with.
pub fn select(setting: Option<&str>) -> Result<Voice, String> {
  let espeak = || {
    which("espeak-ng")
      .map(|program| Voice::Espeak { program })
      .ok_or_else(|| "espeak-ng is not on PATH (Debian: apt-get install espeak-ng)".to_owned())
  };
  let piper = |model: &str| {
    which("piper")
      .map(|program| Voice::Piper { program, model: model.to_owned() })
      .ok_or_else(|| "piper is not on PATH (pip install piper-tts)".to_owned())
  };
  match setting {
    None | Some("") => espeak().map_err(|why| format!("no TTS voice: LIMINA_TTS is unset and {why}")),
    Some("none") => Err("no TTS voice: LIMINA_TTS=none".to_owned()),
    Some("espeak") => espeak().map_err(|why| format!("no TTS voice: LIMINA_TTS=espeak but {why}")),
    Some("piper") => piper(DEFAULT_PIPER_MODEL).map_err(|why| format!("no TTS voice: LIMINA_TTS=piper but {why}")),
    Some(other) => match other.strip_prefix("piper:") {
      Some(model) if !model.is_empty() => piper(model).map_err(|why| format!("no TTS voice: LIMINA_TTS={other} but {why}")),
      _ => Err(format!("no TTS voice: LIMINA_TTS={other:?} is not one of none, espeak, piper, piper:<model>")),
    },
  }
}

fn which(program: &str) -> Option<PathBuf> {
  let path = std::env::var_os("PATH")?;
  std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
  use std::os::unix::fs::PermissionsExt;
  path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

pub struct Job {
  pub id: u64,
  pub text: String,
}

/// Starts the synthesis thread; it delivers each line's sound to `mixer`.
pub fn start(voice: Voice, mixer: Sender<Message>) -> Sender<Job> {
  let (tx, rx) = mpsc::channel::<Job>();
  std::thread::Builder::new()
    .name("limina-tts".into())
    .spawn(move || run(voice, rx, mixer))
    .expect("the speech thread starts");
  tx
}

fn run(voice: Voice, jobs: Receiver<Job>, mixer: Sender<Message>) {
  for job in jobs {
    let message = match synthesize(&voice, &job.text) {
      Ok(samples) => Command::Deliver { id: job.id, sound: Sound::Pcm(Pcm::new(Box::new(samples), 1)) },
      Err(why) => {
        eprintln!("limina: audio.speak: {}: {why}", voice.describe());
        Command::Stop { id: job.id }
      }
    };
    if mixer.send(Message::Mix(message)).is_err() {
      return;
    }
  }
}

/// Speaks `text` with `voice`: mono samples at the mixer's rate.
pub fn synthesize(voice: &Voice, text: &str) -> Result<Vec<f32>, String> {
  let bytes = match voice {
    Voice::Espeak { program } => run_child(Process::new(program).args(["--stdin", "--stdout"]), text)?,
    Voice::Piper { program, model } => {
      let out = std::env::temp_dir().join(format!("limina-piper-{}-{:?}.wav", std::process::id(), std::thread::current().id()));
      let result = run_child(Process::new(program).arg("--model").arg(model).arg("--output_file").arg(&out), text)
        .and_then(|_| std::fs::read(&out).map_err(|e| format!("no output file: {e}")));
      let _ = std::fs::remove_file(&out);
      result?
    }
  };
  let wav = wav::parse(&bytes)?;
  Ok(resample_mono(&wav))
}

fn run_child(command: &mut Process, text: &str) -> Result<Vec<u8>, String> {
  let mut child = command
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .map_err(|e| format!("cannot start: {e}"))?;
  let mut stdin = child.stdin.take().expect("piped");
  let text = text.to_owned();
  // Fed from its own thread: a synthesiser streaming to stdout while it
  // reads would otherwise fill the pipe and stop.
  let feeder = std::thread::spawn(move || {
    let _ = stdin.write_all(text.as_bytes());
  });
  let out = child.wait_with_output().map_err(|e| format!("cannot run: {e}"))?;
  let _ = feeder.join();
  if !out.status.success() {
    let stderr = String::from_utf8_lossy(&out.stderr);
    return Err(format!("exited with {}: {}", out.status, stderr.lines().next().unwrap_or("").trim()));
  }
  Ok(out.stdout)
}

/// Down-mixes to mono and converts to the mixer's rate by linear
/// interpolation (speech needs no better).
fn resample_mono(wav: &wav::Wav) -> Vec<f32> {
  let channels = wav.channels as usize;
  let mono: Vec<f32> = wav.samples.chunks_exact(channels).map(|f| f.iter().sum::<f32>() / channels as f32).collect();
  if wav.sample_rate == SAMPLE_RATE || mono.len() < 2 {
    return mono;
  }
  let ratio = wav.sample_rate as f64 / SAMPLE_RATE as f64;
  let frames = ((mono.len() - 1) as f64 / ratio) as usize + 1;
  (0..frames)
    .map(|i| {
      let t = i as f64 * ratio;
      let k = t as usize;
      let frac = (t - k as f64) as f32;
      let next = mono[(k + 1).min(mono.len() - 1)];
      mono[k] + (next - mono[k]) * frac
    })
    .collect()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn the_setting_names_the_voice_or_says_why_there_is_none() {
    assert_eq!(select(Some("none")).unwrap_err(), "no TTS voice: LIMINA_TTS=none");
    assert!(select(Some("klatt")).unwrap_err().contains("not one of none, espeak, piper, piper:<model>"));
    assert!(select(Some("piper:")).is_err());
  }

  #[test]
  fn resampling_keeps_the_duration() {
    let wav = wav::Wav { sample_rate: 22_050, channels: 2, samples: vec![0.25; 22_050 * 2] };
    let out = resample_mono(&wav);
    assert!((out.len() as i64 - 48_000).abs() <= 3, "{}", out.len());
    assert!(out.iter().all(|s| (*s - 0.25).abs() < 1e-6));
  }
}
