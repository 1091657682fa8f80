//! The compact binary encoding: one WebSocket binary message per delta,
//! little-endian, documented in docs/mcp-protocol.md ("Binary state deltas")
//! and decoded by `examples/state_view.mjs`.
//!
//! ```text
//! header   "LD" · version u8 (1) · kind u8 (0 delta, 1 snapshot) · posShift u8 · flags u8 (bit 0: area of interest) · 2 zero bytes
//!          sentAt f64 (epoch ms) · tick varint · baseTick varint (the tick of the state a delta applies to; 0 in a snapshot)
//!          [flags bit 0] center x, y, z f64 · radius f64
//! created  count varint, then per entity: id gap varint · px py pz zigzag varint · rotation u32 · sx sy sz f32 · style
//! updated  count varint, then per entity: id gap varint · mask u8 · per set bit: px py pz zigzag varint (change) | rotation u32 | sx sy sz f32 | style
//! removed  count varint, then id gap varints
//! ```
//!
//! Entities are their `ent_` numbers, ascending within each section and
//! sent as the gap from the previous one (from 0). Positions are integers of
//! 2^-posShift m (1/1024 m): absolute in `created`, the change from the
//! client's value in `updated`, so a client accumulates exact integers and
//! never drifts. A rotation is "smallest three": the index of the largest
//! component (2 bits), made positive, and the other three in order, each
//! 10 bits: round((c·√2 + 1) · 511), 0…1022. Scale is float32, exact. Mask bits: 0–2
//! position x y z, 3 rotation, 4–6 scale x y z, 7 style. A style is the
//! entity's tags (count varint, then each a string) and its look (a string
//! of JSON, empty when it has none); a string is a byte-length varint and
//! UTF-8.

use crate::known::{walk, Change, Frame, Known, Row};
use crate::stream::{Aoi, StyleTable};

pub const VERSION: u8 = 1;
pub const KIND_DELTA: u8 = 0;
pub const KIND_SNAPSHOT: u8 = 1;
/// Positions travel as integers of 2^-POS_SHIFT m.
pub const POS_SHIFT: u8 = 10;
pub const FLAG_AOI: u8 = 1;
const POS_SCALE: f64 = (1u32 << POS_SHIFT) as f64;
/// A rotation component's steps over [-1/√2, 1/√2]: even, so that 0 (and the identity) is exact.
const ROT_STEPS: f64 = 1022.0;

/// A transform as a binary client holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QRow {
  pub pos: [i32; 3],
  pub rot: u32,
  /// float32 bits.
  pub scale: [u32; 3],
  /// The style revision the client holds (its tags and look).
  pub style: u32,
}

/// A transform as a binary client holds it, with the entity's style revision.
pub fn quantise(r: &Row, style: u32) -> QRow {
  QRow {
    pos: quantise_position(r),
    rot: pack_rotation([r[3], r[4], r[5], r[6]]),
    scale: [r[7].to_bits(), r[8].to_bits(), r[9].to_bits()],
    style,
  }
}

/// A row's position in integers of 2^-POS_SHIFT m.
pub fn quantise_position(r: &Row) -> [i32; 3] {
  let pos = |v: f32| (f64::from(v) * POS_SCALE).round() as i32;
  [pos(r[0]), pos(r[1]), pos(r[2])]
}

/// Smallest-three packing of a quaternion (normalised here; a degenerate one is the identity).
pub fn pack_rotation(q: [f32; 4]) -> u32 {
  let mut c = q.map(f64::from);
  let n = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]).sqrt();
  c = if n > 0.0 && n.is_finite() { c.map(|v| v / n) } else { [0.0, 0.0, 0.0, 1.0] };
  let mut big = 0;
  for i in 1..4 {
    if c[i].abs() > c[big].abs() {
      big = i;
    }
  }
  let sign = if c[big] < 0.0 { -1.0 } else { 1.0 };
  let mut out = (big as u32) << 30;
  let mut shift = 20;
  for (i, v) in c.iter().enumerate() {
    if i == big {
      continue;
    }
    let q = ((v * sign * std::f64::consts::SQRT_2 + 1.0) * 0.5 * ROT_STEPS).round().clamp(0.0, ROT_STEPS) as u32;
    out |= q << shift;
    shift -= 10;
  }
  out
}

