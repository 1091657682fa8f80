// render.* skills. render.capture: the world rendered offscreen to a PNG an
// agent can look at, registered where a GPU driver is installed; the first
// capture starts the device (see WorldSession.enableCapture). The look's
// settings (environment, post stack, quality tier): world state, registered
// always — they hold with or without a renderer, and snapshots and replay
// carry them.

import * as THREE from "three";
import { z } from "zod";
import { base64 } from "../../../crates/limina-ops/js/base64.ts";
import { type Capturer, MAX_CAPTURE_SIDE } from "../render/capture.ts";
import { type CameraPose as Pose, framing, type ViewCamera } from "../render/view-camera.ts";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "./registry.ts";
import { CameraPose, CameraPoseInput, WORLD_EXTENT } from "./schemas.ts";
import { type EnvironmentSettings, HDRI_PRESETS } from "../render/environment.ts";
import type { Look } from "../render/look.ts";
import { LUT_NAMES } from "../render/lut.ts";
import { type AoSettings, type BloomSettings, DEFAULT_AO, DEFAULT_BLOOM, DEFAULT_DOF, DEFAULT_GRADE, type DofSettings, type GradeSettings, type PostSettings } from "../render/post.ts";
import { QUALITY_TIERS, type QualityTier, TIERS } from "../render/quality.ts";

/** What render.capture returns. */
export interface CaptureResult {
  /** The PNG, base64 (standard, padded). */
  png: string;
  mimeType: "image/png";
  /** The image's size: the request's, clamped to MAX_CAPTURE_SIDE a side. */
  width: number;
  height: number;
  /** Whether the requested size was clamped. */
  clamped: boolean;
  /** The pose it was rendered from. */
  camera: Pose;
  /** Present on the capture that started the GPU device (the first): the milliseconds of its latency that went to that. */
  gpuStartMs?: number;
}

/** Whether a skill's result is an image (render.capture's): what MCP sends as `image` content. */
export function isImageResult(value: unknown): value is CaptureResult {
  const v = value as Partial<CaptureResult> | null;
  return typeof v === "object" && v !== null && v.mimeType === "image/png" && typeof v.png === "string";
}

const Side = z.number().int().min(1);

const renderCaptureInput = z
  .strictObject({ width: Side.default(512), height: Side.default(512), camera: CameraPoseInput.optional(), entity: z.string().optional() })
  .refine((i) => !(i.camera && i.entity !== undefined), { message: "give camera or entity, not both", path: ["entity"] });
const renderCaptureOutput = z.object({ png: z.string(), mimeType: z.literal("image/png"), width: Side, height: Side, clamped: z.boolean(), camera: CameraPose, gpuStartMs: z.number().nonnegative().optional() });

export function renderSkills({ scene, view, entities, capturer }: { scene: THREE.Scene; view: ViewCamera; entities: Entities; capturer: Capturer }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "renderSkills" };
  return [
    {
      name: "render.capture",
      version: "1.0.0",
      category: "render",
      description:
        `Render the world offscreen and return a PNG (base64 in png, mimeType image/png) with its size and camera pose. Renders from camera (for this capture only; fov defaults to the view's), or framing entity, or else from the world's view camera (camera.get). width and height default to 512 and are clamped to ${MAX_CAPTURE_SIDE} (clamped: true says so). The first capture starts the GPU device and says how long that took (gpuStartMs). Listed only where a GPU driver is installed; withdrawn if the first capture finds no adapter.`,
      input: renderCaptureInput,
      output: renderCaptureOutput,
      permissions: ["scene.read"],
      source,
      handler: async ({ width, height, camera, entity }, ctx): Promise<CaptureResult> => {
        const w = Math.min(width, MAX_CAPTURE_SIDE);
        const h = Math.min(height, MAX_CAPTURE_SIDE);
        const current = view.get();
        let pose: Pose;
        if (camera) pose = { position: camera.position, target: camera.target, fov: camera.fov ?? current.fov };
        else if (entity !== undefined) pose = framing(objectOf(entities, entity), current, w / h);
        else pose = current;
        const png = await capturer.capture(scene, pose, w, h);
        const gpuStartMs = capturer.takeStartupMs();
        const started = gpuStartMs === null ? {} : { gpuStartMs: Math.round(gpuStartMs * 10) / 10 };
        ctx.emit("render.captured", { width: w, height: h, bytes: png.byteLength, camera: pose, entity: entity ?? null });
        return { png: base64(png), mimeType: "image/png", width: w, height: h, clamped: w !== width || h !== height, camera: pose, ...started };
      },
    },
  ];
}

