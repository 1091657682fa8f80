// Game events and the listeners that react to them. Every gameplay family
// signals what happens (`trigger.entered`, `item.picked`, `quest.completed`,
// `stats.depleted`, …) and builders emit their own (event.emit); a listener
// is world state — an event type, fields its data must match, a condition
// and effects — so replays react exactly as the original did. Module code
// can also subscribe from JS (events.on in the module API). The world
// resource `game.events`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import { Condition, EffectList, EventData, Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const ListenerSpec = z.strictObject({
  on: Id.describe("the event type it listens for, e.g. trigger.entered, item.picked, quest.completed, or one emitted with event.emit"),
  where: EventData.default({}).describe("fields the event's data must equal (e.g. {trigger: \"lava\"})"),
  when: Condition.optional().describe("what must also hold (the event's actor is the actor)"),
  effects: EffectList.min(1),
  once: z.boolean().default(false).describe("fire once, then remove itself"),
});
export type ListenerSpec = z.input<typeof ListenerSpec>;
export type Listener = z.output<typeof ListenerSpec> & { fired: number };

const Saved = z.array(z.tuple([Id, ListenerSpec.extend({ fired: z.number().int().min(0) })]));
type Saved = [string, Listener][];

export class GameEvents {
  readonly listeners = new Map<string, Listener>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return [...this.listeners].map(([id, l]) => [id, { ...l }]);
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.events");
    fill(this.listeners, s ?? undefined);
  }

  listen(id: string, spec: ListenerSpec): Listener {
    const parsed = ListenerSpec.parse(spec);
    checkRoom(this.listeners, id, "listeners");
    const l: Listener = { ...parsed, fired: 0 };
    this.listeners.set(id, l);
    return l;
  }

  unlisten(id: string): boolean {
    return this.listeners.delete(id);
  }

  require(id: string): Listener {
    const l = this.listeners.get(id);
    if (!l) throw engineError("not_found", `no listener ${JSON.stringify(id)}`);
    return l;
  }

  /** Runs every listener for `type` whose fields match `data` and whose condition holds, in the order they were added. */
  dispatch(type: string, data: Record<string, unknown>): void {
    for (const [id, l] of [...this.listeners]) {
      if (l.on !== type || !this.listeners.has(id)) continue;
      if (!Object.entries(l.where).every(([k, v]) => data[k] === v)) continue;
      const str = (v: unknown) => (typeof v === "string" ? v : undefined);
      const ctx = { actor: str(data.actor), target: str(data.target), npc: str(data.npc), data };
      if (l.when && !this.game.check(l.when, ctx)) continue;
      l.fired++;
      if (l.once) this.listeners.delete(id);
      this.game.apply(l.effects, ctx);
    }
  }
}