/// The quaternion a packed rotation stands for (what decoders compute).
pub fn unpack_rotation(p: u32) -> [f64; 4] {
  let big = (p >> 30) as usize;
  let small = [(p >> 20) & 1023, (p >> 10) & 1023, p & 1023].map(|q| (f64::from(q) / ROT_STEPS * 2.0 - 1.0) / std::f64::consts::SQRT_2);
  let mut out = [0.0; 4];
  let mut k = 0;
  for (i, slot) in out.iter_mut().enumerate() {
    if i != big {
      *slot = small[k];
      k += 1;
    }
  }
  out[big] = (1.0 - small.iter().map(|v| v * v).sum::<f64>()).max(0.0).sqrt();
  out
}

/// Appends little-endian values and varints.
pub(crate) struct Writer(pub Vec<u8>);

impl Writer {
  pub fn varint(&mut self, mut v: u64) {
    while v >= 0x80 {
      self.0.push((v as u8) | 0x80);
      v >>= 7;
    }
    self.0.push(v as u8);
  }

  pub fn zigzag(&mut self, v: i64) {
    self.varint(((v << 1) ^ (v >> 63)) as u64);
  }

  pub fn u32(&mut self, v: u32) {
    self.0.extend_from_slice(&v.to_le_bytes());
  }

  pub fn f64(&mut self, v: f64) {
    self.0.extend_from_slice(&v.to_le_bytes());
  }

  pub fn str(&mut self, s: &str) {
    self.varint(s.len() as u64);
    self.0.extend_from_slice(s.as_bytes());
  }
}

fn header(kind: u8, frame: &Frame, base_tick: u64, aoi: Option<&Aoi>, capacity: usize) -> Writer {
  let mut w = Writer(Vec::with_capacity(64 + capacity));
  w.0.extend_from_slice(&[b'L', b'D', VERSION, kind, POS_SHIFT, if aoi.is_some() { FLAG_AOI } else { 0 }, 0, 0]);
  w.f64(frame.sent_at);
  w.varint(frame.tick);
  w.varint(base_tick);
  if let Some(a) = aoi {
    for v in [a.center[0], a.center[1], a.center[2], a.radius] {
      w.f64(v);
    }
  }
  w
}

fn created(w: &mut Writer, prev: &mut u64, id: u64, q: &QRow, styles: &StyleTable) {
  w.varint(id - *prev);
  *prev = id;
  for p in q.pos {
    w.zigzag(i64::from(p));
  }
  w.u32(q.rot);
  for s in q.scale {
    w.u32(s);
  }
  w.0.extend_from_slice(styles.bytes(id));
}

/// The mask of what differs between two rows (bits as in the module docs).
fn mask(a: &QRow, b: &QRow) -> u8 {
  let mut m = 0;
  for i in 0..3 {
    m |= u8::from(a.pos[i] != b.pos[i]) << i;
    m |= u8::from(a.scale[i] != b.scale[i]) << (4 + i);
  }
  m | u8::from(a.rot != b.rot) << 3 | u8::from(a.style != b.style) << 7
}

