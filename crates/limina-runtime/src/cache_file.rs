//! The start-up cache's file format: every file (a start-up snapshot, V8's
//! code for a module, transpiled TypeScript) starts with a header — magic,
//! format version, payload length and the payload's CRC-32 — so a file that
//! was truncated, overwritten or had bytes flipped is found out before V8
//! or the loader sees it. A damaged file is ignored (the slow way is taken),
//! said once on stderr, and replaced; files are only ever written whole and
//! renamed into place.

use std::path::Path;

const MAGIC: &[u8; 8] = b"LIMINAC\0";
const VERSION: u32 = 1;
/// 64 bytes, so the payload of a mapped file keeps the page's alignment up to 64.
pub const HEADER: usize = 64;

/// Why a cache file cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub enum Damage {
  Short(usize),
  Magic,
  Version(u32),
  Length { header: u64, actual: u64 },
  Checksum { header: u32, actual: u32 },
}

impl std::fmt::Display for Damage {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    match self {
      Damage::Short(n) => write!(f, "{n} bytes, shorter than its header"),
      Damage::Magic => write!(f, "not a Limina cache file"),
      Damage::Version(v) => write!(f, "format {v}, not {VERSION}"),
      Damage::Length { header, actual } => write!(f, "truncated or extended: {actual} payload bytes, its header says {header}"),
      Damage::Checksum { header, actual } => write!(f, "checksum mismatch: {actual:08x}, its header says {header:08x}"),
    }
  }
}

fn header(parts: &[&[u8]]) -> [u8; HEADER] {
  let mut crc = crc32fast::Hasher::new();
  let mut len = 0u64;
  for p in parts {
    crc.update(p);
    len += p.len() as u64;
  }
  let mut h = [0u8; HEADER];
  h[..8].copy_from_slice(MAGIC);
  h[8..12].copy_from_slice(&VERSION.to_le_bytes());
  h[12..16].copy_from_slice(&crc.finalize().to_le_bytes());
  h[16..24].copy_from_slice(&len.to_le_bytes());
  h
}

/// The payload of a whole cache file's bytes, if the file is intact.
pub fn payload(bytes: &[u8]) -> Result<&[u8], Damage> {
  if bytes.len() < HEADER {
    return Err(Damage::Short(bytes.len()));
  }
  let (h, body) = bytes.split_at(HEADER);
  if &h[..8] != MAGIC {
    return Err(Damage::Magic);
  }
  let version = u32::from_le_bytes(h[8..12].try_into().unwrap());
  if version != VERSION {
    return Err(Damage::Version(version));
  }
  let length = u64::from_le_bytes(h[16..24].try_into().unwrap());
  if length != body.len() as u64 {
    return Err(Damage::Length { header: length, actual: body.len() as u64 });
  }
  let expected = u32::from_le_bytes(h[12..16].try_into().unwrap());
  let actual = crc32fast::hash(body);
  if expected != actual {
    return Err(Damage::Checksum { header: expected, actual });
  }
  Ok(body)
}

/// Writes a cache file holding `parts` whole, then renames it into place.
pub fn write(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
  let header = header(parts);
  let all: Vec<&[u8]> = std::iter::once(&header[..]).chain(parts.iter().copied()).collect();
  limina_ops::whole_file::write_whole(path, &all)
}

/// Says on stderr that `path` was damaged and will be replaced.
pub fn report(path: &Path, damage: &Damage) {
  eprintln!("limina: start-up cache file {} is damaged ({damage}); ignoring it and making it again", path.display());
}

#[cfg(test)]
mod tests {
  use super::*;

  fn sealed(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = header(parts).to_vec();
    parts.iter().for_each(|p| out.extend_from_slice(p));
    out
  }

  #[test]
  fn an_intact_file_gives_its_payload() {
    let file = sealed(&[b"hello ", b"world"]);
    assert_eq!(payload(&file), Ok(&b"hello world"[..]));
    assert_eq!(payload(&sealed(&[])), Ok(&b""[..]));
  }

  #[test]
  fn truncated_overwritten_flipped_and_foreign_files_are_damaged() {
    let file = sealed(&[&[7u8; 4096]]);
    assert_eq!(payload(&file[..HEADER - 1]), Err(Damage::Short(HEADER - 1)));
    assert!(matches!(payload(&file[..file.len() - 100]), Err(Damage::Length { header: 4096, actual: 3996 })));
    let mut overwritten = file.clone();
    overwritten[..16].fill(0);
    assert_eq!(payload(&overwritten), Err(Damage::Magic));
    let mut flipped = file.clone();
    flipped[HEADER + 2000] ^= 0x10;
    assert!(matches!(payload(&flipped), Err(Damage::Checksum { .. })));
    let mut newer = file.clone();
    newer[8] = 9;
    assert_eq!(payload(&newer), Err(Damage::Version(9)));
    let mut extended = file;
    extended.push(0);
    assert!(matches!(payload(&extended), Err(Damage::Length { .. })));
  }

  #[test]
  fn files_are_written_whole_and_renamed_into_place() {
    let dir = std::env::temp_dir().join(format!("limina-cache-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("entry.bin");
    write(&path, &[b"abc", b"def"]).unwrap();
    assert_eq!(payload(&std::fs::read(&path).unwrap()), Ok(&b"abcdef"[..]));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left behind");
    let _ = std::fs::remove_dir_all(&dir);
  }
}
