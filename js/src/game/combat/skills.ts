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

const statsDefineInput = StatFields.extend({ entity: EntityRef, stat: Id }).superRefine(statChecks);
const statsGetInput = z.strictObject({ entity: EntityRef, stat: Id.optional() });
const statsGetOutput = z.object({ entity: z.string(), stats: z.array(StatView) });
const statsSetInput = z.strictObject({ entity: EntityRef, stat: Id, value: Amount });
const statsModifyInput = z.strictObject({ entity: EntityRef, stat: Id, by: Amount });
const statsListInput = z.strictObject({ stat: Id });
const statsListOutput = z.object({ entities: z.array(z.object({ entity: z.string(), value: z.number() })) });
const statsRemoveInput = z.strictObject({ entity: EntityRef, stat: Id });
const statsRemoveOutput = z.object({ removed: z.boolean() });
const statsAddModifierInput = Modifier.extend({ entity: EntityRef, id: Id });
const statsAddModifierOutput = StatView.or(z.object({ stat: z.string(), value: z.number().nullable() }));
const statsRemoveModifierInput = z.strictObject({ entity: EntityRef, id: Id });
const statsRemoveModifierOutput = z.object({ removed: z.boolean() });
const damageApplyInput = z.strictObject({ target: EntityRef, amount: z.number().gt(0).max(1e9), kind: Id.default("physical"), source: EntityRef.optional().describe("who dealt it") });
const damageHealInput = z.strictObject({ target: EntityRef, amount: z.number().gt(0).max(1e9), source: EntityRef.optional() });
const damageHealOutput = z.object({ target: z.string(), healed: z.number(), health: z.number() });
const damageSetResistanceInput = z.strictObject({ entity: EntityRef, kind: Id, factor: z.number().min(0).max(10) });
const damageSetResistanceOutput = z.object({ entity: z.string(), kind: z.string(), factor: z.number() });
const statusDefineOutput = z.object({ status: z.string(), created: z.boolean() });
const statusApplyInput = z.strictObject({ entity: EntityRef, status: Id, ticks: Ticks.min(1).optional(), source: EntityRef.optional() });
const statusRemoveInput = z.strictObject({ entity: EntityRef, status: Id });
const statusRemoveOutput = z.object({ removed: z.boolean() });
const statusClearInput = z.strictObject({ entity: EntityRef });
const statusClearOutput = z.object({ removed: z.number() });
const statusListInput = z.strictObject({ entity: EntityRef });
const statusListOutput = z.object({ statuses: z.array(ActiveView) });
const statusGetInput = z.strictObject({ status: Id });
const statusGetOutput = z.object({ status: z.unknown() });
const combatConfigureInput = Fighter.extend({ entity: EntityRef });
const combatConfigureOutput = z.object({ entity: z.string(), team: z.string().nullable(), melee: z.unknown(), ranged: z.unknown(), cooldowns: z.object({ melee: z.number(), ranged: z.number() }) });
const combatSetTeamInput = z.strictObject({ entity: EntityRef, team: Id.nullable() });
const combatSetTeamOutput = z.object({ entity: z.string(), team: z.string().nullable() });
const combatMeleeInput = z.strictObject({ target: EntityRef.optional() });
const combatMeleeOutput = z.object({ hits: z.array(HitView) });
const combatRangedInput = z.strictObject({ direction: WorldVec3.optional(), at: EntityRef.optional().describe("aim at this entity") }).refine((i) => !(i.direction && i.at), { message: "give a direction or a target to aim at, not both" });
const combatRangedOutput = z.object({ hit: HitView.nullable(), struck: z.string().nullable(), projectile: z.string().nullable() });
const combatGetInput = z.strictObject({ entity: EntityRef });
const combatGetOutput = z.object({ entity: z.string(), team: z.string().nullable(), melee: z.unknown(), ranged: z.unknown(), cooldowns: z.object({ melee: z.number(), ranged: z.number() }), health: z.number().nullable() });
const combatProjectilesInput = z.strictObject({});
const combatProjectilesOutput = z.object({ projectiles: z.array(z.object({ entity: z.string(), owner: z.string(), direction: z.array(z.number()), left: z.number() })) });
const abilityDefineOutput = z.object({ ability: z.string(), created: z.boolean() });
const abilityGrantInput = z.strictObject({ entity: EntityRef, ability: Id });
const abilityGrantOutput = z.object({ entity: z.string(), ability: z.string() });
const abilityRevokeInput = z.strictObject({ entity: EntityRef, ability: Id });
const abilityRevokeOutput = z.object({ removed: z.boolean() });
const abilityUseInput = z.strictObject({ ability: Id, target: EntityRef.optional() });
const abilityUseOutput = z.object({ ability: z.string(), cooldown: z.number() });
const abilityListInput = z.strictObject({ entity: EntityRef });
const abilityListOutput = z.object({ abilities: z.array(z.object({ ability: z.string(), name: z.string(), cooldown: z.number(), ready: z.boolean() })) });
const abilityGetInput = z.strictObject({ ability: Id });
const abilityGetOutput = z.object({ ability: z.unknown() });
const abilityResetInput = z.strictObject({ entity: EntityRef });
const abilityResetOutput = z.object({ reset: z.number() });

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
      input: statsDefineInput,
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
      input: statsGetInput,
      output: statsGetOutput,
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
      input: statsSetInput,
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
      input: statsModifyInput,
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
      input: statsListInput,
      output: statsListOutput,
      handler: ({ stat }) => ({ entities: [...stats.stats].filter(([, m]) => m.has(stat)).map(([entity]) => ({ entity, value: stats.value(entity, stat)! })) }),
    }),
    skill({
      name: "stats.remove",
      description: "Take a stat away from an entity.",
      access: "define",
      input: statsRemoveInput,
      output: statsRemoveOutput,
      handler: ({ entity, stat }) => ({ removed: stats.remove(entity, stat) }),
    }),
    skill({
      name: "stats.addModifier",
      description: "Add a named modifier to one of an entity's stats (add, then multiply): a blessing, a curse, a buff of the map.",
      access: "define",
      input: statsAddModifierInput,
      output: statsAddModifierOutput,
      handler: ({ entity, id, ...modifier }) => {
        stats.addModifier(entity, id, modifier);
        return stats.get(entity, modifier.stat) ? statView(entity, modifier.stat) : { stat: modifier.stat, value: stats.value(entity, modifier.stat) };
      },
    }),
    skill({
      name: "stats.removeModifier",
      description: "Remove a named modifier from an entity.",
      access: "define",
      input: statsRemoveModifierInput,
      output: statsRemoveModifierOutput,
      handler: ({ entity, id }) => ({ removed: stats.removeModifier(entity, id) }),
    }),
    // damage
    skill({
      name: "damage.apply",
      description: "Deal damage of a kind (physical, fire, …) to an entity's health: scaled by its resistance to that kind, less its defense stat. Emits damage.dealt; health reaching 0 fires stats.depleted and its onZero effects.",
      access: "define",
      input: damageApplyInput,
      output: HitView,
      handler: ({ target, amount, kind, source }) => ({ target, ...stats.damage(target, amount, kind, source ?? null) }),
    }),
    skill({
      name: "damage.heal",
      description: "Heal an entity's health (up to its max). Emits damage.healed.",
      access: "define",
      input: damageHealInput,
      output: damageHealOutput,
      handler: ({ target, amount, source }) => ({ target, ...stats.heal(target, amount, source ?? null) }),
    }),
    skill({
      name: "damage.setResistance",
      description: "Set how an entity takes a kind of damage: 0 immune, 0.5 resistant, 1 normal, 2 vulnerable.",
      access: "define",
      input: damageSetResistanceInput,
      output: damageSetResistanceOutput,
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
      output: statusDefineOutput,
      handler: (def) => ({ status: def.id, ...statuses.define(def) }),
    }),
    skill({
      name: "status.apply",
      description: "Put a status effect on an entity for its duration (or a given number of ticks); applied again it refreshes, stacks or is ignored as defined. Emits status.applied.",
      access: "define",
      input: statusApplyInput,
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
      input: statusRemoveInput,
      output: statusRemoveOutput,
      handler: ({ entity, status }) => ({ removed: statuses.remove(entity, status) }),
    }),
    skill({
      name: "status.clear",
      description: "Take every status effect off an entity.",
      access: "define",
      input: statusClearInput,
      output: statusClearOutput,
      handler: ({ entity }) => ({ removed: statuses.clear(entity) }),
    }),
    skill({
      name: "status.list",
      description: "The status effects on an entity: ticks left, stacks, who applied them.",
      access: "read",
      input: statusListInput,
      output: statusListOutput,
      handler: ({ entity }) => ({ statuses: statuses.list(entity).map((a) => ({ status: a.id, remaining: a.remaining, stacks: a.stacks, source: a.source })) }),
    }),
    skill({
      name: "status.get",
      description: "Describe a status effect's definition.",
      access: "read",
      input: statusGetInput,
      output: statusGetOutput,
      handler: ({ status }) => ({ status: statuses.require(status) }),
    }),
    // combat
    skill({
      name: "combat.configure",
      description: "Arm an entity: its team (teammates are not hurt), a melee attack (damage, kind, reach, arc, cooldown in ticks, cleave) and a ranged one (damage, range, cooldown, projectile speed — 0 for an instant raycast).",
      access: "define",
      input: combatConfigureInput,
      output: combatConfigureOutput,
      handler: ({ entity, ...spec }) => {
        combat.configure(entity, spec);
        return fighterView(entity);
      },
    }),
    skill({
      name: "combat.setTeam",
      description: "Put an entity on a team (or none): members of a team do not hurt each other.",
      access: "define",
      input: combatSetTeamInput,
      output: combatSetTeamOutput,
      handler: ({ entity, team }) => {
        combat.setTeam(entity, team);
        return { entity, team };
      },
    }),
    skill({
      name: "combat.melee",
      description: "Swing at what is in front of the entity you play: hits the nearest hostile with health within reach and arc (or a named one there; everything there with cleave). Damage adds your attack stat. Then cools down.",
      access: "act",
      input: combatMeleeInput,
      output: combatMeleeOutput,
      handler: ({ target }, call) => ({ hits: combat.melee(call.actor(), target) }),
    }),
    skill({
      name: "combat.ranged",
      description: "Shoot from the entity you play — where it faces, in a direction, or at a target entity: an instant raycast that hits the first body in range, or a projectile that flies.",
      access: "act",
      input: combatRangedInput,
      output: combatRangedOutput,
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
      input: combatGetInput,
      output: combatGetOutput,
      handler: ({ entity }) => ({ ...fighterView(game.entities.require(entity).id), health: stats.value(entity, HEALTH) }),
    }),
    skill({
      name: "combat.projectiles",
      description: "The projectiles in flight: who shot them, where they head, how far they have left.",
      access: "read",
      input: combatProjectilesInput,
      output: combatProjectilesOutput,
      handler: () => ({ projectiles: combat.projectiles.map((p) => ({ entity: p.entity, owner: p.owner, direction: p.direction, left: p.left })) }),
    }),
    // abilities
    skill({
      name: "ability.define",
      description: "Define an ability: cooldown in ticks, cost in a stat (mana), self or aimed at an entity within range, a condition, and its effects (heal, damage, apply a status, teleport …).",
      access: "define",
      input: AbilityDef,
      output: abilityDefineOutput,
      handler: (def) => ({ ability: def.id, ...abilities.define(def) }),
    }),
    skill({
      name: "ability.grant",
      description: "Give an entity an ability.",
      access: "define",
      input: abilityGrantInput,
      output: abilityGrantOutput,
      handler: ({ entity, ability }) => {
        abilities.grant(entity, ability);
        return { entity, ability };
      },
    }),
    skill({
      name: "ability.revoke",
      description: "Take an ability away from an entity.",
      access: "define",
      input: abilityRevokeInput,
      output: abilityRevokeOutput,
      handler: ({ entity, ability }) => ({ removed: abilities.revoke(entity, ability) }),
    }),
    skill({
      name: "ability.use",
      description: "Use one of your abilities (on a target entity when it is aimed): it must be off cooldown and affordable; its cost is spent, its effects happen, its cooldown starts.",
      access: "act",
      input: abilityUseInput,
      output: abilityUseOutput,
      handler: ({ ability, target }, call) => ({ ability, ...abilities.use(call.actor(), ability, target) }),
    }),
    skill({
      name: "ability.list",
      description: "An entity's abilities and the ticks until each is ready.",
      access: "read",
      input: abilityListInput,
      output: abilityListOutput,
      handler: ({ entity }) => ({
        abilities: [...(abilities.granted.get(entity) ?? [])].map(([id, left]) => ({ ability: id, name: abilities.defs.get(id)?.name ?? id, cooldown: left, ready: left === 0 })),
      }),
    }),
    skill({
      name: "ability.get",
      description: "Describe an ability's definition.",
      access: "read",
      input: abilityGetInput,
      output: abilityGetOutput,
      handler: ({ ability }) => ({ ability: abilities.require(ability) }),
    }),
    skill({
      name: "ability.reset",
      description: "Make every ability of an entity ready now; returns how many were cooling down.",
      access: "define",
      input: abilityResetInput,
      output: abilityResetOutput,
      handler: ({ entity }) => {
        game.entities.require(entity);
        return { reset: abilities.reset(entity) };
      },
    }),
  ]);
}
