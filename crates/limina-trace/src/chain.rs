//! The world log's sha256 chain, computed natively and off the frame path.
//!
//! `hash(ev) = "sha256:" + hex(sha256(canonical(ev without integrity) + (previousHash ?? "")))`
//! where `canonical` is JSON with object keys sorted (by UTF-16 code units,
//! as JS sorts them), no whitespace, strings escaped and numbers formatted
//! exactly as JavaScript's `JSON.stringify` does. The first event's
//! `previousHash` is null; every later one chains the hash before it.
//!
//! A complete trace ends with a terminator: an ordinary chained event of
//! type `trace.sealed` whose payload `{events, headHash}` names how many
//! events precede it and the last one's hash, so a file cut anywhere —
//! at a line end too — is detectable.
//!
//! Canonical JSON is produced by rewriting the event's JSON text in one pass
//! (no value tree): what `JSON.stringify` wrote is already canonical except
//! for key order, so most bytes are copied as they are.

use std::borrow::Cow;
use std::io::BufRead;

use sha2::{Digest, Sha256};

/// The terminator's event type.
pub const TERMINATOR: &str = "trace.sealed";

/// Why a JSONL trace failed verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegrityReason {
  InvalidJson,
  PartialFinalLine,
  MissingIntegrity,
  PreviousHashMismatch,
  HashMismatch,
  /// No `trace.sealed` terminator: the file ends early (or is empty).
  Truncated,
  /// The terminator's payload does not describe the events before it.
  TerminatorMismatch,
  /// A line follows the terminator.
  AfterTerminator,
}

impl IntegrityReason {
  pub fn as_str(self) -> &'static str {
    match self {
      Self::InvalidJson => "invalid_json",
      Self::PartialFinalLine => "partial_final_line",
      Self::MissingIntegrity => "missing_integrity",
      Self::PreviousHashMismatch => "previous_hash_mismatch",
      Self::HashMismatch => "hash_mismatch",
      Self::Truncated => "truncated",
      Self::TerminatorMismatch => "terminator_mismatch",
      Self::AfterTerminator => "after_terminator",
    }
  }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IntegrityError {
  pub reason: IntegrityReason,
  /// 1-based line of the offending event (for `truncated`, the line where the terminator should be).
  pub line: u64,
  pub message: String,
}

impl std::fmt::Display for IntegrityError {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "{} at line {}: {}", self.reason.as_str(), self.line, self.message)
  }
}

/// Whether a verified trace is complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceStatus {
  /// Ends with a terminator that matches it: the whole trace.
  Sealed,
  /// An intact prefix without a terminator (checked as an open log only).
  Open,
}

/// What an intact trace holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedTrace {
  pub status: TraceStatus,
  /// Events before the terminator.
  pub events: u64,
  /// The last event's hash (`None` when there are no events).
  pub head_hash: Option<String>,
  /// Bytes of an unfinished final line an open log ended with (ignored).
  pub torn_bytes: u64,
}

/// `"sha256:"` and 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Hash([u8; HASH_LEN]);

const HASH_LEN: usize = 7 + 64;

impl Hash {
  /// A hash in its text form, as a trace carries it.
  pub fn parse(text: &str) -> Option<Hash> {
    let b = text.as_bytes();
    let ok = b.len() == HASH_LEN && b.starts_with(b"sha256:") && b[7..].iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'));
    ok.then(|| {
      let mut h = [0; HASH_LEN];
      h.copy_from_slice(b);
      Hash(h)
    })
  }

  pub fn as_str(&self) -> &str {
    // Built from ASCII only.
    std::str::from_utf8(&self.0).unwrap_or_default()
  }
}

impl std::fmt::Debug for Hash {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.write_str(self.as_str())
  }
}

/// `"sha256:" + hex(sha256(canonical + (previous ?? "")))`.
fn chain_hash(canonical: &[u8], previous: Option<&Hash>) -> Hash {
  const HEX: &[u8; 16] = b"0123456789abcdef";
  let mut h = Sha256::new();
  h.update(canonical);
  if let Some(p) = previous {
    h.update(p.0);
  }
  let mut out = [0u8; HASH_LEN];
  out[..7].copy_from_slice(b"sha256:");
  for (i, b) in h.finalize().iter().enumerate() {
    out[7 + 2 * i] = HEX[usize::from(b >> 4)];
    out[8 + 2 * i] = HEX[usize::from(b & 15)];
  }
  Hash(out)
}

/// The most bytes sealing adds to an event's line: `,"integrity":{…}`.
pub const INTEGRITY_BYTES: u64 = (",\"integrity\":{\"hash\":\"\",\"previousHash\":\"\"}".len() + 2 * HASH_LEN) as u64;

/// How deeply values may nest (serde_json's limit, which the chain used before).
const MAX_DEPTH: usize = 128;

/// Malformed JSON: what was wrong and the byte offset where it was found.
#[derive(Debug)]
pub struct JsonError {
  what: &'static str,
  at: usize,
}

impl std::fmt::Display for JsonError {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "{} at column {}", self.what, self.at + 1)
  }
}

/// One member of an object being canonicalised: its `"key":value` text
/// in the output, and whether the key sorts by its bytes.
struct Member {
  start: usize,
  key_end: usize,
  end: usize,
  plain_key: bool,
  /// The key's first 8 bytes, big-endian, zero-padded: most keys differ there.
  prefix: u64,
}

