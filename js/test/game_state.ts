// game.*: flags and counters, timers counted in fixed-step ticks, named
// conditions, rules that fire when their condition turns true, win and
// lose, and restart back to where game.start left the world.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refused } from "./support/game.ts";

test("timers run out on the tick they should, repeat, stop, and fire their effects", async () => {
  const w = await gameWorld();
  await w.build("game.startTimer", { timer: "fuse", ticks: 90, effects: [{ setFlag: "boom" }] });
  await w.build("game.startTimer", { timer: "wave", ticks: 30, repeat: true, effects: [{ addCounter: "waves" }] });
  w.steps(89);
  assertEquals([w.session.game.state.flag("boom"), w.session.game.state.timerState("fuse")], [false, "running"]);
  w.steps(1);
  assertEquals([w.session.game.state.flag("boom"), w.session.game.state.timerState("fuse")], [true, "done"]);
  assertEquals(w.session.game.state.counter("waves"), 3);
  await w.build("game.stopTimer", { timer: "wave" });
  w.steps(60);
  assertEquals(w.session.game.state.counter("waves"), 3, "a stopped timer fires no more");
  const timers = await w.build<{ timers: { timer: string; state: string; fired: number; remaining: number }[] }>("game.timers");
  assertEquals(timers.timers.map((t) => [t.timer, t.state, t.fired, t.remaining]), [["fuse", "done", 1, 0], ["wave", "idle", 3, 30]]);
  w.session.dispose();
});

test("rules fire when their condition turns true (once, or on every rise); named conditions; game.check", async () => {
  const w = await gameWorld();
  await w.build("game.defineCondition", { name: "rich", condition: { counter: "gold", op: "gte", value: 100 } });
  await w.build("game.defineRule", { rule: "medal", when: { condition: "rich" }, effects: [{ addCounter: "medals" }], once: false });
  await w.build("game.defineRule", { rule: "title", when: { all: [{ condition: "rich" }, { flag: "noble" }] }, effects: [{ setFlag: "lord" }] });
  await w.build("game.setCounter", { counter: "gold", value: 150 });
  assertEquals(w.session.game.state.counter("medals"), 1, "fired in the same call that made it true");
  await w.build("game.setCounter", { counter: "gold", value: 120 });
  assertEquals(w.session.game.state.counter("medals"), 1, "still true: no rise, no fire");
  await w.build("game.addCounter", { counter: "gold", by: -100 });
  await w.build("game.addCounter", { counter: "gold", by: 100 });
  assertEquals(w.session.game.state.counter("medals"), 2, "false then true again: fires again");
  assertEquals(await w.build("game.check", { condition: { all: [{ condition: "rich" }, { not: { flag: "noble" } }] } }), { holds: true });
  await w.build("game.setFlag", { flag: "noble" });
  assert(w.session.game.state.flag("lord"));
  refused(await w.as("builder", "game.check", { condition: "poor" }, "builder.readWrite"), "not_found", "no condition named poor");
  w.session.dispose();
});

test("win and lose conditions end the game once; players are bound to entities", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  assertEquals(await w.build("game.players"), { players: [{ agentId: "agt_hero", entity: hero }] });
  await w.build("stats.define", { entity: hero, stat: "health", max: 10 });
  await w.build("game.setWinCondition", { when: { counter: "relics", value: 3 }, reason: "all relics found" });
  await w.build("game.setLoseCondition", { when: { stat: "health", op: "lte", value: 0, who: hero }, reason: "the hero fell" });
  await w.build("game.start", {});
  await w.build("game.addCounter", { counter: "relics", by: 3 });
  const status = await w.build<{ phase: string; outcome: { reason: string; tick: number } | null }>("game.status");
  assertEquals([status.phase, status.outcome?.reason], ["won", "all relics found"]);
  await w.build("damage.apply", { target: hero, amount: 50 });
  assertEquals(w.session.game.state.phase, "won", "a game that is over stays over");
  assertEquals(await w.build("game.lose", { reason: "late" }), { ended: false, phase: "won" });
  assertEquals(await w.build("game.removePlayer", { agentId: "agt_hero" }), { removed: true });
  refused(await w.as("agt_hero", "quest.accept", { quest: "any" }), "not_found", "agent agt_hero plays no entity");
  w.session.dispose();
});

test("game.restart loads the world game.start saved: entities, positions and every family's state", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  await w.build("item.define", { id: "coin", name: "Coin" });
  await w.build("stats.define", { entity: hero, stat: "health", max: 100 });
  await w.build("game.startTimer", { timer: "clock", ticks: 600 });
  await w.build("game.start", {});
  const started = w.session.digest();
  w.steps(100);
  await w.build("inventory.add", { entity: hero, item: "coin", count: 7 });
  await w.build("damage.apply", { target: hero, amount: 30 });
  await w.build("scene.createEntity", { position: [3, 3, 3] });
  w.session.entities.setTransform(w.session.entities.require(hero), { position: [4, 0.5, 4] });
  await w.build("game.win", { reason: "quick" });
  const { digest } = await w.build<{ digest: string }>("game.restart");
  assertEquals(digest, w.session.game.checkpoints.list()[0].digest, "the world is the one the start checkpoint holds");
  assertEquals(w.session.digest(), started, "the whole world digest (checkpoints included) is the one after game.start");
  assertEquals(w.session.game.state.phase, "playing");
  assertEquals(w.session.game.items.count(hero, "coin"), 0);
  assertEquals(w.session.game.stats.value(hero, "health"), 100);
  assertEquals(w.session.world.position(w.session.world.entities.get(hero)!.eid), [0, 0.5, 0]);
  assertEquals(w.session.game.state.timers.get("clock")!.remaining, 600);
  assertEquals(w.session.tick, 100, "time goes on");
  w.session.dispose();
});

test("rules are checked when given: a bad condition or effect is refused precisely, and nothing is defined", async () => {
  const w = await gameWorld();
  const bad = async (input: Record<string, unknown>, message: string) => refused(await w.as("builder", "game.defineRule", { rule: "r", ...input }, "builder.readWrite"), "invalid_input", message);
  await bad({ when: { flag: "x" }, effects: [{ fly: "away" }] }, "an effect names exactly one of setFlag, setCounter");
  await bad({ when: { flag: "x" }, effects: [{ setFlag: "a", addCounter: "b" }] }, "got setFlag and addCounter");
  await bad({ when: { flag: "x" }, effects: [{ damage: -5 }] }, "damage: ");
  await bad({ when: { flag: "x" }, effects: [{ if: { counter: "c" }, then: [] }] }, "if: ");
  await bad({ when: { all: [{ flag: "x" }, { stat: "hp", value: "low" }] }, effects: [{ setFlag: "y" }] }, "stat: ");
  await bad({ when: { flag: "x" }, effects: [{ give: "gem", to: "somebody" }] }, "actor, target, npc or an entity id");
  assertEquals(w.session.game.state.rules.size, 0);
  w.session.dispose();
});
