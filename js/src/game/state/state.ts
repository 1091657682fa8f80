// Game state: the world's flags, counters and timers (in ticks), named
// conditions, rules (when a condition holds, effects happen), who plays
// which entity, and where the game stands — building, playing, won or
// lost. The world resource `game.state`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import { Condition, Effect, EntityRef, Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";

export type Phase = "building" | "playing" | "won" | "lost";

export interface Timer {
  /** Ticks it runs for (a repeating timer starts again with this many). */
  ticks: number;
  /** Ticks left; 0 once done. */
  remaining: number;
  repeat: boolean;
  running: boolean;
  /** How many times it has run out. */
  fired: number;
  effects: Effect[];
}

export interface Rule {
  when: Condition;
  effects: Effect[];
  /** Fire once, then stay spent (default), or every time the condition turns true. */
  once: boolean;
  /** Whether the condition held when last settled (rules fire on false → true). */
  held: boolean;
  fired: number;
}

const TimerSave = z.strictObject({ ticks: z.number().int().min(1), remaining: z.number().int().min(0), repeat: z.boolean(), running: z.boolean(), fired: z.number().int().min(0), effects: z.array(Effect) });
const RuleSave = z.strictObject({ when: Condition, effects: z.array(Effect), once: z.boolean(), held: z.boolean(), fired: z.number().int().min(0) });
const Saved = z.strictObject({
  phase: z.enum(["building", "playing", "won", "lost"]),
  outcome: z.strictObject({ reason: z.string(), tick: z.number().int() }).nullable(),
  flags: z.array(z.tuple([Id, z.boolean()])),
  counters: z.array(z.tuple([Id, z.number()])),
  timers: z.array(z.tuple([Id, TimerSave])),
  conditions: z.array(z.tuple([Id, Condition])),
  rules: z.array(z.tuple([Id, RuleSave])),
  players: z.array(z.tuple([z.string(), EntityRef])),
  restartCheckpoint: z.string().nullable(),
});
type Saved = z.infer<typeof Saved>;

/** At most this many of each kind of definition a world holds. */
export const MAX_DEFINITIONS = 4096;

export function checkRoom(map: Map<string, unknown>, key: string, what: string): void {
  if (!map.has(key) && map.size >= MAX_DEFINITIONS) throw engineError("capacity_exceeded", `a world holds at most ${MAX_DEFINITIONS} ${what}`);
}

export class GameState {
  phase: Phase = "building";
  outcome: { reason: string; tick: number } | null = null;
  readonly flags = new Map<string, boolean>();
  readonly counters = new Map<string, number>();
  readonly timers = new Map<string, Timer>();
  readonly conditions = new Map<string, Condition>();
  readonly rules = new Map<string, Rule>();
  /** agentId → the entity that agent plays. */
  readonly players = new Map<string, string>();
  /** The checkpoint game.restart loads (game.start makes it). */
  restartCheckpoint: string | null = null;

  constructor(private readonly game: Game) {}

  save(): Saved {
    return {
      phase: this.phase,
      outcome: this.outcome,
      flags: [...this.flags],
      counters: [...this.counters],
      timers: [...this.timers].map(([k, t]) => [k, { ...t }]),
      conditions: [...this.conditions],
      rules: [...this.rules].map(([k, r]) => [k, { ...r }]),
      players: [...this.players],
      restartCheckpoint: this.restartCheckpoint,
    };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.state");
    this.phase = s?.phase ?? "building";
    this.outcome = s?.outcome ?? null;
    fill(this.flags, s?.flags);
    fill(this.counters, s?.counters);
    fill(this.timers, s?.timers.map(([k, t]) => [k, { ...t }]));
    fill(this.conditions, s?.conditions);
    fill(this.rules, s?.rules.map(([k, r]) => [k, { ...r }]));
    fill(this.players, s?.players);
    this.restartCheckpoint = s?.restartCheckpoint ?? null;
  }

