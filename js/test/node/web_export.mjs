// The static player `limina export-web` wrote, in headless Chromium, served
// by a plain static file server (this script's own, no Limina in it): the
// good folder verifies its log, plays (ticks advance), pauses (ticks stop),
// seeks — forward and back — to the transforms and the humanoid's animation
// state the native replay of the trace gives for that tick (expected.json,
// made by js/test/web_export.ts), drawing the humanoid skinned and posed;
// the folders whose log had one byte changed or one line removed are
// refused with the reason shown and nothing drawn.
// Usage: node js/test/node/web_export.mjs <path-to-limina> <dir with good/ byte/ line/> <expected.json>
import { readFileSync, statSync } from "node:fs";
import http from "node:http";
import { extname, join, normalize } from "node:path";
import { launchChromium } from "./browser.mjs";

const [, , , root, expectedPath] = process.argv;
const expected = JSON.parse(readFileSync(expectedPath, "utf8"));

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json", ".jsonl": "text/plain", ".exr": "application/octet-stream" };
/** Paths the browser asked for that the folder does not have. */
const missing = new Set();
const files = http.createServer((req, res) => {
  const path = normalize(join(root, decodeURIComponent(new URL(req.url, "http://x").pathname)));
  if (!path.startsWith(root) || !statSync(path, { throwIfNoEntry: false })?.isFile()) {
    missing.add(new URL(req.url, "http://x").pathname.replace(/^\/\w+\//, "/"));
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
});
await new Promise((resolve) => files.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${files.address().port}`;

const checks = [];
const browser = await launchChromium({ width: 480, height: 320 });
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};
const check = (cond, msg) => {
  if (!cond) fail(msg);
  checks.push(msg);
};

// ---- the good folder: verify, play, pause, seek ----------------------------------
const page = await browser.open(`${base}/good/index.html`);
const player = (field) => `limina.player && limina.player.state().${field}`;
await page.waitFor(`${player("status")} !== "verifying" && ${player("status")}`, "the player's verdict");
const ready = await page.evaluate("limina.player.state()");
check(ready.status === "ready", `the intact log is verified: ${JSON.stringify(ready)}`);
check(/sha256 chain intact/.test(await page.evaluate(`document.getElementById("player-status").textContent`)), "the page says the chain is intact");
check(await page.evaluate(`!document.getElementById("player").hidden`), "the play/pause, seek and speed controls are shown");
await page.waitFor(`limina.state().frames > 0 && limina.state().objects > 0`, "the first drawn frame");
const t0 = await page.evaluate(`limina.state().tick`);
const moving = await page.waitFor(`limina.state().tick >= ${t0 + 10} && limina.state().tick`, "ticks advancing while playing");
check(moving > t0 && (await page.evaluate(`limina.player.state().playing`)), `playing advances ticks (${t0} → ${moving})`);

// Pause with the button: the tick stays put over the next 30 animation frames.
await page.evaluate(`document.getElementById("play").click()`);
const paused = await page.evaluate(`limina.player.state()`);
check(paused.playing === false && (await page.evaluate(`document.getElementById("play").textContent`)) === "Play", "the button pauses");
const stayed = await page.evaluate(`new Promise((resolve) => { let n = 0; const t = limina.state().tick; const f = () => (++n < 30 ? requestAnimationFrame(f) : resolve(limina.state().tick === t)); requestAnimationFrame(f); })`);
check(stayed && (await page.evaluate(`limina.state().tick`)) === paused.tick, `paused, the tick stays at ${paused.tick} across 30 frames`);

// Speed: the menu sets it.
await page.evaluate(`(() => { const s = document.getElementById("speed"); s.value = "4"; s.dispatchEvent(new Event("change")); })()`);
check((await page.evaluate(`limina.player.state().speed`)) === 4, "the speed menu sets 4×");

// Seek with the bar to each tick, forward and then back: the entities and transforms the native replay gives there.
let lastPose = null;
for (const { tick, rows, animations } of expected) {
  await page.evaluate(`(() => { const s = document.getElementById("seek"); s.value = "${tick}"; s.dispatchEvent(new Event("input")); })()`);
  const shown = await page.evaluate(`({ tick: limina.state().tick, hud: document.getElementById("hud-tick").textContent, ids: [...Object.keys(${JSON.stringify(rows)})].map((id) => [id, limina.entity(id) && limina.entity(id).transform]), entities: limina.state().entities, objects: limina.state().objects })`);
  check(shown.tick === tick && shown.hud === String(tick), `seeking shows tick ${tick} (${shown.tick}, HUD ${shown.hud})`);
  check(shown.entities === Object.keys(rows).length && shown.objects === shown.entities, `tick ${tick}: the replay's ${Object.keys(rows).length} entities, each drawn (${shown.entities}, ${shown.objects} objects)`);
  for (const [id, transform] of shown.ids) {
    check(JSON.stringify(transform) === JSON.stringify(rows[id]), `tick ${tick}: ${id} at the replayed transform ${JSON.stringify(rows[id])} (shown ${JSON.stringify(transform)})`);
  }
  for (const [id, animation] of Object.entries(animations)) {
    const drawn = await page.evaluate(`({ animation: limina.entity(${JSON.stringify(id)}).animation, pose: limina.pose(${JSON.stringify(id)}) })`);
    check(JSON.stringify(drawn.animation) === JSON.stringify(animation), `tick ${tick}: the humanoid ${id} has the replayed animation state (${animation.state})`);
    check(drawn.pose && drawn.pose.skinned >= 1 && drawn.pose.bones.length > 10, `tick ${tick}: ${id} is drawn as the skinned humanoid`);
    if (lastPose) check(JSON.stringify(drawn.pose.bones) !== JSON.stringify(lastPose), `tick ${tick}: its pose differs from the previous tick seeked (the rig follows the animation)`);
    lastPose = drawn.pose.bones;
  }
}
const bakes = await page.evaluate(`limina.state().bakes`);
check(bakes === 1, `the player baked its environment once: a seek restores the world's look, the same sky, which keeps its map (${bakes} bake steps)`);
// Chromium asks for /favicon.ico on its own; the folder has none.
check([...missing].every((p) => p === "/favicon.ico"), `the page loads nothing the folder lacks: ${[...missing]}`);
const errors = page.console.filter((l) => /^(error|exception)/.test(l) && !(/status of 404/.test(l) && missing.size > 0));
check(errors.length === 0, `no error or exception in the page: ${errors.join("\n")}`);
const { rgba } = await page.screenshot();
let lit = 0;
for (let i = 0; i < rgba.length; i += 4) if (rgba[i + 2] > rgba[i] + 60) lit++;
check(lit > 50, `the screenshot shows the blue spheres (${lit} bluish pixels)`);

// ---- tampered logs: refused, said so, nothing played -----------------------------
for (const [name, reason] of [["byte", "hash_mismatch"], ["line", "previous_hash_mismatch"]]) {
  const bad = await browser.open(`${base}/${name}/index.html`);
  await bad.waitFor(`${player("status")} !== "verifying" && ${player("status")}`, `the verdict on ${name}`);
  const state = await bad.evaluate(`({ player: limina.player.state(), page: limina.state(), text: document.getElementById("player-status").textContent, shown: document.getElementById("player-status").offsetHeight > 0, controls: !document.getElementById("player").hidden, hud: document.getElementById("hud-status").textContent })`);
  check(state.player.status === "refused" && !state.player.playing, `the log with one ${name === "byte" ? "byte changed" : "line removed"} is refused: ${JSON.stringify(state.player)}`);
  check(state.shown && state.text.includes("sha256 chain is broken") && state.text.includes(reason) && state.text.includes("Nothing is played"), `the page says why, visibly: ${state.text}`);
  check(state.page.tick === -1 && state.page.entities === 0 && state.page.objects === 0 && state.page.frames === 0 && !state.controls, `nothing was played or drawn (${JSON.stringify(state.page)}, controls ${state.controls})`);
  check(/refused/.test(state.hud), `the HUD says refused: ${state.hud}`);
}

await browser.close();
files.close();
console.log(JSON.stringify({ ok: true, checks: checks.length, passed: checks }));
