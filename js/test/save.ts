// save.* and checkpoint.*: save → change → load puts back inventories,
// quests, stats, flags and timers exactly (the world digest is the one
// saved); checkpoints live in the world; world files carry the game and
// it plays on identically; damaged or incompatible saves are refused and
// change nothing; a log with checkpoint loads replays at every checkpoint.
import { createWorldSession, replay, restoreBytes, snapshotBytes } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { type GameWorld, gameWorld, refused, refusedUnchanged } from "./support/game.ts";

/** A small game with something in every family, mid-play. */
async function playing(): Promise<{ w: GameWorld; hero: string; npc: string }> {
  const w = await gameWorld();
  const hero = await w.player("agt_hero", [0, 0.5, 0]);
  const npc = await w.box([1.5, 0.5, 0], { body: false });
  await w.box([0, -1, 0], { size: 2 });
  await w.build("item.define", { id: "relic", name: "Relic" });
  await w.build("item.define", { id: "sword", name: "Sword", slot: "weapon", modifiers: [{ stat: "attack", add: 3 }] });
  await w.build("inventory.add", { entity: hero, item: "relic", count: 2 });
  await w.build("inventory.add", { entity: hero, item: "sword" });
  await w.play("agt_hero", "inventory.equip", { item: "sword" });
  await w.build("stats.define", { entity: hero, stat: "health", value: 70, max: 100, regen: 0.01 });
  await w.build("status.define", { id: "burn", name: "Burn", ticks: 600, every: 30, effects: [{ damage: 1 }] });
  await w.build("status.apply", { entity: hero, status: "burn" });
  await w.build("quest.define", { id: "relics", title: "Relics", public: true, objectives: [{ id: "three", text: "Hold 3", when: { has: "relic", count: 3 } }] });
  await w.play("agt_hero", "quest.accept", { quest: "relics" });
  await w.build("game.setFlag", { flag: "gateOpen" });
  await w.build("game.setCounter", { counter: "score", value: 42 });
  await w.build("game.startTimer", { timer: "night", ticks: 900, effects: [{ setFlag: "dark" }] });
  await w.build("npc.define", { entity: npc, name: "Keeper" });
  await w.build("npc.remember", { npc, text: "the hero came by", about: hero });
  await w.build("trigger.create", { trigger: "pit", shape: "sphere", position: [0, 0.5, 0], radius: 1, onStay: [{ addCounter: "pitTicks" }], every: 10 });
  await w.build("progression.addXp", { entity: hero, amount: 120 });
  w.steps(45);
  return { w, hero, npc };
}

async function change(w: GameWorld, hero: string, npc: string): Promise<void> {
  await w.build("inventory.add", { entity: hero, item: "relic" });
  await w.build("damage.apply", { target: hero, amount: 30 });
  await w.build("game.setFlag", { flag: "gateOpen", value: false });
  await w.build("game.addCounter", { counter: "score", by: 8 });
  await w.build("npc.setAttitude", { npc, toward: hero, value: -50 });
  await w.build("scene.createEntity", { position: [5, 5, 5], dynamic: true });
  await w.build("ecs.updateComponent", { entity: hero, component: "position", value: [3, 0.5, 3] });
  w.steps(200);
}

