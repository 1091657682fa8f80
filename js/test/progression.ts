// progression.*: xp adding up to levels along the curve, each level's
// rewards (effects and unlocks) granted once, in order; unlocks tested by
// conditions.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refused } from "./support/game.ts";

test("xp climbs the curve; every level reached grants its rewards once; unlocks answer conditions", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  await w.build("stats.define", { entity: hero, stat: "health", max: 100 });
  await w.build("progression.define", { levels: [100, 300, 600], rewards: { "2": { unlocks: ["dash"] }, "3": { effects: [{ modifyStat: "health", by: -10 }, { setFlag: "veteran" }] }, "4": { unlocks: ["glide"] } } });
  assertEquals(await w.build("progression.addXp", { entity: hero, amount: 50 }), { xp: 50, level: 1, gained: 0 });
  assertEquals(await w.build("progression.addXp", { entity: hero, amount: 300 }), { xp: 350, level: 3, gained: 2 });
  assertEquals(await w.build("progression.get", { entity: hero }), { entity: hero, xp: 350, level: 3, unlocks: ["dash"], next: 600 });
  assert(w.session.game.state.flag("veteran"));
  assertEquals(w.session.game.stats.value(hero, "health"), 90);
  assertEquals(await w.build("game.check", { condition: { all: [{ unlocked: "dash" }, { level: 3 }, { not: { unlocked: "glide" } }] }, actor: hero }), { holds: true });
  await w.build("progression.addXp", { entity: hero, amount: 10_000 });
  assertEquals((await w.build<{ level: number; next: number | null }>("progression.get", { entity: hero })), { entity: hero, xp: 10_350, level: 4, unlocks: ["dash", "glide"], next: null });
  assertEquals(w.session.game.stats.value(hero, "health"), 90, "level 3's rewards were granted once");
  assertEquals(await w.build("progression.lock", { entity: hero, unlock: "dash" }), { removed: true });
  await w.build("progression.unlock", { entity: hero, unlock: "swim" });
  assertEquals(w.session.game.progression.get(hero).unlocks, ["glide", "swim"]);
  // Levels reached through quest rewards: {xp} effects.
  const rookie = await w.player("agt_rookie", [1, 0, 0]);
  await w.build("quest.define", { id: "train", title: "Train", public: true, objectives: [{ id: "t", text: "Train" }], rewards: [{ xp: 150 }] });
  await w.play("agt_rookie", "quest.accept", { quest: "train" });
  await w.build("quest.update", { quest: "train", objective: "t", for: rookie });
  assertEquals(w.session.game.progression.level(rookie), 2);
  refused(await w.as("builder", "progression.define", { levels: [100, 50] }, "builder.readWrite"), "invalid_input", "levels must need more xp each step up");
  w.session.dispose();
});
