// The vocabulary gameplay families share: ids, entity references, tick
// counts, and the two small languages rules are written in — conditions
// (what must hold) and effects (what happens) — as Zod schemas agents see
// in every skill that takes them.

import { z } from "zod";
import { WorldVec3 } from "../../skills/schemas.ts";

/** A name a builder gives a definition (item, quest, trigger, flag …): letters, digits, `_ - . :`. */
export const Id = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.:-]+$/, "an id is 1-64 letters, digits or _ - . :");
/** An id named inside a rule (checked where the thing is defined, so only bounded here: rule schemas stay compact). */
const Ref = z.string().min(1).max(64);
/** An entity id as the world reports it. */
export const EntityRef = z.string().regex(/^ent_\d+$/, "an entity id (ent_…)");
/** A whole number of fixed steps (60 a second), at most a day. */
export const Ticks = z.number().int().min(0).max(5_184_000);
/** A count of items or events. */
export const Count = z.number().int().min(1).max(1_000_000);
/** A stat, counter or damage amount: finite, within ±1e9. */
export const Amount = z.number().min(-1e9).max(1e9);
/** Short free text shown to players. */
export const Text = z.string().min(1).max(500);
/** JSON-able event data: a small flat record of strings, numbers and booleans. */
export const EventData = z.record(z.string().max(64), z.union([z.string().max(500), z.number().min(-1e12).max(1e12), z.boolean()])).refine((d) => Object.keys(d).length <= 32, "at most 32 fields");

/**
 * Whom a condition or effect is about: `actor` (who acts: the player interacting, the entity
 * entering a trigger, the one a status ticks on), `target` (what the action is aimed at),
 * `npc` (the NPC of a dialogue), or an entity id.
 */
export const Who = z.string().regex(/^(actor|target|npc|ent_\d+)$/, "actor, target, npc or an entity id (ent_…)") as z.ZodType<"actor" | "target" | "npc" | `ent_${string}`>;
export type Who = z.infer<typeof Who>;

export const Op = z.enum(["eq", "ne", "gt", "gte", "lt", "lte"]);
export type Op = z.infer<typeof Op>;

export const QUEST_STATUSES = ["none", "offered", "active", "completed", "failed", "declined"] as const;
export type QuestStatus = (typeof QUEST_STATUSES)[number];

export type Condition =
  | { flag: string; is?: boolean }
  | { counter: string; op?: Op; value: number }
  | { has: string; count?: number; who?: Who }
  | { equipped: string; who?: Who }
  | { quest: string; status: QuestStatus; who?: Who }
  | { stat: string; op?: Op; value: number; who?: Who }
  | { hasStatus: string; who?: Who }
  | { timer: string; is: "running" | "done" | "idle" }
  | { attitude: number; op?: Op; npc?: Who; toward?: Who }
  | { level: number; op?: Op; who?: Who }
  | { unlocked: string; who?: Who }
  | { isOpen: string; is?: boolean }
  | { game: "building" | "playing" | "won" | "lost" }
  | { condition: string }
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition };

const who = Who.optional();
const op = Op.optional();

export const Condition: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ flag: Ref, is: z.boolean().optional() }),
    z.strictObject({ counter: Ref, op, value: Amount }),
    z.strictObject({ has: Ref, count: Count.optional(), who }),
    z.strictObject({ equipped: Ref, who }),
    z.strictObject({ quest: Ref, status: z.enum(QUEST_STATUSES), who }),
    z.strictObject({ stat: Ref, op, value: Amount, who }),
    z.strictObject({ hasStatus: Ref, who }),
    z.strictObject({ timer: Ref, is: z.enum(["running", "done", "idle"]) }),
    z.strictObject({ attitude: z.number().min(-100).max(100), op, npc: Who.optional(), toward: who }),
    z.strictObject({ level: z.number().int().min(0).max(1000), op, who }),
    z.strictObject({ unlocked: Ref, who }),
    z.strictObject({ isOpen: EntityRef, is: z.boolean().optional() }),
    z.strictObject({ game: z.enum(["building", "playing", "won", "lost"]) }),
    z.strictObject({ condition: Ref }),
    z.strictObject({ all: z.array(Condition).max(32) }),
    z.strictObject({ any: z.array(Condition).max(32) }),
    z.strictObject({ not: Condition }),
  ])
).describe(
  "A condition on game state, one of: {flag, is?} {counter, op?, value} {has: item, count?} {equipped: item} {quest, status} {stat, op?, value} {hasStatus} {timer, is: running|done|idle} {attitude: n, op?, npc?, toward?} {level, op?} {unlocked} {isOpen: entity, is?} {game: phase} {condition: named} {all: [...]} {any: [...]} {not}. op is eq|ne|gt|gte|lt|lte (default gte); who/toward default to the actor, npc to the dialogue's NPC.",
);

