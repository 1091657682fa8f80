// Built-in colour LUTs for the grade, generated in code (no files): 3D
// tables over display-referred RGB, made once per name. Browser-safe.

import * as THREE from "three";

export const LUT_NAMES = ["warm", "cool", "bleach", "mono"] as const;
export type LutName = (typeof LUT_NAMES)[number];

const SIZE = 16;

type Rgb = [number, number, number];
const luma = ([r, g, b]: Rgb) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

const TRANSFORMS: Record<LutName, (c: Rgb) => Rgb> = {
  // Golden highlights, slightly lifted reds.
  warm: ([r, g, b]) => [r * 1.06 + 0.02, g * 1.01 + 0.005, b * 0.9],
  // Blue shadows, cool highlights.
  cool: ([r, g, b]) => [r * 0.92, g * 0.99 + 0.005, b * 1.06 + 0.03],
  // Bleach bypass: half the saturation, more contrast.
  bleach: (c) => {
    const l = luma(c);
    return c.map((v) => {
      const mixed = l + (v - l) * 0.5;
      return (mixed - 0.5) * 1.2 + 0.5;
    }) as Rgb;
  },
  mono: (c) => {
    const l = luma(c);
    return [l, l, l];
  },
};

const made = new Map<LutName, { texture: THREE.Data3DTexture; size: number }>();

/** The LUT `name` as a 3D texture of `size`³ RGBA8 texels. */
export function lutTexture(name: LutName): { texture: THREE.Data3DTexture; size: number } {
  let lut = made.get(name);
  if (lut) return lut;
  const data = new Uint8Array(SIZE * SIZE * SIZE * 4);
  const f = TRANSFORMS[name];
  for (let b = 0; b < SIZE; b++) {
    for (let g = 0; g < SIZE; g++) {
      for (let r = 0; r < SIZE; r++) {
        const out = f([r / (SIZE - 1), g / (SIZE - 1), b / (SIZE - 1)]);
        const o = ((b * SIZE + g) * SIZE + r) * 4;
        data[o] = Math.round(clamp01(out[0]) * 255);
        data[o + 1] = Math.round(clamp01(out[1]) * 255);
        data[o + 2] = Math.round(clamp01(out[2]) * 255);
        data[o + 3] = 255;
      }
    }
  }
  const texture = new THREE.Data3DTexture(data, SIZE, SIZE, SIZE);
  texture.minFilter = texture.magFilter = THREE.LinearFilter;
  texture.wrapS = texture.wrapT = texture.wrapR = THREE.ClampToEdgeWrapping;
  texture.needsUpdate = true;
  lut = { texture, size: SIZE };
  made.set(name, lut);
  return lut;
}