/// The delta from `base` to the frame (`cur`: the frame's rows quantised),
/// within `visible`; `None` when nothing changed.
pub fn delta(frame: &Frame, base: &Known<QRow>, cur: &[QRow], visible: Option<&[u32]>, aoi: Option<&Aoi>, styles: &StyleTable) -> Option<Vec<u8>> {
  let (mut new, mut kept, mut gone) = (Vec::new(), Vec::new(), Vec::new());
  walk(&base.ids, &frame.ids, visible, |c| match c {
    Change::Created { cur } => new.push(cur),
    Change::Kept { known, cur: c } => {
      let m = mask(&base.rows[known], &cur[c]);
      if m != 0 {
        kept.push((known, c, m));
      }
    }
    Change::Removed { known } => gone.push(base.ids[known]),
  });
  if new.is_empty() && kept.is_empty() && gone.is_empty() {
    return None;
  }
  let mut w = header(KIND_DELTA, frame, base.tick, aoi, new.len() * 40 + kept.len() * 8 + gone.len() * 2);
  w.varint(new.len() as u64);
  let mut prev = 0;
  for &c in &new {
    created(&mut w, &mut prev, frame.ids[c], &cur[c], styles);
  }
  w.varint(kept.len() as u64);
  let mut prev = 0;
  for &(k, c, m) in &kept {
    let id = frame.ids[c];
    w.varint(id - prev);
    prev = id;
    w.0.push(m);
    let (a, b) = (&base.rows[k], &cur[c]);
    for i in 0..3 {
      if m & (1 << i) != 0 {
        w.zigzag(i64::from(b.pos[i]) - i64::from(a.pos[i]));
      }
    }
    if m & 8 != 0 {
      w.u32(b.rot);
    }
    for i in 0..3 {
      if m & (16 << i) != 0 {
        w.u32(b.scale[i]);
      }
    }
    if m & 128 != 0 {
      w.0.extend_from_slice(styles.bytes(id));
    }
  }
  w.varint(gone.len() as u64);
  let mut prev = 0;
  for id in gone {
    w.varint(id - prev);
    prev = id;
  }
  Some(w.0)
}

/// Every entity of the frame within `visible`, as a snapshot (the client starts over from it).
pub fn snapshot(frame: &Frame, cur: &[QRow], visible: Option<&[u32]>, aoi: Option<&Aoi>, styles: &StyleTable) -> Vec<u8> {
  let n = visible.map_or(frame.ids.len(), <[u32]>::len);
  let mut w = header(KIND_SNAPSHOT, frame, 0, aoi, n * 40);
  w.varint(n as u64);
  let mut prev = 0;
  for j in 0..n {
    let c = visible.map_or(j, |v| v[j] as usize);
    created(&mut w, &mut prev, frame.ids[c], &cur[c], styles);
  }
  w.varint(0);
  w.varint(0);
  w.0
}

#[cfg(test)]
pub(crate) mod decode {
  //! A reference decoder for the tests: what `examples/state_view.mjs` does.
  use std::collections::BTreeMap;

  #[derive(Debug, Clone, PartialEq)]
  pub struct Entity {
    pub pos: [i64; 3],
    pub rot: u32,
    pub scale: [u32; 3],
    pub tags: Vec<String>,
    pub look: String,
  }

  #[derive(Default, Debug)]
  pub struct View {
    pub tick: u64,
    /// Entities the last message updated.
    pub updated: usize,
    pub entities: BTreeMap<u64, Entity>,
  }

