// Spectators beyond one machine: a world server publishes its state stream
// to a real nats-server (`--spectator-sink nats://…`), `limina relay`
// serves the same page and fans the stream out: a WebSocket spectator of the
// relay gets the world's entities and follows its changes, the relay refuses
// anything but watching, and the page in headless Chromium draws the world
// through the relay.
// Usage: node js/test/node/web_relay.mjs <path-to-limina>
import { spawn } from "node:child_process";
import WebSocket from "ws";
import { launchChromium } from "./browser.mjs";
import { startNats } from "./nats_server.mjs";
import { checker, startWsServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];
const { port: natsPort } = await startNats();
const sink = `nats://127.0.0.1:${natsPort}/limina.spectate.test${process.pid}`;
const { server, port } = await startWsServer(limina, ["--spectator-sink", sink], "ignore");
const { check, fail, checks } = checker(server);

/** Starts `limina relay`; resolves to its port. */
async function startRelay() {
  const relay = spawn(limina, ["relay", sink, "--port", "0"], { stdio: ["ignore", "ignore", "pipe"] });
  process.on("exit", () => relay.kill("SIGKILL"));
  const relayPort = await new Promise((resolve, reject) => {
    let err = "";
    relay.stderr.on("data", (d) => {
      err += d;
      const m = /serving spectators of \S+ on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    relay.on("exit", (code) => reject(new Error(`relay exited ${code}: ${err}`)));
  });
  return { relay, relayPort };
}

const builder = await wsPeer(port);
const init = await builder.call("initialize", { agentId: "builder", sessionId: "b", profile: "builder.readWrite" });
if (!init.result?.session) fail(`builder initialize: ${JSON.stringify(init)}`);
const make = async (args) => (await builder.call("tools/call", { name: "scene.createEntity", arguments: args })).result.result.entity;
await make({ shape: "box", size: 30, color: 0x808080, position: [0, -15, 0], static: true });
const red = await make({ shape: "box", size: 2, color: 0xff0000, position: [0, 1, 0] });
await make({ shape: "sphere", size: 1.5, color: 0x0000ff, position: [-3, 0.75, 3] });

const { relay, relayPort } = await startRelay();
check(relayPort > 0, `limina relay serves on ${relayPort}`);

// ---- a spectator of the relay ---------------------------------------------------------
const ws = new WebSocket(`ws://127.0.0.1:${relayPort}/`);
const notes = [];
const waiters = [];
const pending = new Map();
ws.on("message", (d) => {
  const m = JSON.parse(d.toString());
  if (m.id !== undefined) {
    pending.get(m.id)?.(m);
    pending.delete(m.id);
    return;
  }
  notes.push(m);
  for (const w of [...waiters]) w();
});
await new Promise((resolve, reject) => {
  ws.on("open", resolve);
  ws.on("error", reject);
});
let next = 1;
const call = (method, params = {}) => {
  const id = next++;
  ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  return new Promise((resolve) => pending.set(id, resolve));
};
/** Resolves to the first notification `pred` accepts (a failure bound only: the relay waits for the world's next snapshot). */
const waitNote = (pred, what, ms = 60_000) =>
  new Promise((resolve) => {
    const look = () => {
      const hit = notes.find(pred);
      if (!hit) return false;
      waiters.splice(waiters.indexOf(look), 1);
      clearTimeout(timer);
      resolve(hit);
      return true;
    };
    const timer = setTimeout(() => fail(`timed out waiting for ${what}`), ms);
    waiters.push(look);
    look();
  });

const asBuilder = await call("initialize", { agentId: "x", sessionId: "x", profile: "builder.readWrite" });
check(asBuilder.error && /spectators only/.test(asBuilder.error.message), `the relay refuses a builder profile: ${asBuilder.error?.message}`);
const asSpectator = await call("initialize", { agentId: "watcher", sessionId: "w", profile: "spectator" });
check(asSpectator.result?.session?.profile === "spectator", "the relay takes a spectator");
const write = await call("tools/call", { name: "scene.createEntity", arguments: {} });
check(write.error?.code === -32601, `the relay has no tool to call: ${write.error?.message}`);
await call("state/subscribe");
const snapshot = await waitNote((m) => m.method === "state/snapshot", "the relay's snapshot");
check(snapshot.params.entities.length === 3, `the relay's snapshot holds the world's 3 entities (${snapshot.params.entities.length})`);
const redEntry = snapshot.params.entities.find((e) => e.entity === red);
check(redEntry?.look?.shape === "box" && redEntry.look.color === 0xff0000, `each entity comes with its look: ${JSON.stringify(redEntry?.look)}`);
check(snapshot.params.world?.view && snapshot.params.world?.lighting, "the snapshot carries the world's view and lighting");

await builder.call("tools/call", { name: "ecs.updateComponent", arguments: { entity: red, component: "position", value: [5, 1, 5] } });
const moved = await waitNote((m) => m.method === "state/delta" && m.params.moved.ids.includes(red), "the move through the relay");
const bytes = Buffer.from(moved.params.moved.positions, "base64");
const f = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
const i = moved.params.moved.ids.indexOf(red);
check(f[i * 3] === 5 && f[i * 3 + 2] === 5, "the world's delta reaches the relay's spectator with the exact position");
const made = await make({ shape: "sphere", size: 1, color: 0x00ff00, position: [2, 0.5, 4] });
await waitNote((m) => m.method === "state/delta" && m.params.created.some((c) => c.entity === made), "a created entity through the relay");
check(true, "an entity created on the world server reaches the relay's spectator");

// ---- the page, served by the relay, in Chromium ------------------------------------------
const config = await (await fetch(`http://127.0.0.1:${relayPort}/config.json`)).json();
check(config.server === "relay" && config.wsPort === relayPort && config.token === false, `the relay's config.json: ${JSON.stringify(config)}`);
const browser = await launchChromium({ width: 320, height: 240 });
const page = await browser.open(`http://127.0.0.1:${relayPort}/`);
const state = "globalThis.limina?.state()";
const seen = await page.waitFor(`(() => { const s = ${state}; return s && s.status === "watching (relay)" && s.entities === 4 && s.objects === 4 && s.frames > 0 ? s : null })()`, "the page to draw the world through the relay");
check(seen.entities === 4, "the page behind the relay shows the world's 4 entities");
await builder.call("tools/call", { name: "scene.destroyEntity", arguments: { entity: made } });
await page.waitFor(`${state}.entities === 3 && ${state}.objects === 3`, "a destroyed entity to go through the relay");
check(true, "the page behind the relay follows the world live");
const bakes = await page.evaluate(`${state}.bakes`);
check(bakes === 1, `the page baked its environment once, for the world's look (${bakes} bake steps)`);
const bad = page.console.filter((l) => /Content Security Policy|exception|Uncaught/i.test(l));
check(bad.length === 0, `no CSP violation or uncaught exception in the page (${bad.join(" | ")})`);

await browser.close();
ws.close();
builder.ws.close();
relay.kill("SIGTERM");
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, checks: checks.length }));
process.exit(0);
