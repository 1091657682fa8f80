// A bounded generative fuzz run against the real server, over stdio and
// WebSocket: random JSON-RPC — well-formed and not, random methods, random
// tools with random arguments, garbage, deep nesting, lone surrogates,
// huge numbers — from a read-only session, whose calls may read or be
// refused but never change the world. Checks: the process survives, every
// request with an id gets exactly one reply carrying that id, the world's
// digest is unchanged, and the world log still exports and verifies.
// Usage: node js/test/node/fuzz.mjs <path-to-limina> [cases per transport] [seed]
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import WebSocket from "ws";
import { startWsServer } from "./ws_server.mjs";

const limina = process.argv[2];
const CASES = Number(process.argv[3] ?? 5000);
const SEED = Number(process.argv[4] ?? (Date.now() % 2 ** 31));
console.log(`fuzz: ${CASES} cases per transport, seed ${SEED} (rerun: node js/test/node/fuzz.mjs ${limina} ${CASES} ${SEED})`);

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (n) => Math.floor(rand() * n);

const TOOLS = [
  "scene.createEntity", "scene.destroyEntity", "scene.queryEntities", "ecs.updateComponent", "ecs.addComponent", "ecs.removeComponent",
  "three.setTransform", "three.setMaterial", "three.setLighting", "three.loadGLTF", "physics.applyImpulse", "physics.raycast",
  "physics.collisionEvents", "agent.emitEvent", "agent.getPerception", "skills.list", "skills.describe", "skills.search", "trace.tail",
  "trace.explainEvent", "inspector.snapshot", "dev.reload", "audit.explain", "audit.query", "audit.usage", "no.such", "", 42,
];
const METHODS = ["tools/call", "callTool", "tools/list", "listTools", "ping", "initialize", "shutdown", "state/subscribe", "aoi/declare", "nope", "", 7];
const KEYS = ["entity", "position", "value", "component", "name", "type", "payload", "radius", "near", "limit", "query", "target", "assetId", "origin", "direction", "color", "\ud800", "__proto__", "constructor"];

function value(depth = 0) {
  switch (int(depth > 3 ? 6 : 9)) {
    case 0: return pick([0, -1, 1.5, 1e39, -1e308, 2 ** 53 + 1, 3.5e38, 1e-320]);
    case 1: return pick(["", "ent_1", "ent_999", "x".repeat(int(300)), "\ud800", "\udc00x", "😀", "../../etc/passwd", "evt_x"]);
    case 2: return pick([true, false, null]);
    case 3: return [value(depth + 1), value(depth + 1), value(depth + 1)].slice(0, int(4));
    case 4: return [rand() * 10, rand() * 10, rand() * 10];
    case 5: return int(100);
    default: {
      const o = {};
      for (let i = int(4); i > 0; i--) o[pick(KEYS)] = value(depth + 1);
      return o;
    }
  }
}
const nest = (n) => (n === 0 ? {} : { a: nest(n - 1) });

/** One fuzz message: [text, id it must be answered with, or undefined for none]. */
function message(id) {
  switch (int(10)) {
    case 0: return [pick(["not json", "{", "[]", "null", '{"jsonrpc":"2.0"}', "\u0000\u0001"]), null];
    case 1: return [JSON.stringify({ jsonrpc: "2.0", method: pick(METHODS), params: value() }), undefined]; // a notification
    case 2: return [JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "agent.emitEvent", arguments: { type: "deep", payload: nest(70 + int(100)) } } }), id];
    case 3: return [JSON.stringify({ jsonrpc: pick(["1.0", 2, "2.0"]), id, method: pick(METHODS), params: value() }), id];
    default: return [JSON.stringify({ jsonrpc: "2.0", id, method: pick(["tools/call", "tools/call", "callTool", pick(METHODS)]), params: { name: pick(TOOLS), arguments: value() } }), id];
  }
}

const fail = (msg) => {
  console.error(`FAIL (seed ${SEED}): ${msg}`);
  process.exit(1);
};

