// quest.*: objectives bound to game events, to conditions (flags,
// counters, inventories) and to progress by hand; offer, accept, decline,
// abandon; rewards and failures as effects; time limits in ticks.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refusedUnchanged } from "./support/game.ts";

test("a quest with event, condition and hand-made objectives completes when all are done, and pays its rewards", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  const other = await w.player("agt_other", [0, 0.5, 5]);
  await w.build("item.define", { id: "relic", name: "Relic" });
  await w.build("quest.define", {
    id: "relics",
    title: "The lost relics",
    objectives: [
      { id: "pick", text: "Pick up 2 relics", event: { type: "item.picked", where: { item: "relic" } }, count: 2 },
      { id: "hold", text: "Hold 3 relics", when: { has: "relic", count: 3 } },
      { id: "pray", text: "Pray at the shrine", count: 1 },
      { id: "bonus", text: "Find the secret", optional: true, when: { flag: "secret" } },
    ],
    rewards: [{ setFlag: "relicsDone" }, { give: "relic", count: 10 }],
  });
  await refusedUnchanged(w, () => w.as("agt_hero", "quest.accept", { quest: "relics" }), "invalid_input", "was not offered to");
  await w.build("quest.offer", { quest: "relics", to: hero });
  assertEquals(await w.play("agt_hero", "quest.accept", { quest: "relics" }), { quest: "relics", status: "active" });
  for (const x of [1, 2]) {
    const { entity } = await w.build<{ entity: string }>("item.spawn", { item: "relic", position: [x * 0.5, 0.5, 0] });
    await w.play("agt_hero", "interaction.pickup", { target: entity });
  }
  // Someone else's pickups do not count for the hero.
  const { entity: theirs } = await w.build<{ entity: string }>("item.spawn", { item: "relic", position: [0, 0.5, 5.5] });
  await w.play("agt_other", "interaction.pickup", { target: theirs });
  let q = await w.build<{ status: string; objectives: { id: string; count: number; done: boolean }[] }>("quest.get", { quest: "relics", entity: hero });
  assertEquals(q.objectives.map((o) => [o.id, o.count, o.done]), [["pick", 2, true], ["hold", 0, false], ["pray", 0, false], ["bonus", 0, false]]);
  await w.build("inventory.add", { entity: hero, item: "relic" });
  await w.build("quest.update", { quest: "relics", objective: "pray", for: hero });
  q = await w.build("quest.get", { quest: "relics", entity: hero });
  assertEquals(q.status, "completed", "the optional objective is not needed");
  assert(w.session.game.state.flag("relicsDone"));
  assertEquals(w.session.game.items.count(hero, "relic"), 13, "3 held + 10 as the reward");
  assertEquals(w.session.game.quests.statusOf("relics", other), "none");
  w.session.dispose();
});

test("decline, abandon (fails, with its consequences), a fail condition and a time limit in ticks", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  await w.build("quest.define", { id: "escort", title: "Escort", public: true, objectives: [{ id: "go", text: "Arrive" }], onFail: [{ addCounter: "failures" }], failWhen: { flag: "escortDied" } });
  await w.build("quest.define", { id: "race", title: "Race", public: true, timeLimit: 120, objectives: [{ id: "finish", text: "Finish", when: { flag: "finished" } }] });
  await w.build("quest.define", { id: "chore", title: "Chore", objectives: [{ id: "do", text: "Do it" }] });
  await w.build("quest.offer", { quest: "chore", to: hero });
  assertEquals(await w.play("agt_hero", "quest.decline", { quest: "chore" }), { quest: "chore", status: "declined" });

  await w.play("agt_hero", "quest.accept", { quest: "escort" });
  await w.build("game.setFlag", { flag: "escortDied" });
  assertEquals(w.session.game.quests.get("escort", hero)!.reason, "its fail condition holds");
  assertEquals(w.session.game.state.counter("failures"), 1);

  await w.play("agt_hero", "quest.accept", { quest: "race" });
  w.steps(119);
  assertEquals(w.session.game.quests.statusOf("race", hero), "active");
  assertEquals((await w.build<{ remaining: number }>("quest.get", { quest: "race", entity: hero })).remaining, 1);
  w.steps(1);
  assertEquals(w.session.game.quests.get("race", hero)!.reason, "out of time");

  await w.build("quest.offer", { quest: "chore", to: hero });
  await w.play("agt_hero", "quest.accept", { quest: "chore" });
  assertEquals(await w.play("agt_hero", "quest.track", { quest: "chore", tracked: false }), { quest: "chore", tracked: false });
  assertEquals(await w.play("agt_hero", "quest.abandon", { quest: "chore" }), { quest: "chore", status: "failed" });
  const listed = await w.build<{ quests: { quest: string; status: string }[] }>("quest.list", { entity: hero });
  assertEquals(listed.quests.map((x) => [x.quest, x.status]), [["escort", "failed"], ["race", "failed"], ["chore", "failed"]]);
  await refusedUnchanged(w, () => w.as("agt_hero", "quest.abandon", { quest: "chore" }), "invalid_input", "is not on chore");
  w.session.dispose();
});

test("quests offered and started by dialogue and rules: {offerQuest} and {startQuest} effects, giver as npc", async () => {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0, 0]);
  const sage = await w.box([1, 0, 0], { body: false });
  await w.build("npc.define", { entity: sage, name: "Sage" });
  await w.build("quest.define", { id: "wisdom", title: "Wisdom", giver: sage, objectives: [{ id: "listen", text: "Listen", when: { flag: "listened" } }], rewards: [{ attitude: 30, toward: "actor" }] });
  await w.build("game.defineRule", { rule: "offer", when: { flag: "metSage" }, effects: [{ offerQuest: "wisdom", to: hero }] });
  await w.build("game.setFlag", { flag: "metSage" });
  assertEquals(w.session.game.quests.statusOf("wisdom", hero), "offered");
  await w.play("agt_hero", "quest.accept", { quest: "wisdom" });
  await w.build("game.setFlag", { flag: "listened" });
  assertEquals(w.session.game.quests.statusOf("wisdom", hero), "completed");
  assertEquals(w.session.game.npcs.attitude(sage, hero), 30, "the reward's npc is the giver");
  w.session.dispose();
});