fn key_prefix(key: &[u8]) -> u64 {
  let mut bytes = [0u8; 8];
  let n = key.len().min(8);
  bytes[..n].copy_from_slice(&key[..n]);
  u64::from_be_bytes(bytes)
}

/// Rewrites JSON text as canonical JSON, reusing its buffers across events.
#[derive(Default)]
pub struct Canonicalizer {
  members: Vec<Member>,
  scratch: Vec<u8>,
}

struct Cursor<'a> {
  src: &'a [u8],
  pos: usize,
}

impl Cursor<'_> {
  fn fail<T>(&self, what: &'static str) -> Result<T, JsonError> {
    Err(JsonError { what, at: self.pos })
  }

  fn skip_ws(&mut self) {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.src.get(self.pos) {
      self.pos += 1;
    }
  }

  fn peek(&self) -> Option<u8> {
    self.src.get(self.pos).copied()
  }

  fn expect(&mut self, byte: u8, what: &'static str) -> Result<(), JsonError> {
    self.skip_ws();
    if self.peek() != Some(byte) {
      return self.fail(what);
    }
    self.pos += 1;
    Ok(())
  }

  fn hex4(&mut self) -> Result<u16, JsonError> {
    let digits = self.src.get(self.pos..self.pos + 4).ok_or(JsonError { what: "unfinished \\u escape", at: self.pos })?;
    let mut v = 0u16;
    for &d in digits {
      let n = (d as char).to_digit(16).ok_or(JsonError { what: "invalid \\u escape", at: self.pos })?;
      v = (v << 4) | n as u16;
    }
    self.pos += 4;
    Ok(v)
  }
}

/// Where the top-level `integrity` member's value lies in the source.
pub type IntegritySpan = std::ops::Range<usize>;

impl Canonicalizer {
  /// Appends the canonical form of `event` (one JSON object) to `out`,
  /// leaving out its top-level `integrity` member, whose source span it
  /// returns.
  pub fn event(&mut self, event: &str, out: &mut Vec<u8>) -> Result<Option<IntegritySpan>, JsonError> {
    // An earlier event that failed midway may have left members behind.
    self.members.clear();
    let mut cur = Cursor { src: event.as_bytes(), pos: 0 };
    cur.skip_ws();
    if cur.peek() != Some(b'{') {
      return cur.fail("an event must be a JSON object");
    }
    let mut integrity = None;
    self.object(&mut cur, out, 1, Some(&mut integrity))?;
    cur.skip_ws();
    if cur.pos != cur.src.len() {
      return cur.fail("trailing characters after the event");
    }
    Ok(integrity)
  }

  fn value(&mut self, cur: &mut Cursor, out: &mut Vec<u8>, depth: usize) -> Result<(), JsonError> {
    cur.skip_ws();
    match cur.peek() {
      Some(b'{') => self.object(cur, out, depth + 1, None),
      Some(b'[') => self.array(cur, out, depth + 1),
      Some(b'"') => string(cur, out).map(|_| ()),
      Some(b'-' | b'0'..=b'9') => number(cur, out),
      Some(b't') => literal(cur, out, b"true"),
      Some(b'f') => literal(cur, out, b"false"),
      Some(b'n') => literal(cur, out, b"null"),
      _ => cur.fail("expected a value"),
    }
  }

  fn array(&mut self, cur: &mut Cursor, out: &mut Vec<u8>, depth: usize) -> Result<(), JsonError> {
    if depth > MAX_DEPTH {
      return cur.fail("nested too deeply");
    }
    cur.pos += 1;
    out.push(b'[');
    cur.skip_ws();
    if cur.peek() == Some(b']') {
      cur.pos += 1;
      out.push(b']');
      return Ok(());
    }
    loop {
      self.value(cur, out, depth)?;
      cur.skip_ws();
      match cur.peek() {
        Some(b',') => out.push(b','),
        Some(b']') => break,
        _ => return cur.fail("expected ',' or ']'"),
      }
      cur.pos += 1;
    }
    cur.pos += 1;
    out.push(b']');
    Ok(())
  }

  /// An object, its members sorted; at the top level (`integrity` given)
  /// the `integrity` member is set aside.
  fn object(
    &mut self,
    cur: &mut Cursor,
    out: &mut Vec<u8>,
    depth: usize,
    mut integrity: Option<&mut Option<IntegritySpan>>,
  ) -> Result<(), JsonError> {
    if depth > MAX_DEPTH {
      return cur.fail("nested too deeply");
    }
    cur.pos += 1;
    let open = out.len();
    out.push(b'{');
    let base = self.members.len();
    cur.skip_ws();
    if cur.peek() == Some(b'}') {
      cur.pos += 1;
      out.push(b'}');
      return Ok(());
    }
    loop {
      cur.skip_ws();
      if cur.peek() != Some(b'"') {
        return cur.fail("expected a string key");
      }
      let start = out.len();
      if start > open + 1 {
        out.push(b',');
      }
      let key_start = out.len();
      let unescaped = string(cur, out)?;
      let key_end = out.len();
      let plain_key = unescaped && !out[key_start..key_end].iter().any(|&b| b >= 0xf0);
      cur.expect(b':', "expected ':'")?;
      out.push(b':');
      match integrity.as_deref_mut() {
        Some(slot) if is_key(&out[key_start..key_end], plain_key, "integrity") => {
          // Validated like any value, then left out of the canonical form.
          cur.skip_ws();
          let from = cur.pos;
          self.value(cur, out, depth)?;
          out.truncate(start);
          *slot = Some(from..cur.pos);
        }
        _ => {
          self.value(cur, out, depth)?;
          let prefix = key_prefix(&out[key_start + 1..key_end - 1]);
          self.members.push(Member { start: key_start, key_end, end: out.len(), plain_key, prefix });
        }
      }
      cur.skip_ws();
      match cur.peek() {
        Some(b',') => cur.pos += 1,
        Some(b'}') => break,
        _ => return cur.fail("expected ',' or '}'"),
      }
    }
    cur.pos += 1;
    self.sort_members(out, open, base);
    out.push(b'}');
    Ok(())
  }

