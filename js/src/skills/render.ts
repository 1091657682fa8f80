// render.capture: the world rendered offscreen to a PNG an agent can look at.
// Registered where a GPU driver is installed; the first capture starts the
// device (see WorldSession.enableCapture).

import * as THREE from "three";
import { z } from "zod";
import { base64 } from "../../../crates/limina-ops/js/base64.ts";
import { type Capturer, MAX_CAPTURE_SIDE } from "../render/capture.ts";
import { type CameraPose as Pose, framing, type ViewCamera } from "../render/view-camera.ts";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "./registry.ts";
import { CameraPose, CameraPoseInput } from "./schemas.ts";

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

export function renderSkills({ scene, view, entities, capturer }: { scene: THREE.Scene; view: ViewCamera; entities: Entities; capturer: Capturer }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "renderSkills" };
  return [
    {
      name: "render.capture",
      version: "1.0.0",
      category: "render",
      description:
        `Render the world offscreen and return a PNG (base64 in png, mimeType image/png) with its size and camera pose. Renders from camera (for this capture only; fov defaults to the view's), or framing entity, or else from the world's view camera (camera.get). width and height default to 512 and are clamped to ${MAX_CAPTURE_SIDE} (clamped: true says so). The first capture starts the GPU device and says how long that took (gpuStartMs). Listed only where a GPU driver is installed; withdrawn if the first capture finds no adapter.`,
      input: z
        .strictObject({ width: Side.default(512), height: Side.default(512), camera: CameraPoseInput.optional(), entity: z.string().optional() })
        .refine((i) => !(i.camera && i.entity !== undefined), { message: "give camera or entity, not both", path: ["entity"] }),
      output: z.object({ png: z.string(), mimeType: z.literal("image/png"), width: Side, height: Side, clamped: z.boolean(), camera: CameraPose, gpuStartMs: z.number().nonnegative().optional() }),
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
