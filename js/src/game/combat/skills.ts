// stats.*, damage.*, status.*, combat.* and ability.* skills: numbers on
// entities, hurting and healing them, effects over time, attacks and
// abilities.

import { z } from "zod";
import type { SkillDefinition } from "../../skills/registry.ts";
import { WorldVec3 } from "../../skills/schemas.ts";
import type { Game } from "../game.ts";
import { Modifier } from "../items/items.ts";
import { Amount, EntityRef, Id, Ticks } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { AbilityDef } from "./abilities.ts";
import { Fighter } from "./combat.ts";
import { HEALTH, StatFields, statChecks } from "./stats.ts";
import { StatusDef } from "./statuses.ts";

const StatView = z.object({ stat: z.string(), value: z.number(), base: z.number(), min: z.number(), max: z.number().nullable(), regen: z.number() });
const HitView = z.object({ target: z.string(), dealt: z.number(), health: z.number() });
const ActiveView = z.object({ status: z.string(), remaining: z.number(), stacks: z.number(), source: z.string().nullable() });

export function combatSkills(game: Game): SkillDefinition[] {
  const { stats, statuses, combat, abilities } = game;
  const statView = (entity: string, name: string) => {
    const s = stats.require(entity, name);
    return { stat: name, value: stats.value(entity, name)!, base: s.value, min: s.min, max: s.max, regen: s.regen };
  };
  const fighterView = (entity: string) => {
    const f = combat.get(entity);
    return { entity, team: f?.team ?? null, melee: f?.melee ?? null, ranged: f?.ranged ?? null, cooldowns: f?.cooldowns ?? { melee: 0, ranged: 0 } };
  };
  return gameSkills(game, { module: import.meta.url, factory: "combatSkills" }, [
    // stats
    skill({
      name: "stats.define",
      description: "Give an entity a stat (health, mana, attack, defense, stamina, …): starting value, min, max, regeneration per tick, and effects when it runs out (health at 0 → stats.depleted, e.g. lose the game).",
      access: "define",
      input: StatFields.extend({ entity: EntityRef, stat: Id }).superRefine(statChecks),
      output: StatView,
      handler: ({ entity, stat, ...spec }) => {
        stats.define(entity, stat, spec);
        return statView(entity, stat);
      },
    }),
    skill({
      name: "stats.get",
      description: "An entity's stats: each one's value after equipment and status modifiers, its base, bounds and regeneration (or just one stat).",
      access: "read",
      input: z.strictObject({ entity: EntityRef, stat: Id.optional() }),
      output: z.object({ entity: z.string(), stats: z.array(StatView) }),
      handler: ({ entity, stat }) => {
        game.entities.require(entity);
        const names = stat !== undefined ? [stat] : [...(stats.stats.get(entity)?.keys() ?? [])];
        return { entity, stats: names.map((n) => statView(entity, n)) };
      },
    }),
    skill({
      name: "stats.set",
      description: "Set a stat's value (kept within its bounds); reaching its min fires its onZero effects.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, stat: Id, value: Amount }),
      output: StatView,
      handler: ({ entity, stat, value }) => {
        stats.set(entity, stat, value, null);
        return statView(entity, stat);
      },
    }),
    skill({
      name: "stats.modify",
      description: "Add to (or subtract from) a stat's value, kept within its bounds; reaching its min fires its onZero effects.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, stat: Id, by: Amount }),
      output: StatView,
      handler: ({ entity, stat, by }) => {
        stats.modify(entity, stat, by, null);
        return statView(entity, stat);
      },
    }),
    skill({
      name: "stats.list",
      description: "Which entities have a stat, and its value on each.",
      access: "read",
      input: z.strictObject({ stat: Id }),
      output: z.object({ entities: z.array(z.object({ entity: z.string(), value: z.number() })) }),
      handler: ({ stat }) => ({ entities: [...stats.stats].filter(([, m]) => m.has(stat)).map(([entity]) => ({ entity, value: stats.value(entity, stat)! })) }),
    }),
    skill({
      name: "stats.remove",
      description: "Take a stat away from an entity.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, stat: Id }),
      output: z.object({ removed: z.boolean() }),
      handler: ({ entity, stat }) => ({ removed: stats.remove(entity, stat) }),
    }),
    skill({
      name: "stats.addModifier",
      description: "Add a named modifier to one of an entity's stats (add, then multiply): a blessing, a curse, a buff of the map.",
      access: "define",
      input: Modifier.extend({ entity: EntityRef, id: Id }),
      output: StatView.or(z.object({ stat: z.string(), value: z.number().nullable() })),
      handler: ({ entity, id, ...modifier }) => {
        stats.addModifier(entity, id, modifier);
        return stats.get(entity, modifier.stat) ? statView(entity, modifier.stat) : { stat: modifier.stat, value: stats.value(entity, modifier.stat) };
      },
    }),
    skill({
      name: "stats.removeModifier",
      description: "Remove a named modifier from an entity.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, id: Id }),
      output: z.object({ removed: z.boolean() }),
      handler: ({ entity, id }) => ({ removed: stats.removeModifier(entity, id) }),
    }),
    // damage
    skill({
      name: "damage.apply",
      description: "Deal damage of a kind (physical, fire, …) to an entity's health: scaled by its resistance to that kind, less its defense stat. Emits damage.dealt; health reaching 0 fires stats.depleted and its onZero effects.",
      access: "define",
      input: z.strictObject({ target: EntityRef, amount: z.number().gt(0).max(1e9), kind: Id.default("physical"), source: EntityRef.optional().describe("who dealt it") }),
      output: HitView,
      handler: ({ target, amount, kind, source }) => ({ target, ...stats.damage(target, amount, kind, source ?? null) }),
    }),
    skill({
      name: "damage.heal",
      description: "Heal an entity's health (up to its max). Emits damage.healed.",
      access: "define",
      input: z.strictObject({ target: EntityRef, amount: z.number().gt(0).max(1e9), source: EntityRef.optional() }),
      output: z.object({ target: z.string(), healed: z.number(), health: z.number() }),
      handler: ({ target, amount, source }) => ({ target, ...stats.heal(target, amount, source ?? null) }),
    }),
    skill({
      name: "damage.setResistance",
      description: "Set how an entity takes a kind of damage: 0 immune, 0.5 resistant, 1 normal, 2 vulnerable.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, kind: Id, factor: z.number().min(0).max(10) }),
      output: z.object({ entity: z.string(), kind: z.string(), factor: z.number() }),
      handler: ({ entity, kind, factor }) => {
        stats.setResistance(entity, kind, factor);
        return { entity, kind, factor };
      },
    }),
    // status effects
    skill({
      name: "status.define",
      description: "Define a status effect: how long it lasts in ticks, effects every period while it does (poison: damage over time; regeneration: heal), stat modifiers while active (haste, weakness), how it stacks.",
      access: "define",
      input: StatusDef,
      output: z.object({ status: z.string(), created: z.boolean() }),
      handler: (def) => ({ status: def.id, ...statuses.define(def) }),
    }),
    skill({
      name: "status.apply",
      description: "Put a status effect on an entity for its duration (or a given number of ticks); applied again it refreshes, stacks or is ignored as defined. Emits status.applied.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, status: Id, ticks: Ticks.min(1).optional(), source: EntityRef.optional() }),
      output: ActiveView,
      handler: ({ entity, status, ticks, source }) => {
        const a = statuses.apply(entity, status, ticks, source ?? null);
        return { status: a.id, remaining: a.remaining, stacks: a.stacks, source: a.source };
      },
    }),
    skill({
      name: "status.remove",
      description: "Take a status effect off an entity.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, status: Id }),
      output: z.object({ removed: z.boolean() }),
      handler: ({ entity, status }) => ({ removed: statuses.remove(entity, status) }),
    }),
    skill({
      name: "status.clear",
      description: "Take every status effect off an entity.",
      access: "define",
      input: z.strictObject({ entity: EntityRef }),
      output: z.object({ removed: z.number() }),
      handler: ({ entity }) => ({ removed: statuses.clear(entity) }),
    }),
    skill({
      name: "status.list",
      description: "The status effects on an entity: ticks left, stacks, who applied them.",
      access: "read",
      input: z.strictObject({ entity: EntityRef }),
      output: z.object({ statuses: z.array(ActiveView) }),
      handler: ({ entity }) => ({ statuses: statuses.list(entity).map((a) => ({ status: a.id, remaining: a.remaining, stacks: a.stacks, source: a.source })) }),
    }),
    skill({
      name: "status.get",
      description: "Describe a status effect's definition.",
      access: "read",
      input: z.strictObject({ status: Id }),
      output: z.object({ status: z.unknown() }),
      handler: ({ status }) => ({ status: statuses.require(status) }),
    }),
    // combat
    skill({
      name: "combat.configure",
      description: "Arm an entity: its team (teammates are not hurt), a melee attack (damage, kind, reach, arc, cooldown in ticks, cleave) and a ranged one (damage, range, cooldown, projectile speed — 0 for an instant raycast).",
      access: "define",
      input: Fighter.extend({ entity: EntityRef }),
      output: z.object({ entity: z.string(), team: z.string().nullable(), melee: z.unknown(), ranged: z.unknown(), cooldowns: z.object({ melee: z.number(), ranged: z.number() }) }),
      handler: ({ entity, ...spec }) => {
        combat.configure(entity, spec);
        return fighterView(entity);
      },
    }),
    skill({
      name: "combat.setTeam",
      description: "Put an entity on a team (or none): members of a team do not hurt each other.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, team: Id.nullable() }),
      output: z.object({ entity: z.string(), team: z.string().nullable() }),
      handler: ({ entity, team }) => {
        combat.setTeam(entity, team);
        return { entity, team };
      },
    }),
    skill({
      name: "combat.melee",
      description: "Swing at what is in front of the entity you play: hits the nearest hostile with health within reach and arc (or a named one there; everything there with cleave). Damage adds your attack stat. Then cools down.",
      access: "act",
      input: z.strictObject({ target: EntityRef.optional() }),
      output: z.object({ hits: z.array(HitView) }),
      handler: ({ target }, call) => ({ hits: combat.melee(call.actor(), target) }),
    }),
    skill({
      name: "combat.ranged",
      description: "Shoot from the entity you play — where it faces, in a direction, or at a target entity: an instant raycast that hits the first body in range, or a projectile that flies.",
      access: "act",
      input: z.strictObject({ direction: WorldVec3.optional(), at: EntityRef.optional().describe("aim at this entity") }).refine((i) => !(i.direction && i.at), { message: "give a direction or a target to aim at, not both" }),
      output: z.object({ hit: HitView.nullable(), struck: z.string().nullable(), projectile: z.string().nullable() }),
      handler: ({ direction, at }, call) => {
        const actor = call.actor();
        let dir = direction;
        if (at !== undefined) {
          const from = game.position(actor);
          const to = game.position(at);
          dir = [to[0] - from[0], to[1] - from[1], to[2] - from[2]];
        }
        return combat.ranged(actor, dir);
      },
    }),
    skill({
      name: "combat.get",
      description: "An entity's team, attacks and cooldowns (ticks until it can attack again).",
      access: "read",
      input: z.strictObject({ entity: EntityRef }),
      output: z.object({ entity: z.string(), team: z.string().nullable(), melee: z.unknown(), ranged: z.unknown(), cooldowns: z.object({ melee: z.number(), ranged: z.number() }), health: z.number().nullable() }),
      handler: ({ entity }) => ({ ...fighterView(game.entities.require(entity).id), health: stats.value(entity, HEALTH) }),
    }),
    skill({
      name: "combat.projectiles",
      description: "The projectiles in flight: who shot them, where they head, how far they have left.",
      access: "read",
      input: z.strictObject({}),
      output: z.object({ projectiles: z.array(z.object({ entity: z.string(), owner: z.string(), direction: z.array(z.number()), left: z.number() })) }),
      handler: () => ({ projectiles: combat.projectiles.map((p) => ({ entity: p.entity, owner: p.owner, direction: p.direction, left: p.left })) }),
    }),
    // abilities
    skill({
      name: "ability.define",
      description: "Define an ability: cooldown in ticks, cost in a stat (mana), self or aimed at an entity within range, a condition, and its effects (heal, damage, apply a status, teleport …).",
      access: "define",
      input: AbilityDef,
      output: z.object({ ability: z.string(), created: z.boolean() }),
      handler: (def) => ({ ability: def.id, ...abilities.define(def) }),
    }),
    skill({
      name: "ability.grant",
      description: "Give an entity an ability.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, ability: Id }),
      output: z.object({ entity: z.string(), ability: z.string() }),
      handler: ({ entity, ability }) => {
        abilities.grant(entity, ability);
        return { entity, ability };
      },
    }),
    skill({
      name: "ability.revoke",
      description: "Take an ability away from an entity.",
      access: "define",
      input: z.strictObject({ entity: EntityRef, ability: Id }),
      output: z.object({ removed: z.boolean() }),
      handler: ({ entity, ability }) => ({ removed: abilities.revoke(entity, ability) }),
    }),
    skill({
      name: "ability.use",
      description: "Use one of your abilities (on a target entity when it is aimed): it must be off cooldown and affordable; its cost is spent, its effects happen, its cooldown starts.",
      access: "act",
      input: z.strictObject({ ability: Id, target: EntityRef.optional() }),
      output: z.object({ ability: z.string(), cooldown: z.number() }),
      handler: ({ ability, target }, call) => ({ ability, ...abilities.use(call.actor(), ability, target) }),
    }),
    skill({
      name: "ability.list",
      description: "An entity's abilities and the ticks until each is ready.",
      access: "read",
      input: z.strictObject({ entity: EntityRef }),
      output: z.object({ abilities: z.array(z.object({ ability: z.string(), name: z.string(), cooldown: z.number(), ready: z.boolean() })) }),
      handler: ({ entity }) => ({
        abilities: [...(abilities.granted.get(entity) ?? [])].map(([id, left]) => ({ ability: id, name: abilities.defs.get(id)?.name ?? id, cooldown: left, ready: left === 0 })),
      }),
    }),
    skill({
      name: "ability.get",
      description: "Describe an ability's definition.",
      access: "read",
      input: z.strictObject({ ability: Id }),
      output: z.object({ ability: z.unknown() }),
      handler: ({ ability }) => ({ ability: abilities.require(ability) }),
    }),
    skill({
      name: "ability.reset",
      description: "Make every ability of an entity ready now; returns how many were cooling down.",
      access: "define",
      input: z.strictObject({ entity: EntityRef }),
      output: z.object({ reset: z.number() }),
      handler: ({ entity }) => {
        game.entities.require(entity);
        return { reset: abilities.reset(entity) };
      },
    }),
  ]);
}
