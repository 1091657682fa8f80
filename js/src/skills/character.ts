// character.* skills: bodies that walk. A character is an entity with a
// skinned humanoid (or a glTF rig), a physics character controller and an
// animator; builders spawn them, players drive them (a velocity, a jump, a
// facing) or send them along the navmesh with nav.moveTo.

import { z } from "zod";
import type { CharacterSystem } from "../characters/characters.ts";
import type { SkillDefinition } from "./registry.ts";
import { Vec3, WorldVec3 } from "./schemas.ts";

const Color = z.number().int().min(0).max(0xffffff);

export const AppearanceInput = z.strictObject({
  height: z.number().min(0.5).max(3).optional().describe("standing height, m (default 1.75)"),
  build: z.number().min(0.6).max(1.6).optional().describe("shoulder and hip width factor (default 1)"),
  head: z.number().min(0.7).max(1.5).optional().describe("head size factor (default 1)"),
  skin: Color.optional(),
  hair: Color.optional(),
  shirt: Color.optional(),
  pants: Color.optional(),
  shoes: Color.optional(),
});

const EntityId = z.string().min(1).describe("a character's entity id (ent_…)");

const characterSpawnInput = z.strictObject({
  position: WorldVec3.describe("where its feet stand"),
  appearance: AppearanceInput.optional(),
  model: z.string().min(1).max(128).optional().describe("a glTF asset id to use as the body"),
  maxSpeed: z.number().gt(0).max(12).optional().describe("top speed, m/s (default 4.5)"),
});
const characterSpawnOutput = z.object({ entityId: z.string() });
const characterMoveInput = z.strictObject({
  entityId: EntityId,
  direction: z.tuple([z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3)]).describe("ground direction [x, z]"),
  speed: z.number().min(0).max(12).default(1.4).describe("m/s"),
});
const characterMoveOutput = z.object({ velocity: z.tuple([z.number(), z.number()]) });
const characterJumpInput = z.strictObject({ entityId: EntityId, speed: z.number().gt(0).max(20).default(5).describe("take-off speed, m/s") });
const characterJumpOutput = z.object({ jumped: z.boolean() });
const characterLookAtInput = z.strictObject({ entityId: EntityId, target: z.union([WorldVec3, z.string().min(1).describe("an entity id")]) });
const characterLookAtOutput = z.object({ facing: z.tuple([z.number(), z.number()]) });
const characterListInput = z.strictObject({});
const characterListOutput = z.object({ characters: z.array(z.object({ entityId: z.string(), position: Vec3, speed: z.number(), grounded: z.boolean(), walkingTo: Vec3.nullable() })) });

export function characterSkills({ characters }: { characters: CharacterSystem }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "characterSkills" };
  return [
    {
      name: "character.spawn",
      version: "1.0.0",
      category: "character",
      description:
        "Spawn a walking character: the built-in skinned humanoid (22 bones; appearance sets height, build, head and colours) or a glTF rig by asset id (its clips usable by name), with a physics character controller (walls, slopes, steps, gravity, jumps, pushing bodies), an animator (idle/walk/run/jump/fall and emotes) and a place in the navigation crowd. Returns its entity id.",
      input: characterSpawnInput,
      output: characterSpawnOutput,
      permissions: ["character.define"],
      source,
      handler: async ({ position, appearance, model, maxSpeed }, ctx) => {
        const c = await characters.spawn({ position, appearance, model, maxSpeed });
        ctx.emit("character.spawned", { entityId: c.entity.id, position, model: model ?? null, body: c.body });
        return { entityId: c.entity.id };
      },
    },
    {
      name: "character.move",
      version: "1.0.0",
      category: "character",
      description:
        "Drive a character directly: walk along direction [x, z] (normalised) at speed m/s until told otherwise (speed 0 stops). Cancels a nav.moveTo walk. The controller slides along walls, climbs steps and slopes, and the animation follows the speed.",
      input: characterMoveInput,
      output: characterMoveOutput,
      permissions: ["character.act"],
      source,
      handler: ({ entityId, direction, speed }, ctx) => {
        const l = Math.hypot(direction[0], direction[1]);
        const velocity: [number, number] = l > 1e-9 ? [(direction[0] / l) * speed, (direction[1] / l) * speed] : [0, 0];
        characters.move(entityId, velocity);
        ctx.emit("character.moved", { entityId, velocity });
        return { velocity };
      },
    },
    {
      name: "character.jump",
      version: "1.0.0",
      category: "character",
      description: "Make a character jump (at speed m/s upward) if it stands on the ground; returns whether it jumped.",
      input: characterJumpInput,
      output: characterJumpOutput,
      permissions: ["character.act"],
      source,
      handler: ({ entityId, speed }, ctx) => {
        const jumped = characters.jump(entityId, speed);
        if (jumped) ctx.emit("character.jumped", { entityId, speed });
        return { jumped };
      },
    },
    {
      name: "character.lookAt",
      version: "1.0.0",
      category: "character",
      description: "Turn a character to face a world point or another entity (until it walks another way). Returns its facing [x, z].",
      input: characterLookAtInput,
      output: characterLookAtOutput,
      permissions: ["character.act"],
      source,
      handler: ({ entityId, target }, ctx) => {
        const point = typeof target === "string" ? characters.positionOf(target) : target;
        const facing = characters.lookAt(entityId, point);
        ctx.emit("character.turned", { entityId, facing });
        return { facing };
      },
    },
    {
      name: "character.list",
      version: "1.0.0",
      category: "character",
      description: "The world's characters: entity id, feet position, ground speed, whether grounded, and what it is doing (walking to a target or not).",
      input: characterListInput,
      output: characterListOutput,
      permissions: ["scene.read"],
      source,
      handler: () => ({
        characters: characters.list().map((c) => ({
          entityId: c.entity.id,
          position: characters.positionOf(c.entity.id),
          speed: c.speed,
          grounded: c.grounded,
          walkingTo: c.walk?.target ?? null,
        })),
      }),
    },
  ];
}
