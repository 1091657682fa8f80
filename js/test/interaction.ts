// interaction.*: doors that slide open (their colliders with them) and
// lock with keys, pickups, drops, levers, signs, usable items, reach and
// conditions — each through the entity the calling agent plays, refused
// without a trace when the rules say no.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refused, refusedUnchanged } from "./support/game.ts";

test("a locked door opens with its key (used up), slides up with its collider, and closes again", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  const door = await w.box([2, 1, 0], { size: 2 });
  await w.build("item.define", { id: "brass_key", name: "Brass key" });
  await w.build("interaction.register", { entity: door, kind: "door", locked: true, key: "brass_key", consumeKey: true, openOffset: [0, 3, 0], onOpen: [{ setFlag: "doorOpened" }] });
  // A step first: physics queries see colliders as of the last step.
  const ray = () => (w.steps(1), w.session.physics.raycast([0, 1, 0], [1, 0, 0], 10)?.eid ?? null);
  const doorEid = w.session.world.entities.get(door)!.eid;
  assertEquals(ray(), doorEid, "the closed door blocks the way");

  await refusedUnchanged(w, () => w.as("agt_hero", "interaction.open", { target: door }), "invalid_input", "is locked: it opens with brass_key");
  await w.build("inventory.add", { entity: hero, item: "brass_key" });
  const opened = await w.play<{ open: boolean; locked: boolean }>("agt_hero", "interaction.open", { target: door });
  assertEquals(opened, { target: door, open: true, locked: false });
  assertEquals(w.session.world.position(doorEid), [2, 4, 0], "the door slid up by its openOffset");
  assertEquals(ray(), null, "its collider went with it: the way is clear");
  assertEquals(w.session.game.items.count(hero, "brass_key"), 0, "the key was used up");
  assert(w.session.game.state.flag("doorOpened"), "onOpen effects ran");

  const closed = await w.play<{ open: boolean }>("agt_hero", "interaction.interact", { target: door });
  assertEquals(closed, { kind: "door", result: "closed", text: null });
  assertEquals(w.session.world.position(doorEid), [2, 1, 0]);
  assertEquals(ray(), doorEid);
  w.session.dispose();
});

test("pickups go into the inventory and leave the world; drops come back as pickups in front of the player", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  await w.build("item.define", { id: "relic", name: "Relic", color: 0xffd700 });
  const { entity: pickup } = await w.build<{ entity: string }>("item.spawn", { item: "relic", count: 2, position: [1, 0.5, 0] });
  const far = (await w.build<{ entity: string }>("item.spawn", { item: "relic", position: [9, 0.5, 0] })).entity;
  assert(w.session.world.entities.get(pickup)!.tags.has("item:relic"), "pickups are tagged with their item");

  await refusedUnchanged(w, () => w.as("agt_hero", "interaction.pickup", { target: far }), "invalid_input", "beyond its reach of 2.5 m");
  const got = await w.play("agt_hero", "interaction.pickup", { target: pickup });
  assertEquals(got, { item: "relic", count: 2, total: 2 });
  assertEquals(w.session.world.entities.get(pickup), undefined, "the pickup entity is gone");
  assertEquals(w.session.game.interactions.all.has(pickup), false);

  const dropped = await w.play<{ entity: string; left: number }>("agt_hero", "interaction.drop", { item: "relic", count: 1 });
  assertEquals(dropped.left, 1);
  const at = w.session.world.position(w.session.world.entities.get(dropped.entity)!.eid);
  assert(Math.abs(at[2] - 0.8) < 1e-6 && Math.abs(at[0]) < 1e-6, `dropped 0.8 m in front (+z): ${at}`);
  assertEquals(w.session.game.interactions.require(dropped.entity).pickup, { item: "relic", count: 1 });
  refused(await w.as("agt_hero", "interaction.drop", { item: "relic", count: 5 }), "invalid_input", "holds 1 relic, not 5");
  w.session.dispose();
});

test("levers toggle and fire their effects; signs are read; conditions and reach refuse with no effect", async () => {
  const w = await gameWorld();
  await w.player("agt_hero", [0, 0.5, 0]);
  const lever = await w.box([1, 0.5, 0], { size: 0.5 });
  const sign = await w.box([0, 0.5, 1], { size: 0.5 });
  const gate = await w.box([-1, 0.5, 0], { size: 0.5 });
  await w.build("interaction.register", { entity: lever, kind: "lever", onToggle: [{ addCounter: "pulls" }] });
  await w.build("interaction.register", { entity: sign, kind: "sign", text: "Beware the lava." });
  await w.build("interaction.register", { entity: gate, kind: "button", requires: { flag: "powered" }, refusal: "nothing happens: there is no power", onInteract: [{ setFlag: "gateRang" }] });

  assertEquals(await w.play("agt_hero", "interaction.interact", { target: lever }), { kind: "lever", result: "switched on", text: null });
  assertEquals(await w.play("agt_hero", "interaction.toggle", { target: lever }), { target: lever, on: false, open: false });
  assertEquals(w.session.game.state.counter("pulls"), 2);
  assertEquals(await w.play("agt_hero", "interaction.interact", { target: sign }), { kind: "sign", result: "read", text: "Beware the lava." });

  await refusedUnchanged(w, () => w.as("agt_hero", "interaction.interact", { target: gate }), "invalid_input", "nothing happens: there is no power");
  await w.build("game.setFlag", { flag: "powered" });
  await w.play("agt_hero", "interaction.interact", { target: gate });
  assert(w.session.game.state.flag("gateRang"));

  const listed = await w.play<{ interactables: { entity: string; kind: string }[] }>("agt_hero", "interaction.list", { near: w.session.game.state.players.get("agt_hero")! });
  assertEquals(listed.interactables.map((i) => i.kind).sort(), ["button", "lever", "sign"]);
  w.session.dispose();
});

test("using items: a potion heals and is used up; a key unlocks its chest; nothing else is accepted", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  await w.build("stats.define", { entity: hero, stat: "health", value: 40, max: 100 });
  await w.build("item.define", { id: "potion", name: "Potion", consumable: true, use: [{ heal: 25 }] });
  await w.build("item.define", { id: "key", name: "Key" });
  await w.build("inventory.add", { entity: hero, item: "potion", count: 2 });
  await w.build("inventory.add", { entity: hero, item: "key" });
  const chest = await w.box([1, 0.5, 0], { size: 0.5 });
  await w.build("interaction.register", { entity: chest, kind: "chest", locked: true, key: "key" });

  assertEquals(await w.play("agt_hero", "interaction.use", { item: "potion" }), { used: "potion", target: null, result: "consumed" });
  assertEquals(w.session.game.stats.value(hero, "health"), 65);
  assertEquals(w.session.game.items.count(hero, "potion"), 1);
  assertEquals(await w.play("agt_hero", "interaction.use", { item: "key", target: chest }), { used: "key", target: chest, result: "unlocked" });
  assertEquals(w.session.game.interactions.require(chest).locked, false);
  await refusedUnchanged(w, () => w.as("agt_hero", "interaction.use", { item: "key" }), "invalid_input", "key has no use on its own");
  await refusedUnchanged(w, () => w.as("agt_nobody", "interaction.use", { item: "potion" }), "not_found", "agent agt_nobody plays no entity");
  w.session.dispose();
});
