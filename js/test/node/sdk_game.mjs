// The official TypeScript MCP SDK against a fresh `limina --mcp-stdio`:
// tools/list has the gameplay families' skills, skills.search finds them by
// what they do, and a short game is built and played through them — at
// least one working skill of every family, each checked by its effect.
// Usage: node js/test/node/sdk_game.mjs <limina>   (prints one JSON line)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { allTools } from "./sdk_tools.mjs";

const [limina] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};
const FAMILIES = ["interaction", "item", "inventory", "trigger", "event", "game", "quest", "stats", "damage", "status", "combat", "ability", "dialogue", "npc", "save", "checkpoint", "progression", "vfx"];
const WORLD_TIME_WEATHER = ["world.setTime", "world.setWeather", "world.setTimeScale"];

const transport = new StdioClientTransport({ command: limina, args: ["--mcp-stdio", "--profile", "builder.readWrite"], env: { ...process.env, LIMINA_AUDIO: "null" }, stderr: "inherit" });
// A standard client is named by its clientInfo: this agent plays the hero it builds.
const AGENT = "sdk-game";
const client = new Client({ name: AGENT, version: "1.0.0" });
await client.connect(transport);
const { tools } = await allTools(client);
const names = tools.map((t) => t.name);
const listed = Object.fromEntries(FAMILIES.map((f) => [f, names.filter((n) => n.startsWith(`${f}.`)).length]));
for (const [f, n] of Object.entries(listed)) if (n === 0) fail(`tools/list has no ${f}.* skill`);
for (const name of WORLD_TIME_WEATHER) if (!names.includes(name)) fail(`tools/list has no ${name}`);

const used = new Set();
async function call(name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) fail(`${name}: ${JSON.stringify(r.content)}`);
  used.add(name.split(".")[0]);
  return r.structuredContent;
}

const search = {};
for (const [query, want] of [["pick up an item", "interaction.pickup"], ["accept a quest", "quest.accept"], ["melee attack", "combat.melee"], ["save the world to a file", "save.export"], ["start a conversation with an npc", "dialogue.start"], ["give an item to another player", "inventory.transfer"]]) {
  const { results } = await call("skills.search", { query, limit: 5 });
  search[query] = results.map((r) => r.name);
  if (!search[query].includes(want)) fail(`skills.search "${query}" → ${search[query]}, not ${want}`);
}

const hero = (await call("scene.createEntity", { position: [0, 0.5, 0] })).entity;
const keeper = (await call("scene.createEntity", { position: [1.5, 0.5, 0] })).entity;
await call("game.addPlayer", { agentId: AGENT, entity: hero });
await call("item.define", { id: "gem", name: "Gem" });
const gem = (await call("item.spawn", { item: "gem", position: [0.8, 0.5, 0.6] })).entity;
if ((await call("interaction.pickup", { target: gem })).total !== 1) fail("interaction.pickup");
if ((await call("inventory.count", { entity: hero, item: "gem" })).count !== 1) fail("inventory.count");
await call("trigger.create", { trigger: "zone", shape: "sphere", position: [0, 0.5, 0], radius: 3 });
await call("event.listen", { id: "l", on: "bell", effects: [{ addCounter: "bells" }] });
await call("event.emit", { type: "bell" });
if ((await call("game.getCounter", { counter: "bells" })).value !== 1) fail("event.emit → listener");
await call("quest.define", { id: "q", title: "Q", objectives: [{ id: "o", text: "have a gem", when: { has: "gem" } }], rewards: [{ xp: 150 }] });
await call("stats.define", { entity: hero, stat: "health", max: 50 });
await call("status.define", { id: "burn", name: "Burn" });
await call("status.apply", { entity: hero, status: "burn" });
if ((await call("damage.apply", { target: hero, amount: 5 })).health !== 45) fail("damage.apply");
await call("combat.configure", { entity: hero, melee: { damage: 3 } });
await call("ability.define", { id: "mend", name: "Mend", effects: [{ heal: 5 }] });
await call("ability.grant", { entity: hero, ability: "mend" });
await call("ability.use", { ability: "mend" });
if ((await call("stats.get", { entity: hero, stat: "health" })).stats[0].value !== 50) fail("ability.use healed");
await call("dialogue.define", { id: "d", start: "a", nodes: { a: { text: "Take this quest.", choices: [{ id: "yes", text: "Yes", effects: [{ offerQuest: "q" }] }] } } });
await call("npc.define", { entity: keeper, name: "Keeper", dialogue: "d" });
await call("dialogue.start", { npc: keeper });
await call("dialogue.choose", { choice: "yes" });
if ((await call("quest.accept", { quest: "q" })).status !== "active") fail("quest.accept");
if ((await call("quest.get", { quest: "q", entity: hero })).status !== "completed") fail("the quest completed (the hero holds a gem)");
if ((await call("progression.get", { entity: hero })).level !== 2) fail("the quest's xp reward levelled the hero up");
const cp = await call("checkpoint.create", { name: "c" });
await call("game.setFlag", { flag: "after" });
if ((await call("checkpoint.load", { name: "c" })).digest !== cp.digest) fail("checkpoint.load digest");
const saved = await call("save.export", { name: "sdk-game" });
if ((await call("save.import", { name: "sdk-game" })).digest !== saved.digest) fail("save.import digest");
await call("save.delete", { name: "sdk-game" });
const fire = await call("vfx.spawn", { preset: "fire", position: [2, 0, 2] });
if (!(await call("vfx.list")).emitters.some((e) => e.id === fire.id)) fail("vfx.spawn → vfx.list");
await call("vfx.stop", { id: fire.id });
if ((await call("vfx.list")).emitters.some((e) => e.id === fire.id)) fail("vfx.stop");
const noon = await call("world.setTime", { hour: 12 });
if (noon.hour !== 12 || !(noon.sun.elevation > 45)) fail(`world.setTime: ${JSON.stringify(noon)}`);
if ((await call("world.setTimeScale", { scale: 60 })).scale !== 60) fail("world.setTimeScale");
const rain = await call("world.setWeather", { kind: "rain" });
if (rain.precipitation !== "rain" || (await call("world.getWeather")).kind !== "rain") fail(`world.setWeather: ${JSON.stringify(rain)}`);
for (const f of FAMILIES) if (!used.has(f)) fail(`no ${f}.* skill was called`);
await client.close();
console.log(JSON.stringify({ ok: true, tools: names.length, listed, search }));
