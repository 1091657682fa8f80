// Stats: named numbers on entities (health, mana, attack, defense, …),
// each with bounds, a per-tick regeneration and effects for when it runs
// out; what they read as after equipment and status modifiers; damage (by
// kind, through resistances and defense) and healing. The world resource
// `game.stats`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import type { Modifier } from "../items/items.ts";
import { Amount, EffectList, EntityRef, Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, clampAmount, fill } from "../state/state.ts";

export const StatFields = z.strictObject({
  value: Amount.optional().describe("its starting value (default max, or 0 without a max)"),
  min: Amount.default(0),
  max: Amount.optional().describe("its ceiling (none: unbounded above)"),
  regen: z.number().min(-1e6).max(1e6).default(0).describe("added every tick (negative drains)"),
  onZero: EffectList.default([]).describe("effects when it falls to its min (the entity is actor, who caused it target)"),
});

/** What a stat's fields must also satisfy together. */
export function statChecks(s: { min: number; max?: number }, ctx: z.RefinementCtx): void {
  if (s.max !== undefined && s.max < s.min) ctx.addIssue({ code: "custom", path: ["max"], message: "max must be ≥ min" });
}

export const StatSpec = StatFields.superRefine(statChecks);
export type StatSpec = z.input<typeof StatSpec>;

export interface Stat {
  value: number;
  min: number;
  max: number | null;
  regen: number;
  onZero: z.output<typeof EffectList>;
}

const StatSave = z.strictObject({ value: z.number(), min: z.number(), max: z.number().nullable(), regen: z.number(), onZero: EffectList });
const Saved = z.strictObject({
  stats: z.array(z.tuple([EntityRef, z.array(z.tuple([Id, StatSave]))])),
  modifiers: z.array(z.tuple([EntityRef, z.array(z.tuple([Id, z.strictObject({ stat: Id, add: z.number().optional(), mul: z.number().optional() })]))])),
  resistances: z.array(z.tuple([EntityRef, z.array(z.tuple([Id, z.number()]))])),
});
type Saved = z.infer<typeof Saved>;

/** The stat damage and healing act on. */
export const HEALTH = "health";
/** The stat that takes away from incoming damage, one point per point. */
export const DEFENSE = "defense";

export class Stats {
  readonly stats = new Map<string, Map<string, Stat>>();
  /** Modifiers set by builders (stats.addModifier), by entity then id. */
  readonly modifiers = new Map<string, Map<string, Modifier>>();
  /** Damage kind → factor (0 immune, 1 normal, 2 double), by entity. */
  readonly resistances = new Map<string, Map<string, number>>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    const pairs = <V>(m: Map<string, Map<string, V>>, copy: (v: V) => V) => [...m].map(([e, inner]) => [e, [...inner].map(([k, v]) => [k, copy(v)])]) as [string, [string, V][]][];
    return { stats: pairs(this.stats, (s) => ({ ...s })), modifiers: pairs(this.modifiers, (m) => ({ ...m })), resistances: pairs(this.resistances, (r) => r) };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.stats");
    fill(this.stats, s?.stats.map(([e, inner]) => [e, new Map(inner.map(([k, v]) => [k, { ...v }]))]));
    fill(this.modifiers, s?.modifiers.map(([e, inner]) => [e, new Map(inner)]));
    fill(this.resistances, s?.resistances.map(([e, inner]) => [e, new Map(inner)]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const m of [this.stats, this.modifiers, this.resistances] as Map<string, unknown>[]) for (const e of [...m.keys()]) if (!alive(e)) m.delete(e);
  }

  define(entity: string, name: string, spec: StatSpec): Stat {
    const s = StatSpec.parse(spec);
    this.game.entities.require(entity);
    let m = this.stats.get(entity);
    if (!m) {
      checkRoom(this.stats, entity, "entities with stats");
      this.stats.set(entity, m = new Map());
    }
    checkRoom(m, name, "stats on one entity");
    const max = s.max ?? null;
    const value = s.value ?? max ?? 0;
    if (value < s.min || (max !== null && value > max)) throw engineError("invalid_input", `${name} starts at ${value}, outside [${s.min}, ${max ?? "∞"}]`);
    const stat: Stat = { value, min: s.min, max, regen: s.regen, onZero: s.onZero };
    m.set(name, stat);
    this.game.signal("stats.defined", { actor: entity, stat: name, value });
    return stat;
  }

  remove(entity: string, name: string): boolean {
    const had = this.stats.get(entity)?.delete(name) ?? false;
    if (had) this.game.signal("stats.removed", { actor: entity, stat: name });
    return had;
  }

