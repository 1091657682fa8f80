// Status effects: kinds defined once (poison, regeneration, haste, …) —
// how long they last, what happens every period while they do (damage or
// healing over time, any effect) and the stat modifiers they bring — and
// the statuses active on each entity, counted down in ticks. The world
// resource `game.statuses`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import { type Modifier, Modifier as ModifierSchema } from "../items/items.ts";
import { EffectList, EntityRef, Id, Ticks } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const StatusDef = z.strictObject({
  id: Id,
  name: z.string().min(1).max(80),
  ticks: Ticks.min(1).default(300).describe("how long it lasts"),
  every: Ticks.min(1).default(60).describe("ticks between its periodic effects"),
  effects: EffectList.default([]).describe("every period, per stack (the affected entity is actor, who applied it target)"),
  modifiers: z.array(ModifierSchema).max(16).default([]).describe("stat modifiers while active, per stack"),
  stacking: z.enum(["refresh", "stack", "ignore"]).default("refresh").describe("applied again: restart the clock, add a stack (and restart), or do nothing"),
  maxStacks: z.number().int().min(1).max(100).default(5),
  onExpire: EffectList.default([]),
});
export type StatusDef = z.output<typeof StatusDef>;

export interface Active {
  id: string;
  remaining: number;
  elapsed: number;
  stacks: number;
  source: string | null;
}

const ActiveSave = z.strictObject({ id: Id, remaining: z.number().int().min(0), elapsed: z.number().int().min(0), stacks: z.number().int().min(1), source: z.string().nullable() });
const Saved = z.strictObject({ defs: z.array(StatusDef), active: z.array(z.tuple([EntityRef, z.array(ActiveSave)])) });
type Saved = z.infer<typeof Saved>;

export class Statuses {
  readonly defs = new Map<string, StatusDef>();
  readonly active = new Map<string, Active[]>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return { defs: [...this.defs.values()], active: [...this.active].map(([e, list]) => [e, list.map((a) => ({ ...a }))]) };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.statuses");
    fill(this.defs, s?.defs.map((d) => [d.id, d]));
    fill(this.active, s?.active.map(([e, list]) => [e, list.map((a) => ({ ...a }))]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const e of [...this.active.keys()]) if (!alive(e)) this.active.delete(e);
  }

  define(def: StatusDef): { created: boolean } {
    checkRoom(this.defs, def.id, "status effects");
    const created = !this.defs.has(def.id);
    this.defs.set(def.id, def);
    return { created };
  }

  require(id: string): StatusDef {
    const def = this.defs.get(id);
    if (!def) throw engineError("not_found", `no status effect ${JSON.stringify(id)} (status.define makes one)`);
    return def;
  }

  has(entity: string, id: string): boolean {
    return this.active.get(entity)?.some((a) => a.id === id) ?? false;
  }

  list(entity: string): Active[] {
    return (this.active.get(entity) ?? []).map((a) => ({ ...a }));
  }

  /** Applies a status for `ticks` (default its own duration), stacking as its definition says. */
  apply(entity: string, id: string, ticks: number | undefined, source: string | null): Active {
    const def = this.require(id);
    this.game.entities.require(entity);
    const duration = ticks ?? def.ticks;
    let list = this.active.get(entity);
    if (!list) this.active.set(entity, list = []);
    const existing = list.find((a) => a.id === id);
    if (existing) {
      if (def.stacking === "ignore") return { ...existing };
      if (def.stacking === "stack") existing.stacks = Math.min(def.maxStacks, existing.stacks + 1);
      existing.remaining = duration;
      existing.source = source;
      this.game.signal("status.refreshed", { actor: entity, status: id, stacks: existing.stacks, ticks: duration });
      return { ...existing };
    }
    if (list.length >= 64) throw engineError("capacity_exceeded", `${entity} already has 64 status effects`);
    const a: Active = { id, remaining: duration, elapsed: 0, stacks: 1, source };
    list.push(a);
    this.game.signal("status.applied", { actor: entity, status: id, ticks: duration, ...(source ? { target: source } : {}) });
    return { ...a };
  }

  remove(entity: string, id: string): boolean {
    const list = this.active.get(entity);
    const k = list?.findIndex((a) => a.id === id) ?? -1;
    if (k < 0) return false;
    list!.splice(k, 1);
    this.game.signal("status.removed", { actor: entity, status: id });
    return true;
  }

  clear(entity: string): number {
    const n = this.active.get(entity)?.length ?? 0;
    for (const a of [...(this.active.get(entity) ?? [])]) this.remove(entity, a.id);
    return n;
  }

  modifiersOf(entity: string): Modifier[] {
    const out: Modifier[] = [];
    for (const a of this.active.get(entity) ?? []) {
      const def = this.defs.get(a.id);
      if (def) for (let k = 0; k < a.stacks; k++) out.push(...def.modifiers);
    }
    return out;
  }

  /** One fixed step: periodic effects, then expiry. */
  step(): void {
    for (const [entity, list] of [...this.active]) {
      for (const a of [...list]) {
        const def = this.defs.get(a.id);
        if (!def || !this.game.alive(entity)) continue;
        a.elapsed++;
        a.remaining--;
        if (a.elapsed % def.every === 0) {
          for (let k = 0; k < a.stacks; k++) this.game.apply(def.effects, { actor: entity, target: a.source ?? undefined });
        }
        if (a.remaining <= 0 && (this.active.get(entity)?.includes(a) ?? false)) {
          list.splice(list.indexOf(a), 1);
          this.game.signal("status.expired", { actor: entity, status: a.id });
          this.game.apply(def.onExpire, { actor: entity, target: a.source ?? undefined });
        }
      }
    }
  }
}
