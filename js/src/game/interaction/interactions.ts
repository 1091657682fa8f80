// Interactables: entities players can act on — doors that slide open,
// chests, levers and buttons, signs, pickups lying in the world — each with
// a reach, an open/on/locked state, an optional key item and condition,
// and effects for each thing that can happen to it. A door's open state
// moves it (and its collider) by its `openOffset`. The world resource
// `game.interactions`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../../ecs/world.ts";
import { Vec3 as Vec3Schema, WorldVec3 } from "../../skills/schemas.ts";
import type { Game } from "../game.ts";
import { Condition, Count, EffectList, EntityRef, Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const KINDS = ["door", "chest", "lever", "button", "sign", "pickup", "generic"] as const;
export type Kind = (typeof KINDS)[number];

export const InteractableSpec = z.strictObject({
  kind: z.enum(KINDS).default("generic"),
  label: z.string().max(80).optional().describe("what players see it called"),
  range: z.number().gt(0).max(100).default(2.5).describe("how near (metres) an actor must be to use it"),
  open: z.boolean().default(false),
  on: z.boolean().default(false),
  locked: z.boolean().default(false),
  key: Id.optional().describe("the item that unlocks it"),
  consumeKey: z.boolean().default(false).describe("unlocking uses the key up"),
  openOffset: WorldVec3.optional().describe("doors: how far it moves when open (default [0, 2.5, 0])"),
  requires: Condition.optional().describe("what must hold (for the actor) to interact at all"),
  refusal: z.string().max(200).optional().describe("what a refused actor is told"),
  pickup: z.strictObject({ item: Id, count: Count.default(1) }).optional().describe("pickups: what picking it up gives"),
  text: z.string().max(500).optional().describe("signs: what reading it shows"),
  onInteract: EffectList.default([]),
  onOpen: EffectList.default([]),
  onClose: EffectList.default([]),
  onUse: EffectList.default([]).describe("when an item is used on it, or it is used"),
  onToggle: EffectList.default([]).describe("levers: when switched either way"),
});
export type InteractableSpec = z.input<typeof InteractableSpec>;

export interface Interactable extends z.output<typeof InteractableSpec> {
  /** Where it stands closed (recorded at registration; doors move from here). */
  home: Vec3;
  uses: number;
}

const Saved = z.array(z.tuple([EntityRef, InteractableSpec.extend({ home: Vec3Schema, uses: z.number().int().min(0) })]));
type Saved = z.input<typeof Saved>;

const DOOR_OFFSET: Vec3 = [0, 2.5, 0];

export class Interactions {
  readonly all = new Map<string, Interactable>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return [...this.all].map(([e, i]) => [e, { ...i }]);
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.interactions");
    fill(this.all, s?.map(([e, i]) => [e, i as Interactable]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const id of [...this.all.keys()]) if (!alive(id)) this.all.delete(id);
  }

  register(entity: string, spec: InteractableSpec): Interactable {
    const parsed = InteractableSpec.parse(spec);
    checkRoom(this.all, entity, "interactables");
    if (parsed.kind === "pickup" && !parsed.pickup) throw engineError("invalid_input", "a pickup needs pickup: {item, count}");
    if (parsed.pickup) this.game.items.require(parsed.pickup.item);
    const existing = this.all.get(entity);
    const home = existing?.home ?? this.game.position(entity);
    const it: Interactable = { ...parsed, home, uses: existing?.uses ?? 0 };
    this.all.set(entity, it);
    if (it.kind === "door") this.place(entity, it);
    this.game.signal("interaction.registered", { target: entity, kind: it.kind });
    return it;
  }

  unregister(entity: string): boolean {
    const had = this.all.delete(entity);
    if (had) this.game.signal("interaction.unregistered", { target: entity });
    return had;
  }

  require(entity: string): Interactable {
    const it = this.all.get(entity);
    if (!it) throw engineError("not_found", `${entity} is not interactable (interaction.register makes it so)`);
    return it;
  }

  isOpen(entity: string): boolean {
    return this.all.get(entity)?.open ?? false;
  }

  /** Entities lying in the world as pickups of `item`. */
  pickupsOf(item: string): string[] {
    return [...this.all].filter(([, i]) => i.pickup?.item === item).map(([e]) => e);
  }

  /** Checks `actor` may act on `entity` now: both live, within reach, and its condition holds. */
  reach(actor: string, entity: string): Interactable {
    const it = this.require(entity);
    if (actor === entity) throw engineError("invalid_input", `${actor} cannot interact with itself`);
    const d = this.distanceTo(actor, entity, it);
    if (d > it.range) throw engineError("invalid_input", `${entity} is ${d.toFixed(2)} m from ${actor}, beyond its reach of ${it.range} m`);
    if (it.requires && !this.game.check(it.requires, { actor, target: entity })) throw engineError("invalid_input", it.refusal ?? `${entity} refuses ${actor}: its condition does not hold`);
    return it;
  }

  /** How far `actor` is from an interactable: from a door's doorway (where it stands closed), from anything else itself. */
  private distanceTo(actor: string, entity: string, it: Interactable): number {
    if (it.kind !== "door") return this.game.distance(actor, entity);
    const p = this.game.position(actor);
    return Math.hypot(p[0] - it.home[0], p[1] - it.home[1], p[2] - it.home[2]);
  }

  /** Interactables within reach of `actor`, nearest first. */
  near(actor: string): { entity: string; kind: Kind; label: string | null; distance: number; open: boolean; locked: boolean; on: boolean }[] {
    const out = [];
    for (const [entity, it] of this.all) {
      if (entity === actor || !this.game.alive(entity)) continue;
      const distance = this.distanceTo(actor, entity, it);
      if (distance <= it.range) out.push({ entity, kind: it.kind, label: it.label ?? null, distance, open: it.open, locked: it.locked, on: it.on });
    }
    return out.sort((a, b) => a.distance - b.distance || (a.entity < b.entity ? -1 : 1));
  }

  /** What interacting does for each kind: doors and chests open or close, levers toggle, pickups are picked up, the rest fire their effects. */
  interact(actor: string, entity: string): { kind: Kind; result: string; text: string | null } {
    const it = this.reach(actor, entity);
    if (it.kind === "pickup") {
      this.pickup(actor, entity);
      return { kind: it.kind, result: "picked up", text: null };
    }
    it.uses++;
    this.game.signal("interaction.interacted", { actor, target: entity, kind: it.kind });
    let result = "used";
    if (it.kind === "door" || it.kind === "chest") {
      if (it.open) this.close(actor, entity);
      else this.open(actor, entity);
      result = it.open ? "opened" : "closed";
    } else if (it.kind === "lever") {
      this.toggle(actor, entity);
      result = it.on ? "switched on" : "switched off";
    } else if (it.kind === "sign") result = "read";
    this.game.apply(it.onInteract, { actor, target: entity });
    return { kind: it.kind, result, text: it.text ?? null };
  }

  /** Picks a pickup up into `actor`'s inventory; the pickup entity is gone after. */
  pickup(actor: string, entity: string): { item: string; count: number; total: number } {
    const it = this.reach(actor, entity);
    if (!it.pickup) throw engineError("invalid_input", `${entity} is a ${it.kind}, not something to pick up`);
    const { item, count } = it.pickup;
    if (!this.game.items.fits(actor, item, count)) throw engineError("capacity_exceeded", `${actor}'s inventory is full: ${count} ${item} do not fit`);
    const total = this.game.items.add(actor, item, count);
    this.game.signal("item.picked", { actor, item, count, entity });
    this.game.apply(it.onInteract, { actor, target: entity });
    this.game.destroy(entity);
    return { item, count, total };
  }

  open(actor: string | null, entity: string): void {
    const it = actor === null ? this.require(entity) : this.reach(actor, entity);
    if (it.open) throw engineError("invalid_input", `${entity} is already open`);
    if (it.locked) {
      // A key in hand unlocks on the way.
      if (actor !== null && it.key && this.game.items.count(actor, it.key) > 0) this.unlock(actor, entity);
      else throw engineError("invalid_input", `${entity} is locked${it.key ? `: it opens with ${it.key}` : ""}`);
    }
    this.setOpen(entity, true, actor);
  }

  close(actor: string | null, entity: string): void {
    const it = actor === null ? this.require(entity) : this.reach(actor, entity);
    if (!it.open) throw engineError("invalid_input", `${entity} is already closed`);
    this.setOpen(entity, false, actor);
  }

  toggle(actor: string, entity: string): boolean {
    const it = this.reach(actor, entity);
    if (it.kind === "door" || it.kind === "chest") {
      if (it.open) this.close(actor, entity);
      else this.open(actor, entity);
      return it.open;
    }
    it.on = !it.on;
    this.game.signal(it.on ? "interaction.switchedOn" : "interaction.switchedOff", { actor, target: entity });
    this.game.apply(it.onToggle, { actor, target: entity });
    return it.on;
  }

  unlock(actor: string, entity: string): void {
    const it = this.reach(actor, entity);
    if (!it.locked) throw engineError("invalid_input", `${entity} is not locked`);
    if (it.key) {
      if (this.game.items.count(actor, it.key) < 1) throw engineError("invalid_input", `${entity} unlocks with ${it.key}, which ${actor} does not hold`);
      if (it.consumeKey) this.game.items.remove(actor, it.key, 1);
    }
    this.setLocked(entity, false, actor);
  }

  lock(actor: string, entity: string): void {
    const it = this.reach(actor, entity);
    if (it.locked) throw engineError("invalid_input", `${entity} is already locked`);
    if (it.open) throw engineError("invalid_input", `${entity} is open: close it first`);
    if (it.key && this.game.items.count(actor, it.key) < 1) throw engineError("invalid_input", `${entity} locks with ${it.key}, which ${actor} does not hold`);
    this.setLocked(entity, true, actor);
  }

  /** Opens or closes without reach checks (rules and effects do this); a door moves with it. */
  setOpen(entity: string, open: boolean, by: string | null): void {
    const it = this.require(entity);
    if (it.open === open) return;
    it.open = open;
    if (it.kind === "door") this.place(entity, it);
    const ctx = { actor: by ?? undefined, target: entity };
    this.game.signal(open ? "interaction.opened" : "interaction.closed", { ...(by ? { actor: by } : {}), target: entity });
    this.game.apply(open ? it.onOpen : it.onClose, ctx);
  }

  setLocked(entity: string, locked: boolean, by: string | null): void {
    const it = this.require(entity);
    if (it.locked === locked) return;
    it.locked = locked;
    this.game.signal(locked ? "interaction.locked" : "interaction.unlocked", { ...(by ? { actor: by } : {}), target: entity });
  }

  /** Uses an interactable (not an item on it): its use effects. */
  use(actor: string, entity: string): void {
    const it = this.reach(actor, entity);
    it.uses++;
    this.game.signal("interaction.used", { actor, target: entity, kind: it.kind });
    this.game.apply(it.onUse, { actor, target: entity });
  }

  /** Moves a door to where its open state puts it. */
  private place(entity: string, it: Interactable): void {
    const offset = it.openOffset ?? DOOR_OFFSET;
    const at: Vec3 = it.open ? [it.home[0] + offset[0], it.home[1] + offset[1], it.home[2] + offset[2]] : [...it.home];
    this.game.entities.setTransform(this.game.entities.require(entity), { position: at });
  }
}