test("save → change → load restores inventories, quests, stats, flags and timers exactly: the world digest is the one saved", async () => {
  const { w, hero, npc } = await playing();
  const saved = await w.build<{ name: string; path: string; bytes: number; digest: string }>("save.export", { name: "test-save-main" });
  assertEquals(saved.digest, w.session.digest());
  assert(saved.path.endsWith("/saves/test-save-main.limina-save") && saved.bytes > 1000, JSON.stringify(saved));
  const q = w.session.game.quests.get("relics", hero);
  const before = {
    relics: w.session.game.items.count(hero, "relic"),
    equipped: w.session.game.items.isEquipped(hero, "sword"),
    health: w.session.game.stats.value(hero, "health"),
    burn: w.session.game.statuses.list(hero)[0].remaining,
    quest: q?.status,
    flag: w.session.game.state.flag("gateOpen"),
    score: w.session.game.state.counter("score"),
    night: w.session.game.state.timers.get("night")!.remaining,
    attitude: w.session.game.npcs.attitude(npc, hero),
    level: w.session.game.progression.level(hero),
  };
  await change(w, hero, npc);
  assert(w.session.digest() !== saved.digest, "the change changed the world");
  assertEquals(w.session.game.quests.statusOf("relics", hero), "completed", "holding 3 relics completed the quest");

  const loaded = await w.build<{ digest: string }>("save.import", { name: "test-save-main" });
  assertEquals(loaded.digest, saved.digest);
  assertEquals(w.session.digest(), saved.digest);
  assertEquals({
    relics: w.session.game.items.count(hero, "relic"),
    equipped: w.session.game.items.isEquipped(hero, "sword"),
    health: w.session.game.stats.value(hero, "health"),
    burn: w.session.game.statuses.list(hero)[0].remaining,
    quest: w.session.game.quests.get("relics", hero)?.status,
    flag: w.session.game.state.flag("gateOpen"),
    score: w.session.game.state.counter("score"),
    night: w.session.game.state.timers.get("night")!.remaining,
    attitude: w.session.game.npcs.attitude(npc, hero),
    level: w.session.game.progression.level(hero),
  }, before);
  assertEquals(before.night, 855, "the timer had 900 - 45 ticks left, and has again");
  assert((await w.build<{ saves: { name: string }[] }>("save.list")).saves.some((s) => s.name === "test-save-main"), "save.list names it");
  assertEquals(await w.build("save.delete", { name: "test-save-main" }), { deleted: true });
  await refusedUnchanged(w, () => w.as("builder", "save.import", { name: "test-save-main" }, "builder.readWrite"), "not_found", 'no save named "test-save-main"');
  w.session.dispose();
});

test("checkpoints: kept in the world by name, loaded in place (digest equal), listed, deleted, bounded", async () => {
  const { w, hero, npc } = await playing();
  const a = await w.build<{ digest: string; tick: number }>("checkpoint.create", { name: "a" });
  const whole = w.session.digest();
  await change(w, hero, npc);
  await w.build("checkpoint.create", { name: "b" });
  const loaded = await w.build<{ digest: string }>("checkpoint.load", { name: "a" });
  assertEquals(loaded.digest, a.digest);
  assertEquals((await w.build<{ checkpoints: { name: string }[] }>("checkpoint.list")).checkpoints.map((c) => c.name), ["a", "b"], "loading keeps the checkpoints");
  await w.build("checkpoint.delete", { name: "b" });
  assertEquals(w.session.digest(), whole, "with the same checkpoints, the whole digest is the one at a");
  await refusedUnchanged(w, () => w.as("builder", "checkpoint.load", { name: "b" }, "builder.readWrite"), "not_found", 'no checkpoint "b"; there are a');
  for (let i = 0; i < 15; i++) await w.build("checkpoint.create", { name: `c${i}` });
  await refusedUnchanged(w, () => w.as("builder", "checkpoint.create", { name: "one-too-many" }, "builder.readWrite"), "capacity_exceeded", "at most 16 checkpoints");
  w.session.dispose();
});

test("a world file holds the game: restored in a new session, it plays on tick for tick like the original", async () => {
  const { w } = await playing();
  await w.build("checkpoint.create", { name: "inside" });
  const copy = createWorldSession({ simulate: false });
  await restoreBytes(copy, snapshotBytes(w.session));
  assertEquals(copy.digest(), w.session.digest());
  for (let i = 0; i < 9; i++) {
    w.steps(100);
    for (let k = 0; k < 100; k++) copy.step(1 / 60);
    assertEquals(copy.digest(), w.session.digest(), `in step after ${(i + 1) * 100} more ticks`);
  }
  assert(w.session.game.state.flag("dark") && copy.game.state.flag("dark"), "the night timer ran out in both");
  w.session.dispose();
  copy.dispose();
});

