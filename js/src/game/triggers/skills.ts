// trigger.* skills: zones that notice entities entering, staying and
// leaving, and run effects when they do.

import { z } from "zod";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { Id } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { TriggerFields, triggerChecks } from "./triggers.ts";

const View = z.object({
  trigger: z.string(),
  shape: z.enum(["box", "sphere"]),
  centre: z.tuple([z.number(), z.number(), z.number()]),
  enabled: z.boolean(),
  inside: z.array(z.string()),
  entries: z.number(),
});

const triggerCreateInput = TriggerFields.extend({ trigger: Id }).superRefine(triggerChecks);
const triggerRemoveInput = z.strictObject({ trigger: Id });
const triggerRemoveOutput = z.object({ removed: z.boolean() });
const triggerEnableInput = z.strictObject({ trigger: Id });
const triggerDisableInput = z.strictObject({ trigger: Id });
const triggerGetInput = z.strictObject({ trigger: Id });
const triggerListInput = z.strictObject({});
const triggerListOutput = z.object({ triggers: z.array(View) });
const triggerOccupantsInput = z.strictObject({ trigger: Id });
const triggerOccupantsOutput = z.object({ inside: z.array(z.object({ entity: z.string(), ticks: z.number() })) });

export function triggerSkills(game: Game): SkillDefinition[] {
  const { triggers } = game;
  const view = (trigger: string) => {
    const t = triggers.require(trigger);
    return { trigger, shape: t.shape, centre: triggers.centre(t), enabled: t.enabled, inside: t.inside.map(([e]) => e), entries: t.entries };
  };
  return gameSkills(game, { module: import.meta.url, factory: "triggerSkills" }, [
    skill({
      name: "trigger.create",
      description: "Create a trigger zone (box or sphere, fixed or attached to an entity) that notices entities (all, those with a tag, listed ones, or players) entering, staying and leaving: emits trigger.entered/exited/stayed and runs its onEnter/onExit/onStay effects (the entity is actor) — a door zone, a checkpoint, lava that burns.",
      access: "define",
      input: triggerCreateInput,
      output: View,
      handler: ({ trigger, ...spec }) => {
        triggers.create(trigger, spec);
        return view(trigger);
      },
    }),
    skill({
      name: "trigger.remove",
      description: "Remove a trigger zone.",
      access: "define",
      input: triggerRemoveInput,
      output: triggerRemoveOutput,
      handler: ({ trigger }) => ({ removed: triggers.remove(trigger) }),
    }),
    skill({
      name: "trigger.enable",
      description: "Enable a trigger zone (entities inside it enter anew).",
      access: "define",
      input: triggerEnableInput,
      output: View,
      handler: ({ trigger }) => {
        triggers.setEnabled(trigger, true);
        return view(trigger);
      },
    }),
    skill({
      name: "trigger.disable",
      description: "Disable a trigger zone: it notices nothing until enabled.",
      access: "define",
      input: triggerDisableInput,
      output: View,
      handler: ({ trigger }) => {
        triggers.setEnabled(trigger, false);
        return view(trigger);
      },
    }),
    skill({
      name: "trigger.get",
      description: "Describe a trigger zone: shape, where its centre is now, whether enabled, who is inside, how many entries so far.",
      access: "read",
      input: triggerGetInput,
      output: View,
      handler: ({ trigger }) => view(trigger),
    }),
    skill({
      name: "trigger.list",
      description: "List the trigger zones.",
      access: "read",
      input: triggerListInput,
      output: triggerListOutput,
      handler: () => ({ triggers: [...triggers.all.keys()].map(view) }),
    }),
    skill({
      name: "trigger.occupants",
      description: "Who is inside a trigger zone now, in the order they entered, with the ticks each has stayed.",
      access: "read",
      input: triggerOccupantsInput,
      output: triggerOccupantsOutput,
      handler: ({ trigger }) => ({ inside: triggers.require(trigger).inside.map(([entity, ticks]) => ({ entity, ticks })) }),
    }),
  ]);
}
