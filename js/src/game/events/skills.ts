// event.* skills: game events builders raise, and the listeners that make
// the world react to any game event.

import { z } from "zod";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { EntityRef, EventData, Id } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { ListenerSpec } from "./events.ts";

const eventEmitInput = z.strictObject({ type: Id, data: EventData.default({}), actor: EntityRef.optional().describe("whom the event is about (listeners' actor)") });
const eventEmitOutput = z.object({ type: z.string() });
const eventListenInput = ListenerSpec.extend({ id: Id });
const eventListenOutput = z.object({ id: z.string() });
const eventUnlistenInput = z.strictObject({ id: Id });
const eventUnlistenOutput = z.object({ removed: z.boolean() });
const eventListenersInput = z.strictObject({ on: Id.optional() });
const eventListenersOutput = z.object({ listeners: z.array(z.object({ id: z.string(), on: z.string(), where: z.record(z.string(), z.unknown()), once: z.boolean(), fired: z.number(), effects: z.array(z.unknown()) })) });

export function eventSkills(game: Game): SkillDefinition[] {
  const { events } = game;
  return gameSkills(game, { module: import.meta.url, factory: "eventSkills" }, [
    skill({
      name: "event.emit",
      description: "Raise a game event of your own type with data (optionally naming its actor): listeners and quest objectives listening for it react.",
      access: "define",
      input: eventEmitInput,
      output: eventEmitOutput,
      handler: ({ type, data, actor }) => {
        game.signal(type, { ...data, ...(actor ? { actor } : {}) });
        return { type };
      },
    }),
    skill({
      name: "event.listen",
      description: "Add a listener: when a game event of a type happens (trigger.entered, item.picked, quest.completed, stats.depleted, dialogue.chose, one raised with event.emit …) with matching fields, and its condition holds, its effects happen.",
      access: "define",
      input: eventListenInput,
      output: eventListenOutput,
      handler: ({ id, ...spec }) => {
        events.listen(id, spec);
        return { id };
      },
    }),
    skill({
      name: "event.unlisten",
      description: "Remove a listener.",
      access: "define",
      input: eventUnlistenInput,
      output: eventUnlistenOutput,
      handler: ({ id }) => ({ removed: events.unlisten(id) }),
    }),
    skill({
      name: "event.listeners",
      description: "List the listeners (optionally those for one event type): what they listen for, their effects, times fired.",
      access: "read",
      input: eventListenersInput,
      output: eventListenersOutput,
      handler: ({ on }) => ({
        listeners: [...events.listeners].filter(([, l]) => on === undefined || l.on === on).map(([id, l]) => ({ id, on: l.on, where: l.where, once: l.once, fired: l.fired, effects: l.effects })),
      }),
    }),
  ]);
}
