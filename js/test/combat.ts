// stats.*, damage.*, status.*, combat.*, ability.*: bounded stats with
// regeneration and on-zero effects, damage through resistance and defense,
// effects over time, melee arcs, raycast and projectile attacks with
// cooldowns and teams, and abilities that cost and cool down.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refused, refusedUnchanged } from "./support/game.ts";

test("stats stay in bounds, regenerate per tick and fire onZero once when they run out", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  await w.build("stats.define", { entity: hero, stat: "health", max: 100, onZero: [{ lose: "the hero fell" }] });
  await w.build("stats.define", { entity: hero, stat: "stamina", value: 10, max: 20, regen: 0.5 });
  w.steps(30);
  assertEquals(w.session.game.stats.value(hero, "stamina"), 20, "regenerated to its max, not past it");
  assertEquals(await w.build("stats.modify", { entity: hero, stat: "health", by: 500 }), { stat: "health", value: 100, base: 100, min: 0, max: 100, regen: 0 });
  await w.build("game.start", {});
  const before = w.session.tracer.size;
  await w.build("damage.apply", { target: hero, amount: 150 });
  assertEquals(w.session.game.stats.value(hero, "health"), 0);
  assert(w.eventsSince(before).includes("stats.depleted"));
  assertEquals(w.session.game.state.outcome?.reason, "the hero fell");
  refused(await w.as("builder", "stats.define", { entity: hero, stat: "x", min: 5, max: 1 }, "builder.readWrite"), "invalid_input", "max must be ≥ min");
  w.session.dispose();
});

test("damage: resistance scales it, defense takes from it, healing stops at max; modifiers and statuses change stats", async () => {
  const w = await gameWorld();
  const ogre = await w.box([0, 0, 0], { body: false });
  await w.build("stats.define", { entity: ogre, stat: "health", max: 100 });
  await w.build("stats.define", { entity: ogre, stat: "defense", value: 2 });
  await w.build("damage.setResistance", { entity: ogre, kind: "fire", factor: 0.5 });
  assertEquals(await w.build("damage.apply", { target: ogre, amount: 20, kind: "fire" }), { target: ogre, dealt: 8, health: 92 });
  assertEquals(await w.build("damage.apply", { target: ogre, amount: 20 }), { target: ogre, dealt: 18, health: 74 });
  assertEquals(await w.build("damage.heal", { target: ogre, amount: 50 }), { target: ogre, healed: 26, health: 100 });
  await w.build("stats.addModifier", { entity: ogre, id: "stoneskin", stat: "defense", add: 8 });
  assertEquals((await w.build<{ dealt: number }>("damage.apply", { target: ogre, amount: 9 })).dealt, 0, "10 defense swallows 9");
  await w.build("status.define", { id: "poison", name: "Poison", ticks: 180, every: 60, effects: [{ damage: 15, kind: "poison" }], stacking: "stack", maxStacks: 3 });
  await w.build("status.define", { id: "weak", name: "Weakness", ticks: 90, modifiers: [{ stat: "defense", mul: 0 }] });
  await w.build("status.apply", { entity: ogre, status: "weak" });
  await w.build("status.apply", { entity: ogre, status: "poison" });
  await w.build("status.apply", { entity: ogre, status: "poison" });
  assertEquals((await w.build<{ statuses: { status: string; stacks: number }[] }>("status.list", { entity: ogre })).statuses.map((s) => [s.status, s.stacks]), [["weak", 1], ["poison", 2]]);
  w.steps(60);
  assertEquals(w.session.game.stats.value(ogre, "health"), 70, "2 stacks × 15, defense nulled by weakness");
  w.steps(30);
  assert(!w.session.game.statuses.has(ogre, "weak"), "weakness expired after 90 ticks");
  w.steps(30);
  assertEquals(w.session.game.stats.value(ogre, "health"), 60, "10 defense again: 15 - 10 = 5 a stack");
  w.session.dispose();
});

test("melee hits the nearest hostile in its arc and reach, then cools down; teammates and what is behind are spared", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  const front = await w.box([0, 0.5, 1.2], { body: false });
  const behind = await w.box([0, 0.5, -1], { body: false });
  const friend = await w.box([0.3, 0.5, 0.8], { body: false });
  for (const e of [front, behind, friend]) await w.build("stats.define", { entity: e, stat: "health", max: 30 });
  await w.build("stats.define", { entity: hero, stat: "attack", value: 2 });
  await w.build("combat.configure", { entity: hero, team: "knights", melee: { damage: 8, range: 1.5, arc: 90, cooldown: 20 } });
  await w.build("combat.setTeam", { entity: friend, team: "knights" });
  assertEquals(await w.play("agt_hero", "combat.melee", {}), { hits: [{ target: front, dealt: 10, health: 20 }] });
  await refusedUnchanged(w, () => w.as("agt_hero", "combat.melee", {}), "invalid_input", "cooling down for 20 more ticks");
  w.steps(20);
  refused(await w.as("agt_hero", "combat.melee", { target: behind }), "invalid_input", "is not a hostile with health");
  await w.build("combat.configure", { entity: hero, melee: { damage: 8, range: 1.5, arc: 360, cleave: true } });
  const all = await w.play<{ hits: { target: string }[] }>("agt_hero", "combat.melee", {});
  assertEquals(all.hits.map((h) => h.target).sort(), [front, behind].sort(), "cleave: everything hostile around, never the teammate");
  w.session.dispose();
});