  /// Puts the members written after `out[open]` (`self.members[base..]`)
  /// in key order, keeping the last of duplicate keys as `JSON.parse` does.
  fn sort_members(&mut self, out: &mut Vec<u8>, open: usize, base: usize) {
    let members = &mut self.members[base..];
    let in_order = members.windows(2).all(|w| compare_keys(out, &w[0], &w[1]).is_lt());
    if !in_order {
      self.scratch.clear();
      self.scratch.extend_from_slice(&out[open + 1..]);
      let shift = open + 1;
      members.sort_by(|a, b| compare_keys(out, a, b));
      out.truncate(shift);
      let mut i = 0;
      while i < members.len() {
        // Of a run of equal keys (stable-sorted), the last one wins.
        let mut last = i;
        while last + 1 < members.len() && compare_keys_in(&self.scratch, shift, &members[last], &members[last + 1]).is_eq() {
          last += 1;
        }
        if out.len() > shift {
          out.push(b',');
        }
        let m = &members[last];
        out.extend_from_slice(&self.scratch[m.start - shift..m.end - shift]);
        i = last + 1;
      }
    }
    self.members.truncate(base);
  }
}

/// Whether a canonical key (quotes included) is `name`.
fn is_key(canonical_key: &[u8], plain: bool, name: &str) -> bool {
  let content = &canonical_key[1..canonical_key.len() - 1];
  if plain {
    content == name.as_bytes()
  } else {
    utf16_units(content) == name.encode_utf16().collect::<Vec<_>>()
  }
}

fn compare_keys(out: &[u8], a: &Member, b: &Member) -> std::cmp::Ordering {
  compare_keys_in(out, 0, a, b)
}

/// Orders two members' keys (held in `buf`, which starts at output offset
/// `shift`) by UTF-16 code units, as JavaScript sorts strings.
fn compare_keys_in(buf: &[u8], shift: usize, a: &Member, b: &Member) -> std::cmp::Ordering {
  // The keys without their quotes.
  let ka = &buf[a.start + 1 - shift..a.key_end - 1 - shift];
  let kb = &buf[b.start + 1 - shift..b.key_end - 1 - shift];
  if a.plain_key && b.plain_key {
    // No escapes and no characters above U+FFFF: byte order is UTF-16 order
    // (and a plain key holds no NUL byte, so the zero padding sorts first).
    a.prefix.cmp(&b.prefix).then_with(|| ka.cmp(kb))
  } else {
    utf16_units(ka).cmp(&utf16_units(kb))
  }
}

/// The UTF-16 code units of a canonical JSON string's content.
fn utf16_units(canonical: &[u8]) -> Vec<u16> {
  let text = std::str::from_utf8(canonical).unwrap_or_default();
  let mut units = Vec::with_capacity(text.len());
  let mut chars = text.chars();
  while let Some(c) = chars.next() {
    if c != '\\' {
      let mut buf = [0u16; 2];
      units.extend_from_slice(c.encode_utf16(&mut buf));
      continue;
    }
    units.push(match chars.next() {
      Some('b') => 0x08,
      Some('f') => 0x0c,
      Some('n') => 0x0a,
      Some('r') => 0x0d,
      Some('t') => 0x09,
      Some('u') => {
        let hex: String = chars.by_ref().take(4).collect();
        u16::from_str_radix(&hex, 16).unwrap_or_default()
      }
      Some(c) => c as u16, // '"' and '\\'
      None => 0,
    });
  }
  units
}

fn literal(cur: &mut Cursor, out: &mut Vec<u8>, word: &[u8]) -> Result<(), JsonError> {
  if cur.src.get(cur.pos..cur.pos + word.len()) != Some(word) {
    return cur.fail("expected a value");
  }
  cur.pos += word.len();
  out.extend_from_slice(word);
  Ok(())
}

/// A number as `JSON.stringify` writes it. Integers of up to 15 digits are
/// already in that form; anything else goes through an f64, as in JS.
fn number(cur: &mut Cursor, out: &mut Vec<u8>) -> Result<(), JsonError> {
  let src = cur.src;
  let start = cur.pos;
  let mut p = start;
  if src[p] == b'-' {
    p += 1;
  }
  let digits = |mut p: usize| {
    while src.get(p).is_some_and(u8::is_ascii_digit) {
      p += 1;
    }
    p
  };
  let int_end = match src.get(p) {
    Some(b'0') => p + 1,
    Some(b'1'..=b'9') => digits(p + 1),
    _ => return Err(JsonError { what: "invalid number", at: p }),
  };
  let mut end = int_end;
  let mut simple = true;
  if src.get(end) == Some(&b'.') {
    let frac_end = digits(end + 1);
    if frac_end == end + 1 {
      return Err(JsonError { what: "invalid number", at: frac_end });
    }
    end = frac_end;
    simple = false;
  }
  if let Some(b'e' | b'E') = src.get(end) {
    let mut q = end + 1;
    if let Some(b'+' | b'-') = src.get(q) {
      q += 1;
    }
    let exp_end = digits(q);
    if exp_end == q {
      return Err(JsonError { what: "invalid number", at: exp_end });
    }
    end = exp_end;
    simple = false;
  }
  cur.pos = end;
  let text = &src[start..end];
  if simple && int_end - p <= 15 && text != b"-0" {
    out.extend_from_slice(text);
    return Ok(());
  }
  // The grammar was checked above, so this parses.
  let v: f64 = std::str::from_utf8(text).ok().and_then(|t| t.parse().ok()).unwrap_or(f64::NAN);
  if !v.is_finite() {
    return Err(JsonError { what: "number out of range", at: start });
  }
  out.extend_from_slice(ryu_js::Buffer::new().format_finite(v).as_bytes());
  Ok(())
}

