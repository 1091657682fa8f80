// NPCs: entities with a name, a persona, a dialogue, an attitude toward
// each other entity (−100 hostile … 100 devoted), a bounded memory of what
// they saw, heard and said, and a routine — waypoints walked in a loop with
// waits in ticks. All of it is world state, so an LLM that voices an NPC
// reads the same memory on every replay. Lines are shown as speech bubbles
// through the same path as social.say. The world resource `game.npcs`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../../ecs/world.ts";
import { FIXED_DT } from "../../loop.ts";
import { speak } from "../../skills/social.ts";
import { WorldVec3 } from "../../skills/schemas.ts";
import type { Game } from "../game.ts";
import { EntityRef, Id, Ticks } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

/** Memories an NPC keeps; the oldest go first. */
export const MEMORY_LIMIT = 200;

export const Attitude = z.number().min(-100).max(100);

export const NpcSpec = z.strictObject({
  name: z.string().min(1).max(80),
  persona: z.string().max(2000).default("").describe("who they are, for players and for an LLM voicing them"),
  dialogue: Id.optional().describe("the dialogue tree talking to them starts (dialogue.define)"),
  attitude: Attitude.default(0).describe("their attitude toward anyone they have no particular one for"),
  talkRange: z.number().gt(0).max(50).default(3).describe("how near a player must be to talk with them"),
});
export type NpcSpec = z.input<typeof NpcSpec>;

export const Memory = z.strictObject({
  tick: z.number().int().min(0),
  kind: z.enum(["said", "heard", "event", "note"]),
  text: z.string().min(1).max(500),
  about: EntityRef.nullable(),
});
export type Memory = z.infer<typeof Memory>;

export const Waypoint = z.strictObject({ position: WorldVec3, wait: Ticks.default(0).describe("ticks to wait there") });
export const RoutineSpec = z.strictObject({
  waypoints: z.array(Waypoint).min(1).max(64),
  loop: z.boolean().default(true),
  speed: z.number().gt(0).max(20).default(1.6).describe("metres per second"),
});
export type RoutineSpec = z.input<typeof RoutineSpec>;

interface Routine extends z.output<typeof RoutineSpec> {
  /** The waypoint it is heading for or waiting at. */
  index: number;
  /** Ticks left to wait there (-1: still walking). */
  waiting: number;
  done: boolean;
}

export interface Npc extends z.output<typeof NpcSpec> {
  attitudes: Map<string, number>;
  memory: Memory[];
  routine: Routine | null;
}

const RoutineSave = RoutineSpec.extend({ index: z.number().int().min(0), waiting: z.number().int().min(-1), done: z.boolean() });
const NpcSave = NpcSpec.extend({ attitudes: z.array(z.tuple([EntityRef, Attitude])), memory: z.array(Memory).max(MEMORY_LIMIT), routine: RoutineSave.nullable() });
const Saved = z.array(z.tuple([EntityRef, NpcSave]));
type Saved = z.input<typeof Saved>;

export interface RecallQuery {
  about?: string;
  kind?: Memory["kind"];
  /** Words the memory's text must contain (case-insensitive). */
  text?: string;
  /** Only memories from this tick on. */
  since?: number;
  limit?: number;
}

export class Npcs {
  readonly all = new Map<string, Npc>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return [...this.all].map(([e, n]) => [e, { ...n, attitudes: [...n.attitudes], memory: n.memory.map((m) => ({ ...m })), routine: n.routine ? { ...n.routine, waypoints: n.routine.waypoints.map((w) => ({ ...w })) } : null }]);
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.npcs");
    fill(this.all, s?.map(([e, n]) => [e, { ...n, attitudes: new Map(n.attitudes), memory: n.memory.map((m) => ({ ...m })), routine: n.routine ? { ...n.routine } : null }]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const [e, n] of [...this.all]) {
      if (!alive(e)) this.all.delete(e);
      else for (const other of [...n.attitudes.keys()]) if (!alive(other)) n.attitudes.delete(other);
    }
  }

  has(entity: string): boolean {
    return this.all.has(entity);
  }

  define(entity: string, spec: NpcSpec): Npc {
    const s = NpcSpec.parse(spec);
    this.game.entities.require(entity);
    checkRoom(this.all, entity, "NPCs");
    const was = this.all.get(entity);
    const npc: Npc = { ...s, attitudes: was?.attitudes ?? new Map(), memory: was?.memory ?? [], routine: was?.routine ?? null };
    this.all.set(entity, npc);
    this.game.signal("npc.defined", { npc: entity, name: s.name });
    return npc;
  }

  remove(entity: string): boolean {
    const had = this.all.delete(entity);
    if (had) this.game.signal("npc.removed", { npc: entity });
    return had;
  }

  require(entity: string): Npc {
    const n = this.all.get(entity);
    if (!n) throw engineError("not_found", `${entity} is not an NPC (npc.define makes one)`);
    return n;
  }

