// Offscreen rendering: a Three.js WebGPURenderer drawing into a texture
// instead of a window, so frames can be read back and written as PNG with
// no display — on a software Vulkan adapter (lavapipe) as on a GPU.

import * as THREE from "../../build/three.bundle.mjs";
import { engineError } from "../errors.ts";

/** A canvas stand-in whose "webgpu" context renders into an offscreen texture. */
class OffscreenContext {
  device: GPUDevice | null = null;
  format: GPUTextureFormat = "rgba8unorm";
  private texture: GPUTexture | null = null;

  constructor(readonly canvas: OffscreenCanvasLike) {}

  configure(config: { device: GPUDevice; format: GPUTextureFormat; usage?: number }): void {
    this.device = config.device;
    this.format = config.format;
    this.texture?.destroy();
    this.texture = null;
    this.usage = (config.usage ?? GPUTextureUsage.RENDER_ATTACHMENT) | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC;
  }

  private usage = 0;

  unconfigure(): void {
    this.texture?.destroy();
    this.texture = null;
  }

  getCurrentTexture(): GPUTexture {
    if (!this.device) throw new Error("offscreen context is not configured");
    const { width, height } = this.canvas;
    if (!this.texture || this.texture.width !== width || this.texture.height !== height) {
      this.texture?.destroy();
      this.texture = this.device.createTexture({ size: [width, height], format: this.format, usage: this.usage });
    }
    return this.texture;
  }

  /** The last rendered frame as tightly packed RGBA8, rows top to bottom. */
  async readPixels(): Promise<Uint8Array> {
    const device = this.device;
    const texture = this.texture;
    if (!device || !texture) throw new Error("nothing has been rendered yet");
    const { width, height } = texture;
    const bytesPerRow = Math.ceil((width * 4) / 256) * 256;
    const buffer = device.createBuffer({ size: bytesPerRow * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder();
    encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow }, [width, height]);
    device.queue.submit([encoder.finish()]);
    await buffer.mapAsync(GPUMapMode.READ);
    const src = new Uint8Array(buffer.getMappedRange());
    const out = new Uint8Array(width * height * 4);
    const bgra = this.format.startsWith("bgra");
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
}

interface OffscreenCanvasLike {
  width: number;
  height: number;
}

function offscreenCanvas(width: number, height: number) {
  const canvas = {
    width,
    height,
    style: {} as Record<string, string>,
    context: null as OffscreenContext | null,
    getContext(kind: string) {
      if (kind !== "webgpu") return null;
      return (canvas.context ??= new OffscreenContext(canvas));
    },
    addEventListener() {},
    removeEventListener() {},
    getBoundingClientRect: () => ({ left: 0, top: 0, width: canvas.width, height: canvas.height }),
  };
  return canvas;
}

export interface OffscreenRenderer {
  renderer: THREE.WebGPURenderer;
  width: number;
  height: number;
  /** The adapter the frames come from (e.g. "llvmpipe" on lavapipe). */
  adapter: string;
  /** Reads the last rendered frame back as RGBA8. */
  readPixels(): Promise<Uint8Array>;
  /** Writes the last rendered frame to a PNG file. */
  savePng(path: string): Promise<void>;
}

/** A WebGPURenderer on an offscreen target; throws `engine: no WebGPU adapter` without one. */
export async function createOffscreenRenderer(width: number, height: number, options: { antialias?: boolean } = {}): Promise<OffscreenRenderer> {
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw engineError("unavailable", "engine: no WebGPU adapter");
  const canvas = offscreenCanvas(width, height);
  const renderer = new THREE.WebGPURenderer({ canvas, antialias: options.antialias ?? true, alpha: false });
  renderer.setSize(width, height, false);
  await renderer.init();
  // three creates the context on its first frame.
  const readPixels = () => {
    if (!canvas.context) throw new Error("nothing has been rendered yet");
    return canvas.context.readPixels();
  };
  return {
    renderer,
    width,
    height,
    adapter: adapter.info.description || adapter.info.device || adapter.info.vendor,
    readPixels,
    async savePng(path: string) {
      Limina.ops.op_render_write_png(path, width, height, await readPixels());
    },
  };
}