  pub struct Reader<'a>(pub &'a [u8], pub usize);

  impl Reader<'_> {
    fn u8(&mut self) -> u8 {
      self.1 += 1;
      self.0[self.1 - 1]
    }
    fn bytes(&mut self, n: usize) -> &[u8] {
      self.1 += n;
      &self.0[self.1 - n..self.1]
    }
    fn u32(&mut self) -> u32 {
      u32::from_le_bytes(self.bytes(4).try_into().unwrap())
    }
    fn f64(&mut self) -> f64 {
      f64::from_le_bytes(self.bytes(8).try_into().unwrap())
    }
    pub fn varint(&mut self) -> u64 {
      let (mut v, mut shift) = (0u64, 0);
      loop {
        let b = self.u8();
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
          return v;
        }
        shift += 7;
      }
    }
    pub fn zigzag(&mut self) -> i64 {
      let v = self.varint();
      ((v >> 1) as i64) ^ -((v & 1) as i64)
    }
    fn str(&mut self) -> String {
      let n = self.varint() as usize;
      String::from_utf8(self.bytes(n).to_vec()).unwrap()
    }
    fn style(&mut self) -> (Vec<String>, String) {
      let tags = (0..self.varint()).map(|_| self.str()).collect();
      (tags, self.str())
    }
  }

  /// Applies one message; returns (kind, tick, baseTick, sentAt).
  pub fn apply(view: &mut View, msg: &[u8]) -> (u8, u64, u64, f64) {
    let mut r = Reader(msg, 0);
    assert_eq!(r.bytes(3), &[b'L', b'D', super::VERSION]);
    let kind = r.u8();
    assert_eq!(r.u8(), super::POS_SHIFT);
    let flags = r.u8();
    r.bytes(2);
    let sent_at = r.f64();
    let tick = r.varint();
    let base = r.varint();
    if flags & super::FLAG_AOI != 0 {
      for _ in 0..4 {
        r.f64();
      }
    }
    if kind == super::KIND_SNAPSHOT {
      view.entities.clear();
    } else {
      assert_eq!(base, view.tick, "a delta applies to the state the client holds");
    }
    let mut id = 0;
    for _ in 0..r.varint() {
      id += r.varint();
      let pos = [r.zigzag(), r.zigzag(), r.zigzag()];
      let rot = r.u32();
      let scale = [r.u32(), r.u32(), r.u32()];
      let (tags, look) = r.style();
      assert!(view.entities.insert(id, Entity { pos, rot, scale, tags, look }).is_none(), "created twice: {id}");
    }
    let mut id = 0;
    view.updated = r.varint() as usize;
    for _ in 0..view.updated {
      id += r.varint();
      let m = r.u8();
      let e = view.entities.get_mut(&id).expect("an update names a known entity");
      for i in 0..3 {
        if m & (1 << i) != 0 {
          e.pos[i] += r.zigzag();
        }
      }
      if m & 8 != 0 {
        e.rot = r.u32();
      }
      for i in 0..3 {
        if m & (16 << i) != 0 {
          e.scale[i] = r.u32();
        }
      }
      if m & 128 != 0 {
        (e.tags, e.look) = r.style();
      }
    }
    let mut id = 0;
    for _ in 0..r.varint() {
      id += r.varint();
      assert!(view.entities.remove(&id).is_some(), "removed an unknown entity {id}");
    }
    assert_eq!(r.1, msg.len(), "the message is read exactly to its end");
    view.tick = tick;
    (kind, tick, base, sent_at)
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn rotations_survive_packing_within_a_thousandth() {
    let mut seed = 12345u64;
    let mut rnd = || {
      seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
      ((seed >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
    };
    for _ in 0..10_000 {
      let q = [rnd(), rnd(), rnd(), rnd()];
      let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
      let q = q.map(|v| (v / n) as f32);
      let back = unpack_rotation(pack_rotation(q));
      // q and -q are the same rotation: compare by |dot|.
      let dot: f64 = (0..4).map(|i| f64::from(q[i]) * back[i]).sum();
      assert!(dot.abs() > 1.0 - 1e-5, "{q:?} → {back:?} (dot {dot})");
      assert!((back.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-9, "unit length");
    }
    assert_eq!(unpack_rotation(pack_rotation([0.0, 0.0, 0.0, 1.0]))[3], 1.0, "the identity is exact");
    assert_eq!(pack_rotation([0.0, 0.0, 0.0, 0.0]), pack_rotation([0.0, 0.0, 0.0, 1.0]), "a degenerate quaternion is the identity");
  }

  #[test]
  fn positions_are_exact_to_a_1024th_of_a_metre_across_the_world() {
    for v in [0.0f32, 1.0, -1.0, 0.123_456, 99_999.99, -100_000.0, 1e-4] {
      let q = quantise(&[v, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], 0).pos[0];
      assert!((f64::from(q) / POS_SCALE - f64::from(v)).abs() <= 0.5 / POS_SCALE, "{v} → {q}");
    }
  }

  #[test]
  fn varints_and_zigzag_round_trip() {
    let mut w = Writer(Vec::new());
    let values = [0i64, 1, -1, 63, -64, 64, 1 << 40, -(1 << 40), i64::from(i32::MAX) * 2, i64::from(i32::MIN) * 2];
    for v in values {
      w.zigzag(v);
    }
    w.varint(u64::MAX);
    let mut r = decode::Reader(&w.0, 0);
    for v in values {
      assert_eq!(r.zigzag(), v);
    }
    assert_eq!(r.varint(), u64::MAX);
  }
}
