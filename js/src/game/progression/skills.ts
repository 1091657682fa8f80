// progression.* skills: experience, levels and unlocks.

import { z } from "zod";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { EntityRef, Id } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { Curve } from "./progression.ts";

const Standing = z.object({ entity: z.string(), xp: z.number(), level: z.number(), next: z.number().nullable(), unlocks: z.array(z.string()) });

const progressionDefineOutput = z.object({ levels: z.number() });
const progressionCurveInput = z.strictObject({});
const progressionCurveOutput = z.object({ levels: z.array(z.number()), rewards: z.record(z.string(), z.unknown()) });
const progressionAddXpInput = z.strictObject({ entity: EntityRef, amount: z.number().int().min(1).max(1e9) });
const progressionAddXpOutput = z.object({ xp: z.number(), level: z.number(), gained: z.number() });
const progressionGetInput = z.strictObject({ entity: EntityRef });
const progressionUnlockInput = z.strictObject({ entity: EntityRef, unlock: Id });
const progressionLockInput = z.strictObject({ entity: EntityRef, unlock: Id });
const progressionLockOutput = z.object({ removed: z.boolean() });

export function progressionSkills(game: Game): SkillDefinition[] {
  const { progression } = game;
  const standing = (entity: string) => ({ entity, ...progression.get(game.entities.require(entity).id) });
  return gameSkills(game, { module: import.meta.url, factory: "progressionSkills" }, [
    skill({
      name: "progression.define",
      description: "Set the level curve: the xp each level needs (cumulative, rising), and what reaching a level grants — effects and unlocks.",
      access: "define",
      input: Curve,
      output: progressionDefineOutput,
      handler: (curve) => {
        progression.define(curve);
        return { levels: curve.levels.length + 1 };
      },
    }),
    skill({
      name: "progression.curve",
      description: "The level curve: xp per level and each level's rewards.",
      access: "read",
      input: progressionCurveInput,
      output: progressionCurveOutput,
      handler: () => progression.curve,
    }),
    skill({
      name: "progression.addXp",
      description: "Give an entity experience; each level it reaches grants that level's rewards. Emits progression.xp and progression.levelUp.",
      access: "define",
      input: progressionAddXpInput,
      output: progressionAddXpOutput,
      handler: ({ entity, amount }) => progression.addXp(entity, amount),
    }),
    skill({
      name: "progression.get",
      description: "An entity's xp, level, the xp its next level needs, and its unlocks.",
      access: "read",
      input: progressionGetInput,
      output: Standing,
      handler: ({ entity }) => standing(entity),
    }),
    skill({
      name: "progression.unlock",
      description: "Grant an entity an unlock (a skill tree node, an area, a recipe); conditions can test it ({unlocked}).",
      access: "define",
      input: progressionUnlockInput,
      output: Standing,
      handler: ({ entity, unlock }) => {
        progression.grant(entity, unlock);
        return standing(entity);
      },
    }),
    skill({
      name: "progression.lock",
      description: "Take an unlock away from an entity.",
      access: "define",
      input: progressionLockInput,
      output: progressionLockOutput,
      handler: ({ entity, unlock }) => ({ removed: progression.revoke(entity, unlock) }),
    }),
  ]);
}
