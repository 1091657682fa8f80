// item.* and inventory.*: definitions, stacks against a slot capacity,
// transfers checked whole, equipment whose modifiers change stats, and
// refusals that leave everything as it was.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refused, refusedUnchanged } from "./support/game.ts";

test("stacks fill slots by their maxStack; a full inventory refuses and keeps what it had", async () => {
  const w = await gameWorld();
  const bag = await w.box([0, 0, 0], { body: false });
  await w.build("item.define", { id: "arrow", name: "Arrow", maxStack: 20 });
  await w.build("item.define", { id: "helm", name: "Helm", maxStack: 1, slot: "head" });
  await w.build("inventory.setCapacity", { entity: bag, capacity: 3 });
  assertEquals(await w.build("inventory.add", { entity: bag, item: "arrow", count: 35 }), { total: 35 });
  assertEquals(await w.build("inventory.add", { entity: bag, item: "helm" }), { total: 1 });
  const listed = await w.build("inventory.list", { entity: bag });
  assertEquals(listed, { entity: bag, capacity: 3, used: 3, items: [{ item: "arrow", count: 35 }, { item: "helm", count: 1 }], equipped: {} });
  await refusedUnchanged(w, () => w.as("builder", "inventory.add", { entity: bag, item: "arrow", count: 6 }, "builder.readWrite"), "capacity_exceeded", "inventory is full (3 slots): 6 arrow do not fit");
  assertEquals(await w.build("inventory.add", { entity: bag, item: "arrow", count: 5 }), { total: 40 }, "5 more fill the second stack exactly");
  await refusedUnchanged(w, () => w.as("builder", "inventory.setCapacity", { entity: bag, capacity: 2 }, "builder.readWrite"), "invalid_input", "already uses 3 slots");
  assertEquals(await w.build("inventory.has", { entity: bag, item: "arrow", count: 40 }), { has: true, count: 40 });
  assertEquals(await w.build("inventory.remove", { entity: bag, item: "arrow", count: 40 }), { total: 0 });
  assertEquals(await w.build("inventory.count", { entity: bag, item: "arrow" }), { count: 0 });
  await refusedUnchanged(w, () => w.as("builder", "inventory.add", { entity: bag, item: "ghost" }, "builder.readWrite"), "not_found", 'no item "ghost" is defined');
  await refusedUnchanged(w, () => w.as("builder", "item.remove", { item: "helm" }, "builder.readWrite"), "invalid_input", `item helm is still held by ${bag}`);
  w.session.dispose();
});

test("equipment: its modifiers count while worn; unequipping or losing the item takes them off", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  await w.build("stats.define", { entity: hero, stat: "attack", value: 3 });
  await w.build("item.define", { id: "sword", name: "Sword", slot: "weapon", modifiers: [{ stat: "attack", add: 4 }] });
  await w.build("item.define", { id: "axe", name: "Axe", slot: "weapon", modifiers: [{ stat: "attack", add: 2, mul: 2 }] });
  await w.build("inventory.add", { entity: hero, item: "sword" });
  await w.build("inventory.add", { entity: hero, item: "axe" });
  const attack = () => w.session.game.stats.value(hero, "attack");
  assertEquals(await w.play("agt_hero", "inventory.equip", { item: "sword" }), { item: "sword", slot: "weapon" });
  assertEquals(attack(), 7);
  await w.play("agt_hero", "inventory.equip", { item: "axe" });
  assertEquals(attack(), 10, "(3 + 2) × 2: the axe replaced the sword in the weapon slot");
  assertEquals(await w.build("inventory.equipped", { entity: hero }), { equipped: { weapon: "axe" }, modifiers: [{ stat: "attack", add: 2, mul: 2 }] });
  assertEquals(await w.play("agt_hero", "inventory.unequip", { slot: "axe" }), { item: "axe" });
  assertEquals(attack(), 3);
  await w.play("agt_hero", "inventory.equip", { item: "sword" });
  await w.build("inventory.remove", { entity: hero, item: "sword" });
  assertEquals(attack(), 3, "an item that leaves the inventory is no longer worn");
  refused(await w.as("agt_hero", "inventory.equip", { item: "sword" }), "invalid_input", "holds no sword");
  w.session.dispose();
});

test("transfers: within reach, checked whole (a full receiver moves nothing), and an NPC remembers the gift", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  const npc = await w.box([1, 0, 0], { body: false });
  const far = await w.box([10, 0, 0], { body: false });
  await w.build("npc.define", { entity: npc, name: "Mira" });
  await w.build("item.define", { id: "bread", name: "Bread" });
  await w.build("inventory.add", { entity: hero, item: "bread", count: 3 });
  await refusedUnchanged(w, () => w.as("agt_hero", "inventory.transfer", { to: far, item: "bread" }), "invalid_input", "hand things over within 3 m");
  await w.build("inventory.setCapacity", { entity: npc, capacity: 0 });
  await refusedUnchanged(w, () => w.as("agt_hero", "inventory.transfer", { to: npc, item: "bread" }), "capacity_exceeded", "do not fit");
  await w.build("inventory.setCapacity", { entity: npc, capacity: 5 });
  assertEquals(await w.play("agt_hero", "inventory.transfer", { to: npc, item: "bread", count: 2 }), { from: hero, to: npc, item: "bread", count: 2 });
  assertEquals([w.session.game.items.count(hero, "bread"), w.session.game.items.count(npc, "bread")], [1, 2]);
  assertEquals(w.session.game.npcs.attitude(npc, hero), 10);
  assertEquals(w.session.game.npcs.recall(npc, { about: hero }).map((m) => m.text), [`${hero} gave me 2 Bread`]);
  w.session.dispose();
});

test("an entity's inventory goes with it; item.list filters by tag; redefining replaces", async () => {
  const w = await gameWorld();
  const chest = await w.box([0, 0, 0]);
  await w.build("item.define", { id: "gem", name: "Gem", tags: ["valuable"] });
  await w.build("item.define", { id: "rock", name: "Rock" });
  assertEquals((await w.build<{ created: boolean }>("item.define", { id: "rock", name: "Stone" })).created, false);
  assertEquals((await w.build<{ items: { item: string }[] }>("item.list", { tag: "valuable" })).items.map((i) => i.item), ["gem"]);
  assertEquals((await w.build<{ item: { name: string } }>("item.get", { item: "rock" })).item.name, "Stone");
  await w.build("inventory.add", { entity: chest, item: "gem", count: 4 });
  await w.build("scene.destroyEntity", { entity: chest });
  w.steps(1);
  assertEquals(w.session.game.items.inventories.has(chest), false);
  assert((await w.build<{ removed: boolean }>("item.remove", { item: "gem" })).removed, "nobody holds it any more");
  w.session.dispose();
});
