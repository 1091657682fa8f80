// interaction.* skills: making entities interactable, and a player's hands
// on the world — interact, pick up, drop, use, open, close, toggle, lock,
// unlock — always through the entity the caller plays, within reach.

import * as THREE from "three";
import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../../ecs/world.ts";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { Count, EntityRef, Id } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { InteractableSpec, KINDS } from "./interactions.ts";

const View = z.object({
  entity: z.string(),
  kind: z.enum(KINDS),
  label: z.string().nullable(),
  range: z.number(),
  open: z.boolean(),
  on: z.boolean(),
  locked: z.boolean(),
  key: z.string().nullable(),
  pickup: z.object({ item: z.string(), count: z.number() }).nullable(),
  uses: z.number(),
});
const Target = z.strictObject({ target: EntityRef.describe("the interactable entity") });

const open = z.object({ target: z.string(), open: z.boolean(), locked: z.boolean() });
const interactionRegisterInput = InteractableSpec.extend({ entity: EntityRef });
const interactionUnregisterInput = z.strictObject({ entity: EntityRef });
const interactionUnregisterOutput = z.object({ removed: z.boolean() });
const interactionGetInput = z.strictObject({ entity: EntityRef });
const interactionListInput = z.strictObject({ near: EntityRef.optional().describe("only those within reach of this entity") });
const interactionListOutput = z.object({ interactables: z.array(z.object({ entity: z.string(), kind: z.string(), label: z.string().nullable(), distance: z.number().nullable(), open: z.boolean(), locked: z.boolean(), on: z.boolean() })) });
const interactionInteractOutput = z.object({ kind: z.string(), result: z.string(), text: z.string().nullable() });
const interactionPickupOutput = z.object({ item: z.string(), count: z.number(), total: z.number() });
const interactionDropInput = z.strictObject({ item: Id, count: Count.default(1) });
const interactionDropOutput = z.object({ entity: z.string(), item: z.string(), count: z.number(), left: z.number() });
const interactionUseInput = z.strictObject({ item: Id.optional(), target: EntityRef.optional() }).refine((i) => i.item !== undefined || i.target !== undefined, { message: "give an item, a target, or both" });
const interactionUseOutput = z.object({ used: z.string(), target: z.string().nullable(), result: z.string() });
const interactionToggleOutput = z.object({ target: z.string(), on: z.boolean(), open: z.boolean() });

