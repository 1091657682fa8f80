// The native window as a render target: the host (limina-render) owns a
// winit window and its WebGPU surface; this wraps the surface's
// GPUCanvasContext for Three.js. The host presents each frame after the
// frame callbacks ran, and resizes the surface when the window changes size.

import { renderOps } from "./ops.ts";
import { canvasStandIn, type CanvasStandIn, createRenderTarget, type FrameSource, type RenderTarget } from "./target.ts";

/** The window's drawable size, or null when the program runs without `--window`. */
export function windowSize(): [number, number] | null {
  return renderOps.op_render_window_size();
}

/** Three.js's view of the surface context, remembering what it was configured with. */
class WindowContext implements FrameSource {
  device: GPUDevice | null = null;
  format: GPUTextureFormat = "bgra8unorm";
  private drawn: GPUTexture | null = null;
  private readonly surface: GPUCanvasContext;

  constructor(readonly canvas: CanvasStandIn) {
    this.surface = renderOps.op_render_window_context(canvas);
  }

  configure(config: GPUCanvasConfiguration): void {
    this.surface.configure(config);
    this.device = config.device;
    this.format = config.format;
  }

  unconfigure(): void {
    this.surface.unconfigure();
    this.device = null;
  }

  getCurrentTexture(): GPUTexture {
    try {
      return (this.drawn = this.surface.getCurrentTexture());
    } catch (e) {
      // The swapchain went out of date (a resize raced this frame): fit it
      // to the window and acquire again, once.
      if (!renderOps.op_render_window_reconfigure()) throw e;
      return (this.drawn = this.surface.getCurrentTexture());
    }
  }

  frame(): GPUTexture | null {
    return this.drawn;
  }
}

/** A WebGPURenderer presenting to the native window; fails without `--window`. */
export function createWindowRenderer(options: { antialias?: boolean } = {}): Promise<RenderTarget> {
  const size = windowSize();
  if (!size) throw new Error("there is no window: run with --window");
  return createRenderTarget(canvasStandIn(size[0], size[1], (canvas) => new WindowContext(canvas)), { ...options, windowed: true });
}