test("ranged: a raycast hits the first body; a projectile flies, sweeps its path and hits later", async () => {
  const w = await gameWorld();
  const archer = await w.player("agt_archer", [0, 0.5, 0]);
  const wall = await w.box([0, 0.5, 4], { size: 1 });
  const target = await w.box([3, 0.5, 0], { size: 1 });
  await w.build("stats.define", { entity: target, stat: "health", max: 20 });
  await w.build("combat.configure", { entity: archer, ranged: { damage: 5, range: 20, cooldown: 10 } });
  w.steps(1);
  assertEquals(await w.play("agt_archer", "combat.ranged", {}), { hit: null, struck: wall, projectile: null }, "facing +z: the wall, which has no health");
  w.steps(10);
  assertEquals(await w.play("agt_archer", "combat.ranged", { at: target }), { hit: { target, dealt: 5, health: 15 }, struck: target, projectile: null });
  await w.build("combat.configure", { entity: archer, ranged: { damage: 5, range: 20, cooldown: 10, speed: 30 } });
  w.steps(10);
  const shot = await w.play<{ projectile: string }>("agt_archer", "combat.ranged", { direction: [1, 0, 0] });
  assertEquals((await w.build<{ projectiles: { entity: string }[] }>("combat.projectiles")).projectiles.map((p) => p.entity), [shot.projectile]);
  w.steps(2);
  assertEquals(w.session.game.stats.value(target, "health"), 15, "still in flight");
  w.steps(6);
  assertEquals(w.session.game.stats.value(target, "health"), 10, "it arrived");
  assertEquals(w.session.world.entities.get(shot.projectile), undefined, "and is gone");
  w.session.dispose();
});

test("abilities: granted, paid for, cooled down in ticks, aimed within range; refusals spend nothing", async () => {
  const w = await gameWorld();
  const mage = await w.player("agt_mage", [0, 0, 0]);
  const foe = await w.box([4, 0, 0], { body: false });
  await w.build("stats.define", { entity: mage, stat: "mana", value: 12, max: 30 });
  await w.build("stats.define", { entity: foe, stat: "health", max: 40 });
  await w.build("ability.define", { id: "bolt", name: "Bolt", target: "entity", range: 5, cooldown: 90, cost: { stat: "mana", amount: 10 }, effects: [{ damage: 12, to: "target", kind: "shock" }, { applyStatus: "stun", to: "target", ticks: 30 }] });
  await w.build("status.define", { id: "stun", name: "Stun" });
  await refusedUnchanged(w, () => w.as("agt_mage", "ability.use", { ability: "bolt", target: foe }), "invalid_input", "has not been granted bolt");
  await w.build("ability.grant", { entity: mage, ability: "bolt" });
  assertEquals(await w.play("agt_mage", "ability.use", { ability: "bolt", target: foe }), { ability: "bolt", cooldown: 90 });
  assertEquals([w.session.game.stats.value(foe, "health"), w.session.game.stats.value(mage, "mana")], [28, 2]);
  assert(w.session.game.statuses.has(foe, "stun"));
  await refusedUnchanged(w, () => w.as("agt_mage", "ability.use", { ability: "bolt", target: foe }), "invalid_input", "cooling down for 90 more ticks");
  await w.build("ability.reset", { entity: mage });
  await refusedUnchanged(w, () => w.as("agt_mage", "ability.use", { ability: "bolt", target: foe }), "invalid_input", "costs 10 mana; ");
  w.session.entities.setTransform(w.session.entities.require(foe), { position: [9, 0, 0] });
  await w.build("stats.set", { entity: mage, stat: "mana", value: 30 });
  await refusedUnchanged(w, () => w.as("agt_mage", "ability.use", { ability: "bolt", target: foe }), "invalid_input", "beyond bolt's range of 5 m");
  assertEquals((await w.build<{ abilities: { ability: string; ready: boolean }[] }>("ability.list", { entity: mage })).abilities, [{ ability: "bolt", name: "Bolt", cooldown: 0, ready: true }]);
  w.session.dispose();
});
