// Offscreen rendering: a Three.js WebGPURenderer drawing into a texture
// instead of a window, so frames can be read back and written as PNG with
// no display — on a software Vulkan adapter (lavapipe) as on a GPU.

import { canvasStandIn, type CanvasStandIn, createRenderTarget, type FrameSource, type RenderTarget } from "./target.ts";

/** A "webgpu" canvas context that renders into a texture of the canvas's size. */
class OffscreenContext implements FrameSource {
  device: GPUDevice | null = null;
  format: GPUTextureFormat = "rgba8unorm";
  private texture: GPUTexture | null = null;
  private usage = 0;

  constructor(readonly canvas: CanvasStandIn) {}

  configure(config: { device: GPUDevice; format: GPUTextureFormat; usage?: number }): void {
    this.device = config.device;
    this.format = config.format;
    this.texture?.destroy();
    this.texture = null;
    this.usage = (config.usage ?? GPUTextureUsage.RENDER_ATTACHMENT) | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC;
  }

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

  frame(): GPUTexture | null {
    return this.texture;
  }
}

/** A WebGPURenderer on an offscreen target; throws `engine: no WebGPU adapter` without one. */
export function createOffscreenRenderer(width: number, height: number, options: { antialias?: boolean } = {}): Promise<RenderTarget> {
  return createRenderTarget(canvasStandIn(width, height, (canvas) => new OffscreenContext(canvas)), { ...options, windowed: false });
}
