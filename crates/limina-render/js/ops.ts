// The typed ops of limina-render: the only place this crate's face reaches
// into the op table.

import type { InputEvent } from "./input.ts";

export interface RenderConfig {
  /** Write the last frame to this PNG (`--screenshot`). */
  screenshot: string | null;
  width: number;
  height: number;
  maxFrames: number | null;
  /** The render quality tier (`--quality`), or null when not given. */
  quality: string | null;
}

export interface DecodedImage {
  width: number;
  height: number;
  data: Uint8Array;
}

interface RenderOps {
  op_render_config(): RenderConfig;
  op_render_write_png(path: string, width: number, height: number, rgba: Uint8Array): void;
  op_render_encode_png(width: number, height: number, rgba: Uint8Array): Promise<Uint8Array>;
  op_render_gpu_idle(device: GPUDevice): Promise<void>;
  op_render_decode_png(bytes: Uint8Array): DecodedImage;
  op_render_read_png(path: string): DecodedImage;
  op_render_window_size(): [number, number] | null;
  op_render_window_context(canvas: unknown): GPUCanvasContext;
  op_render_window_events(): InputEvent[];
  op_render_window_reconfigure(): boolean;
}

export const renderOps = Limina.ops as unknown as RenderOps;

/** How the command line asked to render (`--screenshot`, `--size`, `--frames`, `--quality`). */
export function renderConfig(): RenderConfig {
  return renderOps.op_render_config();
}

/** Decodes PNG bytes (any bit depth or colour type) to RGBA8, natively. */
export function decodePng(bytes: Uint8Array): DecodedImage {
  return renderOps.op_render_decode_png(bytes);
}

/** Reads and decodes a PNG file to RGBA8. */
export function readPng(path: string): DecodedImage {
  return renderOps.op_render_read_png(path);
}

/** Resolves when the work submitted to `device` so far has finished, waited for off the loop thread. */
export function gpuIdle(device: GPUDevice): Promise<void> {
  return renderOps.op_render_gpu_idle(device);
}

/** Encodes tightly packed RGBA8 pixels (rows top to bottom) as PNG bytes, off the loop thread. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Promise<Uint8Array> {
  return renderOps.op_render_encode_png(width, height, rgba);
}

/** Writes tightly packed RGBA8 pixels (rows top to bottom) as a PNG file. */
export function writePng(path: string, width: number, height: number, rgba: Uint8Array): void {
  renderOps.op_render_write_png(path, width, height, rgba);
}
