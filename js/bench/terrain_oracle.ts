// The straightforward TypeScript implementation of limina-terrain's region
// generation (limina-terrain's noise, region and erosion sources): the same
// integer-hash gradient noise, presets, droplet erosion (in the same blocks
// and colours of each algorithm version, run one after another here) and
// thermal erosion, with
// Math.fround after every float32 operation so its heights are the native
// ones bit for bit. js/bench/terrain.ts times both; js/test/terrain.ts
// checks they agree.
import { type RegionParams, TERRAIN_ALGORITHM_VERSION } from "limina";

const f = Math.fround;

/** A 257×257 tile (one tile, 1 m apart) with 50,000 droplets: the benchmark's region. */
export const ORACLE_PARAMS: RegionParams = {
  seed: 20250,
  center: [0, 0],
  size: 256,
  resolution: 257,
  tileSize: 256,
  preset: "island",
  heightScale: 220,
  seaLevel: 0,
  erosion: { droplets: 50_000, thermal: 4 },
};

function hash2(x: number, z: number, seed: number): number {
  let h = (seed ^ Math.imul(x, 0x27d4eb2d) ^ Math.imul(z, 0x165667b1)) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  h = (h ^ (h >>> 12)) >>> 0;
  h = Math.imul(h, 0x297a2d39) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  return h;
}

const hash1 = (i: number, seed: number) => hash2(i | 0, 0x5bd1e995 | 0, seed);
const unit = (h: number) => (h >>> 8) * (1 / 16777216);

const D = f(0.70710677);
const GX = [1, -1, 0, 0, D, -D, D, -D];
const GZ = [0, 0, 1, -1, D, D, -D, -D];

function fade(t: number): number {
  const a = f(t * 6);
  const b = f(a - 15);
  const c = f(t * b);
  const d = f(c + 10);
  const t3 = f(f(t * t) * t);
  return f(t3 * d);
}

function smoothstep(e0: number, e1: number, x: number): number {
  let t = f(f(x - e0) / f(e1 - e0));
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const a = f(t * 2);
  const b = f(3 - a);
  return f(f(t * t) * b);
}

function grad(ix: number, iz: number, seed: number, fx: number, fz: number): number {
  const k = hash2(ix, iz, seed) >>> 29;
  return f(f(GX[k] * fx) + f(GZ[k] * fz));
}

const lerp = (a: number, b: number, t: number) => f(a + f(f(b - a) * t));

function gradient(x: number, z: number, seed: number): number {
  const x0 = Math.floor(x);
  const z0 = Math.floor(z);
  const fx = f(x - x0);
  const fz = f(z - z0);
  const n00 = grad(x0, z0, seed, fx, fz);
  const n10 = grad((x0 + 1) | 0, z0, seed, f(fx - 1), fz);
  const n01 = grad(x0, (z0 + 1) | 0, seed, fx, f(fz - 1));
  const n11 = grad((x0 + 1) | 0, (z0 + 1) | 0, seed, f(fx - 1), f(fz - 1));
  const u = fade(fx);
  const v = fade(fz);
  return lerp(lerp(n00, n10, u), lerp(n01, n11, u), v);
}

const octaveSeed = (seed: number, o: number) => (seed + Math.imul(o, 0x9e3779b9)) >>> 0;

function fbm(x: number, z: number, seed: number, octaves: number, gain: number): number {
  let sum = 0, amp = 1, fx = x, fz = z;
  for (let o = 0; o < octaves; o++) {
    const n = gradient(fx, fz, octaveSeed(seed, o));
    sum = f(sum + f(n * amp));
    amp = f(amp * gain);
    fx = f(fx * 2);
    fz = f(fz * 2);
  }
  return sum;
}

const F1_4 = f(1.4);

function ridged(x: number, z: number, seed: number, octaves: number, gain: number): number {
  let sum = 0, amp = 1, weight = 1, fx = x, fz = z;
  for (let o = 0; o < octaves; o++) {
    const n = gradient(fx, fz, octaveSeed(seed, o));
    let r = f(1 - f(Math.abs(n) * F1_4));
    r = f(r * r);
    const s = f(r * weight);
    weight = s > 1 ? 1 : s;
    sum = f(sum + f(s * amp));
    amp = f(amp * gain);
    fx = f(fx * 2);
    fz = f(fz * 2);
  }
  return sum;
}

