// UI text and panel painting, natively: text laid out and rasterized with
// fontdue from the embedded DejaVu Sans, and container chrome painted
// anti-aliased into an RGBA image (no browser canvas); or the same paints
// as instanced quads over a signed-distance glyph atlas, for the GPU to
// draw. Sizes are logical pixels; images come back at `scale` device
// pixels per logical pixel.

/** Straight-alpha RGBA, 0–255 each. */
export type Rgba = [number, number, number, number];

export interface TextSpec {
  text: string;
  /** Font size (em), logical pixels. */
  size: number;
  maxWidth?: number;
  maxLines?: number;
  /** Line advance as a multiple of size (default 1.25). */
  lineHeight?: number;
}

export interface TextLayout {
  lines: string[];
  /** The widest line, logical pixels. */
  width: number;
  height: number;
  lineAdvance: number;
  /** Whether maxLines cut the text (its last line then ends in "…"). */
  truncated: boolean;
}

/** One thing to paint, in logical pixels, painted in list order. */
export type Paint =
  | { op: "roundRect"; x: number; y: number; w: number; h: number; radius?: number; fill: Rgba; border?: number; borderColor?: Rgba }
  | { op: "circle"; x: number; y: number; r: number; fill: Rgba; border?: number; borderColor?: Rgba }
  | { op: "triangle"; points: [[number, number], [number, number], [number, number]]; fill: Rgba }
  /** Text with its first line's box top at y; `reveal` draws only the first that many characters (line breaks count one). */
  | { op: "text"; x: number; y: number; text: TextSpec; color: Rgba; reveal?: number };

/** RGBA8, straight alpha, rows top to bottom. */
export interface PaintedImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Floats per quad: rect (x, y, w, h), atlas rect (u0, v0, u1, v1) in texels, colour (rgba 0–1), border colour, (kind, order, radius, border width). */
export const QUAD_FLOATS = 20;
/** A quad's kind: a rounded box (circles are boxes rounded by half their side) or a glyph. */
export const QUAD_BOX = 0;
export const QUAD_GLYPH = 1;

/** Paints as quads: `count` × QUAD_FLOATS little-endian f32s, indexing the atlas at `atlasVersion`. */
export interface Quads {
  count: number;
  atlasVersion: number;
  data: Uint8Array;
}

/** The signed-distance glyph atlas: R8, rows top to bottom; a texel ≥ ½ is inside, `spread` texels either side of the edge saturate. */
export interface GlyphAtlas {
  width: number;
  height: number;
  version: number;
  /** The em size glyphs are stored at, texels. */
  em: number;
  spread: number;
  data: Uint8Array;
}

interface TextOps {
  op_text_layout(spec: TextSpec): TextLayout;
  op_text_paint(width: number, height: number, scale: number, paints: Paint[]): PaintedImage;
  op_text_quads(paints: Paint[]): Quads;
  op_text_atlas(): GlyphAtlas;
}

const ops = Limina.ops as unknown as TextOps;

/** Lays text out: word wrap within maxWidth, at most maxLines (the last then ends in "…"). */
export function layoutText(spec: TextSpec): TextLayout {
  return ops.op_text_layout(spec);
}

/** Paints onto a transparent width×height logical-pixel image at `scale` device pixels per logical pixel (at most 4096 a side). */
export function paint(width: number, height: number, scale: number, paints: Paint[]): PaintedImage {
  return ops.op_text_paint(width, height, scale, paints);
}

/**
 * Paints (no triangles) as instanced quads in order: boxes and circles as
 * rounded boxes, text as one quad per inked glyph. The glyphs of a text
 * paint with `reveal` carry their character index as their order (others
 * −1), so a typewriter shows the first n without laying anything out again.
 */
export function quadsOf(paints: Paint[]): Quads {
  return ops.op_text_quads(paints);
}

/** A copy of the shared glyph atlas now (it grows as new characters are used). */
export function glyphAtlas(): GlyphAtlas {
  return ops.op_text_atlas();
}
