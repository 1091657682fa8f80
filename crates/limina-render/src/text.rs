//! UI text and panel painting with no browser canvas: text laid out (word
//! wrap, maxWidth, maxLines with an ellipsis) and rasterized with fontdue
//! from the embedded DejaVu Sans, and the chrome of UI containers (rounded
//! boxes with borders, circles, triangles) painted anti-aliased into an RGBA
//! image at a pixel scale, which becomes a texture on a Three.js mesh.
//!
//! Everything is laid out in logical pixels and rasterized at
//! `logical × scale`, so a panel keeps its layout at any DPI and its glyphs
//! are rasterized at the device size, never scaled up.

use std::collections::HashMap;
use std::sync::OnceLock;

use deno_core::{op2, OpState};
use limina_ops::OpError;
use serde::{Deserialize, Serialize};

/// DejaVu Sans (Bitstream Vera licence: fonts/LICENSE-DejaVu.txt).
const FONT_BYTES: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
const ELLIPSIS: char = '…';
/// The largest painted image side, in device pixels.
pub const MAX_SIDE: u32 = 4096;
/// Glyph bitmaps kept; the cache starts over past this.
const MAX_CACHED_GLYPHS: usize = 8192;

pub fn font() -> &'static fontdue::Font {
  static FONT: OnceLock<fontdue::Font> = OnceLock::new();
  FONT.get_or_init(|| fontdue::Font::from_bytes(FONT_BYTES, fontdue::FontSettings::default()).expect("the embedded font parses"))
}

/// Straight-alpha RGBA, 0–255.
pub type Rgba = [u8; 4];

/// What to lay out: sizes in logical pixels.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TextSpec {
  pub text: String,
  /// The font size (em), logical pixels.
  pub size: f32,
  #[serde(default)]
  pub max_width: Option<f32>,
  #[serde(default)]
  pub max_lines: Option<u32>,
  /// Line advance as a multiple of `size`.
  #[serde(default = "default_line_height")]
  pub line_height: f32,
}

fn default_line_height() -> f32 {
  1.25
}

/// Laid-out text, logical pixels.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextLayout {
  pub lines: Vec<String>,
  /// The widest line.
  pub width: f32,
  /// `lines × lineAdvance`.
  pub height: f32,
  pub line_advance: f32,
  /// Whether maxLines cut the text (the last line then ends in "…").
  pub truncated: bool,
}

fn check_spec(spec: &TextSpec) -> Result<(), OpError> {
  let bad = |what: &str| Err(OpError::invalid_input(what.to_string()));
  if !(spec.size.is_finite() && spec.size > 0.0 && spec.size <= 512.0) {
    return bad(&format!("text size must be in (0, 512] px, got {}", spec.size));
  }
  if let Some(w) = spec.max_width {
    if !(w.is_finite() && w > 0.0) {
      return bad(&format!("maxWidth must be > 0, got {w}"));
    }
  }
  if spec.max_lines == Some(0) {
    return bad("maxLines must be ≥ 1");
  }
  if !(spec.line_height.is_finite() && spec.line_height > 0.0 && spec.line_height <= 10.0) {
    return bad(&format!("lineHeight must be in (0, 10], got {}", spec.line_height));
  }
  Ok(())
}

/// The advance of `s` at `size`, with kerning.
pub fn measure(s: &str, size: f32) -> f32 {
  let font = font();
  let mut width = 0.0;
  let mut prev = None;
  for c in s.chars() {
    if let Some(p) = prev {
      width += font.horizontal_kern(p, c, size).unwrap_or(0.0);
    }
    width += font.metrics(c, size).advance_width;
    prev = Some(c);
  }
  width
}

