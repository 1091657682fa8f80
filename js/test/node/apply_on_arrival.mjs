// Apply on arrival over WebSocket, against `limina --mcp-ws` serving
// tests/fixtures/arrival_world.ts: two clients' interleaved calls take one
// total order, and a call's reply precedes the delta of the step after it,
// which is the first to show its effect.
// Usage: node js/test/node/apply_on_arrival.mjs <path-to-limina>
import WebSocket from "ws";
import { checker, startWsServer } from "./ws_server.mjs";

const limina = process.argv[2];
const seqOf = (eventId) => Number(/_(\d{12})_/.exec(eventId)[1]);
/** A delta's positions by entity id (moved and changed entities alike). */
const positions = (p) => {
  const out = new Map();
  for (const [group, key, stride] of [[p.moved, "positions", 3], [p.turned, "transforms", 5], [p.changed, "transforms", 10]]) {
    const bytes = Buffer.from(group[key], "base64");
    const f = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    group.ids.forEach((id, i) => out.set(id, [f[i * stride], f[i * stride + 1], f[i * stride + 2]]));
  }
  return out;
};

const { server, port } = await startWsServer(limina, ["tests/fixtures/arrival_world.ts"]);
const { check, fail, checks } = checker(server);

class Peer {
  constructor(name) {
    this.name = name;
    this.next = 1;
    this.pending = new Map();
    /** Every message in arrival order. */
    this.log = [];
  }
  async open() {
    this.ws = new WebSocket(`ws://127.0.0.1:${port}`);
    this.ws.on("message", (data) => {
      const msg = JSON.parse(data.toString());
      this.log.push(msg);
      if (msg.id !== undefined && this.pending.has(msg.id)) {
        this.pending.get(msg.id)(msg);
        this.pending.delete(msg.id);
      }
    });
    await new Promise((resolve, reject) => {
      this.ws.on("open", resolve);
      this.ws.on("error", reject);
    });
    const r = await this.call("initialize", { agentId: this.name, sessionId: `sess_${this.name}`, profile: "builder.readWrite" });
    if (!r.result?.session) fail(`${this.name} initialize: ${JSON.stringify(r)}`);
  }
  call(method, params = {}) {
    const id = this.next++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return new Promise((resolve) => this.pending.set(id, resolve));
  }
  async tool(name, args = {}) {
    const r = await this.call("tools/call", { name, arguments: args });
    if (!r.result?.success) fail(`${this.name} ${name}: ${JSON.stringify(r)}`);
    return r.result;
  }
}

const a = new Peer("alice");
const b = new Peer("bob");
await Promise.all([a.open(), b.open()]);
const { entity } = (await a.tool("scene.createEntity", { position: [100, 0, 0] })).result;
const move = (p, x) => p.tool("ecs.updateComponent", { entity, component: "position", value: [x, 0, 0] });

// Two clients interleaving pipelined writes to one entity: one total order.
const N = 50;
const sent = [];
for (let i = 0; i < N; i++) {
  sent.push(move(a, 1000 + i).then((r) => ({ who: "a", x: 1000 + i, seq: seqOf(r.metadata.eventIds.at(-1)) })));
  sent.push(move(b, 2000 + i).then((r) => ({ who: "b", x: 2000 + i, seq: seqOf(r.metadata.eventIds.at(-1)) })));
}
const applied = await Promise.all(sent);
const order = [...applied].sort((p, q) => p.seq - q.seq);
check(new Set(order.map((o) => o.seq)).size === 2 * N, "every write has its own place in the world log");
for (const who of ["a", "b"]) {
  const xs = order.filter((o) => o.who === who).map((o) => o.x);
  check(xs.every((x, k) => k === 0 || x > xs[k - 1]), `client ${who}'s writes apply in the order it sent them`);
}
const found = (await b.tool("scene.queryEntities", { near: [0, 0, 0], radius: 5000 })).result.entities.find((e) => e.entity === entity);
check(found.position[0] === order.at(-1).x, `the world holds the write that is last in the one order (${found.position[0]})`);

// A call that arrives between two steps is applied before the next one: its
// reply comes first, and the very next delta is the first to carry it.
await a.call("state/subscribe");
const deltas = () => a.log.filter((m) => m.method === "state/delta");
while (deltas().length < 3) await new Promise((r) => setTimeout(r, 5));
for (let round = 0; round < 5; round++) {
  const x = 5000 + round;
  const before = deltas().length;
  const reply = await a.call("tools/call", { name: "ecs.updateComponent", arguments: { entity, component: "position", value: [x, 0, 0] } });
  check(reply.result?.success, "the mid-frame write is applied");
  const replyAt = a.log.indexOf(reply);
  const lastBefore = a.log.slice(0, replyAt).filter((m) => m.method === "state/delta").at(-1);
  check(!a.log.slice(0, replyAt).some((m) => m.method === "state/delta" && positions(m.params).get(entity)?.[0] === x), "no delta before the reply shows the write");
  while (deltas().length <= before || !a.log.slice(replyAt).some((m) => m.method === "state/delta")) await new Promise((r) => setTimeout(r, 2));
  const next = a.log.slice(replyAt).find((m) => m.method === "state/delta");
  check(positions(next.params).get(entity)?.[0] === x, "the first delta after the reply carries the write");
  check(next.params.tick === lastBefore.params.tick + 1, `and it is the very next step's (${lastBefore.params.tick} → ${next.params.tick})`);
}

for (const p of [a, b]) p.ws.close();
server.kill("SIGTERM");
console.log(`ok: ${checks.length} checks`);
