//! UI text on the GPU: a signed-distance glyph atlas made from the embedded
//! font, and UI containers turned into instanced quads (rounded boxes and
//! glyphs) that one shader draws crisp at any scale.
//!
//! Each glyph is rasterized by fontdue at `OVERSAMPLE`× the atlas size, its
//! inside (coverage ≥ ½) and outside get exact Euclidean distance
//! transforms, and the signed distance at each atlas texel's centre is
//! stored as a byte: `0.5 − d / (2·SPREAD)`, so ≥ 128 is inside, the edge is
//! at ½ and SPREAD atlas pixels either side saturate. ASCII and Latin-1 are
//! made first, in code-point order; other characters are appended as text
//! first uses them, so the atlas is byte-identical for the same text.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use deno_core::op2;
use limina_ops::OpError;
use serde::Serialize;

use crate::text::{font, for_each_glyph, layout, Paint, Rgba};

/// The em size glyphs are stored at, atlas pixels.
pub const EM: f32 = 32.0;
/// Distance range either side of an edge, atlas pixels (also each glyph's padding).
pub const SPREAD: usize = 4;
/// Odd, so each texel centre is a pixel centre of the oversampled bitmap.
const OVERSAMPLE: usize = 3;
/// Atlas width, texels; its height doubles as it fills.
pub const ATLAS_WIDTH: usize = 1024;
const FIRST_HEIGHT: usize = 256;
/// The tallest the atlas grows; past it, glyphs not yet stored are drawn as nothing.
const MAX_HEIGHT: usize = 8192;

/// Where a glyph is in the atlas and how it sits on the pen, atlas pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlyphSlot {
  pub x: u16,
  pub y: u16,
  pub w: u16,
  pub h: u16,
  /// The slot's top-left from the pen position on the baseline (y down).
  pub left: f32,
  pub top: f32,
}

/// One R8 atlas page that grows downwards.
pub struct SdfAtlas {
  pub height: usize,
  pub data: Vec<u8>,
  /// Bumped whenever a glyph is added.
  pub version: u32,
  slots: HashMap<char, Option<GlyphSlot>>,
  shelf_x: usize,
  shelf_y: usize,
  shelf_h: usize,
}

impl SdfAtlas {
  /// An atlas holding ASCII and Latin-1 (and the ellipsis layout uses).
  pub fn new() -> SdfAtlas {
    let mut atlas = SdfAtlas { height: FIRST_HEIGHT, data: vec![0; ATLAS_WIDTH * FIRST_HEIGHT], version: 0, slots: HashMap::new(), shelf_x: 0, shelf_y: 0, shelf_h: 0 };
    for c in (' '..='~').chain('\u{a0}'..='\u{ff}').chain(['…']) {
      atlas.glyph(c);
    }
    atlas
  }

  /// `c`'s slot, made now if it is new; None for a glyph with no ink (a space).
  pub fn glyph(&mut self, c: char) -> Option<GlyphSlot> {
    if let Some(slot) = self.slots.get(&c) {
      return *slot;
    }
    let slot = self.add(c);
    self.slots.insert(c, slot);
    slot
  }

  fn add(&mut self, c: char) -> Option<GlyphSlot> {
    let (m, coverage) = font().rasterize(c, EM * OVERSAMPLE as f32);
    if m.width == 0 || m.height == 0 {
      return None;
    }
    let field = distance_field(&coverage, m.width, m.height);
    let (w, h) = (field.width, field.height);
    if self.shelf_x + w > ATLAS_WIDTH {
      self.shelf_y += self.shelf_h;
      self.shelf_x = 0;
      self.shelf_h = 0;
    }
    while self.shelf_y + h > self.height {
      if self.height * 2 > MAX_HEIGHT {
        return None;
      }
      self.height *= 2;
      self.data.resize(ATLAS_WIDTH * self.height, 0);
    }
    let (x, y) = (self.shelf_x, self.shelf_y);
    for row in 0..h {
      let o = (y + row) * ATLAS_WIDTH + x;
      self.data[o..o + w].copy_from_slice(&field.data[row * w..(row + 1) * w]);
    }
    self.shelf_x += w;
    self.shelf_h = self.shelf_h.max(h);
    self.version += 1;
    let os = OVERSAMPLE as f32;
    Some(GlyphSlot {
      x: x as u16,
      y: y as u16,
      w: w as u16,
      h: h as u16,
      left: m.xmin as f32 / os - SPREAD as f32,
      top: -((m.ymin + m.height as i32) as f32) / os - SPREAD as f32,
    })
  }
}

