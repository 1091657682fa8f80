// UI text and panel painting, natively: text laid out and rasterized with
// fontdue from the embedded DejaVu Sans, and container chrome painted
// anti-aliased into an RGBA image (no browser canvas). Sizes are logical
// pixels; images come back at `scale` device pixels per logical pixel.

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

interface TextOps {
  op_text_layout(spec: TextSpec): TextLayout;
  op_text_paint(width: number, height: number, scale: number, paints: Paint[]): PaintedImage;
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
