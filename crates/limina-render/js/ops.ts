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

/** What making the process's WebGPU instance found (see gpu.rs). */
export interface GpuInstance {
  /** "vulkan", "gl" (or DENO_WEBGPU_BACKEND's list); null when there is no adapter. */
  backend: string | null;
  adapters: number;
  /** Milliseconds making it took. */
  initMs: number;
  /** Whether this call made it. */
  madeNow: boolean;
  /** Why there is no adapter, when there is none (already printed once to stderr). */
  error: string | null;
}

interface RenderOps {
  op_render_gpu_instance(): GpuInstance;
  op_render_gpu_started(): boolean;
  op_render_gpu_installed(): boolean;
  op_render_config(): RenderConfig;
  op_render_write_png(path: string, width: number, height: number, rgba: Uint8Array): void;
  op_render_encode_png(width: number, height: number, rgba: Uint8Array): Promise<Uint8Array>;
  op_render_gpu_idle(device: GPUDevice): Promise<void>;
  op_render_readback_begin(): number;
  op_render_readback_end(id: number): void;
  op_render_decode_png(bytes: Uint8Array): DecodedImage;
  op_render_read_png(path: string): DecodedImage;
  op_render_bake_load(device: GPUDevice, key: string, length: number): Uint8Array<ArrayBuffer> | null;
  op_render_bake_store(device: GPUDevice, key: string, map: Uint8Array): void;
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

/** Makes this process's WebGPU instance if nothing has yet (the first render does), and says what it found. */
export function gpuInstance(): GpuInstance {
  return renderOps.op_render_gpu_instance();
}

/** Whether a GPU driver WebGPU could start on (Vulkan or EGL) is installed, found without loading it. */
export function gpuInstalled(): boolean {
  return renderOps.op_render_gpu_installed();
}

/** Whether anything has started WebGPU in this process. */
export function gpuStarted(): boolean {
  return renderOps.op_render_gpu_started();
}

/** Resolves when the work submitted to `device` so far has finished, waited for off the loop thread. */
export function gpuIdle(device: GPUDevice): Promise<void> {
  return renderOps.op_render_gpu_idle(device);
}

/**
 * Runs `read` (a readback: the wait for the GPU and the mapping) as work in flight: under the virtual clock
 * (`--deterministic`) the loop runs no frame until it settles, as for a PNG encode or an asset read.
 */
export async function asWork<T>(read: () => Promise<T>): Promise<T> {
  const id = renderOps.op_render_readback_begin();
  try {
    return await read();
  } finally {
    renderOps.op_render_readback_end(id);
  }
}

/** Encodes tightly packed RGBA8 pixels (rows top to bottom) as PNG bytes, off the loop thread. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Promise<Uint8Array> {
  return renderOps.op_render_encode_png(width, height, rgba);
}

/** Writes tightly packed RGBA8 pixels (rows top to bottom) as a PNG file. */
export function writePng(path: string, width: number, height: number, rgba: Uint8Array): void {
  renderOps.op_render_write_png(path, width, height, rgba);
}
