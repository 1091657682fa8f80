// The gameplay of one world session: every family's state (each a world
// resource, so digests, snapshots, world files, checkpoints and replay
// cover it), the game event bus, the two rule languages (conditions and
// effects) and the fixed-step system that advances triggers, timers,
// statuses, cooldowns, projectiles and NPC routines in a fixed order.

import type { AudioScene } from "../../../crates/limina-audio/js/audio.ts";
import { errorCodeOf } from "../../../crates/limina-ops/js/errors.ts";
import type { WorldResources } from "../ecs/resources.ts";
import type { Vec3 } from "../ecs/world.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { Entities } from "../scene/entities.ts";
import type { ExecutionContext } from "../skills/registry.ts";
import type { SpatialIndex } from "../spatial/spatial-index.ts";
import type { UiLayer } from "../ui/layer.ts";
import { Abilities } from "./combat/abilities.ts";
import { Combat } from "./combat/combat.ts";
import { Stats } from "./combat/stats.ts";
import { Statuses } from "./combat/statuses.ts";
import { Dialogues } from "./dialogue/dialogues.ts";
import { Npcs } from "./dialogue/npcs.ts";
import { GameEvents } from "./events/events.ts";
import { Interactions } from "./interaction/interactions.ts";
import { Items } from "./items/items.ts";
import { Progression } from "./progression/progression.ts";
import { Quests } from "./quests/quests.ts";
import type { Condition, Effect, Op, Who } from "./rules/schemas.ts";
import { type Checkpointing, Checkpoints } from "./save/checkpoints.ts";
import { GameState } from "./state/state.ts";
import { Triggers } from "./triggers/triggers.ts";

/** Who a rule is evaluated for: the acting entity, what it acts on, the NPC of a dialogue, the event that fired it. */
export interface RuleContext {
  actor?: string;
  target?: string;
  npc?: string;
  data?: Record<string, unknown>;
}

export interface GameServices {
  entities: Entities;
  spatial: SpatialIndex;
  tracer: Tracer;
  resources: WorldResources;
  ui: UiLayer;
  audio: AudioScene;
  /** The world's tick now. */
  tick(): number;
  /** Takes and loads whole-world snapshots (checkpoints and saves). */
  checkpointing: Checkpointing;
}

type Emitter = (type: string, payload: unknown) => string;

/** How deep effects may set off further effects (an event a listener emits …) before the chain is cut. */
export const MAX_CHAIN = 8;

export class Game {
  readonly state: GameState;
  readonly items: Items;
  readonly interactions: Interactions;
  readonly triggers: Triggers;
  readonly events: GameEvents;
  readonly quests: Quests;
  readonly stats: Stats;
  readonly statuses: Statuses;
  readonly combat: Combat;
  readonly abilities: Abilities;
  readonly dialogues: Dialogues;
  readonly npcs: Npcs;
  readonly progression: Progression;
  readonly checkpoints: Checkpoints;
  private emitter: Emitter | null = null;
  private chain = 0;
  private seenRevision = -1;

  constructor(readonly services: GameServices) {
    this.state = new GameState(this);
    this.items = new Items(this);
    this.interactions = new Interactions(this);
    this.triggers = new Triggers(this);
    this.events = new GameEvents(this);
    this.quests = new Quests(this);
    this.stats = new Stats(this);
    this.statuses = new Statuses(this);
    this.combat = new Combat(this);
    this.abilities = new Abilities(this);
    this.dialogues = new Dialogues(this);
    this.npcs = new Npcs(this);
    this.progression = new Progression(this);
    this.checkpoints = new Checkpoints(this, services.checkpointing);
    const { resources } = services;
    resources.register("game.state", this.state);
    resources.register("game.items", this.items);
    resources.register("game.interactions", this.interactions);
    resources.register("game.triggers", this.triggers);
    resources.register("game.events", this.events);
    resources.register("game.quests", this.quests);
    resources.register("game.stats", this.stats);
    resources.register("game.statuses", this.statuses);
    resources.register("game.combat", this.combat);
    resources.register("game.abilities", this.abilities);
    resources.register("game.dialogue", this.dialogues);
    resources.register("game.npcs", this.npcs);
    resources.register("game.progression", this.progression);
    resources.register("game.checkpoints", this.checkpoints);
  }

  get entities(): Entities {
    return this.services.entities;
  }