interface OracleLayout {
  tiles: number;
  samples: number;
  spacing: number;
  origin: [number, number];
  extent: number;
}

function layoutOf(p: RegionParams): OracleLayout {
  const r = p.resolution;
  const tiles = Math.max(1, Math.ceil(f(f(p.size) / f(p.tileSize))));
  const samples = tiles * (r - 1) + 1;
  const spacing = f(f(p.tileSize) / (r - 1));
  const extent = f(tiles * f(p.tileSize));
  const half = f(extent * 0.5);
  return { tiles, samples, spacing, origin: [f(f(p.center[0]) - half), f(f(p.center[1]) - half)], extent };
}

const c = (v: number) => f(v);

function presetHeight(p: RegionParams, l: OracleLayout, lake: [number, number, number], x: number, z: number): number {
  const s = p.seed >>> 0;
  const hs = f(p.heightScale);
  const sea = f(p.seaLevel);
  const inv = f(1 / l.extent);
  const rx = f(f(x - f(p.center[0])) * inv);
  const rz = f(f(z - f(p.center[1])) * inv);
  switch (p.preset) {
    case "plains": {
      const n = fbm(f(rx * 3), f(rz * 3), s, 5, 0.5);
      return f(f(sea + 2) + f(f(n * hs) * c(0.15)));
    }
    case "hills": {
      const n = fbm(f(rx * 4), f(rz * 4), s, 6, 0.5);
      const m = f(n + 0.5);
      return f(f(sea + 1) + f(f(m * hs) * 0.5));
    }
    case "mountains": {
      const wx = f(rx + f(fbm(f(f(rx * 2) + c(5.2)), f(f(rz * 2) + c(1.3)), (s ^ 0xa5a5) >>> 0, 3, 0.5) * c(0.15)));
      const wz = f(rz + f(fbm(f(f(rx * 2) + c(9.7)), f(f(rz * 2) + c(2.8)), (s ^ 0x5a5a) >>> 0, 3, 0.5) * c(0.15)));
      const r = ridged(f(wx * 3), f(wz * 3), s, 6, 0.5);
      const hills = fbm(f(rx * 6), f(rz * 6), (s ^ 0x77) >>> 0, 4, 0.5);
      return f(f(f(sea + 5) + f(f(r * hs) * c(0.55))) + f(f(hills * hs) * c(0.08)));
    }
    case "island": {
      const wx = f(rx + f(fbm(f(f(rx * 2.5) + c(5.2)), f(f(rz * 2.5) + c(1.3)), (s ^ 0xa5a5) >>> 0, 4, 0.5) * c(0.12)));
      const wz = f(rz + f(fbm(f(f(rx * 2.5) + c(9.7)), f(f(rz * 2.5) + c(2.8)), (s ^ 0x5a5a) >>> 0, 4, 0.5) * c(0.12)));
      const d = f(f(Math.sqrt(f(f(wx * wx) + f(wz * wz)))) * 2);
      const land = f(1 - smoothstep(c(0.45), c(0.95), d));
      const core = f(1 - smoothstep(0, c(0.55), d));
      const base = fbm(f(rx * 5), f(rz * 5), s, 6, 0.5);
      const peaks = ridged(f(wx * 4), f(wz * 4), (s ^ 0x3c3c) >>> 0, 6, 0.5);
      const up = f(f(land * f(f(hs * c(0.12)) + f(f(base * hs) * c(0.12)))) + f(f(f(core * peaks) * hs) * c(0.55)));
      let h = f(f(sea - f(hs * c(0.15))) + up);
      const ex = f(x - lake[0]);
      const ez = f(z - lake[1]);
      const ld = f(Math.sqrt(f(f(ex * ex) + f(ez * ez))));
      const bowl = f(1 - smoothstep(0, lake[2], ld));
      h = f(h - f(f(bowl * hs) * c(0.2)));
      return h;
    }
  }
}

