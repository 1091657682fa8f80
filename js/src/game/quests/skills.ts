// quest.* skills: defining quests, offering them, and each player's course
// through them — accept, decline, abandon, progress, complete, fail, track.

import { z } from "zod";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { Count, EntityRef, Id, QUEST_STATUSES, type QuestStatus, Text } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { QuestDef } from "./quests.ts";

const View = z.object({
  quest: z.string(),
  title: z.string(),
  entity: z.string().nullable(),
  status: z.enum(QUEST_STATUSES),
  tracked: z.boolean(),
  remaining: z.number().nullable(),
  reason: z.string().nullable(),
  objectives: z.array(z.object({ id: z.string(), text: z.string(), count: z.number(), of: z.number(), done: z.boolean(), optional: z.boolean() })),
});
const Status = z.object({ quest: z.string(), status: z.enum(QUEST_STATUSES) });

const questDefineOutput = z.object({ quest: z.string(), created: z.boolean() });
const questRemoveInput = z.strictObject({ quest: Id });
const questRemoveOutput = z.object({ removed: z.boolean() });
const questOfferInput = z.strictObject({ quest: Id, to: EntityRef });
const questAcceptInput = z.strictObject({ quest: Id });
const questDeclineInput = z.strictObject({ quest: Id });
const questAbandonInput = z.strictObject({ quest: Id });
const questUpdateInput = z.strictObject({ quest: Id, objective: Id, by: Count.default(1), for: EntityRef });
const questUpdateOutput = z.object({ quest: z.string(), objective: z.string(), count: z.number() });
const questCompleteInput = z.strictObject({ quest: Id, for: EntityRef });
const questFailInput = z.strictObject({ quest: Id, for: EntityRef, reason: Text.default("failed") });
const questListInput = z.strictObject({ entity: EntityRef.optional(), status: z.enum(QUEST_STATUSES).optional() });
const questListOutput = z.object({ quests: z.array(View) });
const questGetInput = z.strictObject({ quest: Id, entity: EntityRef.optional() });
const questTrackInput = z.strictObject({ quest: Id, tracked: z.boolean().default(true) });
const questTrackOutput = z.object({ quest: z.string(), tracked: z.boolean() });

export function questSkills(game: Game): SkillDefinition[] {
  const { quests } = game;
  const view = (quest: string, entity: string | null) => {
    const def = quests.require(quest);
    const p = entity === null ? undefined : quests.get(quest, entity);
    return {
      quest,
      title: def.title,
      entity,
      status: (p?.status ?? "none") as QuestStatus,
      tracked: p?.tracked ?? false,
      remaining: p?.remaining ?? null,
      reason: p?.reason ?? null,
      objectives: def.objectives.map((o) => ({ id: o.id, text: o.text, count: p?.counts[o.id] ?? (p?.done.includes(o.id) ? o.count : 0), of: o.count, done: p?.done.includes(o.id) ?? false, optional: o.optional })),
    };
  };
  const status = (quest: string, entity: string) => ({ quest, status: quests.statusOf(quest, entity) });
  return gameSkills(game, { module: import.meta.url, factory: "questSkills" }, [
    skill({
      name: "quest.define",
      description: "Define a quest: title, giver NPC, objectives (counted game events like item.picked, conditions like holding 3 relics, or progress by hand), rewards and consequences as effects, a time limit in ticks, a fail condition. Redefining replaces it.",
      access: "define",
      input: QuestDef,
      output: questDefineOutput,
      handler: (def) => ({ quest: def.id, ...quests.define(def) }),
    }),
    skill({
      name: "quest.remove",
      description: "Remove a quest and everyone's progress in it.",
      access: "define",
      input: questRemoveInput,
      output: questRemoveOutput,
      handler: ({ quest }) => {
        quests.undefine(quest);
        return { removed: true };
      },
    }),
    skill({
      name: "quest.offer",
      description: "Offer a quest to an entity (a player may then accept or decline it). Dialogue choices can offer quests too ({offerQuest}).",
      access: "define",
      input: questOfferInput,
      output: Status,
      handler: ({ quest, to }) => {
        quests.offer(quest, to, quests.require(quest).giver ?? null);
        return status(quest, to);
      },
    }),
    skill({
      name: "quest.accept",
      description: "Accept a quest offered to you (or a public one): it becomes active and its objectives start counting. Emits quest.accepted.",
      access: "act",
      input: questAcceptInput,
      output: Status,
      handler: ({ quest }, call) => {
        const actor = call.actor();
        quests.accept(quest, actor);
        return status(quest, actor);
      },
    }),
    skill({
      name: "quest.decline",
      description: "Decline a quest offered to you.",
      access: "act",
      input: questDeclineInput,
      output: Status,
      handler: ({ quest }, call) => {
        const actor = call.actor();
        quests.decline(quest, actor);
        return status(quest, actor);
      },
    }),
    skill({
      name: "quest.abandon",
      description: "Give up a quest you are on: it fails (its onFail effects happen).",
      access: "act",
      input: questAbandonInput,
      output: Status,
      handler: ({ quest }, call) => {
        const actor = call.actor();
        quests.abandon(quest, actor);
        return status(quest, actor);
      },
    }),
    skill({
      name: "quest.update",
      description: "Advance an objective of an entity's active quest by hand (by 1 unless told); an objective reaching its count is done, and a quest with every objective done completes.",
      access: "define",
      input: questUpdateInput,
      output: questUpdateOutput,
      handler: ({ quest, objective, by, for: entity }) => ({ quest, objective, count: quests.progress(quest, objective, by, entity) }),
    }),
    skill({
      name: "quest.complete",
      description: "Complete an entity's active quest now (its rewards happen). Emits quest.completed.",
      access: "define",
      input: questCompleteInput,
      output: Status,
      handler: ({ quest, for: entity }) => {
        quests.complete(quest, entity);
        return status(quest, entity);
      },
    }),
    skill({
      name: "quest.fail",
      description: "Fail an entity's active quest, with a reason (its onFail effects happen). Emits quest.failed.",
      access: "define",
      input: questFailInput,
      output: Status,
      handler: ({ quest, for: entity, reason }) => {
        quests.fail(quest, entity, reason);
        return status(quest, entity);
      },
    }),
    skill({
      name: "quest.list",
      description: "List quests: every definition, or an entity's quests with their status (optionally only one status, e.g. active).",
      access: "read",
      input: questListInput,
      output: questListOutput,
      handler: ({ entity, status: only }) => ({
        quests: [...quests.defs.keys()].map((q) => view(q, entity ?? null)).filter((v) => only === undefined || v.status === only),
      }),
    }),
    skill({
      name: "quest.get",
      description: "One quest: its objectives and, for an entity, its status, progress on each objective, ticks left, whether tracked.",
      access: "read",
      input: questGetInput,
      output: View,
      handler: ({ quest, entity }) => view(quest, entity ?? null),
    }),
    skill({
      name: "quest.track",
      description: "Track (or stop tracking) one of your quests: what a HUD shows.",
      access: "act",
      input: questTrackInput,
      output: questTrackOutput,
      handler: ({ quest, tracked }, call) => {
        quests.track(quest, call.actor(), tracked);
        return { quest, tracked };
      },
    }),
  ]);
}
