// Quests: definitions (objectives bound to game events, to conditions on
// flags, counters, inventories and more, or advanced by hand; rewards and
// consequences as effects; an optional time limit in ticks) and each
// player's progress through them — offered, active, completed, failed or
// declined, objective by objective. The world resource `game.quests`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import { Condition, Count, EffectList, EntityRef, EventData, Id, type QuestStatus, Ticks } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const Objective = z
  .strictObject({
    id: Id,
    text: z.string().min(1).max(200),
    event: z
      .strictObject({
        type: Id.describe("the game event that counts, e.g. item.picked"),
        where: EventData.default({}).describe("fields its data must equal, e.g. {item: \"relic\"}"),
        anyone: z.boolean().default(false).describe("count anyone's events, not only the quest holder's"),
      })
      .optional()
      .describe("done after `count` matching events"),
    when: Condition.optional().describe("done while this holds for the quest holder (e.g. {has: \"relic\", count: 3})"),
    count: Count.default(1).describe("events (or hand-made progress) it takes"),
    optional: z.boolean().default(false),
  })
  .refine((o) => !(o.event && o.when), { message: "an objective counts events or waits for a condition, not both" });

export const QuestDef = z.strictObject({
  id: Id,
  title: z.string().min(1).max(120),
  description: z.string().max(1000).default(""),
  giver: EntityRef.optional().describe("the NPC who gives it (the npc of its effects)"),
  objectives: z.array(Objective).min(1).max(32),
  public: z.boolean().default(false).describe("anyone may accept it without an offer"),
  autoComplete: z.boolean().default(true).describe("complete as soon as every required objective is done"),
  timeLimit: Ticks.min(1).optional().describe("ticks to finish in once accepted, or it fails"),
  failWhen: Condition.optional().describe("fails as soon as this holds for the holder"),
  onOffer: EffectList.default([]),
  onAccept: EffectList.default([]),
  rewards: EffectList.default([]).describe("effects on completion (the holder is actor, the giver npc)"),
  onFail: EffectList.default([]),
});
export type QuestDef = z.output<typeof QuestDef>;

export interface Progress {
  status: Exclude<QuestStatus, "none">;
  /** Objective id → events counted (or progress made). */
  counts: Record<string, number>;
  /** Objective ids done, in the order they were done. */
  done: string[];
  tracked: boolean;
  /** Ticks left before it fails (quests with a time limit, while active). */
  remaining: number | null;
  reason: string | null;
}

const ProgressSave = z.strictObject({
  status: z.enum(["offered", "active", "completed", "failed", "declined"]),
  counts: z.record(Id, z.number().int().min(0)),
  done: z.array(Id),
  tracked: z.boolean(),
  remaining: z.number().int().min(0).nullable(),
  reason: z.string().nullable(),
});
const Saved = z.strictObject({ defs: z.array(QuestDef), progress: z.array(z.tuple([Id, z.array(z.tuple([EntityRef, ProgressSave]))])) });
type Saved = z.infer<typeof Saved>;

export class Quests {
  readonly defs = new Map<string, QuestDef>();
  /** Quest id → holder entity → progress. */
  readonly byQuest = new Map<string, Map<string, Progress>>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return { defs: [...this.defs.values()], progress: [...this.byQuest].map(([q, m]) => [q, [...m].map(([e, p]) => [e, { ...p, counts: { ...p.counts }, done: [...p.done] }])]) };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.quests");
    fill(this.defs, s?.defs.map((d) => [d.id, d]));
    fill(this.byQuest, s?.progress.map(([q, m]) => [q, new Map(m.map(([e, p]) => [e, { ...p }]))]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const m of this.byQuest.values()) for (const e of [...m.keys()]) if (!alive(e)) m.delete(e);
  }

  define(def: QuestDef): { created: boolean } {
    checkRoom(this.defs, def.id, "quests");
    const ids = def.objectives.map((o) => o.id);
    if (new Set(ids).size !== ids.length) throw engineError("invalid_input", `quest ${def.id} repeats an objective id`);
    if (def.giver !== undefined) this.game.entities.require(def.giver);
    const created = !this.defs.has(def.id);
    this.defs.set(def.id, def);
    this.game.signal("quest.defined", { quest: def.id, created });
    return { created };
  }

  undefine(id: string): void {
    this.require(id);
    this.defs.delete(id);
    this.byQuest.delete(id);
    this.game.signal("quest.removed", { quest: id });
  }

  require(id: string): QuestDef {
    const def = this.defs.get(id);
    if (!def) throw engineError("not_found", `no quest ${JSON.stringify(id)} (quest.define makes one)`);
    return def;
  }

  get(quest: string, entity: string): Progress | undefined {
    return this.byQuest.get(quest)?.get(entity);
  }

  statusOf(quest: string, entity: string): QuestStatus {
    return this.get(quest, entity)?.status ?? "none";
  }

  private ctx(def: QuestDef, entity: string) {
    return { actor: entity, npc: def.giver };
  }

  private set(quest: string, entity: string, p: Progress): void {
    if (!this.game.alive(entity)) throw engineError("not_found", `unknown entity ${JSON.stringify(entity)}`);
    let m = this.byQuest.get(quest);
    if (!m) this.byQuest.set(quest, m = new Map());
    m.set(entity, p);
  }

  offer(quest: string, entity: string, by: string | null): void {
    const def = this.require(quest);
    const status = this.statusOf(quest, entity);
    if (status === "active" || status === "completed") throw engineError("invalid_input", `${entity} has already ${status === "active" ? "accepted" : "completed"} ${quest}`);
    if (status === "offered") return;
    this.set(quest, entity, { status: "offered", counts: {}, done: [], tracked: false, remaining: null, reason: null });
    this.game.signal("quest.offered", { quest, actor: entity, ...(by ? { npc: by } : {}) });
    this.game.apply(def.onOffer, this.ctx(def, entity));
  }