/// Whether any of the 8 bytes in `w` is `"`, `\\` or a control character
/// (below 0x20): the bytes a string scan must stop at.
fn stops_string(w: u64) -> bool {
  const ONES: u64 = 0x0101_0101_0101_0101;
  const HIGH: u64 = 0x8080_8080_8080_8080;
  // The high bit of each byte that is zero (or, for `below`, under 0x20).
  let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
  let below = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
  (zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\'))) | below) != 0
}

/// A string as `JSON.stringify` writes it; returns whether its canonical
/// form has no escapes. Text without escapes is copied whole.
fn string(cur: &mut Cursor, out: &mut Vec<u8>) -> Result<bool, JsonError> {
  let src = cur.src;
  let mut p = cur.pos + 1;
  // Eight bytes at a time up to the first that needs a look.
  while let Some(word) = src.get(p..p + 8) {
    if stops_string(u64::from_le_bytes(word.try_into().unwrap_or_default())) {
      break;
    }
    p += 8;
  }
  while let Some(&b) = src.get(p) {
    match b {
      b'"' => {
        out.extend_from_slice(&src[cur.pos..=p]);
        cur.pos = p + 1;
        return Ok(true);
      }
      b'\\' => break,
      0..=0x1f => return Err(JsonError { what: "control character in a string", at: p }),
      _ => p += 1,
    }
  }
  if p >= src.len() {
    return Err(JsonError { what: "unterminated string", at: p });
  }
  // Escapes: decode and write each character back the way JS does.
  out.extend_from_slice(&src[cur.pos..p]);
  cur.pos = p;
  loop {
    let Some(&b) = src.get(cur.pos) else {
      return cur.fail("unterminated string");
    };
    match b {
      b'"' => {
        cur.pos += 1;
        out.push(b'"');
        return Ok(false);
      }
      0..=0x1f => return cur.fail("control character in a string"),
      b'\\' => {
        cur.pos += 1;
        let Some(&e) = src.get(cur.pos) else {
          return cur.fail("unterminated string");
        };
        cur.pos += 1;
        match e {
          b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
            let unit = match e {
              b'b' => 0x08,
              b'f' => 0x0c,
              b'n' => 0x0a,
              b'r' => 0x0d,
              b't' => 0x09,
              other => u16::from(other),
            };
            write_unit(unit, out);
          }
          b'u' => {
            let unit = cur.hex4()?;
            if (0xd800..0xdc00).contains(&unit) && src.get(cur.pos..cur.pos + 2) == Some(b"\\u") {
              let save = cur.pos;
              cur.pos += 2;
              let low = cur.hex4()?;
              if (0xdc00..0xe000).contains(&low) {
                let c = 0x10000 + ((u32::from(unit) - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                push_char(char::from_u32(c).unwrap_or_default(), out);
                continue;
              }
              cur.pos = save;
            }
            write_unit(unit, out);
          }
          _ => return Err(JsonError { what: "invalid escape", at: cur.pos - 1 }),
        }
      }
      _ => {
        let run = cur.pos;
        while src.get(cur.pos).is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20) {
          cur.pos += 1;
        }
        out.extend_from_slice(&src[run..cur.pos]);
      }
    }
  }
}

fn push_char(c: char, out: &mut Vec<u8>) {
  out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

/// One UTF-16 code unit as `JSON.stringify` writes it: the short escapes,
/// `\u00xx` for other controls, `\udxxx` for a lone surrogate.
fn write_unit(unit: u16, out: &mut Vec<u8>) {
  const HEX: &[u8; 16] = b"0123456789abcdef";
  match unit {
    0x22 => out.extend_from_slice(b"\\\""),
    0x5c => out.extend_from_slice(b"\\\\"),
    0x08 => out.extend_from_slice(b"\\b"),
    0x0c => out.extend_from_slice(b"\\f"),
    0x0a => out.extend_from_slice(b"\\n"),
    0x0d => out.extend_from_slice(b"\\r"),
    0x09 => out.extend_from_slice(b"\\t"),
    0..=0x1f | 0xd800..=0xdfff => {
      out.extend_from_slice(b"\\u");
      for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 15)]);
      }
    }
    _ => push_char(char::from_u32(u32::from(unit)).unwrap_or_default(), out),
  }
}

/// Seals events onto the chain: each line is the event's canonical JSON
/// with `integrity: {hash, previousHash}` appended as its last field.
#[derive(Default)]
pub struct Sealer {
  canon: Canonicalizer,
  head: Option<Hash>,
  events: u64,
}

impl Sealer {
  /// A sealer continuing a chain of `events` events whose last hash is `head`.
  pub fn after(head: Option<Hash>, events: u64) -> Self {
    Self { canon: Canonicalizer::default(), head, events }
  }

