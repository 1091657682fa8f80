// A scene's overlay: a second scene drawn over it, after the frame's tone
// mapping and colour conversion, so what it shows keeps its exact colours
// (the renderer tone-maps the whole frame in an output pass, whatever a
// material asks). The UI lives in one: its textures carry sRGB bytes,
// written unchanged and blended over the finished frame.

import * as THREE from "three";
import { nextFrame, runBeforeRender } from "./before-render.ts";
import { lookOf, lookRendererOf } from "./look.ts";

const overlays = new WeakMap<THREE.Scene, THREE.Scene>();

/** Draws `overlay` over `scene` wherever `renderScene` renders it. */
export function attachOverlay(scene: THREE.Scene, overlay: THREE.Scene): void {
  overlays.set(scene, overlay);
}

/**
 * Renders `scene` from `camera` with its look (when it has one), then its
 * overlay (if it has one, with anything in it) over the result; the scene's
 * before-render work (onBeforeRender) runs first.
 * `amortise`: see LookRenderer; `exact`: see LookRenderer.render.
 */
export function renderScene(renderer: THREE.WebGPURenderer, scene: THREE.Scene, camera: THREE.Camera, amortise = true, exact = false): void {
  runBeforeRender(renderer, scene, camera, amortise);
  const look = lookOf(scene);
  if (look) lookRendererOf(renderer, amortise).render(look, scene, camera, exact);
  else {
    nextFrame(renderer);
    renderer.render(scene, camera);
  }
  const overlay = overlays.get(scene);
  if (!overlay || overlay.children.length === 0) return;
  const { toneMapping, outputColorSpace, autoClear, autoClearColor } = renderer;
  // Straight onto the finished frame, single-sampled: a multisampled pass
  // would load the canvas's multisample buffer, which the frame never went
  // through (the output pass writes the canvas directly), and resolve it
  // over the frame. The bundled three.js has no public setter for this.
  const msaa = renderer as unknown as { _samples: number };
  const samples = msaa._samples;
  msaa._samples = 0;
  renderer.toneMapping = THREE.NoToneMapping;
  renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
  // Keep the frame; clear only depth, which the overlay keeps to itself.
  renderer.autoClear = true;
  renderer.autoClearColor = false;
  try {
    renderer.render(overlay, camera);
  } finally {
    renderer.toneMapping = toneMapping;
    renderer.outputColorSpace = outputColorSpace;
    renderer.autoClear = autoClear;
    renderer.autoClearColor = autoClearColor;
    msaa._samples = samples;
  }
}