test("damaged saves and saves from incompatible versions are refused with a clear error, and change nothing", async () => {
  const { w } = await playing();
  const { path } = await w.build<{ path: string }>("save.export", { name: "test-save-good" });
  // Each variant is written by a short Python script from the good file.
  const variant = async (name: string, script: string) => {
    const out = path.replace("test-save-good", name);
    const r = await Limina.run({ cmd: "python3", args: ["-c", script, path, out] });
    assertEquals(r.code, 0, r.stderr);
  };
  const rewrap = (edit: string) => `
import hashlib, json, sys
raw = open(sys.argv[1], 'rb').read()
magic, header, body = raw.split(b'\\n', 2)
n = int.from_bytes(body[:4], 'little')
snap = json.loads(body[4:4 + n])
${edit}
js = json.dumps(snap).encode()
body = len(js).to_bytes(4, 'little') + js + body[4 + n:]
head = {'version': 1, 'bytes': len(body), 'contentHash': 'sha256:' + hashlib.sha256(body).hexdigest()}
open(sys.argv[2], 'wb').write(magic + b'\\n' + json.dumps(head, separators=(',', ':')).encode() + b'\\n' + body)
`;
  await variant("test-save-truncated", "import sys; raw = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(raw[:-100])");
  await variant("test-save-v2", "import sys; raw = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(raw.replace(b'\"version\":1', b'\"version\":2', 1))");
  await variant("test-save-snapshot-v3", rewrap("snap['version'] = 3"));
  await variant("test-save-future", rewrap("snap['resources']['game.weather'] = {'rain': True}"));
  await variant("test-save-malformed", rewrap("snap['resources']['game.items']['defs'][0]['maxStack'] = -3"));
  await variant("test-save-badworld", rewrap("snap['world']['transforms'] = []"));
  const load = (name: string) => () => w.as("builder", "save.import", { name }, "builder.readWrite");
  try {
    await refusedUnchanged(w, load("test-save-truncated"), "invalid_input", "its body is");
    await refusedUnchanged(w, load("test-save-v2"), "invalid_input", "it is version 2, this engine reads version 1");
    await refusedUnchanged(w, load("test-save-snapshot-v3"), "invalid_input", "world snapshot version 3 is not supported (this engine reads version 2)");
    await refusedUnchanged(w, load("test-save-future"), "invalid_input", "saved world resources this engine does not have: game.weather");
    await refusedUnchanged(w, load("test-save-malformed"), "invalid_input", "saved game.items is malformed at defs.0.maxStack");
    // Refused only once the world was emptied to load it: put back exactly as it was.
    await refusedUnchanged(w, load("test-save-badworld"), "invalid_input", "world snapshot must pair identity entries with transforms");
    refused(await w.as("builder", "save.export", { name: "../escape" }, "builder.readWrite"), "invalid_input", "1-64 letters");
  } finally {
    for (const name of ["good", "truncated", "v2", "snapshot-v3", "future", "malformed", "badworld"]) await w.build("save.delete", { name: `test-save-${name}` });
  }
  w.session.dispose();
});

test("a log with game calls, trigger effects, timers, statuses and a checkpoint load replays to every recorded digest", async () => {
  const { w, hero, npc } = await playing();
  await w.build("checkpoint.create", { name: "mid" });
  await change(w, hero, npc);
  await w.play("agt_hero", "interaction.drop", { item: "relic" });
  await w.build("checkpoint.load", { name: "mid" });
  w.steps(130);
  w.session.checkpoint();
  const events = w.session.tracer.history();
  const recorded = events.filter((e) => e.type === "world.checkpoint").length;
  assert(recorded >= 6, `${recorded} checkpoints in the log`);
  const again = createWorldSession({ simulate: false, checkpointEvery: 0 });
  const result = await replay(again, events);
  assert(result.ok, JSON.stringify(result));
  assertEquals(result.checkpoints, recorded);
  assertEquals(result.digest, w.session.digest());
  w.session.dispose();
  again.dispose();
});
