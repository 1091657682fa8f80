// camera.* rig skills: the view camera following an entity (behind it,
// over its shoulder, from its eyes), orbiting, and shaking. A rig drives
// the view every fixed step until another rig or camera.set replaces it.

import { z } from "zod";
import type { SkillDefinition } from "../skills/registry.ts";
import { CameraPose, WorldVec3 } from "../skills/schemas.ts";
import type { CameraRig } from "./rig.ts";

const EntityId = z.string().min(1).describe("the entity to follow (ent_…)");

const cameraFollowInput = z.strictObject({ entityId: EntityId, distance: z.number().min(0.5).max(200).default(6), height: z.number().min(-50).max(200).default(2.5), smoothing: z.number().min(0).max(5).default(0.3) });
const cameraThirdPersonInput = z.strictObject({ entityId: EntityId, distance: z.number().min(0.5).max(50).default(3.5), shoulder: z.number().min(-5).max(5).default(0.6), height: z.number().min(0).max(20).default(1.7), smoothing: z.number().min(0).max(5).default(0.15) });
const cameraFirstPersonInput = z.strictObject({ entityId: EntityId, eyeHeight: z.number().min(0).max(20).default(1.62) });
const cameraOrbitInput = z.strictObject({ target: z.union([EntityId, WorldVec3]), distance: z.number().min(0.5).max(1000).default(10), height: z.number().min(-500).max(1000).default(4), speed: z.number().min(-10).max(10).default(0.3) });
const cameraShakeInput = z.strictObject({ intensity: z.number().gt(0).max(10).default(0.3), duration: z.number().gt(0).max(30).default(0.6) });
const cameraShakeOutput = z.object({ shaking: z.boolean() });

export function cameraRigSkills({ rig }: { rig: CameraRig }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "cameraRigSkills" };
  const shot = (name: string, description: string, input: z.ZodType, spec: (i: never) => Parameters<CameraRig["set"]>[0]): SkillDefinition => ({
    name,
    version: "1.0.0",
    category: "render",
    description,
    input,
    output: CameraPose,
    permissions: ["scene.write"],
    source,
    handler: (i: never, ctx) => {
      const pose = rig.set(spec(i));
      ctx.emit("camera.rigged", { rig: name, ...(i as object) });
      return pose;
    },
  });
  return [
    shot(
      "camera.follow",
      "The view camera follows an entity from behind (distance m back, height m up, easing in over smoothing seconds), every step until another rig or camera.set. Returns the pose.",
      cameraFollowInput,
      (i: { entityId: string; distance: number; height: number; smoothing: number }) => ({ mode: "follow", entity: i.entityId, distance: i.distance, height: i.height, smoothing: i.smoothing }),
    ),
    shot(
      "camera.thirdPerson",
      "The view camera over an entity's right shoulder (shoulder m aside, height m up, distance m back, pulled in front of walls), looking where it faces. Returns the pose.",
      cameraThirdPersonInput,
      (i: { entityId: string; distance: number; shoulder: number; height: number; smoothing: number }) => ({ mode: "thirdPerson", entity: i.entityId, distance: i.distance, shoulder: i.shoulder, height: i.height, smoothing: i.smoothing }),
    ),
    shot(
      "camera.firstPerson",
      "The view camera at an entity's eyes (eyeHeight m above its feet), looking where it faces. Returns the pose.",
      cameraFirstPersonInput,
      (i: { entityId: string; eyeHeight: number }) => ({ mode: "firstPerson", entity: i.entityId, eyeHeight: i.eyeHeight }),
    ),
    shot(
      "camera.orbit",
      "The view camera circles an entity or a point: distance m out, height m up, speed radians per second. Returns the pose.",
      cameraOrbitInput,
      (i: { target: string | [number, number, number]; distance: number; height: number; speed: number }) => ({ mode: "orbit", target: i.target, distance: i.distance, height: i.height, speed: i.speed }),
    ),
    {
      name: "camera.shake",
      version: "1.0.0",
      category: "render",
      description: "Shake the view camera for duration seconds, intensity metres at its strongest, easing out (on top of any rig).",
      input: cameraShakeInput,
      output: cameraShakeOutput,
      permissions: ["scene.write"],
      source,
      handler: ({ intensity, duration }, ctx) => {
        rig.startShake(intensity, duration);
        ctx.emit("camera.shaken", { intensity, duration });
        return { shaking: true };
      },
    },
  ];
}
