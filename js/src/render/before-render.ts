// Work a scene asks every renderer to do before it draws the scene: GPU
// simulation (particles) that must run on the drawing renderer's own device,
// at the moment of the draw, in the window and in captures alike.

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
