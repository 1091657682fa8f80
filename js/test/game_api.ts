// The gameplay module API (`import { items, quests, … } from "limina"`):
// the docs' example runs as written; writes go through the skills (recorded
// in the world log, refused with the skill's error code), reads answer at
// once; events.on hears game events; the NPC memory API conversation
// orchestration builds on.
import { createWorldSession, dialogue, errorCodeOf, events, game, interaction, inventory, items, npcs, quests, triggers } from "limina";
import { assert, assertEquals, assertRejects, test } from "limina/testing";

test("the module API example from docs/module-api.md runs as written", async () => {
  const session = createWorldSession();
  const hero = session.entities.create({ shape: "box", size: 0.8, position: [0, 0.4, 0], color: 0x2f6fe0, dynamic: false, static: false, friction: 0.5, restitution: 0 });
  await game.addPlayer(session, "agt_hero", hero.id);
  await items.define(session, { id: "relic", name: "Relic" });
  const { entity: relic } = await items.spawn(session, "relic", [1, 0.3, 0]);
  await quests.define(session, { id: "find", title: "Find the relic", public: true, objectives: [{ id: "it", text: "Hold it", when: { has: "relic" } }], rewards: [{ win: "found it" }] });
  await triggers.create(session, "lava", { shape: "box", position: [5, 0, 0], halfExtents: [1, 1, 1], onStay: [{ damage: 5 }], every: 30 });
  await quests.accept(session, "find", { as: "agt_hero" });
  await interaction.pickup(session, relic, { as: "agt_hero" });
  assertEquals(inventory.count(session, hero.id, "relic"), 1);
  assertEquals(game.phase(session), "won");
  assertEquals(game.outcome(session)?.reason, "found it");
  const calls = session.tracer.history().filter((e) => e.type === "skill.executed").map((e) => [e.actorId, (e.payload as { skill: string }).skill]);
  assertEquals(calls, [["module", "game.addPlayer"], ["module", "item.define"], ["module", "item.spawn"], ["module", "quest.define"], ["module", "trigger.create"], ["agt_hero", "quest.accept"], ["agt_hero", "interaction.pickup"]], "every write is a recorded skill call, as whom it was made");
  session.dispose();
});

test("refusals come back as LiminaErrors with the skill's code; events.on hears game events", async () => {
  const session = createWorldSession({ simulate: false });
  const heard: string[] = [];
  const off = events.on(session, "game.flag.changed", (data) => heard.push(`${data.flag}=${data.value}`));
  await game.setFlag(session, "gate");
  await assertRejects(() => items.spawn(session, "ghost", [0, 0, 0]), "no item \"ghost\" is defined");
  try {
    await quests.accept(session, "nothing", { as: "agt_nobody" });
    throw new Error("accepted");
  } catch (e) {
    assertEquals(errorCodeOf(e), "not_found");
  }
  off();
  await game.setFlag(session, "gate", false);
  assertEquals(heard, ["gate=true"]);
  assert(game.flag(session, "gate") === false);
  session.dispose();
});

test("NPC memory for conversation orchestration: profile, recall, attitude, say as the NPC's agent, remember", async () => {
  const session = createWorldSession({ simulate: false });
  const player = session.entities.create({ shape: "box", size: 1, position: [0, 0, 0], color: 0xffffff, dynamic: false, static: false, friction: 0.5, restitution: 0 });
  const sage = session.entities.create({ shape: "box", size: 1, position: [1, 0, 0], color: 0xffffff, dynamic: false, static: false, friction: 0.5, restitution: 0 });
  await npcs.define(session, sage.id, { name: "Sage", persona: "speaks in riddles", dialogue: "riddle" });
  await dialogue.define(session, { id: "riddle", start: "a", nodes: { a: { text: "What walks on four legs?", choices: [{ id: "man", text: "Man.", effects: [{ attitude: 15 }] }] } } });
  await game.addPlayer(session, "agt_player", player.id);
  await game.addPlayer(session, "agt_sage", sage.id);
  await dialogue.start(session, sage.id, { as: "agt_player" });
  await dialogue.choose(session, "man", { as: "agt_player" });
  assertEquals(npcs.profile(session, sage.id), { name: "Sage", persona: "speaks in riddles", dialogue: "riddle" });
  assertEquals(npcs.attitude(session, sage.id, player.id), 15);
  // An LLM's line, spoken as the agent that plays the NPC, and what it concluded.
  await npcs.say(session, "You have answered well.", { as: "agt_sage" });
  await npcs.remember(session, sage.id, "the player solved my riddle", { about: player.id, kind: "note" });
  await npcs.adjustAttitude(session, sage.id, player.id, 10);
  const about = npcs.recall(session, sage.id, { about: player.id }).map((m) => `${m.kind}: ${m.text}`);
  assertEquals(about, ["note: the player solved my riddle", `heard: ${player.id}: Man.`, `event: ${player.id} started talking with me`]);
  assertEquals(npcs.recall(session, sage.id, { kind: "said" }).map((m) => m.text), ["You have answered well.", "What walks on four legs?"]);
  assertEquals(npcs.attitude(session, sage.id, player.id), 25);
  session.dispose();
});