  tick(): number {
    return this.services.tick();
  }

  /** Whether `id` is a live entity. */
  alive(id: string): boolean {
    return this.services.entities.world.entities.has(id);
  }

  /** A live entity's position; not_found for any other id. */
  position(id: string): Vec3 {
    const entry = this.services.entities.require(id);
    return this.services.entities.world.position(entry.eid);
  }

  distance(a: string, b: string): number {
    const p = this.position(a);
    const q = this.position(b);
    return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
  }

  /** Records a trace event, attributed to the calling agent inside a skill call and to `game` otherwise. */
  emit(type: string, payload: unknown): string {
    return this.emitter ? this.emitter(type, payload) : this.services.tracer.emit(type, payload, { actorId: "game", threadId: "game" });
  }

  /**
   * A game event: recorded in the world log, then heard by the world's listeners (event.listen)
   * and the quests whose objectives count it. `data.actor`, when set, is whom listeners' effects
   * are about.
   */
  signal(type: string, data: Record<string, unknown>): void {
    this.emit(type, data);
    if (this.chain >= MAX_CHAIN) {
      this.emit("game.chain.cut", { type, depth: this.chain });
      return;
    }
    this.chain++;
    try {
      this.events.dispatch(type, data);
      this.quests.hear(type, data);
    } finally {
      this.chain--;
    }
  }

  /** The entity `who` names in `ctx`, or null when the context has none. */
  resolve(who: Who | undefined, ctx: RuleContext, fallback: "actor" | "target" | "npc" = "actor"): string | null {
    const w = who ?? fallback;
    const id = w === "actor" ? ctx.actor : w === "target" ? ctx.target : w === "npc" ? ctx.npc : w;
    return id !== undefined && this.alive(id) ? id : null;
  }

  /** Whether `cond` holds now for `ctx`. Something it names that does not exist simply does not hold. */
  check(cond: Condition, ctx: RuleContext, depth = 0): boolean {
    if (depth > 16) return false;
    const who = (w: Who | undefined) => this.resolve(w, ctx);
    if ("flag" in cond) return this.state.flag(cond.flag) === (cond.is ?? true);
    if ("counter" in cond) return compare(this.state.counter(cond.counter), cond.op, cond.value);
    if ("has" in cond) {
      const e = who(cond.who);
      return e !== null && this.items.count(e, cond.has) >= (cond.count ?? 1);
    }
    if ("equipped" in cond) {
      const e = who(cond.who);
      return e !== null && this.items.isEquipped(e, cond.equipped);
    }
    if ("quest" in cond) {
      const e = who(cond.who);
      return e !== null && this.quests.statusOf(cond.quest, e) === cond.status;
    }
    if ("stat" in cond) {
      const e = who(cond.who);
      const v = e === null ? null : this.stats.value(e, cond.stat);
      return v !== null && compare(v, cond.op, cond.value);
    }
    if ("hasStatus" in cond) {
      const e = who(cond.who);
      return e !== null && this.statuses.has(e, cond.hasStatus);
    }
    if ("timer" in cond) return this.state.timerState(cond.timer) === cond.is;
    if ("attitude" in cond) {
      const npc = this.resolve(cond.npc, ctx, "npc");
      const toward = who(cond.toward);
      return npc !== null && toward !== null && this.npcs.has(npc) && compare(this.npcs.attitude(npc, toward), cond.op, cond.attitude);
    }
    if ("level" in cond) {
      const e = who(cond.who);
      return e !== null && compare(this.progression.level(e), cond.op, cond.level);
    }
    if ("unlocked" in cond) {
      const e = who(cond.who);
      return e !== null && this.progression.unlocked(e, cond.unlocked);
    }
    if ("isOpen" in cond) return this.interactions.isOpen(cond.isOpen) === (cond.is ?? true);
    if ("game" in cond) return this.state.phase === cond.game;
    if ("condition" in cond) {
      const named = this.state.conditions.get(cond.condition);
      return named !== undefined && this.check(named, ctx, depth + 1);
    }
    if ("all" in cond) return cond.all.every((c) => this.check(c, ctx, depth + 1));
    if ("any" in cond) return cond.any.some((c) => this.check(c, ctx, depth + 1));
    return !this.check(cond.not, ctx, depth + 1);
  }

