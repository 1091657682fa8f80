// Joining from the spectator page in headless Chromium: with the server's
// token (typed into the page, never in a URL) a person takes an avatar — a
// humanoid character the page draws skinned and poses from the streamed
// animation state — walks it with WASD and speaks, through avatar.take,
// character.move and social.say under the social.actor profile, traced like
// any agent's calls.
// A wrong token is refused and the page goes back to watching.
// Usage: node js/test/node/web_join.mjs <path-to-limina>
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { launchChromium } from "./browser.mjs";
import { checker, startWsServer } from "./ws_server.mjs";

const limina = process.argv[2];
const TOKEN = "join-test-token-0123456789";
// The world: a floor to stand on (people act as social actors: --profile social.actor is the server's ceiling).
const dir = mkdtempSync(join(tmpdir(), "limina-web-join-"));
const world = join(dir, "floor.ts");
writeFileSync(world, `export default (session) => { session.entities.create({ shape: "box", size: 30, color: 0x707070, position: [0, -15, 0], dynamic: false, static: true, friction: 0.5, restitution: 0 }); };\n`);
const { server, port } = await startWsServer(limina, ["--token", TOKEN, "--profile", "social.actor", world], "ignore");
const { check, fail, checks } = checker(server);
const base = `http://127.0.0.1:${port}`;

// An observer with the token (no Origin: not a browser), reading what the world records.
const observer = new WebSocket(`ws://127.0.0.1:${port}/`, { headers: { Authorization: `Bearer ${TOKEN}` } });
await new Promise((resolve, reject) => {
  observer.on("open", resolve);
  observer.on("error", reject);
});
let next = 1;
const pending = new Map();
observer.on("message", (d) => {
  const m = JSON.parse(d.toString());
  pending.get(m.id)?.(m);
  pending.delete(m.id);
});
const call = (method, params = {}) => {
  const id = next++;
  observer.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  return new Promise((resolve) => pending.set(id, resolve));
};
const tool = async (name, args) => {
  const r = await call("tools/call", { name, arguments: args });
  if (!r.result) fail(`${name}: ${JSON.stringify(r.error)}`);
  return r.result.result;
};
const init = await call("initialize", { agentId: "observer", sessionId: "obs", profile: "social.actor" });
if (!init.result?.session) fail(`observer initialize: ${JSON.stringify(init)}`);
const avatars = async () => (await tool("scene.queryEntities", { tag: "avatar" })).entities;

const browser = await launchChromium({ width: 320, height: 240 });
const page = await browser.open(`${base}/`);
const state = "globalThis.limina?.state()";
await page.waitFor(`${state}?.status.startsWith("watching") && ${state}.frames > 0`, "the page to watch");
check(await page.evaluate(`!document.getElementById("join").hidden`), "a server with a token offers Join");

/** Types `token` into the page's form and submits it, as a person would. */
const join_ = (token, name) =>
  page.evaluate(`(() => {
    document.getElementById("join").click();
    document.getElementById("join-name").value = ${JSON.stringify(name)};
    document.getElementById("join-token").value = ${JSON.stringify(token)};
    document.getElementById("join-form").requestSubmit();
    return true;
  })()`);

// ---- a wrong token: refused, back to watching ----------------------------------------
await join_("not-the-token-at-all-000", "mallory");
const refusal = await page.waitFor(`(() => { const t = document.getElementById("join-status").textContent; return t.startsWith("could not join") && t })()`, "the wrong token's refusal");
check(/no token|spectator/.test(refusal), `a wrong token is refused: ${refusal}`);
await page.waitFor(`${state}.status.startsWith("watching") && !document.getElementById("join").hidden`, "the page to watch again");
check((await avatars()).length === 0, "the refused join left no avatar");

