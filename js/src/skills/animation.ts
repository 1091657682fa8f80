// animation.* skills: what a character's body is playing. Locomotion
// (idle, walk, run blended by speed, jump, fall) follows the body by itself;
// animation.play layers an emote — any clip by name: the humanoid's wave,
// talk, sit, or a glTF rig's own — until the character moves.

import { z } from "zod";
import type { CharacterSystem } from "../characters/characters.ts";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { CLIP_NAMES } from "../characters/clips.ts";
import type { SkillDefinition } from "./registry.ts";

const EntityId = z.string().min(1).describe("a character's entity id (ent_…)");

const animationPlayInput = z.strictObject({
  entityId: EntityId,
  clip: z.string().min(1).max(64),
  loop: z.boolean().default(true),
  fadeIn: z.number().min(0).max(5).default(0.25).describe("crossfade seconds"),
});
const animationPlayOutput = z.object({ playing: z.string() });
const animationGetStateInput = z.strictObject({ entityId: EntityId });
const animationGetStateOutput = z.object({
  state: z.enum(["idle", "locomotion", "jump", "fall", "emote"]),
  clip: z.string(),
  speed: z.number(),
  playing: z.array(z.object({ clip: z.string(), weight: z.number(), timeScale: z.number() })),
});
const animationListInput = z.strictObject({ entityId: EntityId.optional() });
const animationListOutput = z.object({ clips: z.array(z.string()) });

export function animationSkills({ characters }: { characters: CharacterSystem }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "animationSkills" };
  return [
    {
      name: "animation.play",
      version: "1.0.0",
      category: "character",
      description:
        "Play a clip on a character by name (animation.list names them: the humanoid's idle, walk, run, jump, fall, wave, talk, sit, or a glTF rig's own), crossfading in over fadeIn seconds; looping (default) until the character moves, or once.",
      input: animationPlayInput,
      output: animationPlayOutput,
      permissions: ["character.act"],
      source,
      handler: ({ entityId, clip, loop, fadeIn }, ctx) => {
        const c = characters.require(entityId);
        if (!c.animator.has(clip)) throw engineError("not_found", `character ${entityId} has no clip ${JSON.stringify(clip)} (it has: ${c.animator.clips().join(", ")})`);
        c.animator.play(clip, loop, fadeIn);
        ctx.emit("animation.played", { entityId, clip, loop });
        return { playing: clip.toLowerCase() };
      },
    },
    {
      name: "animation.getState",
      version: "1.0.0",
      category: "character",
      description:
        "A character's animation state: state (idle, locomotion, jump, fall or emote), the clip weighing most, the ground speed it follows (m/s), and every clip playing with its weight and rate.",
      input: animationGetStateInput,
      output: animationGetStateOutput,
      permissions: ["scene.read"],
      source,
      handler: ({ entityId }) => characters.require(entityId).animator.getState(),
    },
    {
      name: "animation.list",
      version: "1.0.0",
      category: "character",
      description: "The clips a character can play (without entityId: the built-in humanoid's).",
      input: animationListInput,
      output: animationListOutput,
      permissions: ["scene.read"],
      source,
      handler: ({ entityId }) => ({ clips: entityId === undefined ? [...CLIP_NAMES] : characters.require(entityId).animator.clips() }),
    },
  ];
}
