// The material library: named PBR materials whose albedo, roughness and
// surface relief come from procedural TSL textures — no image files, no UVs
// needed. Noise-based surfaces are solid textures over the object's own
// space scaled to metres (they stick to moving objects and do not stretch
// on scaled primitives); patterned ones (brick, planks, tiles) are
// projected triplanarly. `space: "world"` samples world space instead
// (what terrain wants). Each use makes its own material instance, so tints
// and scales never leak between entities. Browser-safe: three only.

import * as THREE from "three";
import { type Node, tsl } from "./tsl.ts";

const {
  float, vec2, vec3, uniform, positionLocal, positionWorld, normalLocal, normalWorld, modelScale, abs, pow, floor, fract, mix, smoothstep, step, min, sin, clamp,
  mx_noise_float, mx_fractal_noise_float, mx_worley_noise_float, bumpMap,
} = tsl;

type F = Node;
type V3 = Node;
type V2 = Node;

export interface MaterialOptions {
  /** Multiplies the albedo (0xRRGGBB; white keeps it). */
  tint?: number;
  /** Texture frequency multiplier: 2 makes features half the size. */
  uvScale?: number;
  /** Where the procedural textures live: the object's space scaled to metres (default) or world space. */
  space?: "object" | "world";
}

/** What a material's procedural surface gives at a point. */
interface Surface {
  albedo: V3;
  roughness: F;
  /** Relief height (arbitrary units) the normal is bumped from, or null for a smooth surface. */
  height: F | null;
  /** How strongly the relief bends the normal. */
  bump?: number;
}

interface Definition {
  description: string;
  metalness: number;
  /** Nominal albedo (for listings and fallbacks). */
  albedo: number;
  roughness: number;
  /** The procedural surface at point `p` (metres, scaled by uvScale) with geometric normal `n`. */
  surface(p: V3, n: V3): Surface;
  /** Extra material setup (transparency and the like). */
  setup?(m: THREE.MeshPhysicalNodeMaterial): void;
}

/** An sRGB hex colour as a linear vec3 constant. */
const srgb = (hex: number) => {
  const c = new THREE.Color(hex);
  return vec3(c.r, c.g, c.b);
};
const n01 = (x: F) => x.mul(0.5).add(0.5);

/** A 2D pattern projected along the three axes, blended by the normal (sharp blend: little smearing). */
function triplanar<T extends F | V3>(p: V3, n: V3, pattern: (uv: V2) => T): T {
  const w = pow(abs(n), vec3(4));
  const weights = w.div(w.x.add(w.y).add(w.z));
  const x = pattern(p.zy);
  const y = pattern(p.xz);
  const z = pattern(p.xy);
  return (x as F).mul(weights.x).add((y as F).mul(weights.y)).add((z as F).mul(weights.z)) as T;
}

/** Running-bond bricks: (mortar 0 … brick 1, a per-brick random in [0, 1)). */
function bricks(uv: V2, size: V2, mortar: number): { brick: F; id: F } {
  const s = uv.div(size);
  const row = floor(s.y);
  const shifted = vec2(s.x.add(row.mul(0.5)), s.y);
  const cell = fract(shifted);
  const edge = min(min(cell.x, float(1).sub(cell.x)).mul(size.x), min(cell.y, float(1).sub(cell.y)).mul(size.y));
  const id = fract(sin(floor(shifted.x).mul(12.9898).add(row.mul(78.233))).mul(43758.5453));
  return { brick: smoothstep(mortar * 0.5, mortar, edge), id };
}