  /**
   * Applies effects in order. An effect that cannot apply (an item nobody defined, an entity that
   * is gone, nobody to apply it to) is skipped with a `game.effect.skipped` event; the rest go on.
   */
  apply(effects: readonly Effect[], ctx: RuleContext): void {
    if (effects.length === 0) return;
    if (this.chain >= MAX_CHAIN) {
      this.emit("game.chain.cut", { effects: effects.length, depth: this.chain });
      return;
    }
    this.chain++;
    try {
      for (const effect of effects) {
        try {
          this.applyOne(effect, ctx);
        } catch (e) {
          const code = errorCodeOf(e);
          if (code === "internal" || code === "handler_error") throw e;
          this.emit("game.effect.skipped", { effect: Object.keys(effect)[0], code, reason: e instanceof Error ? e.message : String(e) });
        }
      }
    } finally {
      this.chain--;
    }
  }

  private applyOne(effect: Effect, ctx: RuleContext): void {
    const need = (w: Who | undefined, fallback: "actor" | "target" | "npc" = "actor"): string => {
      const e = this.resolve(w, ctx, fallback);
      if (e === null) throw skip(`nobody to apply it to (${w ?? fallback} is not set or gone)`);
      return e;
    };
    if ("setFlag" in effect) this.state.setFlag(effect.setFlag, effect.value ?? true);
    else if ("setCounter" in effect) this.state.setCounter(effect.setCounter, effect.value);
    else if ("addCounter" in effect) this.state.setCounter(effect.addCounter, this.state.counter(effect.addCounter) + (effect.by ?? 1));
    else if ("give" in effect) this.items.add(need(effect.to), effect.give, effect.count ?? 1);
    else if ("take" in effect) this.items.remove(need(effect.from), effect.take, effect.count ?? 1);
    else if ("damage" in effect) this.stats.damage(need(effect.to), effect.damage, effect.kind ?? "physical", ctx.actor ?? null);
    else if ("heal" in effect) this.stats.heal(need(effect.to), effect.heal, ctx.actor ?? null);
    else if ("modifyStat" in effect) this.stats.modify(need(effect.who), effect.modifyStat, effect.by, ctx.actor ?? null);
    else if ("applyStatus" in effect) this.statuses.apply(need(effect.to), effect.applyStatus, effect.ticks, ctx.actor ?? null);
    else if ("removeStatus" in effect) this.statuses.remove(need(effect.from), effect.removeStatus);
    else if ("emit" in effect) this.signal(effect.emit, { ...effect.data, ...(ctx.actor ? { actor: ctx.actor } : {}) });
    else if ("startTimer" in effect) this.state.startTimer(effect.startTimer, effect.ticks, effect.repeat ?? false, effect.effects ?? []);
    else if ("stopTimer" in effect) this.state.stopTimer(effect.stopTimer);
    else if ("open" in effect) this.interactions.setOpen(effect.open, true, ctx.actor ?? null);
    else if ("close" in effect) this.interactions.setOpen(effect.close, false, ctx.actor ?? null);
    else if ("lock" in effect) this.interactions.setLocked(effect.lock, true, ctx.actor ?? null);
    else if ("unlock" in effect) this.interactions.setLocked(effect.unlock, false, ctx.actor ?? null);
    else if ("offerQuest" in effect) this.quests.offer(effect.offerQuest, need(effect.to), ctx.npc ?? null);
    else if ("startQuest" in effect) this.quests.accept(effect.startQuest, need(effect.for), true);
    else if ("completeQuest" in effect) this.quests.complete(effect.completeQuest, need(effect.for));
    else if ("failQuest" in effect) this.quests.fail(effect.failQuest, need(effect.for), "failed by a rule");
    else if ("progress" in effect) this.quests.progress(effect.progress, effect.objective, effect.by ?? 1, need(effect.for));
    else if ("win" in effect) this.state.end("won", effect.win);
    else if ("lose" in effect) this.state.end("lost", effect.lose);
    else if ("say" in effect) this.npcs.say(need(effect.as, ctx.npc ? "npc" : "actor"), effect.say);
    else if ("xp" in effect) this.progression.addXp(need(effect.to), effect.xp);
    else if ("grant" in effect) this.progression.grant(need(effect.to), effect.grant);
    else if ("remember" in effect) this.npcs.remember(need(effect.npc, "npc"), { text: effect.remember, about: this.resolve(effect.about, ctx), kind: "event" });
    else if ("attitude" in effect) this.npcs.adjustAttitude(need(effect.npc, "npc"), need(effect.toward), effect.attitude);
    else if ("teleport" in effect) this.entities.setTransform(this.entities.require(need(effect.who)), { position: effect.teleport });
    else if ("destroy" in effect) this.destroy(need(effect.destroy));
    else if ("spawnItem" in effect) this.items.spawn(effect.spawnItem, effect.count ?? 1, effect.at);
    else if ("grantAbility" in effect) this.abilities.grant(need(effect.to), effect.grantAbility);
    else if (this.check(effect.if, ctx)) this.apply(effect.then, ctx);
    else this.apply(effect.else ?? [], ctx);
  }

