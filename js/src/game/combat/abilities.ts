// Abilities: named actions defined once (a heal, a fireball, a dash) with
// a cost in a stat, a reach, a cooldown in ticks and effects on the user
// and its target; granted to entities, each with its own cooldown. The
// world resource `game.abilities`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import { Condition, EffectList, EntityRef, Id, Ticks } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const AbilityDef = z.strictObject({
  id: Id,
  name: z.string().min(1).max(80),
  description: z.string().max(500).default(""),
  cooldown: Ticks.default(60),
  cost: z.strictObject({ stat: Id, amount: z.number().gt(0).max(1e6) }).optional().describe("what using it spends (e.g. {stat: \"mana\", amount: 10})"),
  target: z.enum(["self", "entity"]).default("self").describe("self, or an entity it is aimed at"),
  range: z.number().gt(0).max(1000).default(10).describe("how near the target must be"),
  requires: Condition.optional(),
  effects: EffectList.min(1).describe("the user is actor, the aimed-at entity target"),
});
export type AbilityDef = z.output<typeof AbilityDef>;

const Saved = z.strictObject({ defs: z.array(AbilityDef), granted: z.array(z.tuple([EntityRef, z.array(z.tuple([Id, z.number().int().min(0)]))])) });
type Saved = z.infer<typeof Saved>;

export class Abilities {
  readonly defs = new Map<string, AbilityDef>();
  /** Entity → ability id → ticks of cooldown left. */
  readonly granted = new Map<string, Map<string, number>>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return { defs: [...this.defs.values()], granted: [...this.granted].map(([e, m]) => [e, [...m]]) };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.abilities");
    fill(this.defs, s?.defs.map((d) => [d.id, d]));
    fill(this.granted, s?.granted.map(([e, m]) => [e, new Map(m)]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const e of [...this.granted.keys()]) if (!alive(e)) this.granted.delete(e);
  }

  define(def: AbilityDef): { created: boolean } {
    checkRoom(this.defs, def.id, "abilities");
    const created = !this.defs.has(def.id);
    this.defs.set(def.id, def);
    return { created };
  }

  require(id: string): AbilityDef {
    const def = this.defs.get(id);
    if (!def) throw engineError("not_found", `no ability ${JSON.stringify(id)} (ability.define makes one)`);
    return def;
  }

  grant(entity: string, id: string): void {
    this.require(id);
    this.game.entities.require(entity);
    let m = this.granted.get(entity);
    if (!m) {
      checkRoom(this.granted, entity, "entities with abilities");
      this.granted.set(entity, m = new Map());
    }
    if (m.has(id)) return;
    checkRoom(m, id, "abilities on one entity");
    m.set(id, 0);
    this.game.signal("ability.granted", { actor: entity, ability: id });
  }

  revoke(entity: string, id: string): boolean {
    const had = this.granted.get(entity)?.delete(id) ?? false;
    if (had) this.game.signal("ability.revoked", { actor: entity, ability: id });
    return had;
  }

  /** Uses an ability: granted, off cooldown, affordable, its condition holding and its target in range — all checked before anything is spent. */
  use(entity: string, id: string, target?: string): { cooldown: number } {
    const def = this.require(id);
    const m = this.granted.get(entity);
    if (!m?.has(id)) throw engineError("invalid_input", `${entity} has not been granted ${id}`);
    if (m.get(id)! > 0) throw engineError("invalid_input", `${id} is cooling down for ${m.get(id)} more ticks`);
    if (def.target === "entity") {
      if (target === undefined) throw engineError("invalid_input", `${id} is aimed at an entity: give target`);
      const d = this.game.distance(entity, target);
      if (d > def.range) throw engineError("invalid_input", `${target} is ${d.toFixed(2)} m away, beyond ${id}'s range of ${def.range} m`);
    }
    const ctx = { actor: entity, target: def.target === "entity" ? target : entity };
    if (def.requires && !this.game.check(def.requires, ctx)) throw engineError("invalid_input", `${id}'s condition does not hold for ${entity}`);
    if (def.cost) {
      const have = this.game.stats.require(entity, def.cost.stat).value;
      if (have < def.cost.amount) throw engineError("invalid_input", `${id} costs ${def.cost.amount} ${def.cost.stat}; ${entity} has ${have}`);
      this.game.stats.modify(entity, def.cost.stat, -def.cost.amount, entity);
    }
    m.set(id, def.cooldown);
    this.game.signal("ability.used", { actor: entity, ability: id, ...(ctx.target !== entity ? { target: ctx.target } : {}) });
    this.game.apply(def.effects, ctx);
    return { cooldown: def.cooldown };
  }

  reset(entity: string): number {
    const m = this.granted.get(entity);
    if (!m) return 0;
    let n = 0;
    for (const [id, left] of m) {
      if (left > 0) n++;
      m.set(id, 0);
    }
    return n;
  }

  /** One fixed step of cooldowns. */
  step(): void {
    for (const m of this.granted.values()) for (const [id, left] of m) if (left > 0) m.set(id, left - 1);
  }
}
