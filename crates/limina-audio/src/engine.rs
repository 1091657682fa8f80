//! The audio thread. It owns the mixer and the output — the device (rodio
//! over cpal), the null sink or a WAV capture — and takes commands over a
//! channel, so the main thread only ever sends. In real time the mixer runs
//! against the audio clock (the device's callback, or the wall clock for the
//! null and WAV sinks); in a `--deterministic` run it renders exactly one
//! fixed step of frames for each step the loop runs, so a capture is the
//! same on every run.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::mixer::{Command, Mixer};
use crate::voice::SAMPLE_RATE;
use crate::wav::WavWriter;

/// Where the mix goes (`LIMINA_AUDIO`).
#[derive(Clone, Debug, PartialEq)]
pub enum Backend {
  /// The default output device; without one, the null sink.
  Device,
  /// Mixed, and heard by nobody.
  Null,
  /// Everything the mixer produces, written to this WAV file.
  Wav(PathBuf),
}

impl Backend {
  /// `LIMINA_AUDIO`'s value (None when unset).
  pub fn parse(setting: Option<&str>) -> Result<Backend, String> {
    match setting {
      None | Some("") | Some("device") => Ok(Backend::Device),
      Some("null") => Ok(Backend::Null),
      Some(other) => match other.strip_prefix("wav:") {
        Some(path) if !path.is_empty() => Ok(Backend::Wav(PathBuf::from(path))),
        _ => Err(format!("LIMINA_AUDIO={other:?} is not one of device, null, wav:<path>")),
      },
    }
  }
}

pub enum Message {
  Mix(Command),
  /// Render this many frames now (deterministic runs: one fixed step).
  Advance(u32),
  /// Render what is due, close the output, then answer.
  Shutdown(SyncSender<()>),
}

/// What the audio thread tells the main thread, which reads it without waiting.
pub enum Report {
  Ended(u64),
}

/// How long each mixing block took, for the benchmark: the most recent
/// `BLOCK_HISTORY` blocks.
#[derive(Default)]
pub struct BlockStats {
  /// (frames, voices, nanoseconds) per block.
  pub blocks: Vec<(u32, u32, u32)>,
}

const BLOCK_HISTORY: usize = 8192;

impl BlockStats {
  fn record(&mut self, frames: usize, voices: usize, took: Duration) {
    if self.blocks.len() == BLOCK_HISTORY {
      self.blocks.remove(0);
    }
    self.blocks.push((frames as u32, voices as u32, took.as_nanos().min(u32::MAX as u128) as u32));
  }
}

pub struct Engine {
  pub tx: Sender<Message>,
  pub reports: Receiver<Report>,
  pub stats: Arc<Mutex<BlockStats>>,
  thread: Option<JoinHandle<()>>,
}

/// The wall-clock sinks render in blocks of this much time.
const BLOCK: Duration = Duration::from_millis(10);

impl Engine {
  pub fn start(backend: Backend, deterministic: bool) -> Engine {
    let (tx, rx) = mpsc::channel();
    let (report_tx, reports) = mpsc::channel();
    let stats = Arc::new(Mutex::new(BlockStats::default()));
    let thread_stats = stats.clone();
    let thread = std::thread::Builder::new()
      .name("limina-audio".into())
      .spawn(move || run(backend, deterministic, rx, report_tx, thread_stats))
      .expect("the audio thread starts");
    Engine { tx, reports, stats, thread: Some(thread) }
  }

  /// Lets the output finish what is due and close (a WAV capture's last
  /// block lands); waits at most a second: the process is ending.
  pub fn shutdown(&mut self) {
    let (done, wait) = mpsc::sync_channel(1);
    if self.tx.send(Message::Shutdown(done)).is_ok() {
      let _ = wait.recv_timeout(Duration::from_secs(1));
    }
    self.thread.take();
  }
}

enum Sink {
  Null,
  Wav(WavWriter, PathBuf),
}

impl Sink {
  fn write(&mut self, frames: &[[f32; 2]]) {
    if let Sink::Wav(w, path) = self {
      if let Err(e) = w.write(frames) {
        eprintln!("limina: audio: capture to {} stopped: {e}", path.display());
        *self = Sink::Null;
      }
    }
  }
}

struct Audio {
  mixer: Mixer,
  sink: Sink,
  reports: Sender<Report>,
  stats: Arc<Mutex<BlockStats>>,
  buffer: Vec<[f32; 2]>,
}

impl Audio {
  fn render(&mut self, mut frames: usize) {
    while frames > 0 {
      let n = frames.min(SAMPLE_RATE as usize / 10);
      self.buffer.resize(n, [0.0; 2]);
      let voices = self.mixer.voice_count();
      let start = Instant::now();
      self.mixer.render(&mut self.buffer);
      let took = start.elapsed();
      if let Ok(mut s) = self.stats.try_lock() {
        s.record(n, voices, took);
      }
      self.sink.write(&self.buffer);
      frames -= n;
    }
    self.report();
  }

  fn report(&mut self) {
    for id in self.mixer.take_ended() {
      let _ = self.reports.send(Report::Ended(id));
    }
  }
}

