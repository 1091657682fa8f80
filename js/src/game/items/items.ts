// Items and inventories: what kinds of things exist (item definitions),
// who holds how many of each (an inventory per entity, with a slot
// capacity), and what each holder has equipped (one item per slot, whose
// stat modifiers apply while equipped). Pickups in the world are entities
// registered as `pickup` interactables. The world resource `game.items`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../../ecs/world.ts";
import type { Game } from "../game.ts";
import { Effect, EntityRef, Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const Modifier = z.strictObject({
  stat: Id,
  add: z.number().min(-1e6).max(1e6).optional().describe("added to the stat"),
  mul: z.number().min(0).max(100).optional().describe("then multiplied by this"),
});
export type Modifier = z.infer<typeof Modifier>;

export const ItemDef = z.strictObject({
  id: Id,
  name: z.string().min(1).max(80),
  description: z.string().max(500).default(""),
  /** How many fit in one inventory slot (1: not stackable). */
  maxStack: z.number().int().min(1).max(10_000).default(99),
  slot: Id.optional().describe("the equipment slot it goes in (weapon, head, …); none: cannot be equipped"),
  modifiers: z.array(Modifier).max(16).default([]).describe("stat modifiers while equipped"),
  use: z.array(Effect).max(32).default([]).describe("effects of using it (the user is actor, what it is used on is target)"),
  consumable: z.boolean().default(false).describe("used up (one) when used"),
  color: z.number().int().min(0).max(0xffffff).default(0xffcc33).describe("the colour of its pickups in the world"),
  tags: z.array(Id).max(16).default([]),
});
export type ItemDef = z.output<typeof ItemDef>;

export interface Inventory {
  capacity: number;
  /** Item id → count, in the order first added. */
  stacks: Map<string, number>;
  /** Slot → item id. */
  equipped: Map<string, string>;
}

export const DEFAULT_CAPACITY = 20;

const Saved = z.strictObject({
  defs: z.array(ItemDef),
  inventories: z.array(z.strictObject({ entity: EntityRef, capacity: z.number().int().min(0), stacks: z.array(z.tuple([Id, z.number().int().min(1)])), equipped: z.array(z.tuple([Id, Id])) })),
});
type Saved = z.infer<typeof Saved>;

export class Items {
  readonly defs = new Map<string, ItemDef>();
  readonly inventories = new Map<string, Inventory>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return {
      defs: [...this.defs.values()],
      inventories: [...this.inventories].map(([entity, inv]) => ({ entity, capacity: inv.capacity, stacks: [...inv.stacks], equipped: [...inv.equipped] })),
    };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.items");
    fill(this.defs, s?.defs.map((d) => [d.id, d]));
    fill(this.inventories, s?.inventories.map((i) => [i.entity, { capacity: i.capacity, stacks: new Map(i.stacks), equipped: new Map(i.equipped) }]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const id of [...this.inventories.keys()]) if (!alive(id)) this.inventories.delete(id);
  }

  define(def: ItemDef): { created: boolean } {
    checkRoom(this.defs, def.id, "item definitions");
    const created = !this.defs.has(def.id);
    this.defs.set(def.id, def);
    this.game.signal("item.defined", { item: def.id, created });
    return { created };
  }

  /** Removes a definition nobody holds any more. */
  undefine(id: string): void {
    this.require(id);
    const holders = [...this.inventories].filter(([, inv]) => inv.stacks.has(id)).map(([e]) => e);
    if (holders.length > 0) throw engineError("invalid_input", `item ${id} is still held by ${holders.join(", ")}: remove it from their inventories first`);
    const pickups = this.game.interactions.pickupsOf(id);
    if (pickups.length > 0) throw engineError("invalid_input", `item ${id} still lies in the world as ${pickups.join(", ")}`);
    this.defs.delete(id);
    this.game.signal("item.removed", { item: id });
  }

  require(id: string): ItemDef {
    const def = this.defs.get(id);
    if (!def) throw engineError("not_found", `no item ${JSON.stringify(id)} is defined (item.define makes one)`);
    return def;
  }

  /** The inventory of `entity`, made on first use (the entity must be live). */
  inventory(entity: string): Inventory {
    let inv = this.inventories.get(entity);
    if (!inv) {
      if (!this.game.alive(entity)) throw engineError("not_found", `unknown entity ${JSON.stringify(entity)}`);
      inv = { capacity: DEFAULT_CAPACITY, stacks: new Map(), equipped: new Map() };
      this.inventories.set(entity, inv);
    }
    return inv;
  }

  count(entity: string, item: string): number {
    return this.inventories.get(entity)?.stacks.get(item) ?? 0;
  }

  /** Slots `stacks` would take. */
  private slotsFor(stacks: Map<string, number>): number {
    let n = 0;
    for (const [item, count] of stacks) n += Math.ceil(count / (this.defs.get(item)?.maxStack ?? 1));
    return n;
  }

  /** Whether `count` more of `item` fit in `entity`'s inventory. */
  fits(entity: string, item: string, count: number): boolean {
    const inv = this.inventories.get(entity);
    const capacity = inv?.capacity ?? DEFAULT_CAPACITY;
    const stacks = new Map(inv?.stacks ?? []);
    stacks.set(item, (stacks.get(item) ?? 0) + count);
    return this.slotsFor(stacks) <= capacity;
  }

  add(entity: string, item: string, count: number): number {
    this.require(item);
    const inv = this.inventory(entity);
    if (!this.fits(entity, item, count)) throw engineError("capacity_exceeded", `${entity}'s inventory is full (${inv.capacity} slots): ${count} ${item} do not fit`);
    const total = (inv.stacks.get(item) ?? 0) + count;
    inv.stacks.set(item, total);
    this.game.signal("inventory.added", { actor: entity, item, count, total });
    return total;
  }

  remove(entity: string, item: string, count: number): number {
    const have = this.count(entity, item);
    if (have < count) throw engineError("invalid_input", `${entity} holds ${have} ${item}, not ${count}`);
    const inv = this.inventories.get(entity)!;
    const total = have - count;
    if (total === 0) {
      inv.stacks.delete(item);
      for (const [slot, equipped] of [...inv.equipped]) if (equipped === item) inv.equipped.delete(slot);
    } else inv.stacks.set(item, total);
    this.game.signal("inventory.removed", { actor: entity, item, count, total });
    return total;
  }

  /** Moves items between two inventories: checked whole first, so a refusal moves nothing. */
  transfer(from: string, to: string, item: string, count: number): void {
    if (from === to) throw engineError("invalid_input", "an inventory cannot transfer to itself");
    const have = this.count(from, item);
    if (have < count) throw engineError("invalid_input", `${from} holds ${have} ${item}, not ${count}`);
    this.inventory(to);
    if (!this.fits(to, item, count)) throw engineError("capacity_exceeded", `${to}'s inventory is full: ${count} ${item} do not fit`);
    this.remove(from, item, count);
    this.add(to, item, count);
    this.game.signal("inventory.transferred", { actor: from, target: to, item, count });
  }

  setCapacity(entity: string, capacity: number): void {
    const inv = this.inventory(entity);
    const used = this.slotsFor(inv.stacks);
    if (used > capacity) throw engineError("invalid_input", `${entity} already uses ${used} slots, more than ${capacity}`);
    inv.capacity = capacity;
  }

  clear(entity: string): number {
    const inv = this.inventories.get(entity);
    if (!inv) return 0;
    let n = 0;
    for (const c of inv.stacks.values()) n += c;
    inv.stacks.clear();
    inv.equipped.clear();
    this.game.signal("inventory.cleared", { actor: entity, count: n });
    return n;
  }

  equip(entity: string, item: string): string {
    const def = this.require(item);
    if (!def.slot) throw engineError("invalid_input", `${item} cannot be equipped (it has no slot)`);
    if (this.count(entity, item) < 1) throw engineError("invalid_input", `${entity} holds no ${item}`);
    const inv = this.inventory(entity);
    const was = inv.equipped.get(def.slot) ?? null;
    inv.equipped.set(def.slot, item);
    this.game.signal("inventory.equipped", { actor: entity, item, slot: def.slot, replaced: was });
    return def.slot;
  }

  /** Takes off what is in `slot` (or the slot holding item `slot`); returns the item, null when empty. */
  unequip(entity: string, slot: string): string | null {
    const inv = this.inventories.get(entity);
    if (!inv) return null;
    const key = inv.equipped.has(slot) ? slot : [...inv.equipped].find(([, item]) => item === slot)?.[0];
    if (key === undefined) return null;
    const item = inv.equipped.get(key)!;
    inv.equipped.delete(key);
    this.game.signal("inventory.unequipped", { actor: entity, item, slot: key });
    return item;
  }

  isEquipped(entity: string, item: string): boolean {
    const inv = this.inventories.get(entity);
    return inv !== undefined && [...inv.equipped.values()].includes(item);
  }

  /** The stat modifiers of everything `entity` has equipped, in slot order. */
  modifiersOf(entity: string): Modifier[] {
    const inv = this.inventories.get(entity);
    if (!inv) return [];
    return [...inv.equipped.values()].flatMap((item) => this.defs.get(item)?.modifiers ?? []);
  }

  /** Places `count` of `item` in the world as a pickup entity; returns its id. */
  spawn(item: string, count: number, at: Vec3): string {
    const def = this.require(item);
    const entry = this.game.entities.create({ shape: "box", size: 0.4, color: def.color, position: at, dynamic: false, static: false, friction: 0.5, restitution: 0, tags: ["item", `item:${item}`] });
    this.game.interactions.register(entry.id, { kind: "pickup", pickup: { item, count } });
    this.game.signal("item.spawned", { item, count, entity: entry.id, position: at });
    return entry.id;
  }
}
