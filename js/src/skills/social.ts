// social.* skills: an embodied agent walking up to someone and speaking as
// itself. The speaker is always the caller (ctx.agentId): a payload cannot
// say who is talking. A line shows as a speech bubble above the speaker
// through its own queue, and is spoken at the speaker's position.

import * as THREE from "three";
import { z } from "zod";
import type { AudioScene } from "../../../crates/limina-audio/js/audio.ts";
import { errorCodeOf } from "../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../ecs/world.ts";
import type { Entities } from "../scene/entities.ts";
import { DEFAULT_TALK_DISTANCE, type Locomotion } from "../social/locomotion.ts";
import type { UiLayer } from "../ui/layer.ts";
import { handleOf } from "./audio.ts";
import type { SkillDefinition } from "./registry.ts";
import { WorldVec3 } from "./schemas.ts";

/** Seconds a line stays after it is typed out: a reading pace, within bounds. */
function readingTime(text: string): number {
  return Math.min(10, Math.max(2, 1 + text.length * 0.05));
}

/** How far above its position an entity's top is (its scene object's bounds), metres. */
function heightOf(entities: Entities, entity: string): number {
  const entry = entities.require(entity);
  const object = entry.mesh as THREE.Object3D | undefined;
  if (!object) return 1;
  const box = new THREE.Box3().setFromObject(object);
  return box.isEmpty() ? 1 : Math.max(0, box.max.y - entities.world.position(entry.eid)[1]);
}

export interface SocialServices {
  entities: Entities;
  locomotion: Locomotion;
  ui: UiLayer;
  audio: AudioScene;
}

const socialApproachInput = z.strictObject({
  target: z.union([z.string().min(1).describe("an agent id (agt_…) or entity id (ent_…)"), WorldVec3.describe("a world point [x, y, z]")]),
  talkDistance: z.number().gt(0).max(50).optional().describe(`stop this far from the target, metres (default ${DEFAULT_TALK_DISTANCE})`),
});
const socialApproachOutput = z.object({ approaching: z.boolean(), target: z.union([z.string(), z.tuple([z.number(), z.number(), z.number()])]) });
const socialSayInput = z.strictObject({
  text: z.string().min(1).max(280).describe("the line"),
  actorId: z.string().optional().describe("IGNORED: the speaker is always the calling agent"),
});
const socialSayOutput = z.object({ said: z.boolean(), speaker: z.string(), handle: z.string() });

export function socialSkills({ entities, locomotion, ui, audio }: SocialServices): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "socialSkills" };
  return [
    {
      name: "social.approach",
      version: "1.0.0",
      category: "social",
      description:
        "Walk the calling agent toward a target (an agent id, an entity id, or a world point). Sets the move target the locomotion system pursues; emits social.approached.",
      input: socialApproachInput,
      output: socialApproachOutput,
      permissions: ["social.act"],
      source,
      handler: ({ target, talkDistance }, ctx) => {
        // Checked before the event, so a refused walk leaves no trace of starting.
        locomotion.check(ctx.agentId, target);
        const cause = ctx.emit("social.approach", { agentId: ctx.agentId, target, talkDistance: talkDistance ?? DEFAULT_TALK_DISTANCE });
        locomotion.approach(ctx.agentId, ctx.sessionId, target, talkDistance ?? DEFAULT_TALK_DISTANCE, cause);
        return { approaching: true, target };
      },
    },
    {
      name: "social.say",
      version: "1.0.0",
      category: "social",
      description:
        "Speak a line as the calling agent: emits social.said (actorId = the host-bound caller) and shows a real speech bubble anchored above the speaker's humanoid (per-speaker queue).",
      input: socialSayInput,
      output: socialSayOutput,
      permissions: ["social.act"],
      source,
      handler: ({ text }, ctx) => {
        const speaker = ctx.agentId;
        const entity = locomotion.requireBody(speaker);
        const said = speak({ entities, ui, audio }, speaker, entity, text, ctx.sessionId);
        ctx.emit("social.said", { speaker, text, ...said });
        return { said: true, speaker, handle: said.handle };
      },
    },
  ];
}

/**
 * Shows `text` as a speech bubble above `entity` (through `speaker`'s own queue, one line at a
 * time) and speaks it at the entity's mouth where the process has a voice. What social.say and
 * NPC lines share; returns what the social.said event reports. The bubble counts against `owner`'s
 * share of the world's UI places (a session's; null: the world's own).
 */
export function speak(
  { entities, ui, audio }: Pick<SocialServices, "entities" | "ui" | "audio">,
  speaker: string,
  entity: string,
  text: string,
  owner: string | null = null,
): { handle: string; entity: string; position: Vec3; sound: string | null; unspoken?: string } {
  const top = heightOf(entities, entity);
  const handle = ui.create({
    kind: "speechBubble",
    anchor: { type: "world", entity, offset: [0, top + 0.45, 0], align: "bottom" },
    text,
    maxWidth: 260,
    tail: { offset: [0, top, 0] },
    lifecycle: { queue: `speaker:${speaker}`, fadeIn: 0.15, typewriter: 45, ttl: readingTime(text), fadeOut: 0.4 },
  }, owner);
  const at = entities.world.position(entities.require(entity).eid);
  const mouth: Vec3 = [at[0], at[1] + top, at[2]];
  // Spoken too where the process has a voice; without one the line is shown, and the event says it was not heard.
  let sound: string | null = null;
  let unspoken: string | null = null;
  try {
    sound = handleOf(audio.speak(text, mouth));
  } catch (e) {
    if (errorCodeOf(e) !== "unavailable") {
      ui.remove(handle);
      throw e;
    }
    unspoken = (e as Error).message;
  }
  return { handle, entity, position: mouth, sound, ...(unspoken ? { unspoken } : {}) };
}