/// Greedy word wrap within `max_width` (a word wider than a line is broken
/// between characters); explicit newlines start paragraphs; runs of
/// whitespace collapse to one space.
pub fn layout(spec: &TextSpec) -> Result<TextLayout, OpError> {
  check_spec(spec)?;
  let size = spec.size;
  let space = measure(" ", size);
  let mut lines: Vec<(String, f32)> = Vec::new();
  for paragraph in spec.text.split('\n') {
    let mut line = String::new();
    let mut width = 0.0f32;
    for word in paragraph.split_whitespace() {
      let w = measure(word, size);
      let fits = |extra: f32| spec.max_width.is_none_or(|max| extra <= max + 1e-3);
      if line.is_empty() && fits(w) {
        line.push_str(word);
        width = w;
      } else if !line.is_empty() && fits(width + space + w) {
        line.push(' ');
        line.push_str(word);
        width += space + w;
      } else {
        if !line.is_empty() {
          lines.push((std::mem::take(&mut line), width));
        }
        if fits(w) {
          line.push_str(word);
          width = w;
        } else {
          // Too wide for any line: break it between characters.
          let max = spec.max_width.unwrap_or(f32::INFINITY);
          width = 0.0;
          for c in word.chars() {
            let cw = measure(&format!("{line}{c}"), size);
            if !line.is_empty() && cw > max + 1e-3 {
              lines.push((std::mem::take(&mut line), width));
              line.push(c);
              width = measure(&line, size);
            } else {
              line.push(c);
              width = cw;
            }
          }
        }
      }
    }
    lines.push((line, width));
  }
  let mut truncated = false;
  if let Some(max_lines) = spec.max_lines {
    let max_lines = max_lines as usize;
    if lines.len() > max_lines {
      truncated = true;
      lines.truncate(max_lines);
      let (last, width) = lines.last_mut().expect("maxLines ≥ 1");
      let max = spec.max_width.unwrap_or(f32::INFINITY);
      loop {
        let candidate = format!("{}{ELLIPSIS}", last.trim_end());
        let w = measure(&candidate, size);
        if w <= max + 1e-3 || last.is_empty() {
          *last = candidate;
          *width = w;
          break;
        }
        last.pop();
      }
    }
  }
  let line_advance = size * spec.line_height;
  let width = lines.iter().map(|(_, w)| *w).fold(0.0, f32::max);
  Ok(TextLayout {
    height: line_advance * lines.len() as f32,
    lines: lines.into_iter().map(|(l, _)| l).collect(),
    width,
    line_advance,
    truncated,
  })
}

/// Rasterized glyphs by (character, pixel size): UI text repeats the same
/// few glyphs at the same few sizes.
#[derive(Default)]
pub struct GlyphCache {
  glyphs: HashMap<(char, u32), (fontdue::Metrics, Vec<u8>)>,
}

impl GlyphCache {
  fn get(&mut self, c: char, px: f32) -> &(fontdue::Metrics, Vec<u8>) {
    if self.glyphs.len() >= MAX_CACHED_GLYPHS {
      self.glyphs.clear();
    }
    self.glyphs.entry((c, px.to_bits())).or_insert_with(|| font().rasterize(c, px))
  }
}

/// One thing to paint, in logical pixels.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum Paint {
  /// A box with rounded corners, optionally bordered (the border lies inside it).
  #[serde(rename_all = "camelCase")]
  RoundRect {
    x: f32,
    y: f32,
    w: f32,
    h: f32,
    #[serde(default)]
    radius: f32,
    fill: Rgba,
    #[serde(default)]
    border: f32,
    #[serde(default)]
    border_color: Rgba,
  },
  #[serde(rename_all = "camelCase")]
  Circle {
    x: f32,
    y: f32,
    r: f32,
    fill: Rgba,
    #[serde(default)]
    border: f32,
    #[serde(default)]
    border_color: Rgba,
  },
  Triangle { points: [[f32; 2]; 3], fill: Rgba },
  /// Text laid out as `layout` does, its first line's box top at `y`;
  /// `reveal` draws only the first that many characters (a typewriter),
  /// laid out as the whole text so nothing moves as it types.
  #[serde(rename_all = "camelCase")]
  Text {
    x: f32,
    y: f32,
    text: TextSpec,
    color: Rgba,
    #[serde(default)]
    reveal: Option<u32>,
  },
}