/** Per algorithm version (1-based): the block's side, and how many cells beyond it a droplet runs on. */
const VERSIONS = [{ side: 64, reach: 0 }, { side: 32, reach: 4 }];

const DEFAULTS = { droplets: 0, inertia: 0.05, capacity: 4, minCapacity: 0.01, deposit: 0.3, erode: 0.3, evaporate: 0.01, gravity: 4, maxSteps: 30, radius: 3, thermal: 0, talus: 0.9 };

function hydraulic(map: Float32Array, size: number, seed: number, e: typeof DEFAULTS, algorithm: number): void {
  if (e.droplets === 0 || size < 3) return;
  const p = { inertia: f(e.inertia), capacity: f(e.capacity), minCapacity: f(e.minCapacity), deposit: f(e.deposit), erode: f(e.erode), evaporate: f(e.evaporate), gravity: f(e.gravity) };
  const radius = Math.min(Math.max(e.radius, 1), 8);
  const bdx: number[] = [], bdz: number[] = [], bw: number[] = [];
  let sum = 0;
  for (let dz = -radius; dz <= radius; dz++) {
    for (let dx = -radius; dx <= radius; dx++) {
      const d = f(Math.sqrt(dx * dx + dz * dz));
      if (d < radius) {
        const w = f(radius - d);
        sum = f(sum + w);
        bdx.push(dx);
        bdz.push(dz);
        bw.push(w);
      }
    }
  }
  for (let k = 0; k < bw.length; k++) bw[k] = f(bw[k] / sum);
  const { side: block, reach } = VERSIONS[algorithm - 1];
  const blocks = Math.ceil((size - 1) / block);
  const span = size - 1;
  const start = (id: number): [number, number] => [f(unit(hash1(Math.imul(id, 2) >>> 0, seed)) * span), f(unit(hash1((Math.imul(id, 2) + 1) >>> 0, seed)) * span)];
  const owned: number[][] = Array.from({ length: blocks * blocks }, () => []);
  for (let id = 0; id < e.droplets; id++) {
    const [px, pz] = start(id);
    const bx = Math.min(Math.floor(Math.floor(px) / block), blocks - 1);
    const bz = Math.min(Math.floor(Math.floor(pz) / block), blocks - 1);
    owned[bz * blocks + bx].push(id);
  }
  const omi = f(1 - p.inertia);
  const keep = f(1 - p.evaporate);
  const m = map;
  const heightAt = (x: number, z: number, u: number, v: number) => {
    const i = z * size + x;
    const iu = f(1 - u), iv = f(1 - v);
    return f(f(f(f(f(m[i] * iu) * iv) + f(f(m[i + 1] * u) * iv)) + f(f(m[i + size] * iu) * v)) + f(f(m[i + size + 1] * u) * v));
  };
  for (let colour = 0; colour < 4; colour++) {
    for (let bz = 0; bz < blocks; bz++) {
      for (let bx = 0; bx < blocks; bx++) {
        if ((bx & 1) + 2 * (bz & 1) !== colour) continue;
        const lo = [Math.max(bx * block - reach, 0), Math.min((bx + 1) * block + reach, size - 1), Math.max(bz * block - reach, 0), Math.min((bz + 1) * block + reach, size - 1)];
        for (const id of owned[bz * blocks + bx]) {
          let [px, pz] = start(id);
          let dx = 0, dz = 0, speed = 1, water = 1, sediment = 0;
          for (let step = 0; step < e.maxSteps; step++) {
            const nx = Math.floor(px), nz = Math.floor(pz);
            const u = f(px - nx), v = f(pz - nz);
            const i = nz * size + nx;
            const h00 = m[i], h10 = m[i + 1], h01 = m[i + size], h11 = m[i + size + 1];
            const iu = f(1 - u), iv = f(1 - v);
            const gx = f(f(f(h10 - h00) * iv) + f(f(h11 - h01) * v));
            const gz = f(f(f(h01 - h00) * iu) + f(f(h11 - h10) * u));
            const h = heightAt(nx, nz, u, v);
            dx = f(f(dx * p.inertia) - f(gx * omi));
            dz = f(f(dz * p.inertia) - f(gz * omi));
            const len = f(Math.sqrt(f(f(dx * dx) + f(dz * dz))));
            if (len === 0) break;
            dx = f(dx / len);
            dz = f(dz / len);
            px = f(px + dx);
            pz = f(pz + dz);
            if (!(px >= lo[0] && px < lo[1] && pz >= lo[2] && pz < lo[3])) break;
            const qx = Math.floor(px), qz = Math.floor(pz);
            const nh = heightAt(qx, qz, f(px - qx), f(pz - qz));
            const dh = f(nh - h);
            let cap = f(f(f(f(-dh * speed) * water)) * p.capacity);
            if (cap < p.minCapacity) cap = p.minCapacity;
            if (sediment > cap || dh > 0) {
              const amount = dh > 0 ? (dh < sediment ? dh : sediment) : f(f(sediment - cap) * p.deposit);
              sediment = f(sediment - amount);
              m[i] = f(m[i] + f(f(amount * iu) * iv));
              m[i + 1] = f(m[i + 1] + f(f(amount * u) * iv));
              m[i + size] = f(m[i + size] + f(f(amount * iu) * v));
              m[i + size + 1] = f(m[i + size + 1] + f(f(amount * u) * v));
            } else {
              const want = f(f(cap - sediment) * p.erode);
              const amount = want < -dh ? want : -dh;
              for (let k = 0; k < bw.length; k++) {
                const x = nx + bdx[k], z = nz + bdz[k];
                if (x < 0 || z < 0 || x >= size || z >= size) continue;
                const take = f(amount * bw[k]);
                m[z * size + x] = f(m[z * size + x] - take);
                sediment = f(sediment + take);
              }
            }
            const s2 = f(f(speed * speed) - f(dh * p.gravity));
            speed = s2 > 0 ? f(Math.sqrt(s2)) : 0;
            water = f(water * keep);
          }
        }
      }
    }
  }
}