impl Default for SdfAtlas {
  fn default() -> Self {
    SdfAtlas::new()
  }
}

/// The process's atlas: every world's UI shares it.
pub fn atlas() -> &'static Mutex<SdfAtlas> {
  static ATLAS: OnceLock<Mutex<SdfAtlas>> = OnceLock::new();
  ATLAS.get_or_init(|| Mutex::new(SdfAtlas::new()))
}

struct Field {
  width: usize,
  height: usize,
  data: Vec<u8>,
}

/// The encoded signed distance field, at atlas resolution with SPREAD
/// texels of padding, of an `OVERSAMPLE`× coverage bitmap.
fn distance_field(coverage: &[u8], gw: usize, gh: usize) -> Field {
  let pad = SPREAD * OVERSAMPLE;
  // Whole atlas texels, so texel blocks line up with the bitmap's pixels.
  let width = (gw + 2 * pad).div_ceil(OVERSAMPLE);
  let height = (gh + 2 * pad).div_ceil(OVERSAMPLE);
  let (hw, hh) = (width * OVERSAMPLE, height * OVERSAMPLE);
  let mut inside = vec![false; hw * hh];
  for y in 0..gh {
    for x in 0..gw {
      inside[(y + pad) * hw + x + pad] = coverage[y * gw + x] >= 128;
    }
  }
  // Squared distances to the nearest pixel of the other kind, at the pixels on texel centres.
  let centre = OVERSAMPLE / 2;
  let to_inside = squared_distances(&inside, hw, hh, true, centre, OVERSAMPLE);
  let to_outside = squared_distances(&inside, hw, hh, false, centre, OVERSAMPLE);
  let mut data = vec![0u8; width * height];
  for ty in 0..height {
    for tx in 0..width {
      let (t, here) = (ty * width + tx, (ty * OVERSAMPLE + centre) * hw + tx * OVERSAMPLE + centre);
      // Pixel centres of the other kind are a pixel apart across an edge, which lies half way.
      let d = if inside[here] { -(to_outside[t].sqrt() - 0.5) } else { to_inside[t].sqrt() - 0.5 };
      let v = 0.5 - d as f32 / OVERSAMPLE as f32 / (2.0 * SPREAD as f32);
      data[t] = (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
    }
  }
  Field { width, height, data }
}

/// Exact squared Euclidean distance from the pixels at (first + i·step,
/// first + j·step) to the nearest pixel whose `inside` equals `target`, as
/// a (w / step) × (h / step) grid (Felzenszwalb–Huttenlocher: a 1-D lower
/// envelope of parabolas down every column, read at the rows asked for,
/// then along those rows, read at the columns asked for).
fn squared_distances(inside: &[bool], w: usize, h: usize, target: bool, first: usize, step: usize) -> Vec<f64> {
  // Far beyond any real squared distance, small enough that sums of it stay exact to well under a pixel.
  const FAR: f64 = 1e9;
  let (rows, cols) = ((h - first).div_ceil(step), (w - first).div_ceil(step));
  let n = w.max(h);
  let mut lower = Envelope { v: vec![0; n], zn: vec![0.0; n + 1], zd: vec![0.0; n + 1] };
  let mut f = vec![0f64; n];
  // Down the columns: rows × w.
  let mut part = vec![0f64; rows * w];
  for x in 0..w {
    for y in 0..h {
      f[y] = if inside[y * w + x] == target { 0.0 } else { FAR };
    }
    lower.build(&f[..h]);
    lower.read(&f[..h], first, step, |j, d| part[j * w + x] = d);
  }
  // Along the rows: rows × cols.
  let mut out = vec![0f64; rows * cols];
  for j in 0..rows {
    let row = &part[j * w..(j + 1) * w];
    lower.build(row);
    lower.read(row, first, step, |i, d| out[j * cols + i] = d);
  }
  out
}

/// The lower envelope of the parabolas (q − p)² + f[p]: which parabola is
/// lowest (`v`) between where neighbours meet, each meeting point kept as a
/// fraction (numerator `zn`, positive denominator `zd`) and compared by
/// multiplying, so no division is in the loop.
struct Envelope {
  v: Vec<usize>,
  zn: Vec<f64>,
  zd: Vec<f64>,
}

impl Envelope {
  fn build(&mut self, f: &[f64]) {
    let Envelope { v, zn, zd } = self;
    let mut k = 0;
    v[0] = 0;
    (zn[0], zd[0]) = (f64::NEG_INFINITY, 1.0);
    (zn[1], zd[1]) = (f64::INFINITY, 1.0);
    for q in 1..f.len() {
      let fq = f[q] + (q * q) as f64;
      let (mut num, mut den);
      loop {
        let p = v[k];
        num = fq - (f[p] + (p * p) as f64);
        den = 2.0 * (q - p) as f64;
        // Keep parabola k while q's meets it past where k begins.
        if k == 0 || num * zd[k] > zn[k] * den {
          break;
        }
        k -= 1;
      }
      k += 1;
      v[k] = q;
      (zn[k], zd[k]) = (num, den);
      (zn[k + 1], zd[k + 1]) = (f64::INFINITY, 1.0);
    }
  }

  /// Calls `out(i, min over p of (q − p)² + f[p])` at q = first + i·step.
  fn read(&self, f: &[f64], first: usize, step: usize, mut out: impl FnMut(usize, f64)) {
    let mut k = 0;
    for (i, q) in (first..f.len()).step_by(step).enumerate() {
      while self.zn[k + 1] < q as f64 * self.zd[k + 1] {
        k += 1;
      }
      let dq = q as f64 - self.v[k] as f64;
      out(i, dq * dq + f[self.v[k]]);
    }
  }
}

/// Floats per quad: rect (x, y, w, h), atlas rect (u0, v0, u1, v1), colour
/// (rgba 0–1), border colour, then (kind, order, radius, border width).
pub const QUAD_FLOATS: usize = 20;
/// A rounded box, optionally bordered; a circle is one with radius half its side.
pub const KIND_BOX: f32 = 0.0;
pub const KIND_GLYPH: f32 = 1.0;

fn unit(c: Rgba) -> [f32; 4] {
  c.map(|v| v as f32 / 255.0)
}

/// `paints` (panel-local logical pixels, drawn in order) as quads. Glyphs of
/// a text paint that has `reveal` carry their character index as their
/// order (others −1), so a typewriter shows the first n by a uniform,
/// without laying anything out again.
pub fn quads(paints: &[Paint], atlas: &mut SdfAtlas) -> Result<Vec<f32>, OpError> {
  let mut out = Vec::new();
  let mut push = |rect: [f32; 4], uv: [f32; 4], color: Rgba, border_color: Rgba, params: [f32; 4]| {
    out.extend_from_slice(&rect);
    out.extend_from_slice(&uv);
    out.extend_from_slice(&unit(color));
    out.extend_from_slice(&unit(border_color));
    out.extend_from_slice(&params);
  };
  for paint in paints {
    match paint {
      &Paint::RoundRect { x, y, w, h, radius, fill, border, border_color } => {
        push([x, y, w, h], [0.0; 4], fill, border_color, [KIND_BOX, -1.0, radius.clamp(0.0, w.min(h) / 2.0), border]);
      }
      &Paint::Circle { x, y, r, fill, border, border_color } => {
        push([x - r, y - r, 2.0 * r, 2.0 * r], [0.0; 4], fill, border_color, [KIND_BOX, -1.0, r, border]);
      }
      Paint::Triangle { .. } => return Err(OpError::invalid_input("triangles are painted, not drawn as quads".to_string())),
      Paint::Text { x, y, text, color, reveal } => {
        let laid = layout(text)?;
        let k = text.size / EM;
        for_each_glyph(*x, *y, &laid, text.size, |index, c, pen, baseline| {
          if let Some(g) = atlas.glyph(c) {
            let order = if reveal.is_some() { index as f32 } else { -1.0 };
            let (u, v) = (g.x as f32, g.y as f32);
            push([pen + g.left * k, baseline + g.top * k, g.w as f32 * k, g.h as f32 * k], [u, v, u + g.w as f32, v + g.h as f32], *color, [0; 4], [KIND_GLYPH, order, 0.0, 0.0]);
          }
        });
      }
    }
  }
  Ok(out)
}

/// A container's quads for JS: `count` quads of QUAD_FLOATS little-endian
/// f32s each, and the atlas version they index.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Quads {
  pub count: u32,
  pub atlas_version: u32,
  pub data: deno_core::ToJsBuffer,
}

