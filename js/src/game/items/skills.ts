// item.* and inventory.* skills: defining kinds of items, placing them in
// the world as pickups, and what each entity holds and wears.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { SkillDefinition } from "../../skills/registry.ts";
import { WorldVec3 } from "../../skills/schemas.ts";
import type { Game } from "../game.ts";
import { Count, EntityRef, Id } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { DEFAULT_CAPACITY, ItemDef } from "./items.ts";

/** How near (metres) a player must be to hand something over. */
export const HAND_OVER_RANGE = 3;

const Stack = z.object({ item: z.string(), count: z.number() });

const itemDefineOutput = z.object({ item: z.string(), created: z.boolean() });
const itemRemoveInput = z.strictObject({ item: Id });
const itemRemoveOutput = z.object({ removed: z.boolean() });
const itemGetInput = z.strictObject({ item: Id });
const itemGetOutput = z.object({ item: z.unknown() });
const itemListInput = z.strictObject({ tag: Id.optional() });
const itemListOutput = z.object({ items: z.array(z.object({ item: z.string(), name: z.string(), slot: z.string().nullable(), maxStack: z.number(), tags: z.array(z.string()) })) });
const itemSpawnInput = z.strictObject({ item: Id, count: Count.default(1), position: WorldVec3 });
const itemSpawnOutput = z.object({ entity: z.string() });
const inventoryAddInput = z.strictObject({ entity: EntityRef, item: Id, count: Count.default(1) });
const inventoryAddOutput = z.object({ total: z.number() });
const inventoryRemoveInput = z.strictObject({ entity: EntityRef, item: Id, count: Count.default(1) });
const inventoryRemoveOutput = z.object({ total: z.number() });
const inventoryHasInput = z.strictObject({ entity: EntityRef, item: Id, count: Count.default(1) });
const inventoryHasOutput = z.object({ has: z.boolean(), count: z.number() });
const inventoryCountInput = z.strictObject({ entity: EntityRef, item: Id });
const inventoryCountOutput = z.object({ count: z.number() });
const inventoryListInput = z.strictObject({ entity: EntityRef });
const inventoryListOutput = z.object({ entity: z.string(), capacity: z.number(), used: z.number(), items: z.array(Stack), equipped: z.record(z.string(), z.string()) });
const inventoryTransferInput = z.strictObject({ to: EntityRef, item: Id, count: Count.default(1) });
const inventoryTransferOutput = z.object({ from: z.string(), to: z.string(), item: z.string(), count: z.number() });
const inventoryEquipInput = z.strictObject({ item: Id });
const inventoryEquipOutput = z.object({ item: z.string(), slot: z.string() });
const inventoryUnequipInput = z.strictObject({ slot: Id.describe("a slot, or the id of the item to take off") });
const inventoryUnequipOutput = z.object({ item: z.string().nullable() });
const inventoryEquippedInput = z.strictObject({ entity: EntityRef });
const inventoryEquippedOutput = z.object({ equipped: z.record(z.string(), z.string()), modifiers: z.array(z.object({ stat: z.string(), add: z.number().optional(), mul: z.number().optional() })) });
const inventoryClearInput = z.strictObject({ entity: EntityRef });
const inventoryClearOutput = z.object({ removed: z.number() });
const inventorySetCapacityInput = z.strictObject({ entity: EntityRef, capacity: z.number().int().min(0).max(10_000) });
const inventorySetCapacityOutput = z.object({ capacity: z.number() });