const DEFINITIONS = {
  wood: {
    description: "Varnished wood: long grain rings along X, knots, medium gloss.",
    metalness: 0,
    albedo: 0x8a5a33,
    roughness: 0.55,
    surface(p) {
      const warp = mx_noise_float(p.mul(vec3(0.4, 3, 3))).mul(0.35);
      const rings = fract(p.yz.length().mul(6).add(warp).add(mx_noise_float(p.mul(0.3)).mul(2)));
      const grain = smoothstep(0.0, 0.35, rings).mul(smoothstep(1.0, 0.6, rings));
      const fine = n01(mx_noise_float(p.mul(vec3(2, 40, 40))));
      const albedo = mix(srgb(0x5b3a1e), srgb(0x9c6a3c), grain.mul(0.8).add(fine.mul(0.2)));
      return { albedo, roughness: float(0.5).add(fine.mul(0.15)), height: grain.mul(0.3).add(fine.mul(0.1)), bump: 0.6 };
    },
  },
  stone: {
    description: "Rough grey rock: layered noise, darker crevices, strong relief.",
    metalness: 0,
    albedo: 0x807b74,
    roughness: 0.85,
    surface(p) {
      const h = n01(mx_fractal_noise_float(p.mul(1.6), 5, 2, 0.5, 1));
      const cells = mx_worley_noise_float(p.mul(2.2));
      const albedo = mix(srgb(0x4d4a46), srgb(0x9a958c), h).mul(mix(float(0.75), float(1), smoothstep(0.05, 0.3, cells)));
      return { albedo, roughness: float(0.8).add(h.mul(0.15)), height: h.add(smoothstep(0.0, 0.3, cells).mul(0.5)), bump: 1.2 };
    },
  },
  brick: {
    description: "Red clay bricks in running bond with recessed light mortar (25 × 7.5 cm bricks).",
    metalness: 0,
    albedo: 0x8c3b2a,
    roughness: 0.85,
    surface(p, n) {
      const mortarShade = srgb(0xb8b0a2);
      const pattern = (uv: V2) => {
        const { brick, id } = bricks(uv, vec2(0.25, 0.075), 0.012);
        const speck = n01(mx_noise_float(vec3(uv.mul(40), id.mul(10))));
        const face = mix(srgb(0x7a2f20), srgb(0xa54a33), id).mul(float(0.85).add(speck.mul(0.3)));
        return mix(mortarShade, face, brick) as V3;
      };
      const relief = (uv: V2) => bricks(uv, vec2(0.25, 0.075), 0.012).brick;
      const albedo = triplanar(p, n, pattern);
      const height = triplanar(p, n, relief);
      return { albedo, roughness: float(0.85), height, bump: 0.8 };
    },
  },
  concrete: {
    description: "Cast concrete: fine speckle, soft blotches, matte.",
    metalness: 0,
    albedo: 0x9a9893,
    roughness: 0.9,
    surface(p) {
      const blotch = n01(mx_fractal_noise_float(p.mul(0.6), 3, 2, 0.5, 1));
      const speck = n01(mx_noise_float(p.mul(60)));
      const albedo = mix(srgb(0x85837e), srgb(0xaeaca6), blotch).mul(float(0.92).add(speck.mul(0.12)));
      return { albedo, roughness: float(0.85).add(speck.mul(0.1)), height: speck.mul(0.3).add(blotch.mul(0.2)), bump: 0.25 };
    },
  },
  metal: {
    description: "Brushed steel: anisotropic-looking streaks along X, low roughness, fully metallic.",
    metalness: 1,
    albedo: 0xb8bcc0,
    roughness: 0.35,
    surface(p) {
      const streak = n01(mx_noise_float(p.mul(vec3(2, 300, 300))));
      const albedo = mix(srgb(0x9ea3a8), srgb(0xc8ccd0), streak);
      return { albedo, roughness: float(0.28).add(streak.mul(0.14)), height: streak.mul(0.05), bump: 0.2 };
    },
  },
  painted_metal: {
    description: "Painted steel sheet: satin paint with chips showing bare metal.",
    metalness: 0.2,
    albedo: 0x2f5d8a,
    roughness: 0.45,
    surface(p) {
      const wear = n01(mx_fractal_noise_float(p.mul(3), 4, 2, 0.5, 1));
      const chip = smoothstep(0.72, 0.76, wear);
      const albedo = mix(srgb(0x2f5d8a), srgb(0x8d9296), chip);
      return { albedo, roughness: mix(float(0.45), float(0.3), chip), height: chip.oneMinus().mul(0.4), bump: 0.5 };
    },
  },
  plastic: {
    description: "Glossy moulded plastic: smooth, faint orange-peel.",
    metalness: 0,
    albedo: 0xd8d8d8,
    roughness: 0.3,
    surface(p) {
      const peel = n01(mx_noise_float(p.mul(90)));
      return { albedo: srgb(0xd8d8d8), roughness: float(0.28).add(peel.mul(0.05)), height: peel.mul(0.05), bump: 0.1 };
    },
  },
  rubber: {
    description: "Black rubber: very rough, fine grain.",
    metalness: 0,
    albedo: 0x1e1e1e,
    roughness: 0.95,
    surface(p) {
      const grain = n01(mx_noise_float(p.mul(120)));
      return { albedo: srgb(0x1e1e1e).mul(float(0.9).add(grain.mul(0.2))), roughness: float(0.92), height: grain.mul(0.1), bump: 0.15 };
    },
  },
  fabric: {
    description: "Woven cloth: a fine over-under weave, fully rough.",
    metalness: 0,
    albedo: 0x6c7a8f,
    roughness: 1,
    surface(p, n) {
      const weave = (uv: V2) => {
        const s = uv.mul(220);
        const warp = n01(sin(s.x.mul(Math.PI)));
        const weft = n01(sin(s.y.mul(Math.PI)));
        const over = step(0.5, fract(floor(s.x).add(floor(s.y)).mul(0.5)));
        return mix(warp, weft, over);
      };
      const w = triplanar(p, n, weave);
      const albedo = srgb(0x6c7a8f).mul(float(0.8).add(w.mul(0.3)));
      return { albedo, roughness: float(0.95), height: w, bump: 0.3 };
    },
  },
  grass: {
    description: "A lawn seen from a few metres: mottled greens with dry patches.",
    metalness: 0,
    albedo: 0x4d7a32,
    roughness: 0.95,
    surface(p) {
      const patch = n01(mx_fractal_noise_float(p.mul(0.4), 3, 2, 0.5, 1));
      const blades = n01(mx_noise_float(p.mul(vec3(50, 10, 50))));
      const albedo = mix(mix(srgb(0x2f5a1e), srgb(0x5f8f3a), blades), srgb(0x8a8a4a), smoothstep(0.62, 0.8, patch));
      return { albedo, roughness: float(0.95), height: blades.mul(0.4), bump: 0.4 };
    },
  },
  sand: {
    description: "Dry sand: wind ripples and grain.",
    metalness: 0,
    albedo: 0xc9b185,
    roughness: 0.95,
    surface(p) {
      const ripple = n01(sin(p.x.mul(9).add(mx_noise_float(p.mul(0.8)).mul(4))));
      const grain = n01(mx_noise_float(p.mul(150)));
      const albedo = mix(srgb(0xb89c70), srgb(0xd8c29a), ripple.mul(0.5).add(grain.mul(0.5)));
      return { albedo, roughness: float(0.92), height: ripple.mul(0.5).add(grain.mul(0.1)), bump: 0.5 };
    },
  },
  snow: {
    description: "Fresh snow: bright, soft drifts, slight sparkle.",
    metalness: 0,
    albedo: 0xf2f4f8,
    roughness: 0.8,
    surface(p) {
      const drift = n01(mx_fractal_noise_float(p.mul(0.7), 3, 2, 0.5, 1));
      const sparkle = smoothstep(0.93, 1.0, n01(mx_noise_float(p.mul(200))));
      const albedo = mix(srgb(0xdfe6f0), srgb(0xfafcff), drift);
      return { albedo, roughness: float(0.75).sub(sparkle.mul(0.5)), height: drift, bump: 0.3 };
    },
  },
  glass: {
    description: "Clear glass: transparent, mirror-smooth, reflects the environment.",
    metalness: 0,
    albedo: 0xeef4f8,
    roughness: 0.05,
    surface() {
      return { albedo: srgb(0xeef4f8), roughness: float(0.04), height: null };
    },
    setup(m) {
      m.transparent = true;
      m.opacity = 0.25;
      m.depthWrite = false;
      m.ior = 1.5;
      m.specularIntensity = 1;
    },
  },
  marble: {
    description: "Polished white marble with grey veins.",
    metalness: 0,
    albedo: 0xe8e4de,
    roughness: 0.15,
    surface(p) {
      const turb = mx_fractal_noise_float(p.mul(1.2), 5, 2, 0.5, 1);
      const vein = abs(sin(p.x.add(p.y.mul(0.6)).mul(3).add(turb.mul(6))));
      const line = smoothstep(0.0, 0.12, vein);
      const albedo = mix(srgb(0x8a8885), srgb(0xeeeae4), line);
      return { albedo, roughness: float(0.12).add(line.oneMinus().mul(0.1)), height: null };
    },
  },
  tiles: {
    description: "Glazed ceramic floor tiles, 30 cm, with grout lines.",
    metalness: 0,
    albedo: 0xd9d4c8,
    roughness: 0.2,
    surface(p, n) {
      const tile = (uv: V2) => {
        const cell = fract(uv.div(0.3));
        const edge = min(min(cell.x, float(1).sub(cell.x)), min(cell.y, float(1).sub(cell.y))).mul(0.3);
        return smoothstep(0.002, 0.004, edge);
      };
      const t = triplanar(p, n, tile);
      const shade = n01(mx_noise_float(p.mul(2)));
      const albedo = mix(srgb(0x77726a), srgb(0xd9d4c8).mul(float(0.95).add(shade.mul(0.08))), t);
      return { albedo, roughness: mix(float(0.8), float(0.15), t), height: t, bump: 0.6 };
    },
  },
} satisfies Record<string, Definition>;