/// A channel value rounded to a byte: `as` saturates, and adding ½ rounds
/// without `f32::round`, a library call on baseline x86-64.
fn byte(v: f32) -> u8 {
  (v + 0.5) as u8
}

/// sqrt(x² + y²): `hypot` guards against overflow no pixel coordinate needs, at several times the cost.
fn length(x: f32, y: f32) -> f32 {
  (x * x + y * y).sqrt()
}

/// An RGBA8 image, straight alpha, rows top to bottom.
pub struct Canvas {
  pub width: u32,
  pub height: u32,
  pub scale: f32,
  pub data: Vec<u8>,
}

impl Canvas {
  /// A transparent canvas for a `width`×`height` logical-pixel panel at `scale` device pixels per logical one.
  pub fn new(width: f32, height: f32, scale: f32) -> Result<Canvas, OpError> {
    if !(scale.is_finite() && scale > 0.0 && scale <= 8.0) {
      return Err(OpError::invalid_input(format!("pixelScale must be in (0, 8], got {scale}")));
    }
    if !(width.is_finite() && height.is_finite() && width > 0.0 && height > 0.0) {
      return Err(OpError::invalid_input(format!("a panel needs a positive size, got {width}×{height}")));
    }
    let (w, h) = ((width * scale).ceil(), (height * scale).ceil());
    if w > MAX_SIDE as f32 || h > MAX_SIDE as f32 {
      return Err(OpError::invalid_input(format!(
        "a panel of {width}×{height} at pixelScale {scale} is {w}×{h} pixels, over {MAX_SIDE} a side"
      )));
    }
    let (width, height) = (w as u32, h as u32);
    Ok(Canvas { width, height, scale, data: vec![0; width as usize * height as usize * 4] })
  }

  /// Source-over of `color` at `coverage` (0–1) onto pixel (x, y).
  fn blend(&mut self, x: u32, y: u32, color: Rgba, coverage: f32) {
    let sa = color[3] as f32 / 255.0 * coverage;
    if sa <= 0.0 {
      return;
    }
    let o = (y as usize * self.width as usize + x as usize) * 4;
    let d = &mut self.data[o..o + 4];
    // Most pixels of a panel are opaque paint or paint on nothing: no mixing.
    if sa >= 1.0 || d[3] == 0 {
      d.copy_from_slice(&[color[0], color[1], color[2], byte(sa * 255.0)]);
      return;
    }
    let da = d[3] as f32 / 255.0;
    let oa = sa + da * (1.0 - sa);
    for i in 0..3 {
      let c = (color[i] as f32 * sa + d[i] as f32 * da * (1.0 - sa)) / oa;
      d[i] = byte(c);
    }
    d[3] = byte(oa * 255.0);
  }

  /// The device-pixel rows and columns a logical box touches.
  fn span(&self, x0: f32, y0: f32, x1: f32, y1: f32) -> (u32, u32, u32, u32) {
    let s = self.scale;
    let clamp = |v: f32, max: u32| (v.max(0.0) as u32).min(max);
    (clamp((x0 * s).floor() - 1.0, self.width), clamp((y0 * s).floor() - 1.0, self.height), clamp((x1 * s).ceil() + 1.0, self.width), clamp((y1 * s).ceil() + 1.0, self.height))
  }