  /** Accepts a quest: it must have been offered to `entity`, or be public (`force` skips this: rules start quests). */
  accept(quest: string, entity: string, force = false): void {
    const def = this.require(quest);
    const status = this.statusOf(quest, entity);
    if (status === "active") throw engineError("invalid_input", `${entity} is already on ${quest}`);
    if (status === "completed") throw engineError("invalid_input", `${entity} has completed ${quest}`);
    if (!force && status !== "offered" && !def.public) throw engineError("invalid_input", `${quest} was not offered to ${entity}`);
    this.set(quest, entity, { status: "active", counts: {}, done: [], tracked: true, remaining: def.timeLimit ?? null, reason: null });
    this.game.signal("quest.accepted", { quest, actor: entity });
    this.game.apply(def.onAccept, this.ctx(def, entity));
  }

  decline(quest: string, entity: string): void {
    this.require(quest);
    const p = this.get(quest, entity);
    if (p?.status !== "offered") throw engineError("invalid_input", `${quest} is not on offer to ${entity}`);
    p.status = "declined";
    this.game.signal("quest.declined", { quest, actor: entity });
  }

  /** Gives up an active quest: it fails. */
  abandon(quest: string, entity: string): void {
    if (this.statusOf(quest, entity) !== "active") throw engineError("invalid_input", `${entity} is not on ${quest}`);
    this.fail(quest, entity, "abandoned");
  }

  private active(quest: string, entity: string): Progress {
    this.require(quest);
    const p = this.get(quest, entity);
    if (p?.status !== "active") throw engineError("invalid_input", `${entity} is not on ${quest} (it is ${p?.status ?? "none"})`);
    return p;
  }

  /** Advances an objective by hand (objectives without an event or condition, or to help one along). */
  progress(quest: string, objective: string, by: number, entity: string): number {
    const def = this.require(quest);
    const o = def.objectives.find((x) => x.id === objective);
    if (!o) throw engineError("not_found", `quest ${quest} has no objective ${objective}`);
    const p = this.active(quest, entity);
    const n = Math.min(o.count, (p.counts[objective] ?? 0) + by);
    p.counts[objective] = n;
    this.game.signal("quest.progressed", { quest, objective, actor: entity, count: n, of: o.count });
    if (n >= o.count) this.markDone(quest, objective, entity, p);
    return n;
  }

  private markDone(quest: string, objective: string, entity: string, p: Progress): void {
    if (p.done.includes(objective)) return;
    p.done.push(objective);
    this.game.signal("quest.objective.done", { quest, objective, actor: entity });
  }

  complete(quest: string, entity: string): void {
    const def = this.require(quest);
    const p = this.active(quest, entity);
    p.status = "completed";
    p.remaining = null;
    this.game.signal("quest.completed", { quest, actor: entity });
    this.game.apply(def.rewards, this.ctx(def, entity));
  }

  fail(quest: string, entity: string, reason: string): void {
    const def = this.require(quest);
    const p = this.active(quest, entity);
    p.status = "failed";
    p.remaining = null;
    p.reason = reason;
    this.game.signal("quest.failed", { quest, actor: entity, reason });
    this.game.apply(def.onFail, this.ctx(def, entity));
  }

  track(quest: string, entity: string, tracked: boolean): void {
    const p = this.get(quest, entity);
    if (!p) throw engineError("invalid_input", `${entity} has no part in ${quest}`);
    p.tracked = tracked;
  }

  /** Counts a game event toward the event objectives it matches, in every active quest. */
  hear(type: string, data: Record<string, unknown>): void {
    for (const [quest, m] of this.byQuest) {
      const def = this.defs.get(quest);
      if (!def) continue;
      for (const o of def.objectives) {
        if (o.event?.type !== type || !Object.entries(o.event.where).every(([k, v]) => data[k] === v)) continue;
        for (const [entity, p] of m) {
          if (p.status !== "active" || p.done.includes(o.id)) continue;
          if (!o.event.anyone && data.actor !== entity) continue;
          p.counts[o.id] = (p.counts[o.id] ?? 0) + 1;
          this.game.signal("quest.progressed", { quest, objective: o.id, actor: entity, count: p.counts[o.id], of: o.count });
          if (p.counts[o.id] >= o.count) this.markDone(quest, o.id, entity, p);
        }
      }
    }
  }

  /** One fixed step of time limits. */
  step(): void {
    for (const [quest, m] of this.byQuest) {
      for (const [entity, p] of m) {
        if (p.status !== "active" || p.remaining === null) continue;
        p.remaining = Math.max(0, p.remaining - 1);
        if (p.remaining === 0) this.fail(quest, entity, "out of time");
      }
    }
  }

  /** Condition objectives, fail conditions and completion; true when anything changed. */
  settle(): boolean {
    let changed = false;
    for (const [quest, m] of this.byQuest) {
      const def = this.defs.get(quest);
      if (!def) continue;
      for (const [entity, p] of [...m]) {
        if (p.status !== "active") continue;
        const ctx = this.ctx(def, entity);
        if (def.failWhen && this.game.check(def.failWhen, ctx)) {
          this.fail(quest, entity, "its fail condition holds");
          changed = true;
          continue;
        }
        for (const o of def.objectives) {
          if (o.when && !p.done.includes(o.id) && this.game.check(o.when, ctx)) {
            this.markDone(quest, o.id, entity, p);
            changed = true;
          }
        }
        if (def.autoComplete && def.objectives.every((o) => o.optional || p.done.includes(o.id))) {
          this.complete(quest, entity);
          changed = true;
        }
      }
    }
    return changed;
  }
}
