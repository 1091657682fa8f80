// Captures: a scene rendered offscreen at a requested size from a camera
// pose, read back and encoded as PNG. Only the draw runs on the loop thread;
// the readback is awaited and the encoding runs on a blocking thread, so a
// capture never holds up a fixed step. Captures take turns on one offscreen
// renderer, which keeps GPU memory bounded however many are asked for.

import * as THREE from "three";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { bakeCache } from "../../../crates/limina-render/js/bakes.ts";
import { createOffscreenRenderer } from "../../../crates/limina-render/js/offscreen.ts";
import { decodePng, encodePng, gpuInstalled, gpuInstance } from "../../../crates/limina-render/js/ops.ts";
import type { RenderTarget } from "../../../crates/limina-render/js/target.ts";
import { applyEngineLook } from "./look.ts";
import { renderScene } from "./overlay.ts";
import { type CameraPose, placeCamera } from "./view-camera.ts";

/** The largest side of a capture, in pixels. */
export const MAX_CAPTURE_SIDE = 1024;

export class Capturer {
  private output: Promise<RenderTarget> | null = null;
  private turn: Promise<unknown> = Promise.resolve();
  private readonly camera = new THREE.PerspectiveCamera();
  /** Milliseconds the first capture spent starting its GPU device, until that capture reports them. */
  private startup: number | null = null;

  private constructor(
    private name: string | null,
    private readonly onUnavailable: (why: string) => void = () => {},
  ) {}

  /** A capturer on this process's WebGPU adapter, asked for now; `unavailable` when there is none. */
  static async create(): Promise<Capturer> {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw engineError("unavailable", gpuInstance().error ?? "no WebGPU adapter: this process cannot render captures");
    return new Capturer(adapter.info.description || adapter.info.device || adapter.info.vendor);
  }

  /**
   * A capturer that starts WebGPU on its first capture, so a process that never captures never
   * touches the GPU driver; null when no Vulkan or EGL driver is installed at all. When the first
   * capture finds no adapter after all, it fails `unavailable` and `onUnavailable` hears why.
   */
  static deferred(onUnavailable?: (why: string) => void): Capturer | null {
    return gpuInstalled() ? new Capturer(null, onUnavailable) : null;
  }

  /** The adapter's name (e.g. "llvmpipe" on lavapipe); null until WebGPU has started. */
  get adapter(): string | null {
    return this.name;
  }

  /** Milliseconds the capture that just finished spent starting the GPU device it renders on (the
   *  WebGPU instance when nothing had started it, adapter, device, renderer); null for later captures. */
  takeStartupMs(): number | null {
    const ms = this.startup;
    this.startup = null;
    return ms;
  }

  /** Renders `scene` from `pose` at `width`×`height` (whole pixels, at most
   *  MAX_CAPTURE_SIDE a side) and resolves to the PNG's bytes. */
  capture(scene: THREE.Scene, pose: CameraPose, width: number, height: number): Promise<Uint8Array> {
    for (const side of [width, height]) {
      if (!Number.isInteger(side) || side < 1 || side > MAX_CAPTURE_SIDE) {
        throw engineError("invalid_input", `a capture is 1–${MAX_CAPTURE_SIDE} whole pixels a side, got ${width}×${height}`);
      }
    }
    const done = this.turn.then(() => this.draw(scene, pose, width, height));
    this.turn = done.catch(() => {});
    return done;
  }

  private async draw(scene: THREE.Scene, pose: CameraPose, width: number, height: number): Promise<Uint8Array> {
    const out = await this.renderer(width, height);
    if (out.width !== width || out.height !== height) out.setSize(width, height);
    this.camera.aspect = width / height;
    placeCamera(this.camera, pose);
    // A capture is one frame: its environment is baked fresh whenever it moved.
    renderScene(out.renderer, scene, this.camera, false);
    return encodePng(width, height, await out.readPixels());
  }

  /** The offscreen renderer, made on the first capture (a failed start is
   *  retried on the next). No MSAA: on lavapipe a multisampled render() holds
   *  the loop thread about 50 ms at 1024², against 5 ms without. */
  private renderer(width: number, height: number): Promise<RenderTarget> {
    this.output ??= this.start(width, height).catch((e) => {
      this.output = null;
      throw e;
    });
    return this.output;
  }

  private async start(width: number, height: number): Promise<RenderTarget> {
    const started = performance.now();
    const gpu = gpuInstance();
    if (gpu.error !== null) {
      this.onUnavailable(gpu.error);
      throw engineError("unavailable", gpu.error);
    }
    const out = await createOffscreenRenderer(width, height, { antialias: false });
    applyEngineLook(out.renderer, { decodePng, bakes: bakeCache, adapter: out.adapter });
    this.name = out.adapter;
    this.startup = performance.now() - started;
    return out;
  }
}