/// The atlas for JS: R8, `width`×`height`, rows top to bottom.
#[derive(Serialize)]
pub struct AtlasImage {
  pub width: u32,
  pub height: u32,
  pub version: u32,
  pub em: f32,
  pub spread: u32,
  pub data: deno_core::ToJsBuffer,
}

/// `paints` as instanced quads over the shared glyph atlas.
#[op2]
#[serde]
pub fn op_text_quads(#[serde] paints: Vec<Paint>) -> Result<Quads, OpError> {
  let mut atlas = atlas().lock().map_err(|_| OpError::internal("the glyph atlas is poisoned".to_string()))?;
  let floats = quads(&paints, &mut atlas)?;
  let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
  Ok(Quads { count: (floats.len() / QUAD_FLOATS) as u32, atlas_version: atlas.version, data: bytes.into() })
}

/// A copy of the glyph atlas as it is now.
#[op2]
#[serde]
pub fn op_text_atlas() -> Result<AtlasImage, OpError> {
  let atlas = atlas().lock().map_err(|_| OpError::internal("the glyph atlas is poisoned".to_string()))?;
  Ok(AtlasImage { width: ATLAS_WIDTH as u32, height: atlas.height as u32, version: atlas.version, em: EM, spread: SPREAD as u32, data: atlas.data.clone().into() })
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::text::TextSpec;

  #[test]
  fn the_atlas_is_deterministic_and_its_distances_are_signed_at_the_edge() {
    let (a, b) = (SdfAtlas::new(), SdfAtlas::new());
    assert!(a.data == b.data && a.version == b.version && a.height == b.height);
    let mut a = a;
    assert_eq!(a.glyph(' '), None, "a space has no ink");
    // Each texel against the coverage of its own block: inside ≥ 128, outside < 128, near the edge near 128.
    for c in ['O', 'l', 'g', 'é', '…'] {
      let g = a.glyph(c).unwrap();
      let (m, cov) = font().rasterize(c, EM * OVERSAMPLE as f32);
      let pad = SPREAD * OVERSAMPLE;
      let (mut inside, mut outside) = (0, 0);
      for ty in 0..g.h as usize {
        for tx in 0..g.w as usize {
          let v = a.data[(g.y as usize + ty) * ATLAS_WIDTH + g.x as usize + tx];
          // The block's mean coverage.
          let mut sum = 0u32;
          for y in ty * OVERSAMPLE..(ty + 1) * OVERSAMPLE {
            for x in tx * OVERSAMPLE..(tx + 1) * OVERSAMPLE {
              let (bx, by) = (x as i64 - pad as i64, y as i64 - pad as i64);
              if bx >= 0 && by >= 0 && (bx as usize) < m.width && (by as usize) < m.height {
                sum += cov[by as usize * m.width + bx as usize] as u32;
              }
            }
          }
          let mean = sum as f32 / (OVERSAMPLE * OVERSAMPLE) as f32 / 255.0;
          if mean >= 0.99 {
            assert!(v > 128, "{c}: a texel fully inside reads {v}");
            inside += 1;
          } else if mean <= 0.01 {
            assert!(v < 128, "{c}: a texel fully outside reads {v}");
            outside += 1;
          } else {
            // Partly covered: within a texel of the edge.
            assert!((v as f32 - 127.5).abs() <= 255.0 / (2.0 * SPREAD as f32) + 1.0, "{c}: an edge texel reads {v} (coverage {mean})");
          }
        }
      }
      assert!(inside > 0 && outside > 0, "{c}: {inside} inside, {outside} outside");
      // The padding saturates to "far outside".
      assert_eq!(a.data[g.y as usize * ATLAS_WIDTH + g.x as usize], 0, "{c}: the slot's corner");
    }
    let version = a.version;
    a.glyph('Ж');
    assert_eq!(a.version, version + 1, "a new character is appended");
    let mut fresh = SdfAtlas::new();
    fresh.glyph('Ж');
    assert!(fresh.data == a.data, "the same characters in the same order give the same bytes");
  }

  #[test]
  fn a_text_paint_becomes_one_quad_per_inked_glyph_inside_its_box() {
    let mut atlas = SdfAtlas::new();
    let text = TextSpec { text: "Hi there".into(), size: 16.0, max_width: None, max_lines: None, line_height: 1.25 };
    let paints = [
      Paint::RoundRect { x: 0.0, y: 0.0, w: 100.0, h: 30.0, radius: 6.0, fill: [255; 4], border: 2.0, border_color: [0, 0, 0, 255] },
      Paint::Text { x: 4.0, y: 4.0, text: text.clone(), color: [255, 0, 0, 255], reveal: Some(0) },
    ];
    let q = quads(&paints, &mut atlas).unwrap();
    assert_eq!(q.len() / QUAD_FLOATS, 1 + 7, "the box and seven inked glyphs");
    let width = crate::text::measure("Hi there", 16.0);
    let pad = SPREAD as f32 * 16.0 / EM;
    let mut orders = Vec::new();
    for quad in q.chunks(QUAD_FLOATS).skip(1) {
      let [x, y, w, h] = [quad[0], quad[1], quad[2], quad[3]];
      assert!(x >= 4.0 - pad - 1.0 && x + w <= 4.0 + width + pad + 1.0 && y >= 4.0 - pad && y + h <= 24.0 + pad, "{quad:?}");
      assert_eq!(quad[16], KIND_GLYPH);
      assert_eq!(quad[8..12], [1.0, 0.0, 0.0, 1.0]);
      orders.push(quad[17]);
    }
    assert_eq!(orders, [0.0, 1.0, 3.0, 4.0, 5.0, 6.0, 7.0], "character indices, the space skipped");
    assert_eq!(q[16..20], [KIND_BOX, -1.0, 6.0, 2.0]);
    let plain = quads(&[Paint::Text { x: 0.0, y: 0.0, text, color: [0; 4], reveal: None }], &mut atlas).unwrap();
    assert!(plain.chunks(QUAD_FLOATS).all(|q| q[17] == -1.0), "untyped text is always shown");
    assert!(quads(&[Paint::Triangle { points: [[0.0; 2]; 3], fill: [0; 4] }], &mut atlas).is_err());
  }
}
