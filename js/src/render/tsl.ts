// TSL for the look's node graphs, loosely typed: @types/three's node algebra
// rejects many graphs three itself builds (colour uniforms used as vec3s,
// swizzles passed on as vectors, optional inputs left null). These graphs
// are checked where it matters: by rendering them (js/test/look*.ts).

import * as THREE from "three";

// deno-lint-ignore no-explicit-any
export type Node = any;

/** three/tsl's functions and nodes. */
// deno-lint-ignore no-explicit-any
export const tsl: Record<string, any> = THREE.TSL;

/** The bundled TSL display addons (GTAO, bloom, FXAA, SMAA, TRAA, depth of field, 3D LUT). */
// deno-lint-ignore no-explicit-any
export const displayNodes: Record<"ao" | "bloom" | "fxaa" | "smaa" | "traa" | "dof" | "lut3D", (...args: any[]) => Node> = {
  ao: THREE.ao,
  bloom: THREE.bloom,
  fxaa: THREE.fxaa,
  smaa: THREE.smaa,
  traa: THREE.traa,
  dof: THREE.dof,
  lut3D: THREE.lut3D,
} as never;