/** The scene object of an entity; an entity without one is framed as a small sphere where it stands. */
function objectOf(entities: Entities, id: string): THREE.Object3D {
  const entry = entities.require(id);
  if (entry.mesh) return entry.mesh as THREE.Object3D;
  const marker = new THREE.Object3D();
  marker.position.set(...entities.world.position(entry.eid));
  marker.updateMatrixWorld();
  return marker;
}

// ——— The look: render.setEnvironment, render.setPost, render.setQuality, render.getSettings ———

const Hex = z.number().int().min(0).max(0xffffff);
const Degrees = (min: number, max: number) => z.number().min(min).max(max);

const FogInput = z.union([
  z.boolean(),
  z.strictObject({
    enabled: z.boolean().optional(),
    density: z.number().min(0).max(1).optional(),
    heightFalloff: z.number().min(0).max(1).optional(),
    height: z.number().min(-WORLD_EXTENT).max(WORLD_EXTENT).optional(),
    color: Hex.nullable().optional(),
  }),
]);

const EnvironmentInput = z.strictObject({
  preset: z.enum(["sky", ...HDRI_PRESETS]).optional(),
  hdri: z.string().min(1).max(128).nullable().optional(),
  sunAzimuth: Degrees(-360, 360).optional(),
  sunElevation: Degrees(-90, 90).optional(),
  turbidity: z.number().min(1.7).max(10).optional(),
  exposure: z.number().gt(0).max(16).optional(),
  toneMapping: z.enum(["aces", "agx", "neutral", "none"]).optional(),
  environmentIntensity: z.number().min(0).max(10).optional(),
  hemisphere: z.number().min(0).max(10).optional(),
  background: z.boolean().optional(),
  fog: FogInput.optional(),
});

const FogOutput = z.object({ enabled: z.boolean(), density: z.number(), heightFalloff: z.number(), height: z.number(), color: z.number().nullable() });
const EnvironmentOutput = z.object({
  preset: z.string(),
  hdri: z.string().nullable(),
  sunAzimuth: z.number(),
  sunElevation: z.number(),
  turbidity: z.number(),
  exposure: z.number(),
  toneMapping: z.string(),
  environmentIntensity: z.number(),
  hemisphere: z.number(),
  background: z.boolean(),
  fog: FogOutput,
});

const Ao = z.strictObject({ intensity: z.number().min(0).max(1).optional(), radius: z.number().gt(0).max(10).optional() });
const Bloom = z.strictObject({ strength: z.number().min(0).max(3).optional(), threshold: z.number().min(0).max(100).optional(), radius: z.number().min(0).max(1).optional() });
const Grade = z.strictObject({
  contrast: z.number().min(0).max(2).optional(),
  saturation: z.number().min(0).max(2).optional(),
  vignette: z.number().min(0).max(1).optional(),
  lut: z.enum(LUT_NAMES).nullable().optional(),
});
const Dof = z.strictObject({ focusDistance: z.number().gt(0).max(1e4).optional(), focalLength: z.number().gt(0).max(1e3).optional(), bokehScale: z.number().min(0).max(10).optional() });
/** A pass: true (on, its defaults or the current tuning), false (off), or its parameters (on, tuned). */
const Pass = <T extends z.ZodType>(params: T) => z.union([z.boolean(), params]);

const PostInput = z.strictObject({
  ao: Pass(Ao).optional(),
  bloom: Pass(Bloom).optional(),
  antialias: z.enum(["smaa", "fxaa", "taa", "none", "auto"]).optional(),
  grade: Pass(Grade).optional(),
  dof: Pass(Dof).optional(),
});
const PostOutput = z.object({
  ao: z.union([z.literal(false), z.object({ intensity: z.number(), radius: z.number() })]),
  bloom: z.union([z.literal(false), z.object({ strength: z.number(), threshold: z.number(), radius: z.number() })]),
  antialias: z.string(),
  grade: z.union([z.literal(false), z.object({ contrast: z.number(), saturation: z.number(), vignette: z.number(), lut: z.string().nullable() })]),
  dof: z.union([z.literal(false), z.object({ focusDistance: z.number(), focalLength: z.number(), bokehScale: z.number() })]),
});
const Tier = z.enum(QUALITY_TIERS);
const TierSpecOutput = z.object({
  post: z.boolean(),
  shadowMapSize: z.number(),
  shadowDistance: z.number(),
  softShadows: z.boolean(),
  aoSamples: z.number(),
  aoScale: z.number(),
  bloom: z.boolean(),
  antialias: z.string(),
  msaa: z.number(),
  renderScale: z.number(),
  environmentSize: z.number(),
});

/** `input` over `current`: true keeps current tuning (or the defaults when off), false turns off, an object tunes. */
function mergePass<T extends object>(current: T | false, input: boolean | Partial<T> | undefined, defaults: Readonly<T>): T | false {
  if (input === undefined) return current;
  if (input === false) return false;
  const base = current === false ? { ...defaults } : current;
  return input === true ? base : { ...base, ...input };
}

