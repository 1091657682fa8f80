// The engine's look: shadows and ACES filmic tone mapping. The window's
// renderer and the capture renderer both take it, so a capture shows what
// the window shows.

import * as THREE from "three";

export function applyEngineLook(renderer: THREE.WebGPURenderer): void {
  renderer.shadowMap.enabled = true;
  renderer.toneMapping = THREE.ACESFilmicToneMapping;
}