fn run(backend: Backend, deterministic: bool, rx: Receiver<Message>, reports: Sender<Report>, stats: Arc<Mutex<BlockStats>>) {
  let sink = match backend {
    Backend::Null => Sink::Null,
    Backend::Wav(path) => match WavWriter::create(&path, SAMPLE_RATE) {
      Ok(w) => Sink::Wav(w, path),
      Err(e) => {
        eprintln!("limina: audio: cannot write {}: {e}; mixing into the null sink", path.display());
        Sink::Null
      }
    },
    Backend::Device if deterministic => {
      eprintln!("limina: audio: a --deterministic run is not real time, so no device plays it; mixing into the null sink");
      Sink::Null
    }
    Backend::Device => match device::open() {
      Ok(device) => return device.run(rx, reports, stats),
      Err(e) => {
        eprintln!("limina: audio: no output device ({e}); mixing into the null sink");
        Sink::Null
      }
    },
  };
  let mut audio = Audio { mixer: Mixer::default(), sink, reports, stats, buffer: Vec::new() };
  if deterministic {
    for message in rx {
      match message {
        Message::Mix(c) => audio.mixer.apply(c),
        Message::Advance(frames) => audio.render(frames as usize),
        Message::Shutdown(done) => {
          drop(audio);
          let _ = done.send(());
          return;
        }
      }
    }
    return;
  }
  let start = Instant::now();
  let mut produced: u64 = 0;
  let mut next = start + BLOCK;
  loop {
    let message = rx.recv_timeout(next.saturating_duration_since(Instant::now()));
    let mut shutdown = None;
    let mut handle = |m: Message, audio: &mut Audio| match m {
      Message::Mix(c) => audio.mixer.apply(c),
      Message::Advance(_) => {}
      Message::Shutdown(done) => shutdown = Some(done),
    };
    match message {
      Ok(m) => handle(m, &mut audio),
      Err(RecvTimeoutError::Timeout) => {}
      Err(RecvTimeoutError::Disconnected) => return,
    }
    while let Ok(m) = rx.try_recv() {
      handle(m, &mut audio);
    }
    let due = (start.elapsed().as_secs_f64() * SAMPLE_RATE as f64) as u64;
    if due > produced {
      audio.render((due - produced) as usize);
      produced = due;
    }
    while next <= Instant::now() {
      next += BLOCK;
    }
    if let Some(done) = shutdown {
      drop(audio);
      let _ = done.send(());
      return;
    }
  }
}

/// The real output: rodio's device sink over cpal, pulling from the mixer
/// on the device's own callback.
mod device {
  use super::*;
  use rodio::{DeviceSinkBuilder, MixerDeviceSink, Source};
  use std::num::NonZero;

  pub struct Device(MixerDeviceSink);

  pub fn open() -> Result<Device, String> {
    // alsa-lib reports a missing card on stderr, several lines of it; on
    // this thread it writes to a buffer instead, and the caller says what
    // happened in one line.
    #[cfg(target_os = "linux")]
    let _quiet = alsa::Output::local_error_handler();
    let mut sink = DeviceSinkBuilder::open_default_sink().map_err(|e| e.to_string())?;
    sink.log_on_drop(false);
    Ok(Device(sink))
  }

  /// The mixer as a rodio source: commands are applied between blocks.
  struct Pull {
    audio: Audio,
    rx: Receiver<Message>,
    block: Vec<[f32; 2]>,
    at: usize,
    closed: Option<SyncSender<()>>,
    ended: Sender<Option<SyncSender<()>>>,
  }

  impl Iterator for Pull {
    type Item = f32;
    fn next(&mut self) -> Option<f32> {
      if self.at == self.block.len() * 2 {
        while let Ok(m) = self.rx.try_recv() {
          match m {
            Message::Mix(c) => self.audio.mixer.apply(c),
            Message::Advance(_) => {}
            Message::Shutdown(done) => self.closed = Some(done),
          }
        }
        if let Some(done) = self.closed.take() {
          let _ = self.ended.send(Some(done));
          return None;
        }
        // ~5 ms blocks: commands land within one.
        self.audio.render(240);
        self.block.clear();
        self.block.extend_from_slice(&self.audio.buffer);
        self.at = 0;
      }
      let frame = self.block[self.at / 2];
      let s = frame[self.at % 2];
      self.at += 1;
      Some(s)
    }
  }

  impl Source for Pull {
    fn current_span_len(&self) -> Option<usize> {
      None
    }
    fn channels(&self) -> rodio::ChannelCount {
      NonZero::new(2).unwrap()
    }
    fn sample_rate(&self) -> rodio::SampleRate {
      NonZero::new(SAMPLE_RATE).unwrap()
    }
    fn total_duration(&self) -> Option<Duration> {
      None
    }
  }

  impl Device {
    pub fn run(self, rx: Receiver<Message>, reports: Sender<Report>, stats: Arc<Mutex<BlockStats>>) {
      let (ended, wait) = mpsc::channel();
      let audio = Audio { mixer: Mixer::default(), sink: Sink::Null, reports, stats, buffer: Vec::new() };
      self.0.mixer().add(Pull { audio, rx, block: Vec::new(), at: 0, closed: None, ended });
      // This thread keeps the device open until the mixer is told to close.
      if let Ok(Some(done)) = wait.recv() {
        drop(self);
        let _ = done.send(());
      }
    }
  }
}
