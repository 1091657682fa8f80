// social.* skills: the contract (schemas, permissions) is live, so calls are
// validated and permission-checked like any other; acting them out needs
// the locomotion and speech-bubble systems, and until those land an allowed
// call fails with an error that says so.

import { z } from "../../build/zod.bundle.mjs";
import type { SkillDefinition, SkillRegistry } from "./registry.ts";
import { notYet, Vec3 } from "./schemas.ts";

export function socialSkills(_registry: SkillRegistry): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "socialSkills" };
  return [
    {
      name: "social.approach",
      version: "1.0.0",
      category: "social",
      description:
        "Walk the calling agent toward a target (an agent id, an entity id, or a world point). Sets the move target the locomotion system pursues; emits social.approached.",
      input: z.strictObject({ target: z.union([z.string().min(1), Vec3]), talkDistance: z.number().gt(0).max(50).optional() }),
      output: z.object({ approaching: z.boolean(), target: z.union([z.string(), Vec3]) }),
      permissions: ["social.act"],
      source,
      handler: () => notYet("social.approach", "the locomotion system"),
    },
    {
      name: "social.say",
      version: "1.0.0",
      category: "social",
      description:
        "Speak a line as the calling agent: emits social.said (actorId = the host-bound caller) and shows a real speech bubble anchored above the speaker's humanoid (per-speaker queue).",
      input: z.strictObject({ text: z.string().min(1).max(280), actorId: z.string().optional() }),
      output: z.object({ said: z.boolean(), speaker: z.string(), handle: z.string() }),
      permissions: ["social.act"],
      source,
      handler: () => notYet("social.say", "the in-world speech-bubble UI"),
    },
  ];
}
