//! WAV files: the capture backend's writer, whose header is patched after
//! every block so the file is a valid WAV of everything mixed so far at any
//! moment (a process ended by SIGTERM leaves a playable file), and a reader
//! for what speech synthesisers print.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

const HEADER_BYTES: u64 = 44;

/// 16-bit PCM, stereo, at the mixer's rate.
pub struct WavWriter {
  file: File,
  sample_rate: u32,
  data_bytes: u64,
  bytes: Vec<u8>,
}

impl WavWriter {
  pub fn create(path: &Path, sample_rate: u32) -> io::Result<Self> {
    let file = File::create(path)?;
    let w = Self { file, sample_rate, data_bytes: 0, bytes: Vec::new() };
    w.file.write_all_at(&w.header(), 0)?;
    Ok(w)
  }

  fn header(&self) -> [u8; HEADER_BYTES as usize] {
    let channels: u16 = 2;
    let block: u16 = channels * 2;
    let data = self.data_bytes as u32;
    let mut h = [0u8; HEADER_BYTES as usize];
    h[0..4].copy_from_slice(b"RIFF");
    h[4..8].copy_from_slice(&(36 + data).to_le_bytes());
    h[8..16].copy_from_slice(b"WAVEfmt ");
    h[16..20].copy_from_slice(&16u32.to_le_bytes());
    h[20..22].copy_from_slice(&1u16.to_le_bytes());
    h[22..24].copy_from_slice(&channels.to_le_bytes());
    h[24..28].copy_from_slice(&self.sample_rate.to_le_bytes());
    h[28..32].copy_from_slice(&(self.sample_rate * block as u32).to_le_bytes());
    h[32..34].copy_from_slice(&block.to_le_bytes());
    h[34..36].copy_from_slice(&16u16.to_le_bytes());
    h[36..40].copy_from_slice(b"data");
    h[40..44].copy_from_slice(&data.to_le_bytes());
    h
  }

  /// Appends frames, then makes the header count them. Fails once the file
  /// would pass what a WAV header can count (4 GiB, about 6 hours).
  pub fn write(&mut self, frames: &[[f32; 2]]) -> io::Result<()> {
    let len = frames.len() as u64 * 4;
    if HEADER_BYTES + self.data_bytes + len > u32::MAX as u64 {
      return Err(io::Error::new(io::ErrorKind::FileTooLarge, "a WAV file holds at most 4 GiB"));
    }
    self.bytes.clear();
    for f in frames {
      for s in f {
        self.bytes.extend_from_slice(&((s.clamp(-1.0, 1.0) * 32767.0).round() as i16).to_le_bytes());
      }
    }
    self.file.write_all_at(&self.bytes, HEADER_BYTES + self.data_bytes)?;
    self.data_bytes += len;
    let h = self.header();
    self.file.write_all_at(&h[4..8], 4)?;
    self.file.write_all_at(&h[40..44], 40)
  }

  pub fn frames_written(&self) -> u64 {
    self.data_bytes / 4
  }
}

/// Decoded WAV audio: interleaved samples in [-1, 1].
#[derive(Debug)]
pub struct Wav {
  pub sample_rate: u32,
  pub channels: u16,
  pub samples: Vec<f32>,
}

/// Reads a 16-bit PCM or 32-bit float WAV. A data chunk whose size says
/// more than the bytes present (a synthesiser streaming to a pipe writes
/// an unknown size) is read to the end of what is there.
pub fn parse(bytes: &[u8]) -> Result<Wav, String> {
  if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
    return Err("not a RIFF/WAVE file".into());
  }
  let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
  let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
  let mut at = 12;
  let mut format = None;
  while at + 8 <= bytes.len() {
    let id = &bytes[at..at + 4];
    let size = u32_at(at + 4) as usize;
    let body = at + 8;
    if id == b"fmt " {
      if size < 16 || body + 16 > bytes.len() {
        return Err("truncated fmt chunk".into());
      }
      format = Some((u16_at(body), u16_at(body + 2), u32_at(body + 4), u16_at(body + 14)));
    } else if id == b"data" {
      let (tag, channels, sample_rate, bits) = format.ok_or("data before fmt")?;
      if channels == 0 || sample_rate == 0 {
        return Err("no channels or no sample rate".into());
      }
      let data = &bytes[body..bytes.len().min(body.saturating_add(size))];
      let samples = match (tag, bits) {
        (1, 16) => data.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]) as f32 / 32768.0).collect(),
        (3, 32) => data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
        _ => return Err(format!("unsupported WAV encoding (format {tag}, {bits} bits)")),
      };
      return Ok(Wav { sample_rate, channels, samples });
    }
    at = body.saturating_add(size).saturating_add(size & 1);
  }
  Err("no data chunk".into())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn the_header_counts_every_block_as_it_is_written() {
    let path = std::env::temp_dir().join(format!("limina-wav-{}.wav", std::process::id()));
    let mut w = WavWriter::create(&path, 48_000).unwrap();
    let check = |frames: usize| {
      let bytes = std::fs::read(&path).unwrap();
      assert_eq!(bytes.len(), 44 + frames * 4);
      let wav = parse(&bytes).unwrap();
      assert_eq!((wav.sample_rate, wav.channels, wav.samples.len()), (48_000, 2, frames * 2));
      assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize, bytes.len() - 8);
      wav
    };
    check(0);
    w.write(&[[0.5, -0.5]; 100]).unwrap();
    check(100);
    w.write(&[[2.0, -2.0]; 3]).unwrap();
    let wav = check(103);
    assert!((wav.samples[0] - 0.5).abs() < 1e-4 && (wav.samples[1] + 0.5).abs() < 1e-4);
    assert_eq!(&wav.samples[200..202], &[32767.0 / 32768.0, -32767.0 / 32768.0], "clipped, not wrapped");
    assert_eq!(w.frames_written(), 103);
    std::fs::remove_file(&path).unwrap();
  }

  #[test]
  fn an_overlong_data_size_reads_what_is_there() {
    let mut bytes = b"RIFF\xff\xff\xff\xffWAVEfmt \x10\0\0\0\x01\0\x01\0\x22\x56\0\0\x44\xac\0\0\x02\0\x10\0data\xff\xff\xff\xff".to_vec();
    bytes.extend_from_slice(&[0x00, 0x40, 0x00, 0xc0]);
    let wav = parse(&bytes).unwrap();
    assert_eq!((wav.sample_rate, wav.channels), (22_050, 1));
    assert_eq!(wav.samples, vec![0.5, -0.5]);
    assert!(parse(b"RIFX").is_err());
  }
}
