// createEngine(): a world session plus a Three.js WebGPURenderer over it,
// the camera, and frames rendered with alpha interpolation between fixed
// states. With `limina --window` every frame is presented to the native
// window; otherwise rendering is offscreen (no window, no display). With
// `--screenshot out.png --frames N` the last frame is written as PNG.

import * as THREE from "three";
import { Input } from "../../crates/limina-render/js/input.ts";
import { bakeCache } from "../../crates/limina-render/js/bakes.ts";
import { createOffscreenRenderer } from "../../crates/limina-render/js/offscreen.ts";
import { decodePng, renderConfig } from "../../crates/limina-render/js/ops.ts";
import type { RenderTarget } from "../../crates/limina-render/js/target.ts";
import { createWindowRenderer, windowSize } from "../../crates/limina-render/js/window.ts";
import { onFixedStep, onFrame } from "./loop.ts";
import { applyEngineLook } from "./render/look.ts";
import { isSoftwareAdapter } from "./render/quality.ts";
import { renderScene } from "./render/overlay.ts";
import { WorldSession, type WorldSessionOptions } from "./world-session.ts";

export interface EngineOptions extends WorldSessionOptions {
  width?: number;
  height?: number;
  antialias?: boolean;
  /** Render every offscreen frame, not only the frames a screenshot needs
   *  (a window always renders every frame). */
  renderEveryFrame?: boolean;
}

export interface Engine {
  session: WorldSession;
  renderer: THREE.WebGPURenderer;
  /** The world's view camera (`session.view.camera`), which camera.set moves. */
  camera: THREE.PerspectiveCamera;
  output: RenderTarget;
  /** The window's keyboard and pointer, polled at the start of every fixed step. */
  input: Input;
  /** Renders the scene, interpolated `alpha` of the way from the previous fixed state to the current one. */
  renderFrame(alpha?: number): void;
  /**
   * How many frames the engine has rendered so far. Not every loop frame renders: offscreen, only
   * the frames a screenshot needs do (unless `renderEveryFrame`); a window renders every frame.
   * Divide by wall time for render fps, as against `Limina.loop.stats().steps` for simulation steps.
   */
  renderedFrames(): number;
  /** Writes the last rendered frame to a PNG file. */
  screenshot(path: string): Promise<void>;
}

export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  const config = renderConfig();
  const antialias = options.antialias ?? true;
  const output = windowSize()
    ? await createWindowRenderer({ antialias })
    : await createOffscreenRenderer(options.width ?? config.width, options.height ?? config.height, { antialias });
  const renderer = output.renderer;
  // Registered before the world's systems, so every step sees fresh input.
  const input = new Input();
  onFixedStep(() => input.poll());
  applyEngineLook(renderer, { decodePng, bakes: bakeCache, adapter: output.adapter });
  const session = new WorldSession(options);
  // Without --quality (or a tier the caller chose), a software adapter starts at low: balanced is
  // about twice its cost there, and lavapipe must stay interactive (docs/PERF.md, the look).
  if (options.quality === undefined && config.quality === null && !session.restored && isSoftwareAdapter(output.adapter)) session.look.quality = "low";
  // The adapter is known to exist by now, so this costs nothing more.
  await session.enableCapture();
  const { world, scene } = session;
  const camera = session.view.camera;
  camera.aspect = output.width / output.height;
  camera.updateProjectionMatrix();

  // The two latest fixed states of every body, for interpolation.
  let prev = new Float32Array(0);
  let curr = new Float32Array(0);
  let tracked: { eid: number; object: THREE.Object3D }[] = [];
  onFixedStep(() => {
    tracked = [];
    for (const e of world.entities.entries()) if (e.body !== undefined && e.mesh) tracked.push({ eid: e.eid, object: e.mesh as THREE.Object3D });
    if (prev.length !== tracked.length * 7) {
      prev = new Float32Array(tracked.length * 7);
      curr = new Float32Array(tracked.length * 7);
    } else {
      prev.set(curr);
    }
    tracked.forEach(({ eid }, i) => {
      curr.set([world.Position.x[eid], world.Position.y[eid], world.Position.z[eid], world.Rotation.x[eid], world.Rotation.y[eid], world.Rotation.z[eid], world.Rotation.w[eid]], i * 7);
    });
  });
  const qa = new THREE.Quaternion();
  const qb = new THREE.Quaternion();
  const interpolate = (frameAlpha: number) => {
    if (prev.length !== curr.length || prev.length === 0) return;
    // A frame behind by more than the steps it may run carries alpha past 1: draw the latest state, never beyond it.
    const alpha = Math.min(1, Math.max(0, frameAlpha));
    tracked.forEach(({ object }, i) => {
      const o = i * 7;
      object.position.set(prev[o] + (curr[o] - prev[o]) * alpha, prev[o + 1] + (curr[o + 1] - prev[o + 1]) * alpha, prev[o + 2] + (curr[o + 2] - prev[o + 2]) * alpha);
      qa.set(prev[o + 3], prev[o + 4], prev[o + 5], prev[o + 6]);
      qb.set(curr[o + 3], curr[o + 4], curr[o + 5], curr[o + 6]);
      object.quaternion.slerpQuaternions(qa, qb, alpha);
    });
  };
  let rendered = 0;
  /** `exact`: a screenshot's frame shows the look as it is now, not an amortised bake's previous map. */
  const draw = (alpha: number, exact: boolean) => {
    rendered++;
    const size = output.windowed ? windowSize() : null;
    if (size && (size[0] !== output.width || size[1] !== output.height)) {
      output.setSize(size[0], size[1]);
      camera.aspect = size[0] / size[1];
      camera.updateProjectionMatrix();
    }
    interpolate(alpha);
    renderScene(renderer, scene, camera, true, exact);
  };
  const renderFrame = (alpha = 1) => draw(alpha, false);
  onFrame((alpha) => {
    const frame = config.screenshot === null ? 0 : Limina.loop.stats().frames;
    const last = config.screenshot !== null && frame === config.maxFrames;
    if (!last && !options.renderEveryFrame && !output.windowed) return;
    draw(alpha, last);
    if (last) {
      output.savePng(config.screenshot!).then(
        () => console.error(`limina: wrote ${config.screenshot} (${output.width}×${output.height}, frame ${frame}, ${output.adapter}${output.windowed ? ", window" : ""})`),
        (e) => {
          console.error(`limina: screenshot failed: ${e instanceof Error ? e.message : e}`);
          Limina.exit(1);
        },
      );
    }
  });
  return { session, renderer, camera, output, input, renderFrame, renderedFrames: () => rendered, screenshot: (path) => output.savePng(path) };
}