  pub fn head(&self) -> Option<Hash> {
    self.head
  }

  pub fn events(&self) -> u64 {
    self.events
  }

  /// Appends `event` (one JSON object; an `integrity` member is replaced)
  /// as a sealed line with its newline.
  pub fn seal(&mut self, event: &str, out: &mut Vec<u8>) -> Result<(), JsonError> {
    let start = out.len();
    if let Err(e) = self.canon.event(event, out) {
      out.truncate(start);
      return Err(e);
    }
    self.append_integrity(start, out);
    self.events += 1;
    Ok(())
  }

  fn append_integrity(&mut self, start: usize, out: &mut Vec<u8>) {
    let hash = chain_hash(&out[start..], self.head.as_ref());
    out.pop(); // the closing brace
    if out.len() > start + 1 {
      out.push(b',');
    }
    out.extend_from_slice(b"\"integrity\":{\"hash\":\"");
    out.extend_from_slice(&hash.0);
    out.extend_from_slice(b"\",\"previousHash\":");
    match &self.head {
      Some(p) => {
        out.push(b'"');
        out.extend_from_slice(&p.0);
        out.push(b'"');
      }
      None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b"}}\n");
    self.head = Some(hash);
  }

  /// Appends the `trace.sealed` terminator after the events sealed so far.
  pub fn terminate(&mut self, thread_id: &str, timestamp: &str, out: &mut Vec<u8>) {
    let seq = format!("{:012}", self.events);
    let terminator = serde_json::json!({
      "actorId": "system",
      "causedBy": [],
      "id": format!("evt_system_{seq}_{}", fnv1a16(&format!("{seq}\u{0}{TERMINATOR}\u{0}system"))),
      "parentEventId": null,
      "payload": { "events": self.events, "headHash": self.head.as_ref().map(Hash::as_str) },
      "threadId": thread_id,
      "timestamp": timestamp,
      "type": TERMINATOR,
    });
    let start = out.len();
    // A json! object serialises with sorted keys and JS-style strings, but
    // is canonicalised anyway so the one definition holds.
    let text = terminator.to_string();
    if self.canon.event(&text, out).is_ok() {
      self.append_integrity(start, out);
    }
  }
}

/// FNV-1a (32-bit) over UTF-16 code units, xor-folded to 16 bits, as 4 hex
/// digits: the event id's discriminator (the Tracer computes it in JS).
fn fnv1a16(s: &str) -> String {
  let mut h: u32 = 0x811c_9dc5;
  for unit in s.encode_utf16() {
    h ^= u32::from(unit);
    h = h.wrapping_mul(0x0100_0193);
  }
  format!("{:04x}", ((h >> 16) ^ h) & 0xffff)
}

/// The claimed `integrity` of a line, read from its source span.
struct Claimed<'a> {
  hash: Cow<'a, [u8]>,
  previous: Option<Cow<'a, [u8]>>,
}

fn claimed_integrity(raw: &[u8]) -> Option<Claimed<'_>> {
  // The form the sealer writes, read without a parser.
  const HEAD: &[u8] = b"{\"hash\":\"";
  const MID: &[u8] = b"\",\"previousHash\":";
  let plain = |s: &[u8]| !s.iter().any(|&b| b == b'"' || b == b'\\');
  if let Some(rest) = raw.strip_prefix(HEAD).filter(|r| r.get(HASH_LEN..HASH_LEN + MID.len()) == Some(MID)) {
    let (hash, tail) = (&rest[..HASH_LEN], &rest[HASH_LEN + MID.len()..]);
    if plain(hash) && tail == b"null}" {
      return Some(Claimed { hash: hash.into(), previous: None });
    }
    let previous = tail.strip_prefix(b"\"").and_then(|t| t.strip_suffix(b"\"}")).filter(|p| p.len() == HASH_LEN);
    if let Some(previous) = previous.filter(|p| plain(hash) && plain(p)) {
      return Some(Claimed { hash: hash.into(), previous: Some(previous.into()) });
    }
  }
  let value: serde_json::Value = serde_json::from_slice(raw).ok()?;
  let hash = value.get("hash")?.as_str()?.as_bytes().to_vec().into();
  let previous = match value.get("previousHash")? {
    serde_json::Value::Null => None,
    serde_json::Value::String(s) => Some(s.as_bytes().to_vec().into()),
    _ => return None,
  };
  Some(Claimed { hash, previous })
}

/// Checks a trace line by line.
#[derive(Default)]
pub struct Verifier {
  canon: Canonicalizer,
  canonical: Vec<u8>,
  previous: Option<Hash>,
  lines: u64,
  events: u64,
  sealed: bool,
}

