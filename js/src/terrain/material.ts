// The terrain's material: the biomes' colours (vertex colours, blended
// across each triangle) broken up by a procedural detail texture sampled
// triplanar (so cliffs are not stretched), bare rock where the ground is
// steep, snow by altitude and slope, wet dark sand at the waterline, and a
// detail normal from the same texture. Its textures are generated here, so
// the module needs nothing but three (the browser page bundles it too).

import * as THREE from "three";
import { color, float, mix, normalView, normalWorld, positionWorld, smoothstep, texture, triplanarTexture, uniform, vec3, vertexColor } from "three/tsl";

/** Linear RGB of each biome (ocean, beach, desert, grassland, forest, taiga, snow, rock). */
export const biomeColors: readonly [number, number, number][] = [
  [0.18, 0.2, 0.16],
  [0.76, 0.68, 0.48],
  [0.82, 0.62, 0.38],
  [0.3, 0.46, 0.16],
  [0.14, 0.3, 0.1],
  [0.24, 0.32, 0.22],
  [0.9, 0.92, 0.96],
  [0.42, 0.4, 0.38],
].map(([r, g, b]) => [r * r, g * g, b * b] as [number, number, number]);

/** A tileable value-noise texture (size², 4 octaves), grey in every channel. */
export function detailTexture(size = 256): THREE.DataTexture {
  const data = new Uint8Array(size * size * 4);
  const lattice = (x: number, y: number, period: number) => {
    let h = (((x % period) + period) % period) * 374761393 + (((y % period) + period) % period) * 668265263;
    h = Math.imul(h ^ (h >>> 13), 1274126177);
    return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
  };
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let v = 0, amp = 0.5, norm = 0;
      for (let o = 0; o < 4; o++) {
        const period = 8 << o;
        const fx = (x / size) * period, fy = (y / size) * period;
        const ix = Math.floor(fx), iy = Math.floor(fy);
        const tx = fx - ix, ty = fy - iy;
        const sx = tx * tx * (3 - 2 * tx), sy = ty * ty * (3 - 2 * ty);
        const a = lattice(ix, iy, period), b = lattice(ix + 1, iy, period), c = lattice(ix, iy + 1, period), d = lattice(ix + 1, iy + 1, period);
        v += amp * (a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy);
        norm += amp;
        amp *= 0.5;
      }
      const g = Math.round((v / norm) * 255);
      data.set([g, g, g, 255], (y * size + x) * 4);
    }
  }
  const t = new THREE.DataTexture(data, size, size, THREE.RGBAFormat);
  t.wrapS = t.wrapT = THREE.RepeatWrapping;
  t.magFilter = THREE.LinearFilter;
  t.minFilter = THREE.LinearMipmapLinearFilter;
  t.generateMipmaps = true;
  t.needsUpdate = true;
  return t;
}

export interface TerrainMaterialOptions {
  /** The sea level: sand darkens just above it. */
  seaLevel?: number;
  /** Snow lies above this height (fading in over `snowBlend` metres) on gentle slopes. */
  snowLine?: number;
  snowBlend?: number;
  /** Metres per repeat of the detail texture. */
  detailScale?: number;
}

/** The terrain's node material, with uniforms to move the snow line and the sea. */
export function createTerrainMaterial(options: TerrainMaterialOptions = {}): THREE.MeshStandardNodeMaterial & { uniforms: { seaLevel: { value: number }; snowLine: { value: number } } } {
  const detail = detailTexture();
  const seaLevel = uniform(options.seaLevel ?? 0);
  const snowLine = uniform(options.snowLine ?? 140);
  const snowBlend = float(options.snowBlend ?? 25);
  const scale = float(1 / (options.detailScale ?? 9));
  const up = normalWorld.y;
  // Triplanar detail at two scales: variation without a visible repeat.
  const fine = triplanarTexture(texture(detail), null, null, scale).r;
  const coarse = triplanarTexture(texture(detail), null, null, scale.mul(0.13)).r;
  const grain = fine.mul(0.55).add(coarse.mul(0.45));
  const ground = vertexColor().rgb.mul(grain.mul(0.7).add(0.55));
  const rockColor = color(0x8f877c).mul(grain.mul(0.8).add(0.5));
  const steep = smoothstep(0.78, 0.62, up);
  const withRock = mix(ground, rockColor, steep);
  const height = positionWorld.y;
  const snowy = smoothstep(snowLine.sub(snowBlend), snowLine.add(snowBlend), height.add(coarse.mul(30))).mul(smoothstep(0.55, 0.8, up));
  const withSnow = mix(withRock, vec3(0.92, 0.94, 0.98).mul(grain.mul(0.15).add(0.88)), snowy);
  const wet = smoothstep(seaLevel.add(1.2), seaLevel.add(0.1), height).mul(0.45);
  const m = new THREE.MeshStandardNodeMaterial();
  m.colorNode = withSnow.mul(float(1).sub(wet));
  m.roughnessNode = mix(float(0.95), float(0.55), snowy.max(wet));
  m.metalnessNode = float(0);
  // Detail normals: the fine grain tilts the normal a little.
  m.normalNode = normalView.add(vec3(fine.sub(0.5).mul(0.35), 0, coarse.sub(0.5).mul(0.35))).normalize();
  m.vertexColors = true;
  return Object.assign(m, { uniforms: { seaLevel, snowLine } });
}
