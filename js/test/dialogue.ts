// dialogue.* and npc.*: trees whose choices depend on conditions and do
// things (offer quests, give items, change attitude), lines shown as speech
// bubbles above the NPC, what the player chose remembered by the NPC, NPC
// attitudes, memory (recalled newest first, bounded) and routines walked
// tick by tick.
import { assert, assertEquals, test } from "limina/testing";
import { gameWorld, refused, refusedUnchanged } from "./support/game.ts";

async function keeperWorld() {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  const keeper = await w.box([1.5, 0.5, 0], { body: false });
  await w.build("item.define", { id: "lamp", name: "Lamp" });
  await w.build("quest.define", { id: "relics", title: "Relics", giver: keeper, objectives: [{ id: "find", text: "Find them", when: { flag: "found" } }] });
  await w.build("dialogue.define", {
    id: "keeper",
    start: "hello",
    nodes: {
      hello: { text: "Welcome to the ruins.", choices: [
        { id: "quest", text: "Any work?", when: { quest: "relics", status: "none" }, next: "offer" },
        { id: "gift", text: "A gift for you.", when: { attitude: 20, op: "gte" }, effects: [{ give: "lamp" }], next: "thanks" },
        { id: "bye", text: "Farewell." },
      ] },
      offer: { text: "Bring back my relics.", choices: [
        { id: "yes", text: "I will.", effects: [{ offerQuest: "relics" }, { startQuest: "relics" }, { attitude: 25 }] },
        { id: "no", text: "Not now.", effects: [{ attitude: -5 }] },
      ] },
      thanks: { text: "Take this lamp.", next: "hello" },
    },
  });
  await w.build("npc.define", { entity: keeper, name: "Keeper", persona: "an old guardian", dialogue: "keeper" });
  return { w, hero, keeper };
}

test("a conversation: lines as bubbles, conditional choices, effects, the NPC remembering the choice", async () => {
  const { w, hero, keeper } = await keeperWorld();
  const start = await w.play<{ text: string; choices: { id: string }[] }>("agt_hero", "dialogue.start", { npc: keeper });
  assertEquals(start, { dialogue: "keeper", npc: keeper, node: "hello", speaker: "npc", text: "Welcome to the ruins.", choices: [{ id: "quest", text: "Any work?" }, { id: "bye", text: "Farewell." }], ended: false });
  const bubbles = w.session.ui.handles().map((h) => w.session.ui.inspect(h)!);
  assertEquals(bubbles.map((b) => [b.kind, b.content.text]), [["speechBubble", "Welcome to the ruins."]]);
  await refusedUnchanged(w, () => w.as("agt_hero", "dialogue.choose", { choice: "gift" }), "invalid_input", "is not a choice open at keeper/hello; open: quest, bye");
  await w.play("agt_hero", "dialogue.choose", { choice: "quest" });
  const done = await w.play<{ ended: boolean }>("agt_hero", "dialogue.choose", { choice: "yes" });
  assertEquals(done.ended, true, "a choice leading nowhere ends the conversation");
  assertEquals(w.session.game.quests.statusOf("relics", hero), "active");
  assertEquals(w.session.game.npcs.attitude(keeper, hero), 25);
  assertEquals(w.session.game.npcs.recall(keeper, { about: hero, kind: "heard" }).map((m) => m.text), [`${hero}: I will.`, `${hero}: Any work?`]);
  // Now the gift choice is open (attitude 25), the quest one is not; "continue" leads on from a line without choices.
  const again = await w.play<{ choices: { id: string }[] }>("agt_hero", "dialogue.start", { npc: keeper });
  assertEquals(again.choices.map((c) => c.id), ["gift", "bye"]);
  assertEquals((await w.play<{ choices: { id: string }[] }>("agt_hero", "dialogue.choose", { choice: "gift" })).choices, [{ id: "continue", text: "…" }]);
  assertEquals(w.session.game.items.count(hero, "lamp"), 1);
  assertEquals((await w.play<{ node: string }>("agt_hero", "dialogue.choose", { choice: "continue" })).node, "hello");
  assertEquals((await w.build<{ conversation: { node: string } | null }>("dialogue.current", { entity: hero })).conversation?.node, "hello");
  assertEquals((await w.play<{ ended: boolean }>("agt_hero", "dialogue.end", {})).ended, true);
  refused(await w.as("agt_hero", "dialogue.end", {}), "invalid_input", "is not in a conversation");
  w.session.dispose();
});

