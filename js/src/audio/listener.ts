// The ear of a world is its view camera: each frame the audio listener
// takes the camera's world pose, so positional sounds pan and fade as the
// view moves.

import type * as THREE from "three";
import type { AudioScene } from "../../../crates/limina-audio/js/audio.ts";
import { onFrame } from "../loop.ts";

/** Puts `audio`'s listener where `camera` is now (unchanged poses cost nothing). */
export function syncListener(audio: AudioScene, camera: THREE.Object3D): void {
  camera.updateMatrixWorld();
  const e = camera.matrixWorld.elements;
  // The world transform's translation and, from its rotation columns, the
  // quaternion (the camera is never scaled).
  const m00 = e[0], m01 = e[4], m02 = e[8], m10 = e[1], m11 = e[5], m12 = e[9], m20 = e[2], m21 = e[6], m22 = e[10];
  const trace = m00 + m11 + m22;
  let q: [number, number, number, number];
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1);
    q = [(m21 - m12) * s, (m02 - m20) * s, (m10 - m01) * s, 0.25 / s];
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    q = [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s];
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    q = [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s];
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    q = [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s];
  }
  audio.setListener([e[12], e[13], e[14]], q);
}

/** Keeps `audio`'s listener on `camera` every frame; returns a function that stops it. */
export function followCamera(audio: AudioScene, camera: THREE.Object3D): () => void {
  syncListener(audio, camera);
  return onFrame(() => syncListener(audio, camera));
}