function thermal(map: Float32Array, size: number, iterations: number, talus: number, rate: number): void {
  const next = new Float32Array(map.length);
  for (let it = 0; it < iterations; it++) {
    for (let z = 0; z < size; z++) {
      for (let x = 0; x < size; x++) {
        const h = map[z * size + x];
        let out = 0, inn = 0;
        const nb = (ok: boolean, j: number) => {
          if (!ok) return;
          const hn = map[j];
          const d = f(h - hn);
          if (d > talus) out = f(out + f(f(d - talus) * rate));
          const e = f(hn - h);
          if (e > talus) inn = f(inn + f(f(e - talus) * rate));
        };
        nb(x > 0, z * size + x - 1);
        nb(x + 1 < size, z * size + x + 1);
        nb(z > 0, (z - 1) * size + x);
        nb(z + 1 < size, (z + 1) * size + x);
        next[z * size + x] = f(f(h - out) + inn);
      }
    }
    map.set(next);
  }
}

/** The region's heights, computed in TypeScript: the same bits as the native generator's. */
export function oracleHeights(p: RegionParams): Float32Array {
  const l = layoutOf(p);
  const n = l.samples;
  const half = f(l.extent * 0.5);
  const a = f(f(unit(hash1(1, (p.seed ^ 0x1a4e) >>> 0)) * 0.5) - c(0.25));
  const b = f(f(unit(hash1(2, (p.seed ^ 0x1a4e) >>> 0)) * 0.5) - c(0.25));
  const lake: [number, number, number] = [f(f(p.center[0]) + f(a * half)), f(f(p.center[1]) + f(b * half)), f(half * c(0.16))];
  const heights = new Float32Array(n * n);
  for (let k = 0; k < n; k++) {
    const z = f(l.origin[1] + f(k * l.spacing));
    for (let i = 0; i < n; i++) heights[k * n + i] = presetHeight(p, l, lake, f(l.origin[0] + f(i * l.spacing)), z);
  }
  const e = { ...DEFAULTS, ...p.erosion };
  hydraulic(heights, n, p.seed >>> 0, e, p.algorithm ?? TERRAIN_ALGORITHM_VERSION);
  if (e.thermal > 0) thermal(heights, n, e.thermal, f(f(e.talus) * l.spacing), c(0.1));
  return heights;
}