export type MaterialName = keyof typeof DEFINITIONS;
export const MATERIAL_NAMES = Object.keys(DEFINITIONS).sort() as MaterialName[];

/** A listing of the library: names, descriptions and nominal parameters. */
export function materialCatalog(): { name: MaterialName; description: string; albedo: number; roughness: number; metalness: number }[] {
  return MATERIAL_NAMES.map((name) => {
    const d: Definition = DEFINITIONS[name];
    return { name, description: d.description, albedo: d.albedo, roughness: d.roughness, metalness: d.metalness };
  });
}

export function isMaterialName(name: string): name is MaterialName {
  return Object.hasOwn(DEFINITIONS, name);
}

/** A new instance of library material `name` (a MeshPhysicalNodeMaterial; its `userData.look` names it and its options). */
export function createMaterial(name: MaterialName, options: MaterialOptions = {}): THREE.MeshPhysicalNodeMaterial {
  const d: Definition = DEFINITIONS[name];
  const tint = uniform(new THREE.Color(options.tint ?? 0xffffff));
  const scale = uniform(options.uvScale ?? 1);
  const world = options.space === "world";
  const m = new THREE.MeshPhysicalNodeMaterial({ metalness: d.metalness, roughness: d.roughness });
  m.name = `look.${name}`;
  const p = (world ? positionWorld : positionLocal.mul(modelScale)).mul(scale);
  const n = world ? normalWorld : normalLocal;
  const surface = d.surface(p as unknown as V3, n as unknown as V3);
  m.colorNode = surface.albedo.mul(vec3(tint));
  m.roughnessNode = clamp(surface.roughness, 0.02, 1);
  m.metalnessNode = float(d.metalness);
  if (surface.height) m.normalNode = bumpMap(surface.height, float(surface.bump ?? 0.5).mul(0.05));
  d.setup?.(m);
  m.userData.look = { material: name, tint: options.tint ?? 0xffffff, uvScale: options.uvScale ?? 1, space: options.space ?? "object" };
  return m;
}

/** The library name and options a material was made with, or null for any other material. */
export function libraryMaterialOf(m: THREE.Material): ({ material: MaterialName } & Required<MaterialOptions>) | null {
  const look = m.userData?.look as ({ material: MaterialName } & Required<MaterialOptions>) | undefined;
  return look && isMaterialName(look.material) ? look : null;
}