  get(entity: string, name: string): Stat | undefined {
    return this.stats.get(entity)?.get(name);
  }

  require(entity: string, name: string): Stat {
    const s = this.get(entity, name);
    if (!s) throw engineError("not_found", `${entity} has no ${name} stat (stats.define gives it one)`);
    return s;
  }

  /** Every modifier on `entity`'s `name`: its builder-set ones, then its equipment's, then its statuses'. */
  modifiersOf(entity: string, name: string): Modifier[] {
    return [...(this.modifiers.get(entity)?.values() ?? []), ...this.game.items.modifiersOf(entity), ...this.game.statuses.modifiersOf(entity)].filter((m) => m.stat === name);
  }

  /** What `name` reads as: its value plus the modifiers' adds, times their multipliers; null when it has none. */
  value(entity: string, name: string): number | null {
    const s = this.get(entity, name);
    const mods = this.modifiersOf(entity, name);
    if (!s && mods.length === 0) return null;
    let v = s?.value ?? 0;
    for (const m of mods) v += m.add ?? 0;
    for (const m of mods) v *= m.mul ?? 1;
    return v;
  }

  /** Sets a stat's value within its bounds; running out (reaching min from above) fires its onZero. `quiet`: no stats.changed event (regeneration, damage and healing, which say so themselves). */
  set(entity: string, name: string, value: number, cause: string | null, quiet = false): number {
    const s = this.require(entity, name);
    const was = s.value;
    s.value = Math.max(s.min, s.max === null ? clampAmount(value) : Math.min(s.max, clampAmount(value)));
    if (s.value !== was && !quiet) this.game.signal("stats.changed", { actor: entity, stat: name, value: s.value, was });
    if (s.value <= s.min && was > s.min) {
      this.game.signal("stats.depleted", { actor: entity, stat: name, ...(cause ? { target: cause } : {}) });
      this.game.apply(s.onZero, { actor: entity, target: cause ?? undefined });
    }
    return s.value;
  }

  modify(entity: string, name: string, by: number, cause: string | null): number {
    return this.set(entity, name, this.require(entity, name).value + by, cause);
  }

  setResistance(entity: string, kind: string, factor: number): void {
    this.game.entities.require(entity);
    let m = this.resistances.get(entity);
    if (!m) this.resistances.set(entity, m = new Map());
    checkRoom(m, kind, "resistances on one entity");
    m.set(kind, factor);
  }

  addModifier(entity: string, id: string, modifier: Modifier): void {
    this.game.entities.require(entity);
    let m = this.modifiers.get(entity);
    if (!m) this.modifiers.set(entity, m = new Map());
    checkRoom(m, id, "modifiers on one entity");
    m.set(id, modifier);
  }

  removeModifier(entity: string, id: string): boolean {
    return this.modifiers.get(entity)?.delete(id) ?? false;
  }

  /**
   * Deals `amount` of `kind` damage to `entity`'s health: scaled by its resistance to the kind,
   * less its defense, never below zero. Returns what was dealt and the health left.
   */
  damage(entity: string, amount: number, kind: string, source: string | null): { dealt: number; health: number } {
    const health = this.require(entity, HEALTH);
    const factor = this.resistances.get(entity)?.get(kind) ?? 1;
    const defense = Math.max(0, this.value(entity, DEFENSE) ?? 0);
    const dealt = Math.min(health.value - health.min, Math.max(0, amount * factor - defense));
    this.game.signal("damage.dealt", { actor: source ?? entity, target: entity, amount: dealt, kind });
    // damage.dealt says what changed: no stats.changed besides.
    const left = this.set(entity, HEALTH, health.value - dealt, source, true);
    if (source !== null && source !== entity && dealt > 0 && this.game.npcs.has(entity)) this.game.npcs.hurtBy(entity, source, dealt);
    return { dealt, health: left };
  }

  heal(entity: string, amount: number, source: string | null): { healed: number; health: number } {
    const health = this.require(entity, HEALTH);
    const was = health.value;
    const left = this.set(entity, HEALTH, was + amount, source, true);
    this.game.signal("damage.healed", { actor: source ?? entity, target: entity, amount: left - was });
    return { healed: left - was, health: left };
  }

  /** One fixed step of regeneration. */
  step(): void {
    for (const [entity, m] of this.stats) {
      for (const [name, s] of m) {
        if (s.regen === 0) continue;
        const next = s.value + s.regen;
        if ((s.regen > 0 && s.max !== null && s.value >= s.max) || (s.regen < 0 && s.value <= s.min)) continue;
        this.set(entity, name, next, null, true);
      }
    }
  }
}
