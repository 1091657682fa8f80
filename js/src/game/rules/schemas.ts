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

/**
 * A rule language (conditions, effects) as agents see it: a JSON object whose one key names
 * what it is, the whole vocabulary in the description — compact in every skill's schema — and
 * checked strictly by the variant that key names, so a bad rule gets a precise error.
 */
function rule<T>(what: string, variants: Record<string, z.ZodType>, description: string): z.ZodType<T> {
  const keys = Object.keys(variants);
  return z
    .record(z.string(), z.unknown())
    .superRefine((value, ctx) => {
      const named = Object.keys(value).filter((k) => k in variants);
      if (named.length !== 1) {
        ctx.addIssue({ code: "custom", message: `${what} names exactly one of ${keys.join(", ")}; got ${named.length ? named.join(" and ") : `{${Object.keys(value).join(", ")}}`}` });
        return;
      }
      const parsed = variants[named[0]].safeParse(value);
      if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: `${named[0]}: ${issue.message}`, path: issue.path as PropertyKey[] });
    })
    .describe(description) as unknown as z.ZodType<T>;
}

const conditions = (): z.ZodType<Condition[]> => z.array(z.lazy(() => Condition)).max(32);

export const Condition: z.ZodType<Condition> = rule<Condition>(
  "a condition",
  {
    flag: z.strictObject({ flag: Ref, is: z.boolean().optional() }),
    counter: z.strictObject({ counter: Ref, op, value: Amount }),
    has: z.strictObject({ has: Ref, count: Count.optional(), who }),
    equipped: z.strictObject({ equipped: Ref, who }),
    quest: z.strictObject({ quest: Ref, status: z.enum(QUEST_STATUSES), who }),
    stat: z.strictObject({ stat: Ref, op, value: Amount, who }),
    hasStatus: z.strictObject({ hasStatus: Ref, who }),
    timer: z.strictObject({ timer: Ref, is: z.enum(["running", "done", "idle"]) }),
    attitude: z.strictObject({ attitude: z.number().min(-100).max(100), op, npc: Who.optional(), toward: who }),
    level: z.strictObject({ level: z.number().int().min(0).max(1000), op, who }),
    unlocked: z.strictObject({ unlocked: Ref, who }),
    isOpen: z.strictObject({ isOpen: EntityRef, is: z.boolean().optional() }),
    game: z.strictObject({ game: z.enum(["building", "playing", "won", "lost"]) }),
    condition: z.strictObject({ condition: Ref }),
    all: z.strictObject({ all: conditions() }),
    any: z.strictObject({ any: conditions() }),
    not: z.strictObject({ not: z.lazy(() => Condition) }),
  },
  "A condition on game state, one of: {flag, is?} {counter, op?, value} {has: item, count?, who?} {equipped: item, who?} {quest, status: none|offered|active|completed|failed|declined, who?} {stat, op?, value, who?} {hasStatus, who?} {timer, is: running|done|idle} {attitude: n, op?, npc?, toward?} {level: n, op?, who?} {unlocked, who?} {isOpen: entity, is?} {game: building|playing|won|lost} {condition: named} {all: [conditions]} {any: [conditions]} {not: condition}. op is eq|ne|gt|gte|lt|lte (default gte); who/toward is actor (default), target, npc or an entity id; npc defaults to the dialogue's NPC.",
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
const effects = (): z.ZodType<Effect[]> => z.array(z.lazy(() => Effect)).max(32);
const Positive = z.number().gt(0).max(1e9);

export const Effect: z.ZodType<Effect> = rule<Effect>(
  "an effect",
  {
    setFlag: z.strictObject({ setFlag: Ref, value: z.boolean().optional() }),
    setCounter: z.strictObject({ setCounter: Ref, value: Amount }),
    addCounter: z.strictObject({ addCounter: Ref, by: Amount.optional() }),
    give: z.strictObject({ give: Ref, count: Count.optional(), to }),
    take: z.strictObject({ take: Ref, count: Count.optional(), from: to }),
    damage: z.strictObject({ damage: Positive, kind: Ref.optional(), to }),
    heal: z.strictObject({ heal: Positive, to }),
    modifyStat: z.strictObject({ modifyStat: Ref, by: Amount, who: to }),
    applyStatus: z.strictObject({ applyStatus: Ref, to, ticks: Ticks.optional() }),
    removeStatus: z.strictObject({ removeStatus: Ref, from: to }),
    emit: z.strictObject({ emit: Ref, data: EventData.optional() }),
    startTimer: z.strictObject({ startTimer: Ref, ticks: Ticks.min(1), repeat: z.boolean().optional(), effects: effects().optional() }),
    stopTimer: z.strictObject({ stopTimer: Ref }),
    open: z.strictObject({ open: EntityRef }),
    close: z.strictObject({ close: EntityRef }),
    lock: z.strictObject({ lock: EntityRef }),
    unlock: z.strictObject({ unlock: EntityRef }),
    offerQuest: z.strictObject({ offerQuest: Ref, to }),
    startQuest: z.strictObject({ startQuest: Ref, for: to }),
    completeQuest: z.strictObject({ completeQuest: Ref, for: to }),
    failQuest: z.strictObject({ failQuest: Ref, for: to }),
    progress: z.strictObject({ progress: Ref, objective: Ref, by: Count.optional(), for: to }),
    win: z.strictObject({ win: Text }),
    lose: z.strictObject({ lose: Text }),
    say: z.strictObject({ say: z.string().min(1).max(280), as: Who.optional() }),
    xp: z.strictObject({ xp: z.number().int().min(1).max(1e9), to }),
    grant: z.strictObject({ grant: Ref, to }),
    remember: z.strictObject({ remember: Text, about: to, npc: Who.optional() }),
    attitude: z.strictObject({ attitude: z.number().min(-200).max(200), npc: Who.optional(), toward: to }),
    teleport: z.strictObject({ teleport: WorldVec3, who: to }),
    destroy: z.strictObject({ destroy: Who }),
    spawnItem: z.strictObject({ spawnItem: Ref, count: Count.optional(), at: WorldVec3 }),
    grantAbility: z.strictObject({ grantAbility: Ref, to }),
    if: z.strictObject({ if: z.lazy(() => Condition), then: effects(), else: effects().optional() }),
  },
  "An effect on the game, one of: {setFlag, value?} {setCounter, value} {addCounter, by?} {give: item, count?, to?} {take: item, count?, from?} {damage: n, kind?, to?} {heal: n, to?} {modifyStat: stat, by, who?} {applyStatus: id, to?, ticks?} {removeStatus: id, from?} {emit: type, data?} {startTimer: name, ticks, repeat?, effects?} {stopTimer} {open|close|lock|unlock: entity} {offerQuest: quest, to?} {startQuest|completeQuest|failQuest: quest, for?} {progress: quest, objective, by?, for?} {win: reason} {lose: reason} {say: line, as?} {xp: n, to?} {grant: unlock, to?} {remember: text, about?, npc?} {attitude: delta, npc?, toward?} {teleport: [x,y,z], who?} {destroy: who} {spawnItem: item, count?, at: [x,y,z]} {grantAbility: id, to?} {if: condition, then: [effects], else?: [effects]}. Whom (to/from/for/who/as/toward/about/destroy) is actor (default), target, npc or an entity id.",
);

export const EffectList = z.array(Effect).max(32);