  /// Paints a shape given its signed distance (logical px, negative inside)
  /// at each pixel centre: the fill inside `border` of the edge, the border
  /// colour in the ring, anti-aliased over one device pixel.
  fn shape(&mut self, bounds: (f32, f32, f32, f32), fill: Rgba, border: f32, border_color: Rgba, sdf: impl Fn(f32, f32) -> f32) {
    let (x0, y0, x1, y1) = self.span(bounds.0, bounds.1, bounds.2, bounds.3);
    let s = self.scale;
    for py in y0..y1 {
      for px in x0..x1 {
        let d = sdf((px as f32 + 0.5) / s, (py as f32 + 0.5) / s) * s;
        let outer = (0.5 - d).clamp(0.0, 1.0);
        if outer <= 0.0 {
          continue;
        }
        if border <= 0.0 {
          self.blend(px, py, fill, outer);
          continue;
        }
        let inner = (0.5 - (d + border * s)).clamp(0.0, 1.0);
        // Fill and ring do not overlap: one straight-alpha mix of the two.
        let (fa, ba) = (fill[3] as f32 * inner, border_color[3] as f32 * (outer - inner));
        let a = fa + ba;
        if a <= 0.0 {
          continue;
        }
        let mut c = [0u8; 4];
        for i in 0..3 {
          c[i] = byte((fill[i] as f32 * fa + border_color[i] as f32 * ba) / a);
        }
        c[3] = byte(a);
        self.blend(px, py, c, 1.0);
      }
    }
  }

  pub fn paint(&mut self, paint: &Paint, glyphs: &mut GlyphCache) -> Result<(), OpError> {
    match paint {
      &Paint::RoundRect { x, y, w, h, radius, fill, border, border_color } => {
        let r = radius.clamp(0.0, w.min(h) / 2.0);
        let (cx, cy, hx, hy) = (x + w / 2.0, y + h / 2.0, w / 2.0, h / 2.0);
        self.shape((x, y, x + w, y + h), fill, border, border_color, |px, py| {
          let qx = (px - cx).abs() - hx + r;
          let qy = (py - cy).abs() - hy + r;
          length(qx.max(0.0), qy.max(0.0)) + qx.max(qy).min(0.0) - r
        });
      }
      &Paint::Circle { x, y, r, fill, border, border_color } => {
        self.shape((x - r, y - r, x + r, y + r), fill, border, border_color, |px, py| length(px - x, py - y) - r);
      }
      Paint::Triangle { points, fill } => {
        let [a, b, c] = *points;
        // Counter-clockwise in y-down coordinates, so each edge's outward normal is on its right.
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        let (b, c) = if area < 0.0 { (c, b) } else { (b, c) };
        let edges = [(a, b), (b, c), (c, a)];
        let (minx, maxx) = (a[0].min(b[0]).min(c[0]), a[0].max(b[0]).max(c[0]));
        let (miny, maxy) = (a[1].min(b[1]).min(c[1]), a[1].max(b[1]).max(c[1]));
        self.shape((minx, miny, maxx, maxy), *fill, 0.0, [0; 4], |px, py| {
          edges.iter().fold(f32::NEG_INFINITY, |d, (p, q)| {
            let (ex, ey) = (q[0] - p[0], q[1] - p[1]);
            let len = length(ex, ey).max(1e-6);
            // Distance to the edge's line, positive outside.
            d.max(((px - p[0]) * ey - (py - p[1]) * ex) / len)
          })
        });
      }
      Paint::Text { x, y, text, color, reveal } => {
        let laid = layout(text)?;
        self.text(*x, *y, &laid, text.size, *color, reveal.map(|n| n as usize), glyphs);
      }
    }
    Ok(())
  }

  /// Draws laid-out lines: each glyph rasterized at the device size and
  /// placed at its pen position.
  pub fn text(&mut self, x: f32, y: f32, laid: &TextLayout, size: f32, color: Rgba, reveal: Option<usize>, glyphs: &mut GlyphCache) {
    let s = self.scale;
    let px_size = size * s;
    let reveal = reveal.unwrap_or(usize::MAX);
    for_each_glyph(x, y, laid, size, |index, c, pen, baseline| {
      if index >= reveal {
        return;
      }
      let (m, bitmap) = glyphs.get(c, px_size);
      let gx = (pen * s).round() as i64 + m.xmin as i64;
      let gy = (baseline * s).round() as i64 - m.height as i64 - m.ymin as i64;
      let (gw, gh) = (m.width, m.height);
      for row in 0..gh {
        let py = gy + row as i64;
        if py < 0 || py >= self.height as i64 {
          continue;
        }
        for col in 0..gw {
          let px = gx + col as i64;
          if px < 0 || px >= self.width as i64 {
            continue;
          }
          let coverage = bitmap[row * gw + col];
          if coverage > 0 {
            self.blend(px as u32, py as u32, color, coverage as f32 / 255.0);
          }
        }
      }
    });
  }
}