  setFlag(name: string, value: boolean): void {
    checkRoom(this.flags, name, "flags");
    if (this.flags.get(name) === value) return;
    this.flags.set(name, value);
    this.game.signal("game.flag.changed", { flag: name, value });
  }

  flag(name: string): boolean {
    return this.flags.get(name) ?? false;
  }

  setCounter(name: string, value: number): number {
    checkRoom(this.counters, name, "counters");
    const v = clampAmount(value);
    const was = this.counters.get(name) ?? 0;
    this.counters.set(name, v);
    if (v !== was) this.game.signal("game.counter.changed", { counter: name, value: v, was });
    return v;
  }

  counter(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  startTimer(name: string, ticks: number, repeat: boolean, effects: Effect[]): void {
    checkRoom(this.timers, name, "timers");
    this.timers.set(name, { ticks, remaining: ticks, repeat, running: true, fired: 0, effects });
    this.game.signal("game.timer.started", { timer: name, ticks, repeat });
  }

  /** Stops a running timer where it is (it keeps its remaining ticks); false when there is none running. */
  stopTimer(name: string): boolean {
    const t = this.timers.get(name);
    if (!t?.running) return false;
    t.running = false;
    this.game.signal("game.timer.stopped", { timer: name, remaining: t.remaining });
    return true;
  }

  /** `running`, `done` (ran out and not restarted) or `idle` (never started, or stopped). */
  timerState(name: string): "running" | "done" | "idle" {
    const t = this.timers.get(name);
    if (!t) return "idle";
    if (t.running) return "running";
    return t.remaining === 0 ? "done" : "idle";
  }

  /** One fixed step of every running timer, in the order they were started. */
  step(): void {
    for (const [name, t] of this.timers) {
      if (!t.running) continue;
      t.remaining--;
      if (t.remaining > 0) continue;
      t.fired++;
      if (t.repeat) t.remaining = t.ticks;
      else t.running = false;
      this.game.signal("game.timer.done", { timer: name, fired: t.fired });
      this.game.apply(t.effects, {});
    }
  }

  defineRule(id: string, when: Condition, effects: Effect[], once: boolean): void {
    checkRoom(this.rules, id, "rules");
    this.rules.set(id, { when, effects, once, held: false, fired: 0 });
  }

  /** Fires every rule whose condition has just turned true (a `once` rule only the first time). */
  settleRules(): boolean {
    let fired = false;
    for (const [id, rule] of this.rules) {
      if (rule.once && rule.fired > 0) continue;
      const holds = this.game.check(rule.when, {});
      const rising = holds && !rule.held;
      rule.held = holds;
      if (!rising) continue;
      rule.fired++;
      fired = true;
      this.game.signal("game.rule.fired", { rule: id, fired: rule.fired });
      this.game.apply(rule.effects, {});
    }
    return fired;
  }

  /** Ends the game: won or lost, with why. Once over, it stays over until restarted. */
  end(phase: "won" | "lost", reason: string): boolean {
    if (this.phase === "won" || this.phase === "lost") return false;
    this.phase = phase;
    this.outcome = { reason, tick: this.game.tick() };
    this.game.signal(phase === "won" ? "game.won" : "game.lost", { reason });
    return true;
  }

  /** The entity `agentId` plays; not_found when it plays none. */
  actorOf(agentId: string): string {
    const entity = this.players.get(agentId);
    if (entity === undefined) throw engineError("not_found", `agent ${agentId} plays no entity in this world (a builder binds it with game.addPlayer)`);
    if (!this.game.alive(entity)) throw engineError("not_found", `agent ${agentId}'s entity ${entity} is gone`);
    return entity;
  }
}

export function clampAmount(v: number): number {
  if (!Number.isFinite(v)) throw engineError("invalid_input", `amount must be finite, got ${v}`);
  return Math.max(-1e9, Math.min(1e9, v));
}

/** Replaces a map's contents with saved pairs (none: empties it). */
export function fill<K, V>(map: Map<K, V>, pairs: Iterable<readonly [K, V]> | undefined): void {
  map.clear();
  if (pairs) for (const [k, v] of pairs) map.set(k, v);
}