impl Verifier {
  /// Checks the next line (without its newline).
  pub fn line(&mut self, raw: &[u8]) -> Result<(), IntegrityError> {
    self.lines += 1;
    let line = self.lines;
    let fail = |reason, message: String| Err(IntegrityError { reason, line, message });
    if self.sealed {
      return fail(IntegrityReason::AfterTerminator, format!("a line follows the {TERMINATOR} terminator on line {}", line - 1));
    }
    let Ok(text) = std::str::from_utf8(raw) else {
      return fail(IntegrityReason::InvalidJson, "not valid UTF-8".to_owned());
    };
    self.canonical.clear();
    let integrity = match self.canon.event(text, &mut self.canonical) {
      Ok(i) => i,
      Err(e) => return fail(IntegrityReason::InvalidJson, format!("not valid JSON: {e}")),
    };
    let Some(span) = integrity else {
      return fail(IntegrityReason::MissingIntegrity, "no integrity field".to_owned());
    };
    let Some(claimed) = claimed_integrity(&raw[span]) else {
      return fail(IntegrityReason::MissingIntegrity, "integrity needs a string hash and a previousHash (string or null)".to_owned());
    };
    let expected = self.previous.as_ref().map(|h| &h.0[..]);
    if claimed.previous.as_deref() != expected {
      let show = |h: Option<&[u8]>| h.map_or("null".to_owned(), |h| format!("{:?}", String::from_utf8_lossy(h)));
      return fail(
        IntegrityReason::PreviousHashMismatch,
        format!("previousHash is {}, the chain expects {}", show(claimed.previous.as_deref()), show(expected)),
      );
    }
    let actual = chain_hash(&self.canonical, self.previous.as_ref());
    if *claimed.hash != actual.0 {
      return fail(
        IntegrityReason::HashMismatch,
        format!("hash is {:?}, the content hashes to {}", String::from_utf8_lossy(&claimed.hash), actual.as_str()),
      );
    }
    if self.is_terminator() {
      self.sealed = true;
      // The head stays the last event's hash: the terminator names it.
      return match self.terminator_problem() {
        Some(problem) => fail(IntegrityReason::TerminatorMismatch, problem),
        None => Ok(()),
      };
    }
    self.events += 1;
    self.previous = Some(actual);
    Ok(())
  }

  /// Whether the line just canonicalised has type `trace.sealed`: its
  /// `type` member comes last, after every other envelope field.
  fn is_terminator(&self) -> bool {
    const TYPE_MEMBER: &[u8] = b"\"type\":\"trace.sealed\"}";
    let c = &self.canonical;
    c.ends_with(TYPE_MEMBER) && matches!(c.len().checked_sub(TYPE_MEMBER.len() + 1).map(|i| c[i]), Some(b',' | b'{'))
  }

  /// What is wrong with a terminator that does not describe the chain before it.
  fn terminator_problem(&self) -> Option<String> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&self.canonical) else {
      return Some(format!("the {TERMINATOR} line cannot be read back"));
    };
    let payload = &value["payload"];
    let head = self.previous.as_ref().map(Hash::as_str);
    if payload["events"].as_u64() != Some(self.events) {
      return Some(format!("the {TERMINATOR} payload counts {} events, the chain holds {}", payload["events"], self.events));
    }
    let claimed_head = match &payload["headHash"] {
      serde_json::Value::Null => Some(None),
      serde_json::Value::String(s) => Some(Some(s.as_str())),
      _ => None,
    };
    if claimed_head != Some(head) {
      return Some(format!("the {TERMINATOR} headHash is {}, the chain's head is {}", payload["headHash"], head.unwrap_or("null")));
    }
    None
  }

  /// The verdict once every line has been checked; `open` accepts a trace
  /// without a terminator as an intact prefix (a live log).
  pub fn finish(self, open: bool, torn_bytes: u64) -> Result<VerifiedTrace, IntegrityError> {
    let status = if self.sealed { TraceStatus::Sealed } else { TraceStatus::Open };
    if status == TraceStatus::Open && !open {
      let message = if self.lines == 0 {
        format!("the file is empty: a trace ends with a {TERMINATOR} terminator")
      } else {
        format!("no {TERMINATOR} terminator after line {}: the trace was cut short (verify a live log as open)", self.lines)
      };
      return Err(IntegrityError { reason: IntegrityReason::Truncated, line: self.lines + 1, message });
    }
    Ok(VerifiedTrace { status, events: self.events, head_hash: self.previous.map(|h| h.as_str().to_owned()), torn_bytes })
  }
}

/// Verifies a JSONL trace read line by line (memory stays at one line):
/// every line parses, carries integrity, links to the line before it,
/// hashes to what it claims, and the last is a matching terminator — or,
/// with `open`, the lines so far form an intact prefix (an unfinished final
/// line of an open log is reported, not checked).
pub fn verify_reader(mut reader: impl BufRead, open: bool) -> std::io::Result<Result<VerifiedTrace, IntegrityError>> {
  let mut verifier = Verifier::default();
  let mut line = Vec::new();
  loop {
    line.clear();
    if reader.read_until(b'\n', &mut line)? == 0 {
      return Ok(verifier.finish(open, 0));
    }
    if line.last() != Some(&b'\n') {
      if open {
        return Ok(verifier.finish(open, line.len() as u64));
      }
      return Ok(Err(IntegrityError {
        reason: IntegrityReason::PartialFinalLine,
        line: verifier.lines + 1,
        message: format!("the final line is cut short (no newline after {} bytes)", line.len()),
      }));
    }
    line.pop();
    if let Err(e) = verifier.line(&line) {
      return Ok(Err(e));
    }
  }
}

/// [`verify_reader`] over a file.
pub fn verify_file(path: &std::path::Path, open: bool) -> std::io::Result<Result<VerifiedTrace, IntegrityError>> {
  verify_reader(std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(path)?), open)
}

/// [`verify_reader`] over text in memory.
pub fn verify(text: &str, open: bool) -> Result<VerifiedTrace, IntegrityError> {
  verify_reader(text.as_bytes(), open).expect("reading from memory cannot fail")
}

#[cfg(test)]
mod tests {
  use super::*;

  fn canon(text: &str) -> String {
    let mut out = Vec::new();
    Canonicalizer::default().event(text, &mut out).unwrap();
    String::from_utf8(out).unwrap()
  }