const renderSetQualityInput = z.strictObject({ tier: Tier });
const renderSetQualityOutput = z.object({ tier: Tier, spec: TierSpecOutput });
const renderGetSettingsInput = z.strictObject({});
const renderGetSettingsOutput = z.object({ environment: EnvironmentOutput, post: PostOutput, quality: Tier, tier: TierSpecOutput });

export function renderSettingsSkills({ look }: { look: Look }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "renderSettingsSkills" };
  return [
    {
      name: "render.setEnvironment",
      version: "1.0.0",
      category: "render",
      description:
        `Set the world's environment; omitted fields keep their value. preset: "sky" (the physical sky, lit by the sun) or an embedded HDRI (${HDRI_PRESETS.join(", ")}); hdri: an asset id of kind "hdri" (an equirect EXR in your assets/) instead, null to drop it. sunAzimuth (degrees clockwise from +Z toward +X) and sunElevation (degrees above the horizon) move the sun light and the sky together; turbidity 1.7–10 (haze); exposure; toneMapping aces|agx|neutral|none; environmentIntensity (image-based lighting); hemisphere (fill light); background (draw the sky/HDRI behind a scene without a background of its own); fog: true/false or {enabled, density per metre, heightFalloff per metre, height, color (null: the sky's horizon)}. Returns the whole environment.`,
      input: EnvironmentInput,
      output: EnvironmentOutput,
      permissions: ["render.write"],
      source,
      handler: async (input, ctx) => {
        const current = look.environment.settings();
        const { fog, ...rest } = input;
        const next: EnvironmentSettings = { ...current, ...(rest as Partial<EnvironmentSettings>) };
        // Choosing a preset drops an HDRI asset picked before, unless this call names one too.
        if (input.preset !== undefined && input.hdri === undefined) next.hdri = null;
        if (fog !== undefined) next.fog = typeof fog === "boolean" ? { ...current.fog, enabled: fog } : { ...current.fog, enabled: true, ...fog };
        await look.environment.set(next);
        const settings = look.environment.settings();
        ctx.emit("render.environment.changed", settings);
        return settings;
      },
    },
    {
      name: "render.setPost",
      version: "1.0.0",
      category: "render",
      description:
        "Switch and tune the post stack; omitted passes are unchanged. Each pass takes true (on: its current tuning, or its defaults if it was off), false (off), or its parameters (on, tuned): ao {intensity 0–1, radius metres} (GTAO), bloom {strength, threshold (linear luminance), radius 0–1}, grade {contrast, saturation, vignette, lut: warm|cool|bleach|mono|null}, dof {focusDistance, focalLength, bokehScale}. antialias: smaa|fxaa|taa|none, or auto (the quality tier's). Returns the whole post settings.",
      input: PostInput,
      output: PostOutput,
      permissions: ["render.write"],
      source,
      handler: (input, ctx) => {
        const p = look.post;
        const next: PostSettings = {
          ao: mergePass<AoSettings>(p.ao, input.ao, DEFAULT_AO),
          bloom: mergePass<BloomSettings>(p.bloom, input.bloom, DEFAULT_BLOOM),
          antialias: input.antialias ?? p.antialias,
          grade: mergePass<GradeSettings>(p.grade, input.grade, DEFAULT_GRADE),
          dof: mergePass<DofSettings>(p.dof, input.dof, DEFAULT_DOF),
        };
        look.post = next;
        ctx.emit("render.post.changed", next);
        return look.settings().post;
      },
    },
    {
      name: "render.setQuality",
      version: "1.0.0",
      category: "render",
      description:
        "Set the render quality tier: low (1024² shadows, no post passes: one forward render, with the renderer's MSAA where it has it), balanced (2048² soft shadows, 8-sample half-resolution GTAO, bloom, SMAA) or cinematic (4096² shadows, 16-sample full-resolution GTAO, bloom, SMAA over 4× MSAA). Returns the tier and what it sets.",
      input: renderSetQualityInput,
      output: renderSetQualityOutput,
      permissions: ["render.write"],
      source,
      handler: ({ tier }, ctx) => {
        look.quality = tier as QualityTier;
        ctx.emit("render.quality.changed", { tier });
        return { tier, spec: { ...TIERS[tier as QualityTier] } };
      },
    },
    {
      name: "render.getSettings",
      version: "1.0.0",
      category: "render",
      description: "The world's render settings: environment (sky or HDRI, sun, exposure, tone mapping, fog), post stack, and quality tier with what it sets.",
      input: renderGetSettingsInput,
      output: renderGetSettingsOutput,
      permissions: ["scene.read"],
      source,
      handler: () => {
        const s = look.settings();
        return { ...s, tier: { ...TIERS[s.quality] } };
      },
    },
  ];
}