export type Effect =
  | { setFlag: string; value?: boolean }
  | { setCounter: string; value: number }
  | { addCounter: string; by?: number }
  | { give: string; count?: number; to?: Who }
  | { take: string; count?: number; from?: Who }
  | { damage: number; kind?: string; to?: Who }
  | { heal: number; to?: Who }
  | { modifyStat: string; by: number; who?: Who }
  | { applyStatus: string; to?: Who; ticks?: number }
  | { removeStatus: string; from?: Who }
  | { emit: string; data?: Record<string, string | number | boolean> }
  | { startTimer: string; ticks: number; repeat?: boolean; effects?: Effect[] }
  | { stopTimer: string }
  | { open: string }
  | { close: string }
  | { lock: string }
  | { unlock: string }
  | { offerQuest: string; to?: Who }
  | { startQuest: string; for?: Who }
  | { completeQuest: string; for?: Who }
  | { failQuest: string; for?: Who }
  | { progress: string; objective: string; by?: number; for?: Who }
  | { win: string }
  | { lose: string }
  | { say: string; as?: Who }
  | { xp: number; to?: Who }
  | { grant: string; to?: Who }
  | { remember: string; about?: Who; npc?: Who }
  | { attitude: number; npc?: Who; toward?: Who }
  | { teleport: [number, number, number]; who?: Who }
  | { destroy: Who }
  | { spawnItem: string; count?: number; at: [number, number, number] }
  | { grantAbility: string; to?: Who }
  | { if: Condition; then: Effect[]; else?: Effect[] };

const to = Who.optional();
const Effects = (): z.ZodType<Effect[]> => z.array(Effect).max(32);

export const Effect: z.ZodType<Effect> = z.lazy(() =>
  z.union([
    z.strictObject({ setFlag: Ref, value: z.boolean().optional() }),
    z.strictObject({ setCounter: Ref, value: Amount }),
    z.strictObject({ addCounter: Ref, by: Amount.optional() }),
    z.strictObject({ give: Ref, count: Count.optional(), to }),
    z.strictObject({ take: Ref, count: Count.optional(), from: to }),
    z.strictObject({ damage: z.number().gt(0).max(1e9), kind: Ref.optional(), to }),
    z.strictObject({ heal: z.number().gt(0).max(1e9), to }),
    z.strictObject({ modifyStat: Ref, by: Amount, who: to }),
    z.strictObject({ applyStatus: Ref, to, ticks: Ticks.optional() }),
    z.strictObject({ removeStatus: Ref, from: to }),
    z.strictObject({ emit: Ref, data: EventData.optional() }),
    z.strictObject({ startTimer: Ref, ticks: Ticks.min(1), repeat: z.boolean().optional(), effects: Effects().optional() }),
    z.strictObject({ stopTimer: Ref }),
    z.strictObject({ open: EntityRef }),
    z.strictObject({ close: EntityRef }),
    z.strictObject({ lock: EntityRef }),
    z.strictObject({ unlock: EntityRef }),
    z.strictObject({ offerQuest: Ref, to }),
    z.strictObject({ startQuest: Ref, for: to }),
    z.strictObject({ completeQuest: Ref, for: to }),
    z.strictObject({ failQuest: Ref, for: to }),
    z.strictObject({ progress: Ref, objective: Ref, by: Count.optional(), for: to }),
    z.strictObject({ win: Text }),
    z.strictObject({ lose: Text }),
    z.strictObject({ say: z.string().min(1).max(280), as: Who.optional() }),
    z.strictObject({ xp: z.number().int().min(1).max(1e9), to }),
    z.strictObject({ grant: Ref, to }),
    z.strictObject({ remember: Text, about: to, npc: Who.optional() }),
    z.strictObject({ attitude: z.number().min(-200).max(200), npc: Who.optional(), toward: to }),
    z.strictObject({ teleport: WorldVec3, who: to }),
    z.strictObject({ destroy: Who }),
    z.strictObject({ spawnItem: Ref, count: Count.optional(), at: WorldVec3 }),
    z.strictObject({ grantAbility: Ref, to }),
    z.strictObject({ if: Condition, then: Effects(), else: Effects().optional() }),
  ])
).describe(
  "An effect on the game, one of: {setFlag, value?} {setCounter, value} {addCounter, by?} {give: item, count?, to?} {take: item, count?, from?} {damage: n, kind?, to?} {heal: n, to?} {modifyStat, by, who?} {applyStatus, to?, ticks?} {removeStatus, from?} {emit: type, data?} {startTimer, ticks, repeat?, effects?} {stopTimer} {open|close|lock|unlock: entity} {offerQuest, to?} {startQuest|completeQuest|failQuest, for?} {progress: quest, objective, by?, for?} {win: reason} {lose: reason} {say: line, as?} {xp: n, to?} {grant: unlock, to?} {remember: text, about?, npc?} {attitude: delta, npc?, toward?} {teleport: [x,y,z], who?} {destroy: who} {spawnItem: item, count?, at} {grantAbility, to?} {if: condition, then, else?}. Whom (to/from/for/who/as/toward) is actor (default), target, npc or an entity id.",
);

export const EffectList = z.array(Effect).max(32);