  /** Destroys an entity and everything the game kept about it. */
  destroy(id: string): void {
    this.entities.destroy(id);
    this.prune();
    this.signal("game.entity.destroyed", { entity: id });
  }

  /** Forgets game state of entities that no longer exist (checked when the entity table changed). */
  prune(): void {
    const revision = this.services.entities.world.entities.revision;
    if (revision === this.seenRevision) return;
    this.seenRevision = revision;
    const alive = (id: string) => this.alive(id);
    for (const family of [this.items, this.interactions, this.triggers, this.quests, this.stats, this.statuses, this.combat, this.abilities, this.dialogues, this.npcs, this.progression]) family.prune(alive);
    for (const [agent, entity] of [...this.state.players]) if (!alive(entity)) this.state.players.delete(agent);
  }

  /**
   * Settles what follows from the state now: quests whose objectives are met complete, rules
   * whose conditions turned true fire — until nothing more follows (bounded).
   */
  settle(): void {
    for (let round = 0; round < MAX_CHAIN; round++) {
      const quests = this.quests.settle();
      const rules = this.state.settleRules();
      if (!quests && !rules) return;
    }
  }

  /** One fixed step of the game, after physics: routines, projectiles, triggers, statuses, cooldowns, timers, then settling. */
  step(): void {
    this.prune();
    this.npcs.step();
    this.combat.step();
    this.triggers.step();
    this.statuses.step();
    this.quests.step();
    this.abilities.step();
    this.stats.step();
    this.state.step();
    this.prune();
    this.settle();
  }

  /**
   * Runs a skill's handler on the game: events it causes are attributed to the caller; a
   * world-writing call that fails leaves the game state as it was; one that succeeds is
   * settled before it returns.
   */
  run<T>(ctx: ExecutionContext, writes: boolean, fn: () => T): T {
    const outer = this.emitter;
    this.emitter = (type, payload) => ctx.emit(type, payload);
    const before = writes ? this.saveState() : null;
    try {
      // Only calls replay re-applies may prune: a read must change nothing.
      if (writes) this.prune();
      const result = fn();
      if (writes) this.settle();
      return result;
    } catch (e) {
      if (before) this.loadState(before);
      throw e;
    } finally {
      this.emitter = outer;
    }
  }

  /** Every family's state but the checkpoints' (a failed call rolls back to it). */
  private saveState(): Map<string, unknown> {
    const out = new Map<string, unknown>();
    for (const [name, family] of this.families()) out.set(name, family.save());
    return out;
  }

  private loadState(saved: Map<string, unknown>): void {
    for (const [name, family] of this.families()) family.load(saved.get(name) as never);
  }

  private families(): [string, { save(): unknown; load(s: never): void }][] {
    return [
      ["state", this.state], ["items", this.items], ["interactions", this.interactions], ["triggers", this.triggers], ["events", this.events],
      ["quests", this.quests], ["stats", this.stats], ["statuses", this.statuses], ["combat", this.combat], ["abilities", this.abilities],
      ["dialogues", this.dialogues], ["npcs", this.npcs], ["progression", this.progression],
    ];
  }
}

/** An effect that cannot apply now: skipped (not a failure of the call that set it off). */
export function skip(message: string): LiminaError {
  const e = new LiminaError(message);
  e.code = "not_found";
  return e;
}

export function compare(a: number, op: Op | undefined, b: number): boolean {
  switch (op ?? "gte") {
    case "eq":
      return a === b;
    case "ne":
      return a !== b;
    case "gt":
      return a > b;
    case "gte":
      return a >= b;
    case "lt":
      return a < b;
    case "lte":
      return a <= b;
  }
}
