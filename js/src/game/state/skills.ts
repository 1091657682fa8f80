// game.* skills: flags, counters, timers in ticks, named conditions,
// rules, who plays which entity, and the game's course — start, win, lose,
// restart.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { Amount, Condition, EffectList, EntityRef, Id, Text, Ticks } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";

const Phase = z.enum(["building", "playing", "won", "lost"]);
const Outcome = z.object({ reason: z.string(), tick: z.number() }).nullable();
const TimerView = z.object({ timer: z.string(), ticks: z.number(), remaining: z.number(), repeat: z.boolean(), state: z.enum(["running", "done", "idle"]), fired: z.number() });
const AgentId = z.string().min(1).max(128);

const gameSetFlagInput = z.strictObject({ flag: Id, value: z.boolean().default(true) });
const gameSetFlagOutput = z.object({ flag: z.string(), value: z.boolean() });
const gameGetFlagInput = z.strictObject({ flag: Id });
const gameGetFlagOutput = z.object({ flag: z.string(), value: z.boolean(), set: z.boolean() });
const gameSetCounterInput = z.strictObject({ counter: Id, value: Amount });
const gameSetCounterOutput = z.object({ counter: z.string(), value: z.number() });
const gameAddCounterInput = z.strictObject({ counter: Id, by: Amount.default(1) });
const gameAddCounterOutput = z.object({ counter: z.string(), value: z.number() });
const gameGetCounterInput = z.strictObject({ counter: Id });
const gameGetCounterOutput = z.object({ counter: z.string(), value: z.number() });
const gameStartTimerInput = z.strictObject({ timer: Id, ticks: Ticks.min(1), repeat: z.boolean().default(false), effects: EffectList.default([]) });
const gameStopTimerInput = z.strictObject({ timer: Id });
const gameStopTimerOutput = z.object({ stopped: z.boolean() });
const gameTimersInput = z.strictObject({});
const gameTimersOutput = z.object({ timers: z.array(TimerView) });
const gameDefineConditionInput = z.strictObject({ name: Id, condition: Condition });
const gameDefineConditionOutput = z.object({ name: z.string() });
const gameCheckInput = z.strictObject({ condition: z.union([Condition, Id.describe("a named condition")]), actor: EntityRef.optional() });
const gameCheckOutput = z.object({ holds: z.boolean() });
const gameDefineRuleInput = z.strictObject({ rule: Id, when: Condition, effects: EffectList.min(1), once: z.boolean().default(true) });
const gameDefineRuleOutput = z.object({ rule: z.string() });
const gameRemoveRuleInput = z.strictObject({ rule: Id });
const gameRemoveRuleOutput = z.object({ removed: z.boolean() });
const gameRulesInput = z.strictObject({});
const gameRulesOutput = z.object({ rules: z.array(z.object({ rule: z.string(), when: z.unknown(), effects: z.array(z.unknown()), once: z.boolean(), fired: z.number() })) });
const gameSetWinConditionInput = z.strictObject({ when: Condition, reason: Text });
const gameSetWinConditionOutput = z.object({ rule: z.string() });
const gameSetLoseConditionInput = z.strictObject({ when: Condition, reason: Text });
const gameSetLoseConditionOutput = z.object({ rule: z.string() });
const gameAddPlayerInput = z.strictObject({ agentId: AgentId, entity: EntityRef });
const gameAddPlayerOutput = z.object({ agentId: z.string(), entity: z.string() });
const gameRemovePlayerInput = z.strictObject({ agentId: AgentId });
const gameRemovePlayerOutput = z.object({ removed: z.boolean() });
const gamePlayersInput = z.strictObject({});
const gamePlayersOutput = z.object({ players: z.array(z.object({ agentId: z.string(), entity: z.string() })) });
const gameStatusInput = z.strictObject({});
const gameStatusOutput = z.object({ phase: Phase, outcome: Outcome, tick: z.number(), flags: z.record(z.string(), z.boolean()), counters: z.record(z.string(), z.number()), restartCheckpoint: z.string().nullable() });
const gameStartInput = z.strictObject({ checkpoint: Id.default("start") });
const gameStartOutput = z.object({ phase: Phase, checkpoint: z.string() });
const gameWinInput = z.strictObject({ reason: Text });
const gameWinOutput = z.object({ phase: Phase, ended: z.boolean() });
const gameLoseInput = z.strictObject({ reason: Text });
const gameLoseOutput = z.object({ phase: Phase, ended: z.boolean() });
const gameRestartInput = z.strictObject({});
const gameRestartOutput = z.object({ phase: Phase, digest: z.string() });