  fn canon_value(v: serde_json::Value) -> String {
    canon(&v.to_string())
  }

  #[test]
  fn canonical_form_matches_json_stringify_with_sorted_keys() {
    let v = serde_json::json!({"b": [1, 2.5, -0.0, 1e21, 1e-7, 123456789012345680000.0], "a": {"z": null, "é": "x\ny\u{1}\"", "A": true}});
    assert_eq!(
      canon_value(v),
      r#"{"a":{"A":true,"z":null,"é":"x\ny\u0001\""},"b":[1,2.5,0,1e+21,1e-7,123456789012345680000]}"#
    );
  }

  #[test]
  fn keys_sort_by_utf16_code_units_like_js() {
    // U+FF5E sorts after U+1F600 in UTF-8 byte order but before it in UTF-16.
    assert_eq!(canon("{\"\u{FF5E}\":2,\"\u{1F600}\":1}"), "{\"\u{1F600}\":1,\"\u{FF5E}\":2}");
    // An escaped key sorts by what it decodes to.
    assert_eq!(canon(r#"{"b":1,"\u0061":2,"\n":3}"#), r#"{"\n":3,"a":2,"b":1}"#);
    // A key sorts before the keys it is a prefix of, whatever follows.
    assert_eq!(canon(r#"{"a!":1,"a":2,"a ":3,"abcdefgh2":4,"abcdefgh":5,"abcdefgh1":6}"#), r#"{"a":2,"a ":3,"a!":1,"abcdefgh":5,"abcdefgh1":6,"abcdefgh2":4}"#);
  }

  #[test]
  fn any_json_spelling_of_a_value_has_one_canonical_form() {
    // Whitespace, escapes JS would not write, numbers in other notations.
    assert_eq!(
      canon(" { \"s\" : \"\\u0041\\/\\u00e9\\ud83d\\ude00\\u2028\\u001f\\b\" ,\r\n \"n\": [1.0, 1E2, -0, 0.5e1, 123456789012345678, 1e-7, -1e-400] } "),
      "{\"n\":[1,100,0,5,123456789012345680,1e-7,0],\"s\":\"A/é\u{1F600}\u{2028}\\u001f\\b\"}"
    );
    // Lone surrogates stay escaped, as JSON.stringify writes them.
    assert_eq!(canon(r#"{"a":"\uD800x\udc00\ud800\u0041"}"#), r#"{"a":"\ud800x\udc00\ud800A"}"#);
    // Of duplicate keys the last wins, as with JSON.parse.
    assert_eq!(canon(r#"{"b":1,"a":{"y":1,"x":2,"y":3},"b":2}"#), r#"{"a":{"x":2,"y":3},"b":2}"#);
    assert_eq!(canon(r#"{"integrity":{"hash":"x"},"b":1,"a":0}"#), r#"{"a":0,"b":1}"#, "top-level integrity is left out");
    assert_eq!(canon(r#"{"p":{"integrity":1}}"#), r#"{"p":{"integrity":1}}"#, "only at the top level");
  }

  #[test]
  fn malformed_json_is_refused_with_where() {
    for (text, what) in [
      ("[1]", "an event must be a JSON object"),
      ("{\"a\":1} x", "trailing characters after the event"),
      ("{\"a\":01}", "expected ',' or '}'"),
      ("{\"a\":1.}", "invalid number"),
      ("{\"a\":1e400}", "number out of range"),
      ("{\"a\":\"\\x\"}", "invalid escape"),
      ("{\"a\":\"\u{1}\"}", "control character in a string"),
      ("{\"a\":\"abc", "unterminated string"),
      ("{\"a\":tru}", "expected a value"),
      ("{a:1}", "expected a string key"),
    ] {
      let e = Canonicalizer::default().event(text, &mut Vec::new()).unwrap_err();
      assert_eq!(e.what, what, "{text}");
    }
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
    assert_eq!(Canonicalizer::default().event(&deep, &mut Vec::new()).unwrap_err().what, "nested too deeply");
  }

  fn seal_lines(lines: &str) -> (Sealer, Vec<u8>) {
    let mut sealer = Sealer::default();
    let mut out = Vec::new();
    for line in lines.lines() {
      sealer.seal(line, &mut out).unwrap();
    }
    (sealer, out)
  }

  #[test]
  fn the_chain_is_byte_for_byte_what_it_was() {
    // testdata/sealed.jsonl was sealed by the value-tree implementation this
    // one replaced (unicode, astral keys, every kind of number).
    let (sealer, out) = seal_lines(include_str!("../testdata/events.jsonl"));
    assert_eq!(String::from_utf8(out).unwrap(), include_str!("../testdata/sealed.jsonl"));
    assert_eq!(sealer.events(), 40);
  }

  fn sealed(n: usize) -> String {
    let lines: String =
      (0..n).map(|i| format!("{}\n", serde_json::json!({"id": format!("evt_{i}"), "type": "t", "payload": {"i": i}}))).collect();
    let (mut sealer, mut out) = seal_lines(&lines);
    sealer.terminate("thread_main", "2026-01-01T00:00:00.000Z", &mut out);
    String::from_utf8(out).unwrap()
  }

  #[test]
  fn a_sealed_trace_ends_with_its_terminator_and_verifies() {
    let text = sealed(3);
    let v = verify(&text, false).unwrap();
    assert_eq!((v.status, v.events, v.torn_bytes), (TraceStatus::Sealed, 3, 0));
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["integrity"]["previousHash"], serde_json::Value::Null);
    let t = &lines[3];
    assert_eq!(t["type"], TERMINATOR);
    assert_eq!(t["payload"], serde_json::json!({"events": 3, "headHash": lines[2]["integrity"]["hash"]}));
    assert_eq!(v.head_hash.as_deref(), lines[2]["integrity"]["hash"].as_str(), "the head is the last event's hash");
    assert_eq!(t["id"], format!("evt_system_000000000003_{}", fnv1a16("000000000003\u{0}trace.sealed\u{0}system")));
    assert_eq!(fnv1a16(""), "1cd9", "the same discriminator as the Tracer's");
    assert_eq!(t["integrity"]["previousHash"], lines[2]["integrity"]["hash"], "the terminator is chained");

    // Integrity spelled another way (members swapped, whitespace) reads the same.
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let respelled = text.replacen(
      &format!("\"integrity\":{{\"hash\":{},\"previousHash\":null}}", first["integrity"]["hash"]),
      &format!("\"integrity\": {{ \"previousHash\": null, \"hash\": {} }}", first["integrity"]["hash"]),
      1,
    );
    assert_ne!(respelled, text);
    assert_eq!(verify(&respelled, false).unwrap().events, 3);

    let empty = sealed(0);
    assert_eq!(empty.lines().count(), 1, "an empty world exports the terminator alone");
    let v = verify(&empty, false).unwrap();
    assert_eq!((v.status, v.events, v.head_hash), (TraceStatus::Sealed, 0, None));
  }

  #[test]
  fn each_kind_of_damage_is_named_with_its_line() {
    let text = sealed(3);
    let lines: Vec<&str> = text.lines().collect();
    let reason = |t: &str| {
      let e = verify(t, false).unwrap_err();
      (e.reason, e.line)
    };
    use IntegrityReason::*;
    assert_eq!(reason(&format!("{}\n{{oops\n{}\n{}\n", lines[0], lines[2], lines[3])), (InvalidJson, 2));
    assert_eq!(reason(&text[..text.len() - 10]), (PartialFinalLine, 4));
    assert_eq!(reason(&format!("{}\n{{\"id\":\"x\"}}\n", lines[0])), (MissingIntegrity, 2));
    assert_eq!(reason(&format!("{}\n{{\"integrity\":{{\"hash\":1}}}}\n", lines[0])), (MissingIntegrity, 2));
    assert_eq!(reason(&format!("{}\n{}\n", lines[0], lines[2])), (PreviousHashMismatch, 2));
    assert_eq!(reason(&text.replacen("\"i\":1", "\"i\":7", 1)), (HashMismatch, 2));
    let mut bytes = format!("{}\n", lines[0]).into_bytes();
    bytes.extend_from_slice(b"{\"a\":\"\xff\"}\n");
    let e = verify_reader(&bytes[..], false).unwrap().unwrap_err();
    assert_eq!((e.reason, e.line, e.message.as_str()), (InvalidJson, 2, "not valid UTF-8"));

    // Cut at any line end, or empty: no terminator.
    assert_eq!(reason(""), (Truncated, 1));
    for keep in 1..=3 {
      let cut: String = lines[..keep].iter().map(|l| format!("{l}\n")).collect();
      assert_eq!(reason(&cut), (Truncated, keep as u64 + 1));
    }
    // Anything after the terminator.
    assert_eq!(reason(&format!("{text}{}\n", lines[0])), (AfterTerminator, 5));
  }

  #[test]
  fn a_terminator_must_describe_the_chain_before_it() {
    // Re-sealed lies: the chain is intact but the terminator's payload is not.
    let base: String = (0..2).map(|i| format!("{{\"id\":\"e{i}\",\"type\":\"t\"}}\n")).collect();
    let (sealer, prefix) = seal_lines(&base);
    let head = sealer.head().unwrap();
    for payload in [
      serde_json::json!({"events": 3, "headHash": head.as_str()}),
      serde_json::json!({"events": 2, "headHash": null}),
      serde_json::json!({"events": 2}),
      serde_json::json!("nothing"),
    ] {
      let mut s = Sealer::after(Some(head), 2);
      let mut out = prefix.clone();
      s.seal(&serde_json::json!({"type": TERMINATOR, "payload": payload}).to_string(), &mut out).unwrap();
      let e = verify(std::str::from_utf8(&out).unwrap(), false).unwrap_err();
      assert_eq!((e.reason, e.line), (IntegrityReason::TerminatorMismatch, 3), "{payload}: {}", e.message);
    }
  }

  #[test]
  fn an_open_log_verifies_as_an_intact_prefix_never_as_sealed() {
    let text = sealed(3);
    let lines: Vec<&str> = text.lines().collect();
    let prefix: String = lines[..3].iter().map(|l| format!("{l}\n")).collect();
    let v = verify(&prefix, true).unwrap();
    assert_eq!((v.status, v.events, v.torn_bytes), (TraceStatus::Open, 3, 0));
    // A final line the writer never finished is reported, not checked.
    let v = verify(&format!("{prefix}{}", &lines[3][..20]), true).unwrap();
    assert_eq!((v.status, v.events, v.torn_bytes), (TraceStatus::Open, 3, 20));
    assert_eq!(verify("", true).unwrap().status, TraceStatus::Open);
    // A sealed trace is sealed either way; damage is damage either way.
    assert_eq!(verify(&text, true).unwrap().status, TraceStatus::Sealed);
    assert_eq!(verify(&text.replacen("\"i\":1", "\"i\":7", 1), true).unwrap_err().reason, IntegrityReason::HashMismatch);
  }
}
