// The post stack: ambient occlusion (GTAO), depth of field, bloom and
// temporal AA on the HDR frame; then tone mapping and the output colour
// space; then a colour grade (contrast, saturation, vignette, an optional
// LUT) and FXAA or SMAA on the display-referred frame — all as TSL nodes on
// WebGPURenderer's RenderPipeline. Every pass is switchable and its
// parameters are uniforms, so tuning one never rebuilds the stack; switching
// one on or off rebuilds it once. Browser-safe: three only.

import * as THREE from "three";
import type { AntialiasMethod, TierSpec } from "./quality.ts";
import { lutTexture, type LutName } from "./lut.ts";
import { displayNodes, type Node, tsl } from "./tsl.ts";

const { pass, mrt, output, velocity, renderOutput, vec4, vec3, float, uniform, uv, mix, smoothstep, dot, length, clamp, texture3D } = tsl;
const { ao, bloom, fxaa, smaa, traa, dof, lut3D } = displayNodes;

export interface AoSettings {
  /** 0 (none) to 1 (full occlusion). */
  intensity: number;
  /** World-space sampling radius, metres. */
  radius: number;
}
export interface BloomSettings {
  strength: number;
  /** Luminance above which light blooms (linear, before tone mapping). */
  threshold: number;
  /** Spread, 0–1. */
  radius: number;
}
export interface GradeSettings {
  /** 1 unchanged. */
  contrast: number;
  /** 1 unchanged, 0 grey. */
  saturation: number;
  /** Corner darkening, 0 none to 1 strong. */
  vignette: number;
  /** A built-in LUT applied last, or null. */
  lut: LutName | null;
}
export interface DofSettings {
  /** Distance in focus, metres. */
  focusDistance: number;
  /** Depth of the in-focus zone, metres. */
  focalLength: number;
  /** Bokeh size. */
  bokehScale: number;
}

export interface PostSettings {
  ao: AoSettings | false;
  bloom: BloomSettings | false;
  /** "auto": the quality tier's method. */
  antialias: AntialiasMethod | "auto";
  grade: GradeSettings | false;
  dof: DofSettings | false;
}

export const DEFAULT_AO: Readonly<AoSettings> = Object.freeze({ intensity: 1, radius: 0.5 });
export const DEFAULT_BLOOM: Readonly<BloomSettings> = Object.freeze({ strength: 0.3, threshold: 1, radius: 0.4 });
export const DEFAULT_GRADE: Readonly<GradeSettings> = Object.freeze({ contrast: 1.05, saturation: 1.05, vignette: 0.2, lut: null });
export const DEFAULT_DOF: Readonly<DofSettings> = Object.freeze({ focusDistance: 10, focalLength: 5, bokehScale: 2 });

export function defaultPost(): PostSettings {
  return { ao: { ...DEFAULT_AO }, bloom: { ...DEFAULT_BLOOM }, antialias: "auto", grade: { ...DEFAULT_GRADE }, dof: false };
}

/** Every pass off: what a bare forward render shows. */
export function postOff(): PostSettings {
  return { ao: false, bloom: false, antialias: "none", grade: false, dof: false };
}

/** What actually runs for these settings at this tier. */
export interface ActivePasses {
  ao: boolean;
  bloom: boolean;
  antialias: AntialiasMethod;
  grade: boolean;
  lut: LutName | null;
  dof: boolean;
  msaa: number;
}

export function activePasses(s: PostSettings, tier: TierSpec): ActivePasses {
  if (!tier.post) return { ao: false, bloom: false, antialias: "none", grade: false, lut: null, dof: false, msaa: 0 };
  return {
    ao: s.ao !== false && tier.aoSamples > 0,
    bloom: s.bloom !== false && tier.bloom,
    antialias: s.antialias === "auto" ? tier.antialias : s.antialias,
    grade: s.grade !== false,
    lut: s.grade !== false ? s.grade.lut : null,
    dof: s.dof !== false,
    msaa: tier.msaa,
  };
}

/** Whether nothing but tone mapping runs: then the frame is a plain render, no pipeline. */
export function isBare(p: ActivePasses): boolean {
  return !p.ao && !p.bloom && p.antialias === "none" && !p.grade && !p.dof && p.msaa === 0;
}

const key = (p: ActivePasses, t: TierSpec) => JSON.stringify([p, t.renderScale, t.aoSamples, t.aoScale]);

/** Decodes PNG bytes to RGBA8, rows top to bottom: what SMAA's lookup tables need where there is no DOM Image. */
export type PngDecoder = (bytes: Uint8Array) => { width: number; height: number; data: Uint8Array };
let pngDecoder: PngDecoder | null = null;

/** Gives the post stack a PNG decoder (the native engine's; a browser has Image and needs none). */
export function usePngDecoder(decode: PngDecoder): void {
  pngDecoder = decode;
}

