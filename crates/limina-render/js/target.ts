// A render target: a Three.js WebGPURenderer over a canvas stand-in whose
// "webgpu" context is either an offscreen texture or the native window's
// surface. Either way the last frame can be read back and written as PNG.

import * as THREE from "three";
import { engineError } from "../../limina-ops/js/errors.ts";
import { asWork, gpuIdle, writePng } from "./ops.ts";

/** What a target's context tells the readback: the device and the frame's texture. */
export interface FrameSource {
  device: GPUDevice | null;
  format: GPUTextureFormat;
  /** The texture the last render drew into, or null before the first. */
  frame(): GPUTexture | null;
}

export interface CanvasStandIn {
  width: number;
  height: number;
  style: Record<string, string>;
  getContext(kind: string): unknown;
  addEventListener(): void;
  removeEventListener(): void;
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
}

/** The object Three.js takes for a canvas; `makeContext` builds its one "webgpu" context. */
export function canvasStandIn<C extends FrameSource>(width: number, height: number, makeContext: (canvas: CanvasStandIn) => C) {
  let context: C | null = null;
  const canvas: CanvasStandIn = {
    width,
    height,
    style: {},
    getContext: (kind: string) => (kind === "webgpu" ? (context ??= makeContext(canvas)) : null),
    addEventListener() {},
    removeEventListener() {},
    getBoundingClientRect: () => ({ left: 0, top: 0, width: canvas.width, height: canvas.height }),
  };
  return { canvas, context: () => context };
}

export interface RenderTarget {
  renderer: THREE.WebGPURenderer;
  readonly width: number;
  readonly height: number;
  /** The adapter the frames come from (e.g. "llvmpipe" on lavapipe). */
  adapter: string;
  /** Whether frames are presented to the native window. */
  windowed: boolean;
  /** Reads the last rendered frame back as RGBA8, rows top to bottom. A
   *  window's frame must be read in the frame callback that drew it, before
   *  the host presents it. */
  readPixels(): Promise<Uint8Array>;
  /** Writes the last rendered frame to a PNG file. */
  savePng(path: string): Promise<void>;
  /** Resizes the drawing buffer (the window does this itself). */
  setSize(width: number, height: number): void;
}

/** A WebGPURenderer on `canvas`; throws `engine: no WebGPU adapter` without one. */
export async function createRenderTarget(
  made: { canvas: CanvasStandIn; context: () => FrameSource | null },
  options: { antialias?: boolean; windowed: boolean },
): Promise<RenderTarget> {
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw engineError("unavailable", "engine: no WebGPU adapter");
  const { canvas } = made;
  // The stand-in has what Three.js uses of a canvas.
  const renderer = new THREE.WebGPURenderer({ canvas: canvas as unknown as HTMLCanvasElement, antialias: options.antialias ?? true, alpha: false });
  renderer.setSize(canvas.width, canvas.height, false);
  await renderer.init();
  // Three counts frames on a requestAnimationFrame timer, wall time: one that ticked between two draws, or not,
  // changed what the second showed (nodes that update once a frame). The engine starts each draw's frame itself
  // (nextFrame in js/src/render/before-render.ts); three's own frame is asked of a context that never calls back.
  const animation = (renderer as unknown as { _animation: { stop(): void; setContext(context: unknown): void } })._animation;
  animation.stop();
  animation.setContext({ requestAnimationFrame: () => 0, cancelAnimationFrame: () => {} });
  // Three creates the context on its first frame.
  const lastFrame = () => {
    const source = made.context();
    const texture = source?.frame();
    if (!source?.device || !texture) throw new Error("nothing has been rendered yet");
    return { device: source.device, texture, format: source.format };
  };
  const readPixels = () => {
    const { device, texture, format } = lastFrame();
    return readTexture(device, texture, format);
  };
  return {
    renderer,
    get width() {
      return canvas.width;
    },
    get height() {
      return canvas.height;
    },
    adapter: adapter.info.description || adapter.info.device || adapter.info.vendor,
    windowed: options.windowed,
    readPixels,
    async savePng(path: string) {
      const { device, texture, format } = lastFrame();
      writePng(path, texture.width, texture.height, await readTexture(device, texture, format));
    },
    setSize: (width, height) => renderer.setSize(width, height, false),
  };
}

/** Copies a texture into tightly packed RGBA8, rows top to bottom. The copy is
 *  submitted before this returns, so a frame about to be presented can be read;
 *  the GPU is waited for off the loop thread, so fixed steps go on meanwhile
 *  (under the virtual clock none runs until the pixels are read: see asWork). */
export async function readTexture(device: GPUDevice, texture: GPUTexture, format: GPUTextureFormat): Promise<Uint8Array> {
  const { width, height } = texture;
  const bytesPerRow = Math.ceil((width * 4) / 256) * 256;
  const buffer = device.createBuffer({ size: bytesPerRow * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow }, [width, height]);
  device.queue.submit([encoder.finish()]);
  await asWork(async () => {
    await gpuIdle(device);
    await buffer.mapAsync(GPUMapMode.READ);
  });
  const src = new Uint8Array(buffer.getMappedRange());
  const out = new Uint8Array(width * height * 4);
  const bgra = format.startsWith("bgra");
  for (let y = 0; y < height; y++) {
    const row = src.subarray(y * bytesPerRow, y * bytesPerRow + width * 4);
    if (!bgra) {
      out.set(row, y * width * 4);
      continue;
    }
    for (let x = 0; x < width * 4; x += 4) {
      const o = y * width * 4 + x;
      out[o] = row[x + 2];
      out[o + 1] = row[x + 1];
      out[o + 2] = row[x];
      out[o + 3] = row[x + 3];
    }
  }
  buffer.unmap();
  buffer.destroy();
  return out;
}