/// Calls `f(index, character, pen x, baseline y)` for each character of
/// laid-out lines, in logical pixels, lines centred in their advance and
/// kerned. `index` counts characters as a typewriter reveals them: each
/// line break counts one.
pub fn for_each_glyph(x: f32, y: f32, laid: &TextLayout, size: f32, mut f: impl FnMut(usize, char, f32, f32)) {
  let font = font();
  let metrics = font.horizontal_line_metrics(size).expect("DejaVu Sans has horizontal metrics");
  let ink = metrics.ascent - metrics.descent;
  let mut index = 0;
  for (i, line) in laid.lines.iter().enumerate() {
    let baseline = y + i as f32 * laid.line_advance + (laid.line_advance - ink) / 2.0 + metrics.ascent;
    let mut pen = x;
    let mut prev = None;
    for c in line.chars() {
      if let Some(p) = prev {
        pen += font.horizontal_kern(p, c, size).unwrap_or(0.0);
      }
      prev = Some(c);
      f(index, c, pen, baseline);
      index += 1;
      pen += font.metrics(c, size).advance_width;
    }
    index += 1;
  }
}

/// A painted image for JS: RGBA8, rows top to bottom.
#[derive(Serialize)]
pub struct Painted {
  pub width: u32,
  pub height: u32,
  pub data: deno_core::ToJsBuffer,
}

/// Lays out text (logical pixels): its lines, size and whether it was cut.
#[op2]
#[serde]
pub fn op_text_layout(#[serde] spec: TextSpec) -> Result<TextLayout, OpError> {
  layout(&spec)
}

/// Paints `paints` in order onto a transparent `width`×`height` logical
/// panel at `scale` device pixels per logical pixel.
#[op2]
#[serde]
pub fn op_text_paint(state: &mut OpState, width: f32, height: f32, scale: f32, #[serde] paints: Vec<Paint>) -> Result<Painted, OpError> {
  let mut canvas = Canvas::new(width, height, scale)?;
  let glyphs = state.borrow_mut::<GlyphCache>();
  for paint in &paints {
    canvas.paint(paint, glyphs)?;
  }
  Ok(Painted { width: canvas.width, height: canvas.height, data: canvas.data.into() })
}

#[cfg(test)]
mod tests {
  use super::*;

  fn spec(text: &str, max_width: Option<f32>, max_lines: Option<u32>) -> TextSpec {
    TextSpec { text: text.into(), size: 16.0, max_width, max_lines, line_height: 1.25 }
  }

  #[test]
  fn words_wrap_within_max_width_and_max_lines_ends_in_an_ellipsis() {
    let one = layout(&spec("the quick brown fox jumps over the lazy dog", None, None)).unwrap();
    assert_eq!(one.lines.len(), 1);
    let wrapped = layout(&spec("the quick brown fox jumps over the lazy dog", Some(100.0), None)).unwrap();
    assert!(wrapped.lines.len() > 2, "{:?}", wrapped.lines);
    assert!(wrapped.width <= 100.0 && wrapped.lines.iter().all(|l| measure(l, 16.0) <= 100.01));
    assert_eq!(wrapped.lines.join(" "), "the quick brown fox jumps over the lazy dog");
    assert_eq!(wrapped.height, 20.0 * wrapped.lines.len() as f32);
    let cut = layout(&spec("the quick brown fox jumps over the lazy dog", Some(100.0), Some(2))).unwrap();
    assert!(cut.truncated && cut.lines.len() == 2 && cut.lines[1].ends_with('…'), "{:?}", cut.lines);
    assert!(measure(&cut.lines[1], 16.0) <= 100.01);
    let long = layout(&spec("supercalifragilistic", Some(40.0), None)).unwrap();
    assert!(long.lines.len() > 2 && long.lines.concat() == "supercalifragilistic");
    assert_eq!(layout(&spec("a\n\nb", None, None)).unwrap().lines, ["a", "", "b"]);
    assert!(layout(&TextSpec { size: 0.0, ..spec("x", None, None) }).is_err());
    assert!(layout(&spec("x", Some(-1.0), None)).is_err());
    assert!(layout(&spec("x", None, Some(0))).is_err());
  }