/** Runs the cases through `send`, collecting replies by id; returns how many requests had ids. */
async function run(transport, send, replies) {
  let expected = 0;
  const ids = [];
  for (let i = 0; i < CASES; i++) {
    const [text, id] = message(1000 + i);
    if (typeof id === "number") {
      expected++;
      ids.push(id);
    }
    send(text);
  }
  const deadline = Date.now() + 60_000;
  while (ids.some((id) => !replies.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const id of ids) {
    const got = replies.get(id);
    if (!got) fail(`${transport}: request ${id} got no reply`);
    if (got.length !== 1) fail(`${transport}: request ${id} got ${got.length} replies`);
  }
  return expected;
}

const digestCall = (id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "inspector.snapshot", arguments: { limit: 500 } } });
const digestOf = (reply) => JSON.stringify(reply.result?.result?.entities ?? reply.error);

// stdio: the world module builds the world; the one session fuzzes it read-only.
{
  const child = spawn(limina, ["--mcp-stdio", "tests/fixtures/still_world.ts"], { stdio: ["pipe", "pipe", "ignore"] });
  const replies = new Map();
  createInterface({ input: child.stdout }).on("line", (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      fail(`stdio: a reply is not JSON: ${line.slice(0, 200)}`);
    }
    const key = msg.id;
    if (!replies.has(key)) replies.set(key, []);
    replies.get(key).push(msg);
  });
  const send = (text) => child.stdin.write(text + "\n");
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: "fuzz", sessionId: "sess_fuzz", profile: "system.readonly" } }));
  send(digestCall(2));
  const n = await run("stdio", send, replies);
  // The fuzz may have ended the session (a random `shutdown`): begin a fresh one to look.
  send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "shutdown" }));
  send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "initialize", params: { agentId: "fuzz", sessionId: "sess_look", profile: "system.readonly" } }));
  send(digestCall(3));
  while (!replies.has(3)) await new Promise((r) => setTimeout(r, 10));
  if (digestOf(replies.get(2)[0]) !== digestOf(replies.get(3)[0])) fail("stdio: the world changed under a read-only fuzz");
  child.stdin.end();
  const code = await new Promise((r) => child.on("exit", r));
  if (code !== 0) fail(`stdio: the server exited ${code}`);
  console.log(`stdio: ${CASES} cases, ${n} requests with ids, each answered exactly once; world unchanged; exit 0`);
}

// WebSocket: the same against the multi-client server, then an export that verifies.
{
  const { server, port } = await startWsServer(limina, ["tests/fixtures/still_world.ts"], "ignore");
  let alive = true;
  server.on("exit", () => (alive = false));
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("error", reject);
  });
  const replies = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.method) return; // notifications (state sync)
    if (!replies.has(msg.id)) replies.set(msg.id, []);
    replies.get(msg.id).push(msg);
  });
  const send = (text) => ws.send(text);
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: "fuzz", sessionId: "sess_fuzz", profile: "system.readonly" } }));
  send(digestCall(2));
  const n = await run("ws", send, replies);
  send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "shutdown" }));
  send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "initialize", params: { agentId: "fuzz", sessionId: "sess_look", profile: "system.readonly" } }));
  send(digestCall(3));
  const name = `fuzz-${SEED}-${Date.now()}`;
  send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "trace.export", arguments: { name } } }));
  while (!replies.has(4)) await new Promise((r) => setTimeout(r, 10));
  if (!alive) fail("ws: the server died");
  if (digestOf(replies.get(2)[0]) !== digestOf(replies.get(3)[0])) fail("ws: the world changed under a read-only fuzz");
  const exported = replies.get(4)[0].result?.result;
  if (!exported) fail(`ws: trace.export failed: ${JSON.stringify(replies.get(4)[0])}`);
  ws.close();
  server.kill("SIGTERM");
  const verify = spawnSync(limina, ["trace", "verify", `traces/${exported.name}`], { encoding: "utf8" });
  spawnSync("rm", ["-f", `traces/${exported.name}`]);
  if (verify.status !== 0) fail(`ws: the exported world log does not verify: ${verify.stdout}${verify.stderr}`);
  console.log(`ws: ${CASES} cases, ${n} requests with ids, each answered exactly once; world unchanged; the world log exports and verifies`);
}
console.log("ok: fuzz");