// ---- the right token: an avatar, walked and speaking -------------------------------------
await join_(TOKEN, "ada");
const avatar = await page.waitFor(`${state}.status.startsWith("joined") && ${state}.avatar`, "the avatar");
check(typeof avatar === "string", `the person took avatar ${avatar}`);
const list = await avatars();
check(list.length === 1 && list[0].entity === avatar, "the server holds that one avatar");
check(await page.evaluate(`location.href === ${JSON.stringify(`${base}/`)} && document.getElementById("join-token").value === ""`), "the token is in no URL and left the form");
const id = JSON.stringify(avatar);
check((await avatars())[0].tags.includes("character"), "the avatar is a character (a humanoid with a controller and an animator)");
const standing = await page.waitFor(`(() => { const p = limina.pose(${id}); return p && p.bones.length > 10 && limina.entity(${id}).animation && p })()`, "the page to draw the humanoid");
check(standing.skinned >= 1, `the page draws the avatar as the engine's skinned humanoid (${standing.skinned} skinned meshes, ${standing.bones.length} bones)`);
const start = await page.evaluate(`limina.entity(${id}).transform.slice(0, 3)`);
await page.evaluate(`document.activeElement?.blur(), true`);
await page.send("Input.dispatchKeyEvent", { type: "keyDown", code: "KeyW", key: "w", windowsVirtualKeyCode: 87 });
await page.waitFor(`(() => { const p = limina.entity(${id}).transform; return Math.hypot(p[0] - ${start[0]}, p[2] - ${start[2]}) > 0.5 })()`, "the avatar to walk");
const walking = await page.waitFor(`(() => { const a = limina.entity(${id}).animation; return a.state === "locomotion" && a })()`, "the walk to show in the streamed animation state");
const stride = await page.evaluate(`limina.pose(${id})`);
const bent = stride.bones.filter((q, i) => q.some((v, k) => Math.abs(v - standing.bones[i][k]) > 0.02)).length;
check(walking.speed > 0.5 && bent >= 4, `walking, the streamed animation is locomotion at ${walking.speed.toFixed(2)} m/s and the page's rig strides (${bent} bones turned from standing)`);
await page.send("Input.dispatchKeyEvent", { type: "keyUp", code: "KeyW", key: "w", windowsVirtualKeyCode: 87 });
await page.waitFor(`limina.entity(${id}).animation.state === "idle"`, "the avatar to stop when W is released");
check(true, "W walks the avatar (character.move), the page sees it move, and letting go stops it");
await page.evaluate(`(() => { document.getElementById("say-text").value = "hello from the browser"; document.getElementById("say").requestSubmit(); return true })()`);

// What the world recorded: the page's calls are skills like any agent's, under its own agent id.
const agentId = await page.evaluate(`sessionStorage.getItem("limina.agent")`);
const said = async () => (await tool("trace.tail", { limit: 200 })).events;
let events = [];
for (let i = 0; i < 600; i++) {
  events = await said();
  if (events.some((e) => e.type === "social.said")) break;
  await new Promise((r) => setTimeout(r, 100));
}
const line = events.find((e) => e.type === "social.said");
check(line && JSON.stringify(line.payload).includes("hello from the browser") && JSON.stringify(line).includes(agentId), `social.said is traced for the page's agent ${agentId}: ${JSON.stringify(line)}`);
check(events.some((e) => e.type === "avatar.taken"), "avatar.taken is traced");
const moves = events.filter((e) => e.type === "skill.executed" && e.payload.skill === "character.move" && e.actorId === agentId);
check(moves.length >= 2 && moves.some((e) => e.payload.input.speed > 0) && moves.at(-1).payload.input.speed === 0, `the walk and the stop are traced under the page's agent (character.move ×${moves.length})`);

const bakes = await page.evaluate(`${state}.bakes`);
check(bakes === 1, `the page baked its environment once: joining reconnects to the same sky, which keeps its map (${bakes} bake steps)`);
const bad = page.console.filter((l) => /Content Security Policy|exception|Uncaught/i.test(l));
check(bad.length === 0, `no CSP violation or uncaught exception in the page (${bad.join(" | ")})`);
await browser.close();
observer.close();
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, checks: checks.length }));
process.exit(0);
