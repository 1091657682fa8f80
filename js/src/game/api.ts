// The module API of the gameplay families — `import { items, inventory,
// quests, … } from "limina"`. What changes the game goes through the
// world's skills (validated, permission-checked as the module's own caller
// with every permission, or as an agent that plays an entity, and
// recorded in the world log, so `limina replay` rebuilds what a module
// built); what reads it returns the world's state directly.

import type { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { EngineEvent } from "../observability/tracer.ts";
import { PERMISSIONS } from "../skills/profiles.ts";
import type { WorldSession } from "../world-session.ts";
import type { AbilityDef } from "./combat/abilities.ts";
import type { FighterSpec } from "./combat/combat.ts";
import type { StatSpec } from "./combat/stats.ts";
import type { StatusDef } from "./combat/statuses.ts";
import type { DialogueDef, View } from "./dialogue/dialogues.ts";
import type { Memory, NpcSpec, RecallQuery, RoutineSpec } from "./dialogue/npcs.ts";
import type { ListenerSpec } from "./events/events.ts";
import type { InteractableSpec } from "./interaction/interactions.ts";
import type { ItemDef, Modifier } from "./items/items.ts";
import type { Curve } from "./progression/progression.ts";
import type { QuestDef } from "./quests/quests.ts";
import type { Condition, Effect, QuestStatus } from "./rules/schemas.ts";
import type { TriggerSpec } from "./triggers/triggers.ts";
import type { Vec3 } from "../ecs/world.ts";

/** Who a call is made as: the module itself (the default), or an agent that plays an entity (game.addPlayer). */
export interface As {
  as?: string;
}

/** Calls skill `name` on `session` as the module (or `options.as`); resolves to its value, or throws its error (a LiminaError with its code). */
export async function callSkill<T = unknown>(session: WorldSession, name: string, input: unknown, options: As = {}): Promise<T> {
  const r = await session.registry.invoke(name, input, { agentId: options.as ?? "module", sessionId: options.as ?? "module", permissions: PERMISSIONS, profile: "module" });
  if (!r.ok) throw engineError(r.error.code, r.error.message);
  return r.value as T;
}

type In<T extends z.ZodType> = z.input<T>;
type Entity = string;

/** Items: kinds of things, and pickups placed in the world. */
export const items = {
  define: (s: WorldSession, def: In<typeof ItemDef>) => callSkill<{ item: string; created: boolean }>(s, "item.define", def),
  remove: (s: WorldSession, item: string) => callSkill<{ removed: boolean }>(s, "item.remove", { item }),
  spawn: (s: WorldSession, item: string, position: Vec3, count = 1) => callSkill<{ entity: Entity }>(s, "item.spawn", { item, position, count }),
  get: (s: WorldSession, item: string): ItemDef | null => s.game.items.defs.get(item) ?? null,
  list: (s: WorldSession): ItemDef[] => [...s.game.items.defs.values()],
};

/** Inventories: what each entity holds and wears. */
export const inventory = {
  add: (s: WorldSession, entity: Entity, item: string, count = 1) => callSkill<{ total: number }>(s, "inventory.add", { entity, item, count }),
  remove: (s: WorldSession, entity: Entity, item: string, count = 1) => callSkill<{ total: number }>(s, "inventory.remove", { entity, item, count }),
  transfer: (s: WorldSession, to: Entity, item: string, count: number, as: As) => callSkill(s, "inventory.transfer", { to, item, count }, as),
  equip: (s: WorldSession, item: string, as: As) => callSkill<{ item: string; slot: string }>(s, "inventory.equip", { item }, as),
  unequip: (s: WorldSession, slot: string, as: As) => callSkill<{ item: string | null }>(s, "inventory.unequip", { slot }, as),
  clear: (s: WorldSession, entity: Entity) => callSkill<{ removed: number }>(s, "inventory.clear", { entity }),
  setCapacity: (s: WorldSession, entity: Entity, capacity: number) => callSkill(s, "inventory.setCapacity", { entity, capacity }),
  count: (s: WorldSession, entity: Entity, item: string): number => s.game.items.count(entity, item),
  has: (s: WorldSession, entity: Entity, item: string, count = 1): boolean => s.game.items.count(entity, item) >= count,
  list: (s: WorldSession, entity: Entity): { item: string; count: number }[] => [...(s.game.items.inventories.get(entity)?.stacks ?? [])].map(([item, count]) => ({ item, count })),
  equipped: (s: WorldSession, entity: Entity): Record<string, string> => Object.fromEntries(s.game.items.inventories.get(entity)?.equipped ?? []),
};

/** Interactables and a player's hands on them. */
export const interaction = {
  register: (s: WorldSession, entity: Entity, spec: InteractableSpec) => callSkill(s, "interaction.register", { entity, ...spec }),
  unregister: (s: WorldSession, entity: Entity) => callSkill<{ removed: boolean }>(s, "interaction.unregister", { entity }),
  interact: (s: WorldSession, target: Entity, as: As) => callSkill<{ kind: string; result: string; text: string | null }>(s, "interaction.interact", { target }, as),
  pickup: (s: WorldSession, target: Entity, as: As) => callSkill<{ item: string; count: number; total: number }>(s, "interaction.pickup", { target }, as),
  drop: (s: WorldSession, item: string, count: number, as: As) => callSkill<{ entity: Entity }>(s, "interaction.drop", { item, count }, as),
  use: (s: WorldSession, what: { item?: string; target?: Entity }, as: As) => callSkill(s, "interaction.use", what, as),
  open: (s: WorldSession, target: Entity, as: As) => callSkill(s, "interaction.open", { target }, as),
  close: (s: WorldSession, target: Entity, as: As) => callSkill(s, "interaction.close", { target }, as),
  toggle: (s: WorldSession, target: Entity, as: As) => callSkill(s, "interaction.toggle", { target }, as),
  lock: (s: WorldSession, target: Entity, as: As) => callSkill(s, "interaction.lock", { target }, as),
  unlock: (s: WorldSession, target: Entity, as: As) => callSkill(s, "interaction.unlock", { target }, as),
  isOpen: (s: WorldSession, entity: Entity): boolean => s.game.interactions.isOpen(entity),
  near: (s: WorldSession, entity: Entity) => s.game.interactions.near(entity),
};

/** Trigger zones. */
export const triggers = {
  create: (s: WorldSession, trigger: string, spec: TriggerSpec) => callSkill(s, "trigger.create", { trigger, ...spec }),
  remove: (s: WorldSession, trigger: string) => callSkill<{ removed: boolean }>(s, "trigger.remove", { trigger }),
  enable: (s: WorldSession, trigger: string) => callSkill(s, "trigger.enable", { trigger }),
  disable: (s: WorldSession, trigger: string) => callSkill(s, "trigger.disable", { trigger }),
  occupants: (s: WorldSession, trigger: string): Entity[] => (s.game.triggers.all.get(trigger)?.inside ?? []).map(([e]) => e),
};

/** Game events: raise them, add listeners (world state), or follow them from module code. */
export const events = {
  emit: (s: WorldSession, type: string, data: Record<string, string | number | boolean> = {}, actor?: Entity) => callSkill(s, "event.emit", { type, data, ...(actor ? { actor } : {}) }),
  listen: (s: WorldSession, id: string, spec: ListenerSpec) => callSkill(s, "event.listen", { id, ...spec }),
  unlisten: (s: WorldSession, id: string) => callSkill<{ removed: boolean }>(s, "event.unlisten", { id }),
  /**
   * Calls `fn` with every game event of `type` from now on (module code, not world state: a
   * replay does not call it; what it changes through this API is recorded and replayed).
   * Returns the unsubscribe function.
   */
  on: (s: WorldSession, type: string, fn: (data: Record<string, unknown>, event: EngineEvent) => void): (() => void) =>
    s.tracer.subscribe((e) => {
      if (e.type === type) fn(e.payload as Record<string, unknown>, e);
    }),
};

/** Flags, counters, timers, conditions, rules, players, and the game's course. */
export const game = {
  setFlag: (s: WorldSession, flag: string, value = true) => callSkill(s, "game.setFlag", { flag, value }),
  setCounter: (s: WorldSession, counter: string, value: number) => callSkill<{ value: number }>(s, "game.setCounter", { counter, value }),
  addCounter: (s: WorldSession, counter: string, by = 1) => callSkill<{ value: number }>(s, "game.addCounter", { counter, by }),
  startTimer: (s: WorldSession, timer: string, ticks: number, options: { repeat?: boolean; effects?: Effect[] } = {}) => callSkill(s, "game.startTimer", { timer, ticks, ...options }),
  stopTimer: (s: WorldSession, timer: string) => callSkill(s, "game.stopTimer", { timer }),
  defineCondition: (s: WorldSession, name: string, condition: Condition) => callSkill(s, "game.defineCondition", { name, condition }),
  defineRule: (s: WorldSession, rule: string, when: Condition, effects: Effect[], once = true) => callSkill(s, "game.defineRule", { rule, when, effects, once }),
  setWinCondition: (s: WorldSession, when: Condition, reason: string) => callSkill(s, "game.setWinCondition", { when, reason }),
  setLoseCondition: (s: WorldSession, when: Condition, reason: string) => callSkill(s, "game.setLoseCondition", { when, reason }),
  addPlayer: (s: WorldSession, agentId: string, entity: Entity) => callSkill(s, "game.addPlayer", { agentId, entity }),
  start: (s: WorldSession, checkpoint = "start") => callSkill(s, "game.start", { checkpoint }),
  win: (s: WorldSession, reason: string) => callSkill(s, "game.win", { reason }),
  lose: (s: WorldSession, reason: string) => callSkill(s, "game.lose", { reason }),
  restart: (s: WorldSession) => callSkill<{ digest: string }>(s, "game.restart", {}),
  flag: (s: WorldSession, flag: string): boolean => s.game.state.flag(flag),
  counter: (s: WorldSession, counter: string): number => s.game.state.counter(counter),
  timer: (s: WorldSession, timer: string): "running" | "done" | "idle" => s.game.state.timerState(timer),
  check: (s: WorldSession, condition: Condition, actor?: Entity): boolean => s.game.check(condition, { actor }),
  phase: (s: WorldSession): "building" | "playing" | "won" | "lost" => s.game.state.phase,
  outcome: (s: WorldSession): { reason: string; tick: number } | null => s.game.state.outcome,
  playerOf: (s: WorldSession, agentId: string): Entity | null => s.game.state.players.get(agentId) ?? null,
};

/** Quests and each player's progress. */
export const quests = {
  define: (s: WorldSession, def: In<typeof QuestDef>) => callSkill(s, "quest.define", def),
  offer: (s: WorldSession, quest: string, to: Entity) => callSkill(s, "quest.offer", { quest, to }),
  accept: (s: WorldSession, quest: string, as: As) => callSkill(s, "quest.accept", { quest }, as),
  decline: (s: WorldSession, quest: string, as: As) => callSkill(s, "quest.decline", { quest }, as),
  abandon: (s: WorldSession, quest: string, as: As) => callSkill(s, "quest.abandon", { quest }, as),
  update: (s: WorldSession, quest: string, objective: string, entity: Entity, by = 1) => callSkill(s, "quest.update", { quest, objective, by, for: entity }),
  complete: (s: WorldSession, quest: string, entity: Entity) => callSkill(s, "quest.complete", { quest, for: entity }),
  fail: (s: WorldSession, quest: string, entity: Entity, reason = "failed") => callSkill(s, "quest.fail", { quest, for: entity, reason }),
  track: (s: WorldSession, quest: string, tracked: boolean, as: As) => callSkill(s, "quest.track", { quest, tracked }, as),
  status: (s: WorldSession, quest: string, entity: Entity): QuestStatus => s.game.quests.statusOf(quest, entity),
  progress: (s: WorldSession, quest: string, entity: Entity) => s.game.quests.get(quest, entity) ?? null,
};

/** Stats on entities. */
export const stats = {
  define: (s: WorldSession, entity: Entity, stat: string, spec: StatSpec = {}) => callSkill(s, "stats.define", { entity, stat, ...spec }),
  set: (s: WorldSession, entity: Entity, stat: string, value: number) => callSkill(s, "stats.set", { entity, stat, value }),
  modify: (s: WorldSession, entity: Entity, stat: string, by: number) => callSkill(s, "stats.modify", { entity, stat, by }),
  addModifier: (s: WorldSession, entity: Entity, id: string, modifier: Modifier) => callSkill(s, "stats.addModifier", { entity, id, ...modifier }),
  removeModifier: (s: WorldSession, entity: Entity, id: string) => callSkill(s, "stats.removeModifier", { entity, id }),
  value: (s: WorldSession, entity: Entity, stat: string): number | null => s.game.stats.value(entity, stat),
};

/** Damage and healing. */
export const damage = {
  apply: (s: WorldSession, target: Entity, amount: number, options: { kind?: string; source?: Entity } = {}) => callSkill<{ dealt: number; health: number }>(s, "damage.apply", { target, amount, ...options }),
  heal: (s: WorldSession, target: Entity, amount: number) => callSkill<{ healed: number; health: number }>(s, "damage.heal", { target, amount }),
  setResistance: (s: WorldSession, entity: Entity, kind: string, factor: number) => callSkill(s, "damage.setResistance", { entity, kind, factor }),
};

/** Status effects. */
export const status = {
  define: (s: WorldSession, def: In<typeof StatusDef>) => callSkill(s, "status.define", def),
  apply: (s: WorldSession, entity: Entity, id: string, ticks?: number) => callSkill(s, "status.apply", { entity, status: id, ...(ticks ? { ticks } : {}) }),
  remove: (s: WorldSession, entity: Entity, id: string) => callSkill(s, "status.remove", { entity, status: id }),
  has: (s: WorldSession, entity: Entity, id: string): boolean => s.game.statuses.has(entity, id),
  list: (s: WorldSession, entity: Entity) => s.game.statuses.list(entity),
};

/** Attacks, teams and projectiles. */
export const combat = {
  configure: (s: WorldSession, entity: Entity, spec: FighterSpec) => callSkill(s, "combat.configure", { entity, ...spec }),
  setTeam: (s: WorldSession, entity: Entity, team: string | null) => callSkill(s, "combat.setTeam", { entity, team }),
  melee: (s: WorldSession, as: As, target?: Entity) => callSkill<{ hits: { target: Entity; dealt: number; health: number }[] }>(s, "combat.melee", target ? { target } : {}, as),
  ranged: (s: WorldSession, as: As, aim: { direction?: Vec3; at?: Entity } = {}) => callSkill(s, "combat.ranged", aim, as),
};

/** Abilities. */
export const abilities = {
  define: (s: WorldSession, def: In<typeof AbilityDef>) => callSkill(s, "ability.define", def),
  grant: (s: WorldSession, entity: Entity, ability: string) => callSkill(s, "ability.grant", { entity, ability }),
  revoke: (s: WorldSession, entity: Entity, ability: string) => callSkill(s, "ability.revoke", { entity, ability }),
  use: (s: WorldSession, ability: string, as: As, target?: Entity) => callSkill(s, "ability.use", { ability, ...(target ? { target } : {}) }, as),
  cooldown: (s: WorldSession, entity: Entity, ability: string): number | null => s.game.abilities.granted.get(entity)?.get(ability) ?? null,
};

/** Dialogue trees and conversations. */
export const dialogue = {
  define: (s: WorldSession, def: In<typeof DialogueDef>) => callSkill(s, "dialogue.define", def),
  start: (s: WorldSession, npc: Entity, as: As) => callSkill<View>(s, "dialogue.start", { npc }, as),
  choose: (s: WorldSession, choice: string, as: As) => callSkill<View>(s, "dialogue.choose", { choice }, as),
  end: (s: WorldSession, as: As) => callSkill<View>(s, "dialogue.end", {}, as),
  current: (s: WorldSession, entity: Entity): View | null => s.game.dialogues.current(entity),
};

/**
 * NPCs: persona, attitudes, memory and routines — what conversation orchestration reads to
 * voice an NPC (persona, memory about the player, attitude toward them) and writes back
 * (remember, adjustAttitude). Writes are recorded, so a replay holds the same memories.
 */
export const npcs = {
  define: (s: WorldSession, entity: Entity, spec: NpcSpec) => callSkill(s, "npc.define", { entity, ...spec }),
  remember: (s: WorldSession, npc: Entity, text: string, options: { about?: Entity; kind?: Memory["kind"] } = {}) => callSkill<Memory>(s, "npc.remember", { npc, text, ...options }),
  forget: (s: WorldSession, npc: Entity, about?: Entity) => callSkill<{ forgotten: number }>(s, "npc.forget", { npc, ...(about ? { about } : {}) }),
  setAttitude: (s: WorldSession, npc: Entity, toward: Entity, value: number) => callSkill<{ attitude: number }>(s, "npc.setAttitude", { npc, toward, value }),
  adjustAttitude: (s: WorldSession, npc: Entity, toward: Entity, by: number) => callSkill<{ attitude: number }>(s, "npc.adjustAttitude", { npc, toward, by }),
  setRoutine: (s: WorldSession, npc: Entity, routine: RoutineSpec) => callSkill(s, "npc.setRoutine", { npc, ...routine }),
  say: (s: WorldSession, text: string, as: As) => callSkill<{ npc: Entity; handle: string }>(s, "npc.say", { text }, as),
  /** Name, persona and dialogue of an NPC, or null. */
  profile: (s: WorldSession, npc: Entity): { name: string; persona: string; dialogue: string | null } | null => {
    const n = s.game.npcs.all.get(npc);
    return n ? { name: n.name, persona: n.persona, dialogue: n.dialogue ?? null } : null;
  },
  recall: (s: WorldSession, npc: Entity, query: RecallQuery = {}): Memory[] => s.game.npcs.recall(npc, query),
  attitude: (s: WorldSession, npc: Entity, toward: Entity): number => s.game.npcs.attitude(npc, toward),
};

/** Save files on disk. */
export const saves = {
  export: (s: WorldSession, name: string) => callSkill<{ name: string; path: string; bytes: number; digest: string }>(s, "save.export", { name }),
  import: (s: WorldSession, name: string) => callSkill<{ name: string; digest: string }>(s, "save.import", { name }),
  list: (s: WorldSession) => callSkill<{ saves: { name: string; path: string; bytes: number }[] }>(s, "save.list", {}),
  delete: (s: WorldSession, name: string) => callSkill<{ deleted: boolean }>(s, "save.delete", { name }),
};

/** Checkpoints kept in the world. */
export const checkpoints = {
  create: (s: WorldSession, name: string) => callSkill<{ name: string; tick: number; digest: string; bytes: number }>(s, "checkpoint.create", { name }),
  load: (s: WorldSession, name: string) => callSkill<{ name: string; digest: string }>(s, "checkpoint.load", { name }),
  delete: (s: WorldSession, name: string) => callSkill<{ deleted: boolean }>(s, "checkpoint.delete", { name }),
  list: (s: WorldSession) => s.game.checkpoints.list(),
};

/** Experience, levels and unlocks. */
export const progression = {
  define: (s: WorldSession, curve: In<typeof Curve>) => callSkill(s, "progression.define", curve),
  addXp: (s: WorldSession, entity: Entity, amount: number) => callSkill<{ xp: number; level: number; gained: number }>(s, "progression.addXp", { entity, amount }),
  unlock: (s: WorldSession, entity: Entity, unlock: string) => callSkill(s, "progression.unlock", { entity, unlock }),
  level: (s: WorldSession, entity: Entity): number => s.game.progression.level(entity),
  unlocked: (s: WorldSession, entity: Entity, unlock: string): boolean => s.game.progression.unlocked(entity, unlock),
};
