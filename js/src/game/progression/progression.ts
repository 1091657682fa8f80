// Progression: experience that adds up to levels (a curve builders set:
// the xp each level needs), what reaching a level grants (effects, unlocks)
// and the unlocks each entity holds. The world resource `game.progression`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import { EffectList, EntityRef, Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const Curve = z.strictObject({
  levels: z.array(z.number().int().min(1).max(1e9)).min(1).max(200).describe("xp needed to reach level 2, 3, … (cumulative, rising)"),
  rewards: z.record(z.string().regex(/^\d+$/), z.strictObject({ effects: EffectList.default([]), unlocks: z.array(Id).max(16).default([]) })).default({}).describe("by level reached: effects (the entity is actor) and unlocks"),
});
export type Curve = z.output<typeof Curve>;

interface Standing {
  xp: number;
  level: number;
  unlocks: string[];
}

const DEFAULT_CURVE: Curve = { levels: [100, 250, 450, 700, 1000, 1400, 1900, 2500, 3200], rewards: {} };
const Saved = z.strictObject({ curve: Curve, records: z.array(z.tuple([EntityRef, z.strictObject({ xp: z.number().int().min(0), level: z.number().int().min(1), unlocks: z.array(Id) })])) });
type Saved = z.infer<typeof Saved>;

export class Progression {
  curve: Curve = DEFAULT_CURVE;
  readonly records = new Map<string, Standing>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return { curve: this.curve, records: [...this.records].map(([e, r]) => [e, { ...r, unlocks: [...r.unlocks] }]) };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.progression");
    this.curve = s?.curve ?? DEFAULT_CURVE;
    fill(this.records, s?.records.map(([e, r]) => [e, { ...r, unlocks: [...r.unlocks] }]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const e of [...this.records.keys()]) if (!alive(e)) this.records.delete(e);
  }

  define(curve: Curve): void {
    if (curve.levels.some((v, k) => k > 0 && v <= curve.levels[k - 1])) throw engineError("invalid_input", "levels must need more xp each step up");
    for (const level of Object.keys(curve.rewards)) {
      if (Number(level) < 2 || Number(level) > curve.levels.length + 1) throw engineError("invalid_input", `no level ${level} on a curve of ${curve.levels.length + 1} levels`);
    }
    this.curve = curve;
  }

  private record(entity: string): Standing {
    let r = this.records.get(entity);
    if (!r) {
      this.game.entities.require(entity);
      checkRoom(this.records, entity, "entities with progression");
      this.records.set(entity, r = { xp: 0, level: 1, unlocks: [] });
    }
    return r;
  }

  get(entity: string): { xp: number; level: number; unlocks: string[]; next: number | null } {
    const r = this.records.get(entity) ?? { xp: 0, level: 1, unlocks: [] };
    return { ...r, unlocks: [...r.unlocks], next: this.curve.levels[r.level - 1] ?? null };
  }

  level(entity: string): number {
    return this.records.get(entity)?.level ?? 1;
  }

  unlocked(entity: string, id: string): boolean {
    return this.records.get(entity)?.unlocks.includes(id) ?? false;
  }

  /** Adds xp; every level it reaches grants that level's rewards, in order. */
  addXp(entity: string, amount: number): { xp: number; level: number; gained: number } {
    const r = this.record(entity);
    r.xp = Math.min(1e12, r.xp + amount);
    this.game.signal("progression.xp", { actor: entity, amount, xp: r.xp });
    const from = r.level;
    while (r.level - 1 < this.curve.levels.length && r.xp >= this.curve.levels[r.level - 1]) {
      r.level++;
      this.game.signal("progression.levelUp", { actor: entity, level: r.level });
      const reward = this.curve.rewards[String(r.level)];
      if (reward) {
        for (const u of reward.unlocks) this.grant(entity, u);
        this.game.apply(reward.effects, { actor: entity });
      }
    }
    return { xp: r.xp, level: r.level, gained: r.level - from };
  }

  grant(entity: string, id: string): boolean {
    const r = this.record(entity);
    if (r.unlocks.includes(id)) return false;
    if (r.unlocks.length >= 256) throw engineError("capacity_exceeded", `${entity} holds 256 unlocks already`);
    r.unlocks.push(id);
    this.game.signal("progression.unlocked", { actor: entity, unlock: id });
    return true;
  }

  revoke(entity: string, id: string): boolean {
    const r = this.records.get(entity);
    const k = r?.unlocks.indexOf(id) ?? -1;
    if (k < 0) return false;
    r!.unlocks.splice(k, 1);
    return true;
  }
}