export function gameStateSkills(game: Game): SkillDefinition[] {
  const { state } = game;
  const timerView = (timer: string) => {
    const t = state.timers.get(timer)!;
    return { timer, ticks: t.ticks, remaining: t.remaining, repeat: t.repeat, state: state.timerState(timer), fired: t.fired };
  };
  return gameSkills(game, { module: import.meta.url, factory: "gameStateSkills" }, [
    skill({
      name: "game.setFlag",
      description: "Set a named game flag (true/false) — doors opened, bosses beaten, secrets found. Emits game.flag.changed when it changes; rules and quests may react.",
      access: "define",
      input: gameSetFlagInput,
      output: gameSetFlagOutput,
      handler: ({ flag, value }) => {
        state.setFlag(flag, value);
        return { flag, value };
      },
    }),
    skill({
      name: "game.getFlag",
      description: "Read a named game flag (false when never set).",
      access: "read",
      input: gameGetFlagInput,
      output: gameGetFlagOutput,
      handler: ({ flag }) => ({ flag, value: state.flag(flag), set: state.flags.has(flag) }),
    }),
    skill({
      name: "game.setCounter",
      description: "Set a named game counter (score, relics found, waves survived) to a value. Emits game.counter.changed.",
      access: "define",
      input: gameSetCounterInput,
      output: gameSetCounterOutput,
      handler: ({ counter, value }) => ({ counter, value: state.setCounter(counter, value) }),
    }),
    skill({
      name: "game.addCounter",
      description: "Add to (or, with a negative amount, subtract from) a named game counter; returns the new value.",
      access: "define",
      input: gameAddCounterInput,
      output: gameAddCounterOutput,
      handler: ({ counter, by }) => ({ counter, value: state.setCounter(counter, state.counter(counter) + by) }),
    }),
    skill({
      name: "game.getCounter",
      description: "Read a named game counter (0 when never set).",
      access: "read",
      input: gameGetCounterInput,
      output: gameGetCounterOutput,
      handler: ({ counter }) => ({ counter, value: state.counter(counter) }),
    }),
    skill({
      name: "game.startTimer",
      description: "Start (or restart) a named countdown timer in fixed-step ticks (60 per second), optionally repeating, with effects when it runs out. Emits game.timer.done each time.",
      access: "define",
      input: gameStartTimerInput,
      output: TimerView,
      handler: ({ timer, ticks, repeat, effects }) => {
        state.startTimer(timer, ticks, repeat, effects);
        return timerView(timer);
      },
    }),
    skill({
      name: "game.stopTimer",
      description: "Stop a running timer where it is (its effects do not fire).",
      access: "define",
      input: gameStopTimerInput,
      output: gameStopTimerOutput,
      handler: ({ timer }) => ({ stopped: state.stopTimer(timer) }),
    }),
    skill({
      name: "game.timers",
      description: "List the game's timers: ticks, remaining ticks, whether running, done or idle, times fired.",
      access: "read",
      input: gameTimersInput,
      output: gameTimersOutput,
      handler: () => ({ timers: [...state.timers.keys()].map(timerView) }),
    }),
    skill({
      name: "game.defineCondition",
      description: "Name a condition on game state (flags, counters, inventories, quests, stats, …) so rules, quests, dialogue and triggers can refer to it as {condition: name}.",
      access: "define",
      input: gameDefineConditionInput,
      output: gameDefineConditionOutput,
      handler: ({ name, condition }) => {
        if (!state.conditions.has(name) && state.conditions.size >= 4096) throw engineError("capacity_exceeded", "a world holds at most 4096 named conditions");
        state.conditions.set(name, condition);
        return { name };
      },
    }),
    skill({
      name: "game.check",
      description: "Evaluate a condition (or a named one) now, optionally for an entity as its actor: does it hold?",
      access: "read",
      input: gameCheckInput,
      output: gameCheckOutput,
      handler: ({ condition, actor }) => {
        if (typeof condition === "string" && !state.conditions.has(condition)) throw engineError("not_found", `no condition named ${condition}`);
        return { holds: game.check(typeof condition === "string" ? { condition } : condition, { actor }) };
      },
    }),
    skill({
      name: "game.defineRule",
      description: "A rule: when its condition turns true, its effects happen (once, or every time it turns true again). Checked after every game action and every tick.",
      access: "define",
      input: gameDefineRuleInput,
      output: gameDefineRuleOutput,
      handler: ({ rule, when, effects, once }) => {
        state.defineRule(rule, when, effects, once);
        return { rule };
      },
    }),
    skill({
      name: "game.removeRule",
      description: "Remove a rule.",
      access: "define",
      input: gameRemoveRuleInput,
      output: gameRemoveRuleOutput,
      handler: ({ rule }) => ({ removed: state.rules.delete(rule) }),
    }),
    skill({
      name: "game.rules",
      description: "List the rules: their conditions, effects, whether once, times fired.",
      access: "read",
      input: gameRulesInput,
      output: gameRulesOutput,
      handler: () => ({ rules: [...state.rules].map(([rule, r]) => ({ rule, when: r.when, effects: r.effects, once: r.once, fired: r.fired })) }),
    }),
    skill({
      name: "game.setWinCondition",
      description: "Win the game as soon as a condition holds (e.g. the relic quest completed): a rule named \"win\".",
      access: "define",
      input: gameSetWinConditionInput,
      output: gameSetWinConditionOutput,
      handler: ({ when, reason }) => {
        state.defineRule("win", when, [{ win: reason }], true);
        return { rule: "win" };
      },
    }),
    skill({
      name: "game.setLoseCondition",
      description: "Lose the game as soon as a condition holds (e.g. the player's health at 0, a timer run out): a rule named \"lose\".",
      access: "define",
      input: gameSetLoseConditionInput,
      output: gameSetLoseConditionOutput,
      handler: ({ when, reason }) => {
        state.defineRule("lose", when, [{ lose: reason }], true);
        return { rule: "lose" };
      },
    }),
    skill({
      name: "game.addPlayer",
      description: "Bind an agent to the entity it plays: its interact, pick up, attack, talk and accept calls act through that entity.",
      access: "define",
      input: gameAddPlayerInput,
      output: gameAddPlayerOutput,
      handler: ({ agentId, entity }) => {
        game.entities.require(entity);
        if (!state.players.has(agentId) && state.players.size >= 4096) throw engineError("capacity_exceeded", "a world holds at most 4096 players");
        state.players.set(agentId, entity);
        game.signal("game.player.added", { agentId, actor: entity });
        return { agentId, entity };
      },
    }),
    skill({
      name: "game.removePlayer",
      description: "Unbind an agent from the entity it played.",
      access: "define",
      input: gameRemovePlayerInput,
      output: gameRemovePlayerOutput,
      handler: ({ agentId }) => {
        const removed = state.players.delete(agentId);
        if (removed) game.signal("game.player.removed", { agentId });
        return { removed };
      },
    }),
    skill({
      name: "game.players",
      description: "List who plays which entity.",
      access: "read",
      input: gamePlayersInput,
      output: gamePlayersOutput,
      handler: () => ({ players: [...state.players].map(([agentId, entity]) => ({ agentId, entity })) }),
    }),
    skill({
      name: "game.status",
      description: "Where the game stands: building, playing, won or lost (with why and when), its flags and counters, and the tick.",
      access: "read",
      input: gameStatusInput,
      output: gameStatusOutput,
      handler: () => ({ phase: state.phase, outcome: state.outcome, tick: game.tick(), flags: Object.fromEntries(state.flags), counters: Object.fromEntries(state.counters), restartCheckpoint: state.restartCheckpoint }),
    }),
    skill({
      name: "game.start",
      description: "Mark the game built and start play: saves the checkpoint game.restart returns to (default \"start\") and sets the phase to playing.",
      access: "define",
      input: gameStartInput,
      output: gameStartOutput,
      handler: ({ checkpoint }, { ctx }) => {
        if (state.phase === "playing") throw engineError("invalid_input", "the game is already being played");
        state.phase = "playing";
        state.outcome = null;
        state.restartCheckpoint = checkpoint;
        game.checkpoints.create(checkpoint, ctx.emit);
        game.signal("game.started", { checkpoint });
        return { phase: state.phase, checkpoint };
      },
    }),
    skill({
      name: "game.win",
      description: "End the game as won, with a reason. Emits game.won.",
      access: "define",
      input: gameWinInput,
      output: gameWinOutput,
      handler: ({ reason }) => ({ ended: state.end("won", reason), phase: state.phase }),
    }),
    skill({
      name: "game.lose",
      description: "End the game as lost, with a reason. Emits game.lost.",
      access: "define",
      input: gameLoseInput,
      output: gameLoseOutput,
      handler: ({ reason }) => ({ ended: state.end("lost", reason), phase: state.phase }),
    }),
    skill({
      name: "game.restart",
      description: "Restart the game: loads the checkpoint game.start saved (entities, physics, every family's state) and plays on from there.",
      access: "define",
      input: gameRestartInput,
      output: gameRestartOutput,
      handler: async (_input, { ctx }) => {
        const name = state.restartCheckpoint;
        if (name === null) throw engineError("invalid_input", "the game was never started (game.start saves where restart returns to)");
        const digest = await game.checkpoints.restore(name, ctx.emit);
        ctx.emit("game.restarted", { checkpoint: name, digest });
        return { phase: state.phase, digest };
      },
    }),
  ]);
}