export function itemSkills(game: Game): SkillDefinition[] {
  const { items } = game;
  const listing = (entity: string) => {
    const inv = items.inventories.get(entity);
    const stacks = [...(inv?.stacks ?? [])].map(([item, count]) => ({ item, count }));
    let used = 0;
    for (const s of stacks) used += Math.ceil(s.count / (items.defs.get(s.item)?.maxStack ?? 1));
    return { entity, capacity: inv?.capacity ?? DEFAULT_CAPACITY, used, items: stacks, equipped: Object.fromEntries(inv?.equipped ?? []) };
  };
  return gameSkills(game, { module: import.meta.url, factory: "itemSkills" }, [
    skill({
      name: "item.define",
      description: "Define a kind of item: name, stack size, equipment slot and stat modifiers, effects of using it (potions, keys, scrolls), whether using consumes it. Redefining replaces it.",
      access: "define",
      input: ItemDef,
      output: itemDefineOutput,
      handler: (def) => ({ item: def.id, ...items.define(def) }),
    }),
    skill({
      name: "item.remove",
      description: "Remove an item definition nobody holds and no pickup carries any more.",
      access: "define",
      input: itemRemoveInput,
      output: itemRemoveOutput,
      handler: ({ item }) => {
        items.undefine(item);
        return { removed: true };
      },
    }),
    skill({
      name: "item.get",
      description: "Describe an item definition.",
      access: "read",
      input: itemGetInput,
      output: itemGetOutput,
      handler: ({ item }) => ({ item: items.require(item) }),
    }),
    skill({
      name: "item.list",
      description: "List the defined items (optionally those with a tag).",
      access: "read",
      input: itemListInput,
      output: itemListOutput,
      handler: ({ tag }) => ({
        items: [...items.defs.values()].filter((d) => tag === undefined || d.tags.includes(tag)).map((d) => ({ item: d.id, name: d.name, slot: d.slot ?? null, maxStack: d.maxStack, tags: d.tags })),
      }),
    }),
    skill({
      name: "item.spawn",
      description: "Place items in the world as a pickup (a small box in the item's colour) that players pick up with interaction.pickup. Returns the pickup's entity.",
      access: "define",
      input: itemSpawnInput,
      output: itemSpawnOutput,
      handler: ({ item, count, position }) => ({ entity: items.spawn(item, count, position) }),
    }),
    skill({
      name: "inventory.add",
      description: "Give an entity items (it needs room: inventories have a slot capacity). Emits inventory.added.",
      access: "define",
      input: inventoryAddInput,
      output: inventoryAddOutput,
      handler: ({ entity, item, count }) => ({ total: items.add(entity, item, count) }),
    }),
    skill({
      name: "inventory.remove",
      description: "Take items from an entity (it must hold that many). Emits inventory.removed.",
      access: "define",
      input: inventoryRemoveInput,
      output: inventoryRemoveOutput,
      handler: ({ entity, item, count }) => ({ total: items.remove(entity, item, count) }),
    }),
    skill({
      name: "inventory.has",
      description: "Does an entity hold at least `count` of an item?",
      access: "read",
      input: inventoryHasInput,
      output: inventoryHasOutput,
      handler: ({ entity, item, count }) => ({ has: items.count(entity, item) >= count, count: items.count(entity, item) }),
    }),
    skill({
      name: "inventory.count",
      description: "How many of an item an entity holds.",
      access: "read",
      input: inventoryCountInput,
      output: inventoryCountOutput,
      handler: ({ entity, item }) => ({ count: items.count(entity, item) }),
    }),
    skill({
      name: "inventory.list",
      description: "What an entity holds: each item and count, slots used of its capacity, and what it has equipped.",
      access: "read",
      input: inventoryListInput,
      output: inventoryListOutput,
      handler: ({ entity }) => listing(entity),
    }),
    skill({
      name: "inventory.transfer",
      description: `Give (hand over) items from the entity you play to another entity within ${HAND_OVER_RANGE} m: another player, a chest, an NPC (who remembers the gift and likes you more).`,
      access: "act",
      input: inventoryTransferInput,
      output: inventoryTransferOutput,
      handler: ({ to, item, count }, call) => {
        const from = call.actor();
        const d = game.distance(from, to);
        if (d > HAND_OVER_RANGE) throw engineError("invalid_input", `${to} is ${d.toFixed(2)} m away; hand things over within ${HAND_OVER_RANGE} m`);
        items.transfer(from, to, item, count);
        if (game.npcs.has(to)) {
          game.npcs.remember(to, { kind: "event", text: `${from} gave me ${count} ${items.require(item).name}`, about: from });
          game.npcs.adjustAttitude(to, from, 5 * count);
        }
        return { from, to, item, count };
      },
    }),
    skill({
      name: "inventory.equip",
      description: "Equip an item you hold in its slot (replacing what was there); its stat modifiers apply while equipped.",
      access: "act",
      input: inventoryEquipInput,
      output: inventoryEquipOutput,
      handler: ({ item }, call) => ({ item, slot: items.equip(call.actor(), item) }),
    }),
    skill({
      name: "inventory.unequip",
      description: "Take off what is in a slot (or the slot holding an item).",
      access: "act",
      input: inventoryUnequipInput,
      output: inventoryUnequipOutput,
      handler: ({ slot }, call) => ({ item: items.unequip(call.actor(), slot) }),
    }),
    skill({
      name: "inventory.equipped",
      description: "What an entity has equipped, slot by slot, and the stat modifiers that brings.",
      access: "read",
      input: inventoryEquippedInput,
      output: inventoryEquippedOutput,
      handler: ({ entity }) => ({ equipped: listing(entity).equipped, modifiers: items.modifiersOf(entity) }),
    }),
    skill({
      name: "inventory.clear",
      description: "Empty an entity's inventory (and what it has equipped).",
      access: "define",
      input: inventoryClearInput,
      output: inventoryClearOutput,
      handler: ({ entity }) => ({ removed: items.clear(entity) }),
    }),
    skill({
      name: "inventory.setCapacity",
      description: "Set how many slots an entity's inventory has (a full stack takes one slot; it cannot shrink below what it holds).",
      access: "define",
      input: inventorySetCapacityInput,
      output: inventorySetCapacityOutput,
      handler: ({ entity, capacity }) => {
        items.setCapacity(entity, capacity);
        return { capacity };
      },
    }),
  ]);
}