export function interactionSkills(game: Game): SkillDefinition[] {
  const { interactions, items } = game;
  const view = (entity: string) => {
    const it = interactions.require(entity);
    return { entity, kind: it.kind, label: it.label ?? null, range: it.range, open: it.open, on: it.on, locked: it.locked, key: it.key ?? null, pickup: it.pickup ?? null, uses: it.uses };
  };
  /** Half a metre past the actor's front, at its height. */
  const inFront = (actor: string): Vec3 => {
    const p = game.position(actor);
    const q = game.entities.world.rotation(game.entities.require(actor).eid);
    const f = new THREE.Vector3(0, 0, 1).applyQuaternion(new THREE.Quaternion(...q));
    const n = Math.hypot(f.x, f.z) || 1;
    return [p[0] + (f.x / n) * 0.8, p[1], p[2] + (f.z / n) * 0.8];
  };
  const state = (target: string) => ({ target, open: interactions.isOpen(target), locked: interactions.require(target).locked });
  return gameSkills(game, { module: import.meta.url, factory: "interactionSkills" }, [
    skill({
      name: "interaction.register",
      description: "Make an entity interactable: a door (slides open by openOffset), chest, lever, button, sign, pickup or generic thing — with a reach, a lock and key item, a condition and effects on interact/open/close/use/toggle.",
      access: "define",
      input: interactionRegisterInput,
      output: View,
      handler: ({ entity, ...spec }) => {
        interactions.register(entity, spec);
        return view(entity);
      },
    }),
    skill({
      name: "interaction.unregister",
      description: "Make an entity no longer interactable.",
      access: "define",
      input: interactionUnregisterInput,
      output: interactionUnregisterOutput,
      handler: ({ entity }) => ({ removed: interactions.unregister(entity) }),
    }),
    skill({
      name: "interaction.get",
      description: "Describe an interactable: kind, reach, open/on/locked, key, what picking it up gives, times used.",
      access: "read",
      input: interactionGetInput,
      output: View,
      handler: ({ entity }) => view(entity),
    }),
    skill({
      name: "interaction.list",
      description: "List interactables: all of them, or those within reach of an entity (nearest first) — what a player can act on now.",
      access: "read",
      input: interactionListInput,
      output: interactionListOutput,
      handler: ({ near }) => {
        if (near !== undefined) return { interactables: interactions.near(game.entities.require(near).id) };
        return { interactables: [...interactions.all].map(([entity, it]) => ({ entity, kind: it.kind, label: it.label ?? null, distance: null, open: it.open, locked: it.locked, on: it.on })) };
      },
    }),
    skill({
      name: "interaction.interact",
      description: "Interact with something within reach of the entity you play: open or close a door or chest (a held key unlocks it), pull a lever, press a button, read a sign, pick up a pickup. Fires its effects.",
      access: "act",
      input: Target,
      output: interactionInteractOutput,
      handler: ({ target }, call) => interactions.interact(call.actor(), target),
    }),
    skill({
      name: "interaction.pickup",
      description: "Pick up an item lying within reach (a pickup) into your inventory (it must fit); the pickup leaves the world. Emits item.picked.",
      access: "act",
      input: Target,
      output: interactionPickupOutput,
      handler: ({ target }, call) => interactions.pickup(call.actor(), target),
    }),
    skill({
      name: "interaction.drop",
      description: "Drop items you hold on the ground in front of you, as a pickup. Emits item.dropped.",
      access: "act",
      input: interactionDropInput,
      output: interactionDropOutput,
      handler: ({ item, count }, call) => {
        const actor = call.actor();
        const at = inFront(actor);
        const left = items.remove(actor, item, count);
        const entity = items.spawn(item, count, at);
        game.signal("item.dropped", { actor, item, count, entity });
        return { entity, item, count, left };
      },
    }),
    skill({
      name: "interaction.use",
      description: "Use an item you hold (a potion's effects; consumed if consumable), an item on a target (a key on its door), or an interactable itself. Emits item.used or interaction.used.",
      access: "act",
      input: interactionUseInput,
      output: interactionUseOutput,
      handler: ({ item, target }, call) => {
        const actor = call.actor();
        if (item === undefined) {
          interactions.use(actor, target!);
          return { used: target!, target: target!, result: "used" };
        }
        const def = items.require(item);
        if (items.count(actor, item) < 1) throw engineError("invalid_input", `${actor} holds no ${item}`);
        if (target !== undefined) {
          const it = interactions.reach(actor, target);
          if (it.locked && it.key === item) {
            interactions.unlock(actor, target);
            game.signal("item.used", { actor, item, target });
            return { used: item, target, result: "unlocked" };
          }
          if (def.use.length === 0 && it.onUse.length === 0) throw engineError("invalid_input", `${item} does nothing to ${target}`);
        } else if (def.use.length === 0) throw engineError("invalid_input", `${item} has no use on its own`);
        if (def.consumable) items.remove(actor, item, 1);
        game.signal("item.used", { actor, item, ...(target ? { target } : {}) });
        game.apply(def.use, { actor, target });
        if (target !== undefined) game.apply(interactions.require(target).onUse, { actor, target });
        return { used: item, target: target ?? null, result: def.consumable ? "consumed" : "used" };
      },
    }),
    skill({
      name: "interaction.open",
      description: "Open a door or chest within reach (a held key unlocks it first). Emits interaction.opened.",
      access: "act",
      input: Target,
      output: open,
      handler: ({ target }, call) => {
        interactions.open(call.actor(), target);
        return state(target);
      },
    }),
    skill({
      name: "interaction.close",
      description: "Close a door or chest within reach. Emits interaction.closed.",
      access: "act",
      input: Target,
      output: open,
      handler: ({ target }, call) => {
        interactions.close(call.actor(), target);
        return state(target);
      },
    }),
    skill({
      name: "interaction.toggle",
      description: "Flip something within reach: a lever or switch on/off, a door or chest open/closed.",
      access: "act",
      input: Target,
      output: interactionToggleOutput,
      handler: ({ target }, call) => {
        interactions.toggle(call.actor(), target);
        const it = interactions.require(target);
        return { target, on: it.on, open: it.open };
      },
    }),
    skill({
      name: "interaction.lock",
      description: "Lock a closed door or chest within reach (with its key, when it has one).",
      access: "act",
      input: Target,
      output: open,
      handler: ({ target }, call) => {
        interactions.lock(call.actor(), target);
        return state(target);
      },
    }),
    skill({
      name: "interaction.unlock",
      description: "Unlock a door or chest within reach with its key item (used up if the lock says so).",
      access: "act",
      input: Target,
      output: open,
      handler: ({ target }, call) => {
        interactions.unlock(call.actor(), target);
        return state(target);
      },
    }),
  ]);
}