/** A PNG data URL as a texture laid out as three lays out an unflipped image: first row at v = 0. */
function dataUrlTexture(url: string, filter: THREE.MagnificationTextureFilter): THREE.DataTexture {
  const bytes = (Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(url.slice(url.indexOf(",") + 1));
  const { width, height, data } = pngDecoder!(bytes);
  const t = new THREE.DataTexture(data, width, height, THREE.RGBAFormat, THREE.UnsignedByteType);
  t.minFilter = t.magFilter = filter;
  t.generateMipmaps = false;
  t.flipY = false;
  t.needsUpdate = true;
  return t;
}

/**
 * SMAA. Its area and search tables come as PNG data URLs loaded through a
 * DOM Image; without one (the native engine) the node is made with a
 * stand-in Image and the tables are decoded by the host's PNG decoder.
 */
function smaaPass(input: Node): Node {
  const g = globalThis as Record<string, unknown>;
  if (typeof g.Image === "function") return smaa(input);
  if (!pngDecoder) throw new Error("SMAA needs DOM images or a PNG decoder (usePngDecoder)");
  g.Image = class {
    src = "";
    onload: (() => void) | null = null;
  };
  let node: Node;
  try {
    node = smaa(input);
  } finally {
    delete g.Image;
  }
  node._areaTextureUniform.value = dataUrlTexture(node._getAreaTexture(), THREE.LinearFilter);
  node._searchTextureUniform.value = dataUrlTexture(node._getSearchTexture(), THREE.NearestFilter);
  return node;
}

/** One renderer's post stack for one scene and camera. */
export class PostStack {
  readonly pipeline: THREE.RenderPipeline;
  private readonly built: string;
  private readonly u = {
    aoIntensity: uniform(1),
    aoRadius: null as null | { value: number },
    aoSamples: null as null | { value: number },
    bloom: null as null | { strength: { value: number }; threshold: { value: number }; radius: { value: number } },
    contrast: uniform(1),
    saturation: uniform(1),
    vignette: uniform(0),
    dof: null as null | { focus: { value: number }; focal: { value: number }; bokeh: { value: number } },
  };

  constructor(renderer: THREE.WebGPURenderer, scene: THREE.Scene, camera: THREE.Camera, readonly passes: ActivePasses, tier: TierSpec) {
    this.built = key(passes, tier);
    this.pipeline = new THREE.RenderPipeline(renderer);
    this.pipeline.outputColorTransform = false;
    const scenePass = pass(scene, camera, { samples: passes.msaa });
    scenePass.setResolutionScale(tier.renderScale);
    if (passes.antialias === "taa") scenePass.setMRT(mrt({ output, velocity }));
    let color: Node = scenePass.getTextureNode("output");
    const depth = scenePass.getTextureNode("depth");
    if (passes.ao) {
      const aoPass = ao(depth, null, camera);
      aoPass.resolutionScale = tier.aoScale;
      aoPass.samples.value = tier.aoSamples;
      this.u.aoRadius = aoPass.radius;
      this.u.aoSamples = aoPass.samples;
      const occlusion = mix(float(1), aoPass.getTextureNode().r, this.u.aoIntensity);
      color = vec4(color.rgb.mul(occlusion), color.a);
    }
    if (passes.dof) {
      const focus = uniform(10);
      const focal = uniform(5);
      const bokeh = uniform(2);
      this.u.dof = { focus, focal, bokeh };
      color = dof(color, scenePass.getViewZNode(), focus, focal, bokeh);
    }
    if (passes.bloom) {
      const b = bloom(color, 0.3, 0.4, 1);
      this.u.bloom = { strength: b.strength, threshold: b.threshold, radius: b.radius };
      color = color.add(b);
    }
    if (passes.antialias === "taa") {
      color = traa(color, depth, scenePass.getTextureNode("velocity"), camera);
    }
    let out: Node = renderOutput(color);
    if (passes.grade) {
      const { contrast, saturation, vignette } = this.u;
      let rgb = out.rgb.sub(0.5).mul(contrast).add(0.5);
      const luma = dot(rgb, vec3(0.2126, 0.7152, 0.0722));
      rgb = mix(vec3(luma), rgb, saturation);
      const corner = length(uv().sub(0.5)).mul(1.4142);
      rgb = rgb.mul(float(1).sub(vignette.mul(smoothstep(0.35, 1.0, corner))));
      out = vec4(clamp(rgb, 0, 1), out.a);
      if (passes.lut) {
        const lut = lutTexture(passes.lut);
        out = lut3D(out, texture3D(lut.texture), lut.size, float(1));
      }
    }
    if (passes.antialias === "fxaa") out = fxaa(out);
    if (passes.antialias === "smaa") out = smaaPass(out);
    this.pipeline.outputNode = out;
  }

  /** Whether this stack runs exactly `passes` at `tier`. */
  matches(passes: ActivePasses, tier: TierSpec): boolean {
    return key(passes, tier) === this.built;
  }

  /** Sets the tunable parameters (uniforms only). */
  tune(s: PostSettings): void {
    const u = this.u;
    if (s.ao !== false) {
      u.aoIntensity.value = s.ao.intensity;
      if (u.aoRadius) u.aoRadius.value = s.ao.radius;
    }
    if (s.bloom !== false && u.bloom) {
      u.bloom.strength.value = s.bloom.strength;
      u.bloom.threshold.value = s.bloom.threshold;
      u.bloom.radius.value = s.bloom.radius;
    }
    if (s.grade !== false) {
      u.contrast.value = s.grade.contrast;
      u.saturation.value = s.grade.saturation;
      u.vignette.value = s.grade.vignette;
    }
    if (s.dof !== false && u.dof) {
      u.dof.focus.value = s.dof.focusDistance;
      u.dof.focal.value = s.dof.focalLength;
      u.dof.bokeh.value = s.dof.bokehScale;
    }
  }

  render(): void {
    this.pipeline.render();
  }

  dispose(): void {
    this.pipeline.dispose();
  }
}