  /** Adds a memory (stamped with the tick); past MEMORY_LIMIT the oldest is forgotten. */
  remember(entity: string, m: { text: string; about?: string | null; kind: Memory["kind"] }): Memory {
    const npc = this.require(entity);
    const memory: Memory = { tick: this.game.tick(), kind: m.kind, text: m.text.slice(0, 500), about: m.about ?? null };
    npc.memory.push(memory);
    if (npc.memory.length > MEMORY_LIMIT) npc.memory.splice(0, npc.memory.length - MEMORY_LIMIT);
    this.game.signal("npc.remembered", { npc: entity, kind: memory.kind, ...(memory.about ? { about: memory.about } : {}) });
    return memory;
  }

  /** Memories matching `q`, newest first. */
  recall(entity: string, q: RecallQuery = {}): Memory[] {
    const npc = this.require(entity);
    const words = (q.text ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    const out: Memory[] = [];
    for (let k = npc.memory.length - 1; k >= 0 && out.length < (q.limit ?? 20); k--) {
      const m = npc.memory[k];
      if (q.about !== undefined && m.about !== q.about) continue;
      if (q.kind !== undefined && m.kind !== q.kind) continue;
      if (q.since !== undefined && m.tick < q.since) continue;
      const text = m.text.toLowerCase();
      if (!words.every((w) => text.includes(w))) continue;
      out.push({ ...m });
    }
    return out;
  }

  /** Forgets memories (all, or those about one entity); returns how many. */
  forget(entity: string, about?: string): number {
    const npc = this.require(entity);
    const before = npc.memory.length;
    npc.memory = about === undefined ? [] : npc.memory.filter((m) => m.about !== about);
    return before - npc.memory.length;
  }

  attitude(entity: string, toward: string): number {
    const npc = this.require(entity);
    return npc.attitudes.get(toward) ?? npc.attitude;
  }

  setAttitude(entity: string, toward: string, value: number): number {
    const npc = this.require(entity);
    this.game.entities.require(toward);
    checkRoom(npc.attitudes, toward, "attitudes of one NPC");
    const v = Math.max(-100, Math.min(100, value));
    const was = this.attitude(entity, toward);
    npc.attitudes.set(toward, v);
    if (v !== was) this.game.signal("npc.attitude.changed", { npc: entity, target: toward, value: v, was });
    return v;
  }

  adjustAttitude(entity: string, toward: string, by: number): number {
    return this.setAttitude(entity, toward, this.attitude(entity, toward) + by);
  }

  /** Being hurt: the NPC remembers who did it and likes them less. */
  hurtBy(entity: string, source: string, amount: number): void {
    this.remember(entity, { kind: "event", text: `${source} hurt me (${Math.round(amount * 100) / 100} damage)`, about: source });
    this.adjustAttitude(entity, source, -10);
  }

  /** `entity` says a line: a speech bubble above it, heard by nearby NPCs' memories, and its own if it is one. */
  say(entity: string, text: string): string {
    this.game.entities.require(entity);
    const { handle } = speak(this.game.services, entity, entity, text);
    this.game.signal("npc.said", { actor: entity, text, handle });
    if (this.all.has(entity)) this.remember(entity, { kind: "said", text });
    return handle;
  }

  setRoutine(entity: string, spec: RoutineSpec): void {
    const npc = this.require(entity);
    npc.routine = { ...RoutineSpec.parse(spec), index: 0, waiting: -1, done: false };
    this.game.signal("npc.routine.set", { npc: entity, waypoints: npc.routine.waypoints.length });
  }

  clearRoutine(entity: string): boolean {
    const npc = this.require(entity);
    const had = npc.routine !== null;
    npc.routine = null;
    return had;
  }

  /** One fixed step of every routine: walk toward the waypoint (facing it), wait there, go on to the next. */
  step(): void {
    for (const [entity, npc] of this.all) {
      const r = npc.routine;
      if (!r || r.done || !this.game.alive(entity)) continue;
      if (r.waiting > 0) {
        r.waiting--;
        continue;
      }
      if (r.waiting === 0) {
        r.waiting = -1;
        if (r.index + 1 < r.waypoints.length) r.index++;
        else if (r.loop) r.index = 0;
        else {
          r.done = true;
          this.game.signal("npc.routine.done", { npc: entity });
          continue;
        }
      }
      const entry = this.game.entities.require(entity);
      const at = this.game.position(entity);
      const goal = r.waypoints[r.index].position;
      const dx = goal[0] - at[0];
      const dz = goal[2] - at[2];
      const distance = Math.hypot(dx, dz);
      const stride = r.speed * FIXED_DT;
      if (distance <= stride) {
        this.game.entities.setTransform(entry, { position: [goal[0], at[1], goal[2]] });
        r.waiting = r.waypoints[r.index].wait;
        this.game.signal("npc.arrived", { npc: entity, waypoint: r.index });
        continue;
      }
      const yaw = Math.atan2(dx, dz);
      const next: Vec3 = [at[0] + (dx / distance) * stride, at[1], at[2] + (dz / distance) * stride];
      this.game.entities.setTransform(entry, { position: next, rotation: [0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2)] });
    }
  }
}
