// Work a scene asks every renderer to do before it draws the scene — GPU
// simulation (particles) that must run on the drawing renderer's own device,
// at the moment of the draw, in the window and in captures alike — and how
// it draws a bare frame when it has its own way to.

import type * as THREE from "three";

/** `continuous`: the renderer draws every frame (a window), not now and then (a capture). */
export type BeforeRender = (renderer: THREE.WebGPURenderer, camera: THREE.Camera, continuous: boolean) => void;

const hooks = new WeakMap<THREE.Scene, Set<BeforeRender>>();

/** Runs `hook` before every draw of `scene` (through renderScene); returns what removes it. */
export function onBeforeRender(scene: THREE.Scene, hook: BeforeRender): () => void {
  let set = hooks.get(scene);
  if (!set) hooks.set(scene, (set = new Set()));
  set.add(hook);
  return () => set.delete(hook);
}

/** Runs `scene`'s hooks for a draw by `renderer` from `camera`. */
export function runBeforeRender(renderer: THREE.WebGPURenderer, scene: THREE.Scene, camera: THREE.Camera, continuous: boolean): void {
  const set = hooks.get(scene);
  if (set) for (const hook of set) hook(renderer, camera, continuous);
}

/**
 * Starts a frame of three's for `renderer`'s next draw: nodes that update once a frame (lights' colours and
 * directions, the scene pass, TAA's history) update only when one starts. The engine's renderers count frames
 * by draws, not by three's real-time requestAnimationFrame (see createRenderTarget), which left a draw right
 * after another (a capture after a weather change) with the earlier draw's lights unless it had ticked between.
 */
export function nextFrame(renderer: THREE.WebGPURenderer): void {
  (renderer as unknown as { _nodes: { nodeFrame: { update(): void } } })._nodes.nodeFrame.update();
}

/**
 * Draws a bare frame (one forward render, no post stack) of a scene to the renderer's output in its own
 * way — GPU particles composited without triangles — or returns false to leave it to a plain render.
 */
export type BareDraw = (renderer: THREE.WebGPURenderer, scene: THREE.Scene, camera: THREE.Camera) => boolean;

const bareDraws = new WeakMap<THREE.Scene, BareDraw>();

/** Makes `draw` how `scene`'s bare frames are drawn; returns what removes it. */
export function onBareDraw(scene: THREE.Scene, draw: BareDraw): () => void {
  bareDraws.set(scene, draw);
  return () => {
    if (bareDraws.get(scene) === draw) bareDraws.delete(scene);
  };
}

/** Draws a bare frame of `scene` from `camera`: through its BareDraw when it takes it, else one plain render. */
export function drawBare(renderer: THREE.WebGPURenderer, scene: THREE.Scene, camera: THREE.Camera): void {
  const draw = bareDraws.get(scene);
  if (!draw || !draw(renderer, scene, camera)) renderer.render(scene, camera);
}
