// A camera orbiting a target point, steered by window input: drag with the
// left button (or hold the arrow keys) to orbit, scroll to zoom.

import * as THREE from "three";
import type { Input } from "../../../crates/limina-render/js/input.ts";

export interface Orbit {
  target: THREE.Vector3;
  distance: number;
  /** Radians about the vertical, from +z. */
  azimuth: number;
  /** Radians above the horizon. */
  elevation: number;
}

/** What steering reads of the input (a window's `Input`, or a browser page's own). */
export type OrbitInput = Pick<Input, "pointer" | "wheel" | "isDown">;

/** Places `camera` on `orbit`, after applying this step's input to it. */
export function steerOrbit(camera: THREE.PerspectiveCamera, orbit: Orbit, input: OrbitInput): void {
  const ARROW = 0.03;
  if (input.pointer.buttons & 1) {
    orbit.azimuth -= input.pointer.dx * 0.008;
    orbit.elevation += input.pointer.dy * 0.008;
  }
  orbit.azimuth += (Number(input.isDown("ArrowLeft")) - Number(input.isDown("ArrowRight"))) * ARROW;
  orbit.elevation += (Number(input.isDown("ArrowUp")) - Number(input.isDown("ArrowDown"))) * ARROW;
  orbit.elevation = Math.min(1.5, Math.max(0.05, orbit.elevation));
  orbit.distance = Math.min(60, Math.max(2, orbit.distance * Math.pow(0.9, input.wheel)));
  const flat = Math.cos(orbit.elevation) * orbit.distance;
  camera.position.set(
    orbit.target.x + Math.sin(orbit.azimuth) * flat,
    orbit.target.y + Math.sin(orbit.elevation) * orbit.distance,
    orbit.target.z + Math.cos(orbit.azimuth) * flat,
  );
  camera.lookAt(orbit.target);
}
