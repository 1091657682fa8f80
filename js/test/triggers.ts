// trigger.* and event.*: zones that notice entries, stays and exits on the
// fixed step (a batched native radius query, then exact containment),
// filters, zones carried by entities, and listeners that react to any game
// event — world state, so a replay reacts the same.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refused } from "./support/game.ts";

const move = (w: Awaited<ReturnType<typeof gameWorld>>, entity: string, position: [number, number, number]) =>
  w.session.entities.setTransform(w.session.entities.require(entity), { position });

test("a box zone: entry and exit on the step they happen, stays every `every` ticks, effects with the entity as actor", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [-5, 0.5, 0]);
  await w.build("stats.define", { entity: hero, stat: "health", max: 100 });
  const t = await w.build("trigger.create", {
    trigger: "lava",
    shape: "box",
    position: [0, 0, 0],
    halfExtents: [2, 1, 2],
    filter: { players: true },
    onEnter: [{ addCounter: "burns" }],
    onStay: [{ damage: 10, kind: "fire" }],
    every: 30,
    onExit: [{ setFlag: "escaped" }],
  });
  assertEquals(t, { trigger: "lava", shape: "box", centre: [0, 0, 0], enabled: true, inside: [], entries: 0 });
  w.steps(5);
  assertEquals(w.session.game.state.counter("burns"), 0);
  move(w, hero, [1.9, 0.5, -1.9]);
  const before = w.session.tracer.size;
  w.steps(1);
  assertEquals(w.eventsSince(before).filter((e) => e.startsWith("trigger.")), ["trigger.entered"]);
  assertEquals(w.session.game.state.counter("burns"), 1);
  w.steps(60);
  assertEquals(w.session.game.stats.value(hero, "health"), 80, "burnt at 30 and 60 ticks inside");
  assertEquals(await w.build("trigger.occupants", { trigger: "lava" }), { inside: [{ entity: hero, ticks: 60 }] });
  move(w, hero, [2.1, 0.5, 0]);
  w.steps(1);
  assert(w.session.game.state.flag("escaped"), "left: onExit ran");
  assertEquals(w.session.game.triggers.require("lava").inside, []);
  w.session.dispose();
});

test("sphere zones carried by an entity; tag and entity filters; once; disabled zones notice nothing", async () => {
  const w = await gameWorld();
  const guard = await w.box([0, 0, 0], { body: false });
  const a = await w.box([5, 0, 0], { body: false });
  const b = await w.box([5, 0, 1], { body: false });
  await w.build("ecs.addComponent", { entity: b, component: "thief" });
  await w.build("trigger.create", { trigger: "sight", shape: "sphere", attach: guard, radius: 2, filter: { tag: "thief" }, onEnter: [{ setFlag: "alarm" }] });
  await w.build("trigger.create", { trigger: "tripwire", shape: "sphere", position: [5, 0, 0], radius: 0.5, filter: { entities: [a] }, once: true, onEnter: [{ addCounter: "trips" }] });
  w.steps(1);
  assertEquals(w.session.game.state.counter("trips"), 1);
  assertEquals((await w.build<{ enabled: boolean }>("trigger.get", { trigger: "tripwire" })).enabled, false, "a once zone disables itself");
  move(w, guard, [5, 0, 0.5]);
  w.steps(1);
  assert(w.session.game.state.flag("alarm"), "the zone moved with the guard onto the tagged thief");
  assertEquals(w.session.game.triggers.require("sight").inside.map(([e]) => e), [b], "only the tagged entity, never its carrier");
  await w.build("trigger.disable", { trigger: "sight" });
  assertEquals(w.session.game.triggers.require("sight").inside, []);
  await w.build("trigger.enable", { trigger: "sight" });
  w.steps(1);
  assertEquals(w.session.game.triggers.require("sight").entries, 2, "enabled again, the thief enters anew");
  refused(await w.as("builder", "trigger.create", { trigger: "bad", shape: "box", position: [0, 0, 0], radius: 2 }, "builder.readWrite"), "invalid_input", "a box takes halfExtents");
  w.session.dispose();
});

test("listeners react to game events with matching fields and a condition; once listeners go after firing; chains are bounded", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  await w.build("event.listen", { id: "bells", on: "bell.rung", where: { tower: "north" }, when: { not: { flag: "silenced" } }, effects: [{ addCounter: "rings" }] });
  await w.build("event.listen", { id: "first", on: "bell.rung", once: true, effects: [{ setFlag: "heardFirst" }] });
  await w.build("event.emit", { type: "bell.rung", data: { tower: "south" } });
  assertEquals(w.session.game.state.counter("rings"), 0, "fields must match");
  assert(w.session.game.state.flag("heardFirst"));
  assertEquals((await w.build<{ listeners: { id: string }[] }>("event.listeners", {})).listeners.map((l) => l.id), ["bells"], "the once listener removed itself");
  await w.build("event.emit", { type: "bell.rung", data: { tower: "north" }, actor: hero });
  await w.build("game.setFlag", { flag: "silenced" });
  await w.build("event.emit", { type: "bell.rung", data: { tower: "north" } });
  assertEquals(w.session.game.state.counter("rings"), 1, "the condition holds only before the bells are silenced");
  // A listener that raises the event it listens for is cut off after a bounded chain.
  await w.build("event.listen", { id: "echo", on: "echo", effects: [{ addCounter: "echoes" }, { emit: "echo" }] });
  const before = w.session.tracer.size;
  await w.build("event.emit", { type: "echo" });
  assert(w.session.game.state.counter("echoes") <= 8, `${w.session.game.state.counter("echoes")} echoes`);
  assert(w.eventsSince(before).includes("game.chain.cut"), "the cut is in the log");
  // Engine events reach listeners too.
  await w.build("event.listen", { id: "picked", on: "inventory.added", where: { item: "gem" }, effects: [{ setFlag: "rich", value: true }] });
  await w.build("item.define", { id: "gem", name: "Gem" });
  await w.build("inventory.add", { entity: hero, item: "gem" });
  assert(w.session.game.state.flag("rich"));
  w.session.dispose();
});
