// The multi-client WebSocket world server (`limina --mcp-ws`) driven by real
// WebSocket clients: total order of intents, deltas to subscribers, AOI
// filtering, a stalled client not delaying the tick, fuzzed frames not
// killing the server, a client vanishing mid-call.
// Usage: node js/test/node/ws_world.mjs <path-to-limina>
import WebSocket from "ws";
import { readFileSync } from "node:fs";
import { checker, rawWsClient, startWsServer } from "./ws_server.mjs";

const limina = process.argv[2];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits are for events and counted in ticks, not wall time: the timeouts are only safety nets, long enough
// for a server a loaded machine leaves far behind.
const SAFETY_MS = 60_000;
/** A delta's transforms, decoded: id → [x, y, z, …] (exact float32 values; what follows the position depends on the column). */
const transforms = (p) => {
  const out = new Map();
  for (const [group, key, stride] of [[p.moved, "positions", 3], [p.turned, "transforms", 5], [p.changed, "transforms", 10]]) {
    const bytes = Buffer.from(group[key], "base64");
    const f = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    group.ids.forEach((id, i) => out.set(id, Array.from(f.subarray(i * stride, (i + 1) * stride))));
  }
  return out;
};

const { server, port } = await startWsServer(limina, ["--max-message-bytes", "65536"]);
const { check, fail, checks } = checker(server);
let serverAlive = true;
server.on("exit", () => (serverAlive = false));

class Peer {
  constructor(name) {
    this.name = name;
    this.next = 1;
    this.pending = new Map();
    this.notes = [];
    this.listeners = [];
  }
  open() {
    this.ws = new WebSocket(`ws://127.0.0.1:${port}`);
    this.ws.on("message", (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.id !== undefined && this.pending.has(msg.id)) {
        this.pending.get(msg.id)(msg);
        this.pending.delete(msg.id);
      } else {
        this.notes.push(msg);
        for (const l of this.listeners) l(msg);
      }
    });
    return new Promise((resolve, reject) => {
      this.ws.on("open", resolve);
      this.ws.on("error", reject);
    });
  }
  call(method, params = {}) {
    const id = this.next++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return new Promise((resolve) => this.pending.set(id, resolve));
  }
  async init(profile = "builder.readWrite") {
    const r = await this.call("initialize", { agentId: this.name, sessionId: `sess_${this.name}`, profile });
    if (!r.result?.session) fail(`${this.name} initialize: ${JSON.stringify(r)}`);
  }
  tool(name, args = {}) {
    return this.call("tools/call", { name, arguments: args });
  }
  waitFor(pred, ms = SAFETY_MS) {
    const hit = this.notes.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`${this.name}: timed out waiting`)), ms);
      this.listeners.push((m) => {
        if (pred(m)) {
          clearTimeout(t);
          resolve(m);
        }
      });
    });
  }
}

// Every connection is its own session with the same handshake and errors.
const a = new Peer("alice");
const b = new Peer("bob");
const c = new Peer("carol");
await Promise.all([a.open(), b.open(), c.open()]);
const early = await a.tool("skills.list");
check(early.error?.code === -32001 && early.error.message === "MCP session is not initialized", "calls before initialize are forbidden (-32001)");
await Promise.all([a.init(), b.init(), c.init("system.readonly")]);
const ro = await c.tool("scene.createEntity", {});
check(ro.error?.code === -32001 && ro.error.data?.error?.code === "forbidden", "a read-only session is refused scene.write, with the MCPResponse as error.data");

// Total order: concurrent creates from two clients get distinct ids, in one order.
const N = 25;
const created = await Promise.all(
  Array.from({ length: N }, (_, i) => [a.tool("scene.createEntity", { position: [i, 1, 0] }), b.tool("scene.createEntity", { position: [i, 1, 5] })]).flat(),
);
const ids = created.map((r) => r.result?.result?.entity);
check(ids.every((id) => /^ent_\d+$/.test(id)) && new Set(ids).size === 2 * N, "every concurrent create applied once with its own id");
const aliceIds = ids.filter((_, k) => k % 2 === 0).map((id) => Number(id.slice(4)));
check(aliceIds.every((n, k) => k === 0 || n > aliceIds[k - 1]), "each client's intents apply in the order it sent them");
const tail = await a.tool("trace.tail", { type: "scene.entity.created", limit: 1000 });
const order = tail.result.result.events.map((e) => e.payload.entity);
check(JSON.stringify(order) === JSON.stringify([...ids].sort((x, y) => Number(x.slice(4)) - Number(y.slice(4)))), "the world log holds the one total order the ids were issued in");

// Subscriptions: snapshot, then per-tick deltas with created, changed, destroyed.
await c.call("state/subscribe");
const snap = await c.waitFor((m) => m.method === "state/snapshot");
check(snap.params.entities.length === 2 * N, "the snapshot holds every entity");
const ball = (await a.tool("scene.createEntity", { shape: "sphere", position: [0, 10, 0], dynamic: true })).result.result.entity;
await c.waitFor((m) => m.method === "state/delta" && m.params.created.some((e) => e.entity === ball));
const moved = await c.waitFor((m) => m.method === "state/delta" && (transforms(m.params).get(ball)?.[1] ?? 10) < 9.9);
check(moved.params.tick > snap.params.tick, "deltas carry the falling ball's transform, tick after tick");
await a.tool("scene.destroyEntity", { entity: ids[0] });
await c.waitFor((m) => m.method === "state/delta" && m.params.destroyed.includes(ids[0]));
checks.push("destroyed entities arrive in deltas");