test("talking needs the NPC near, a dialogue, and a free player; trees are checked when defined", async () => {
  const { w, keeper } = await keeperWorld();
  const mute = await w.box([0, 0.5, 1], { body: false });
  await w.build("npc.define", { entity: mute, name: "Mute" });
  await refusedUnchanged(w, () => w.as("agt_hero", "dialogue.start", { npc: mute }), "invalid_input", "has nothing to say");
  w.session.entities.setTransform(w.session.entities.require(keeper), { position: [9, 0.5, 0] });
  await refusedUnchanged(w, () => w.as("agt_hero", "dialogue.start", { npc: keeper }), "invalid_input", "come within 3 m to talk");
  refused(await w.as("builder", "dialogue.define", { id: "bad", start: "a", nodes: { a: { text: "x", next: "b" } } }, "builder.readWrite"), "invalid_input", "leads to b, which is not one of its nodes");
  w.session.dispose();
});

test("NPC memory: recalled newest first by who, kind and words; bounded to the newest 200; forgotten on demand", async () => {
  const { w, hero, keeper } = await keeperWorld();
  for (let i = 0; i < 210; i++) await w.build("npc.remember", { npc: keeper, text: `note ${i}`, kind: "note" });
  await w.build("npc.remember", { npc: keeper, text: "the hero broke a vase", about: hero, kind: "event" });
  assertEquals(w.session.game.npcs.all.get(keeper)!.memory.length, 200);
  assertEquals((await w.build<{ memories: { text: string }[] }>("npc.recall", { npc: keeper, about: hero })).memories.map((m) => m.text), ["the hero broke a vase"]);
  assertEquals((await w.build<{ memories: { text: string }[] }>("npc.recall", { npc: keeper, text: "note 20", limit: 3 })).memories.map((m) => m.text), ["note 209", "note 208", "note 207"]);
  assertEquals(w.session.game.npcs.all.get(keeper)!.memory[0].text, "note 11", "notes 0-10 were forgotten: only the newest 200 are kept");
  assertEquals(await w.build("npc.forget", { npc: keeper, about: hero }), { forgotten: 1 });
  // Hurting an NPC is remembered and sours its attitude.
  await w.build("stats.define", { entity: keeper, stat: "health", max: 10 });
  await w.build("damage.apply", { target: keeper, amount: 3, source: hero });
  assertEquals(w.session.game.npcs.attitude(keeper, hero), -10);
  assert(w.session.game.npcs.recall(keeper, { about: hero })[0].text.includes("hurt me"));
  w.session.dispose();
});

test("routines walk waypoints at their speed, wait their ticks, loop; an NPC played by an agent speaks with npc.say", async () => {
  const w = await gameWorld();
  const guard = await w.player("agt_guard", [0, 0, 0]);
  await w.build("npc.define", { entity: guard, name: "Guard" });
  await w.build("npc.setRoutine", { npc: guard, speed: 2, waypoints: [{ position: [2, 0, 0], wait: 30 }, { position: [0, 0, 0] }] });
  const at = () => w.session.world.position(w.session.world.entities.get(guard)!.eid);
  w.steps(30);
  assert(Math.abs(at()[0] - 1) < 1e-5, `1 m after half a second at 2 m/s: ${at()}`);
  w.steps(32);
  assertEquals(at(), [2, 0, 0], "arrived (float32 strides land within one step of a second)");
  w.steps(29);
  assertEquals(at(), [2, 0, 0], "waits 30 ticks there (arrived on tick 61, leaves on tick 92)");
  w.steps(30);
  assert(at()[0] < 1.1 && at()[0] > 0.9, `halfway back: ${at()}`);
  const said = await w.play<{ npc: string }>("agt_guard", "npc.say", { text: "Halt!" });
  assertEquals(said.npc, guard);
  assertEquals(w.session.game.npcs.recall(guard, { kind: "said" }).map((m) => m.text), ["Halt!"]);
  await w.build("npc.clearRoutine", { npc: guard });
  const stop = at();
  w.steps(10);
  assertEquals(at(), stop);
  w.session.dispose();
});