  #[test]
  fn text_pixels_land_inside_their_box_and_scale_with_pixel_scale() {
    let mut glyphs = GlyphCache::default();
    let mut ink = |scale: f32| {
      let mut canvas = Canvas::new(200.0, 40.0, scale).unwrap();
      let paint = Paint::Text { x: 10.0, y: 10.0, text: spec("Hello", None, None), color: [255, 255, 255, 255], reveal: None };
      canvas.paint(&paint, &mut glyphs).unwrap();
      let mut n = 0;
      let (mut minx, mut maxx, mut miny, mut maxy) = (u32::MAX, 0, u32::MAX, 0);
      for y in 0..canvas.height {
        for x in 0..canvas.width {
          if canvas.data[((y * canvas.width + x) * 4 + 3) as usize] > 0 {
            n += 1;
            (minx, maxx, miny, maxy) = (minx.min(x), maxx.max(x), miny.min(y), maxy.max(y));
          }
        }
      }
      (n, minx as f32 / scale, maxx as f32 / scale, miny as f32 / scale, maxy as f32 / scale)
    };
    let (n1, x0, x1, y0, y1) = ink(1.0);
    let width = measure("Hello", 16.0);
    assert!(n1 > 100 && x0 >= 9.0 && x1 <= 10.0 + width + 1.0 && y0 >= 10.0 && y1 <= 30.0, "{n1} {x0} {x1} {y0} {y1}");
    let (n2, ..) = ink(2.0);
    // Four times the area; anti-aliased edges make up more of the smaller one.
    assert!(n2 as f32 > 2.5 * n1 as f32, "twice the scale, about four times the pixels: {n1} then {n2}");
    let mut canvas = Canvas::new(200.0, 40.0, 1.0).unwrap();
    canvas.paint(&Paint::Text { x: 0.0, y: 0.0, text: spec("Hello", None, None), color: [255; 4], reveal: Some(0) }, &mut glyphs).unwrap();
    assert!(canvas.data.iter().all(|&b| b == 0), "nothing revealed, nothing drawn");
  }

  #[test]
  fn shapes_fill_inside_with_their_border_and_leave_outside_clear() {
    let mut glyphs = GlyphCache::default();
    let mut canvas = Canvas::new(100.0, 100.0, 1.0).unwrap();
    let box_ = Paint::RoundRect { x: 10.0, y: 10.0, w: 80.0, h: 60.0, radius: 12.0, fill: [0, 0, 255, 255], border: 3.0, border_color: [255, 0, 0, 255] };
    canvas.paint(&box_, &mut glyphs).unwrap();
    canvas.paint(&Paint::Triangle { points: [[40.0, 70.0], [60.0, 70.0], [50.0, 95.0]], fill: [0, 255, 0, 255] }, &mut glyphs).unwrap();
    let at = |x: u32, y: u32| {
      let o = ((y * 100 + x) * 4) as usize;
      [canvas.data[o], canvas.data[o + 1], canvas.data[o + 2], canvas.data[o + 3]]
    };
    assert_eq!(at(50, 40), [0, 0, 255, 255]);
    assert_eq!(at(11, 40), [255, 0, 0, 255]);
    assert_eq!(at(11, 11)[3], 0, "the rounded corner is clear");
    assert_eq!(at(5, 5), [0, 0, 0, 0]);
    assert_eq!(at(50, 85), [0, 255, 0, 255]);
    assert_eq!(at(42, 90)[3], 0);
    assert!(Canvas::new(5000.0, 10.0, 1.0).is_err() && Canvas::new(10.0, 10.0, 0.0).is_err());
  }
}