// AOI: bob sees only what is near (0, 1, 5).
await b.call("state/subscribe");
const aoi = await b.call("aoi/declare", { center: [0, 1, 5], radius: 2.5 });
check(aoi.result?.ok === true, "aoi/declare accepted");
const bSnap = await b.waitFor((m) => m.method === "state/snapshot" && m.params.aoi);
const seen = bSnap.params.entities.map((e) => e.entity).sort();
const expected = ids.filter((_, k) => k % 2 === 1).slice(0, 3).sort(); // bob's entities at x = 0, 1, 2 on z = 5
check(JSON.stringify(seen) === JSON.stringify(expected), `AOI snapshot holds only nearby entities (${seen})`);
const far = (await a.tool("scene.createEntity", { position: [40, 1, 40] })).result.result.entity;
const near = (await a.tool("scene.createEntity", { position: [0.5, 1, 5.5] })).result.result.entity;
const nearDelta = await b.waitFor((m) => m.method === "state/delta" && m.params.created.some((e) => e.entity === near));
check(!b.notes.some((m) => m.method === "state/delta" && m.params.created.some((e) => e.entity === far)), "AOI deltas leave out what is outside");
check(nearDelta.params.created.length === 1, "and bring in what enters");
const badAoi = await b.call("aoi/declare", { center: [0, 0], radius: 1 });
check(badAoi.error?.code === -32602, "a malformed AOI is -32602");

// A stalled client: subscribes over a raw socket and never reads again. It
// asks for more replies than the kernel can hold for it (both socket
// buffers at their largest), so some must wait in the server, and its
// deltas with them, whatever the machine's speed; the entity it creates
// last shows they are all queued.
const listBytes = JSON.stringify(await a.call("tools/list")).length;
const maxBuffer = (name) => Number(readFileSync(`/proc/sys/net/ipv4/${name}`, "utf8").trim().split(/\s+/)[2]);
const lists = Math.ceil((1.25 * (maxBuffer("tcp_wmem") + maxBuffer("tcp_rmem"))) / listBytes);
const { socket: stalled, send: stalledSend } = await rawWsClient(port);
stalledSend(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: "stalled", sessionId: "sess_stalled", profile: "builder.readWrite" } }));
stalledSend(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "state/subscribe" }));
for (let i = 0; i < lists; i++) stalledSend(JSON.stringify({ jsonrpc: "2.0", id: 10 + i, method: "tools/list" }));
stalledSend(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "scene.createEntity", arguments: { position: [-30, 1, -30] } } }));
stalled.pause();
const stalledLast = await c.waitFor((m) => m.method === "state/delta" && m.params.created.some((e) => e.transform[0] === -30)).catch(() => null);
const tick0 = stalledLast?.params.tick ?? Infinity;
const STALL_TICKS = 120;
const reached = stalledLast && (await c.waitFor((m) => m.method === "state/delta" && m.params.tick >= tick0 + STALL_TICKS).catch(() => null));
const last = c.notes.filter((m) => m.method === "state/delta").at(-1)?.params.tick;
check(reached, `with a stalled client the world keeps stepping: ${stalledLast ? `a healthy subscriber saw ${(reached?.params.tick ?? last) - tick0} of ${STALL_TICKS} ticks` : `its last call was never seen applied (last tick seen ${last})`}`);
stalled.destroy();

// Fuzzed frames: garbage, wrong types, binary, oversized; the server keeps serving.
const fuzz = new Peer("fuzz");
await fuzz.open();
const garbage = ["{", "[]", "null", "42", '{"jsonrpc":"1.0","id":1,"method":"x"}', '{"jsonrpc":"2.0","id":{},"method":"x"}', '{"jsonrpc":"2.0","id":3,"method":7}', '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}', '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"x"}'];
for (const g of garbage) fuzz.ws.send(g);
fuzz.ws.send(Buffer.from([0, 1, 2, 3]), { binary: true });
await fuzz.waitFor(() => fuzz.notes.length >= garbage.length + 1).catch(() => {});
const codes = fuzz.notes.map((m) => m.error?.code);
check(codes.filter((x) => x === -32700).length === 1 && codes.filter((x) => x === -32600).length >= 6 && codes.includes(-32602), `fuzzed frames get -32700/-32600/-32602 (${codes})`);
let seed = 7;
for (let i = 0; i < 200; i++) {
  const bytes = Buffer.alloc(1 + (i % 50), 0).map(() => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0x7f);
  fuzz.ws.send(bytes.toString("latin1"));
}
const huge = new Peer("huge");
await huge.open();
const closed = new Promise((r) => huge.ws.on("close", (code) => r(code)));
huge.ws.send("x".repeat(70_000));
check((await closed) === 1009, "a message over the size limit closes that connection with 1009");

// A client that vanishes mid-call.
const ghost = new Peer("ghost");
await ghost.open();
await ghost.init();
ghost.tool("scene.createEntity", { position: [7, 7, 7] });
ghost.ws.terminate();

const still = await a.tool("skills.list");
check(serverAlive && Array.isArray(still.result?.result?.tools), "after all that the server still serves everyone else");
// The server learns of the vanished socket when it reads its end: asked until then (the deadline is a safety net).
const ghostClosed = async () => (await c.tool("trace.tail", { type: "mcp.connection.closed", limit: 100 })).result.result.events.some((e) => e.payload.agentId === "ghost");
for (const deadline = Date.now() + SAFETY_MS; !(await ghostClosed()) && Date.now() < deadline; ) await sleep(50);
check(await ghostClosed(), "the vanished client's session ended cleanly");

for (const p of [a, b, c, fuzz]) p.ws.close();
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, checks: checks.length }));
