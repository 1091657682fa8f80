// Quality tiers: how much the look spends per frame. A tier sets what the
// post settings leave to it (the anti-aliasing method, AO samples), whether
// the post stack runs at all (not at low: lavapipe must stay interactive),
// and what the settings do not cover (shadow resolution and reach, internal
// resolution, the size of the baked environment). Browser-safe.

export const QUALITY_TIERS = ["low", "balanced", "cinematic"] as const;
export type QualityTier = (typeof QUALITY_TIERS)[number];

export type AntialiasMethod = "smaa" | "fxaa" | "taa" | "none";

export interface TierSpec {
  /** Whether the post stack runs at all; without it a frame is one forward render (with the renderer's own MSAA). */
  post: boolean;
  /** Shadow map side, texels. */
  shadowMapSize: number;
  /** How far from the camera the sun's fitted shadow reaches, metres. */
  shadowDistance: number;
  /** Percentage-closer soft shadows (PCF soft) or plain PCF. */
  softShadows: boolean;
  /** GTAO samples per pixel; 0 turns AO off whatever the post settings ask. */
  aoSamples: number;
  /** GTAO's resolution relative to the frame. */
  aoScale: number;
  /** Bloom allowed. */
  bloom: boolean;
  /** The anti-aliasing `antialias: "auto"` means. */
  antialias: AntialiasMethod;
  /** MSAA samples of the scene pass (on top of the post AA; 0 none). */
  msaa: number;
  /** Internal resolution of the scene pass relative to the output (the output keeps its size). */
  renderScale: number;
  /** Side of the baked environment's cube faces. */
  environmentSize: number;
}

export const TIERS: Readonly<Record<QualityTier, Readonly<TierSpec>>> = Object.freeze({
  low: { post: false, shadowMapSize: 1024, shadowDistance: 40, softShadows: false, aoSamples: 0, aoScale: 0.5, bloom: false, antialias: "none", msaa: 0, renderScale: 1, environmentSize: 128 },
  balanced: { post: true, shadowMapSize: 2048, shadowDistance: 70, softShadows: true, aoSamples: 8, aoScale: 0.5, bloom: true, antialias: "smaa", msaa: 0, renderScale: 1, environmentSize: 256 },
  cinematic: { post: true, shadowMapSize: 4096, shadowDistance: 120, softShadows: true, aoSamples: 16, aoScale: 1, bloom: true, antialias: "smaa", msaa: 4, renderScale: 1, environmentSize: 256 },
});

/** Whether an adapter name is a software rasteriser (lavapipe, SwiftShader, WARP). */
export function isSoftwareAdapter(name: string): boolean {
  return /llvmpipe|lavapipe|swiftshader|software|warp/i.test(name);
}

/** The adapter each engine renderer draws with, as its host named it (applyEngineLook). */
const adapters = new WeakMap<object, string>();

export function noteAdapter(renderer: object, name: string): void {
  adapters.set(renderer, name);
}

/** Whether `renderer` draws on a software rasteriser; false when its host did not say. */
export function onSoftwareAdapter(renderer: object): boolean {
  const name = adapters.get(renderer);
  return name !== undefined && isSoftwareAdapter(name);
}
