// The JSON state stream's full-view deltas, whose transform columns are
// built off the loop (limina-mcp's encoder thread), against the deltas the
// loop builds whole for a client with an area of interest that covers the
// whole world: the same text, byte for byte, tick after tick, through
// moves, turns, tilts and scales, creation, restyling and destruction. And
// a full-view delta keeps its place among the connection's replies; replies
// (written by the loop thread while the socket takes them, by the writer
// once it does not) reach a reader that stopped reading whole and in order.
// Every wait is for an event, never for time.
// Usage: node js/test/node/ws_json.mjs <path-to-limina>
import { checker, loopbackQueues, rawWsClient, startWsServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];
const { server, port } = await startWsServer(limina, ["js/bench/worlds/moving.ts", "--entities=40"]);
const { check, checks } = checker(server);

/** A client that keeps each `state/delta` as the text it came in, by tick. */
async function peer(name, profile = "system.readonly") {
  const listeners = new Set();
  const { ws, call } = await wsPeer(port, (msg) => {
    for (const l of [...listeners]) l(msg);
  });
  const deltas = new Map();
  ws.on("message", (data, binary) => {
    const text = data.toString();
    if (!binary && text.startsWith('{"jsonrpc":"2.0","method":"state/delta"')) deltas.set(JSON.parse(text).params.tick, text);
  });
  const r = await call("initialize", { agentId: name, sessionId: `sess_${name}`, profile });
  if (!r.result?.session) throw new Error(`${name} initialize: ${JSON.stringify(r)}`);
  const tool = async (tool, args = {}) => {
    const r = await call("tools/call", { name: tool, arguments: args });
    if (!r.result?.result) throw new Error(`${tool}: ${JSON.stringify(r)}`);
    return r.result.result;
  };
  /** Resolves with the first message from now on (replies aside) that `pred` accepts. */
  const next = (pred) =>
    new Promise((resolve) => {
      const l = (m) => {
        if (pred(m)) {
          listeners.delete(l);
          resolve(m);
        }
      };
      listeners.add(l);
    });
  return { ws, call, tool, next, deltas };
}

const writer = await peer("writer", "builder.readWrite");
const full = await peer("full");
const wide = await peer("wide");
await full.call("state/subscribe");
await wide.call("state/subscribe");
const declared = await wide.call("aoi/declare", { center: [0, 0, 0], radius: 1e6 });
check(declared.result?.ok === true, "a client with an area of interest around the whole world");

/** Ticks both clients got a delta for, from `since` on. */
const common = (since) => [...full.deltas.keys()].filter((t) => t >= since && wide.deltas.has(t));
/** Does `act`, waits until both clients got deltas for `count` ticks from before it on, then compares them. */
async function same(what, act = async () => {}, count = 10) {
  const since = Math.max(0, ...full.deltas.keys(), ...wide.deltas.keys()) + 1;
  const result = await act();
  while (common(since).length < count) await Promise.race([full.next(() => true), wide.next(() => true)]);
  const ticks = common(since);
  const bad = ticks.find((t) => full.deltas.get(t) !== wide.deltas.get(t));
  check(bad === undefined, `${what}: the full view's deltas of ${ticks.length} ticks are the text the loop builds; at tick ${bad}:\n${full.deltas.get(bad)}\n${wide.deltas.get(bad)}`);
  return result;
}

await same("entities moving every tick");
const box = (await same("after a creation", () => writer.tool("scene.createEntity", { shape: "box", position: [3, 1, -20], color: 0x3366ff, tags: ["crate"] }))).entity;
const listed = (key, has) => [...full.deltas.values()].some((d) => has(JSON.parse(d).params[key]));
check(listed("created", (c) => c.some((e) => e.entity === box)), "the created entity came in the full view's created list");
await same("after a turn about the vertical axis", () => writer.tool("three.setTransform", { entity: box, rotationEuler: [0, 0.785, 0] }));
await same("after a tilt", () => writer.tool("three.setTransform", { entity: box, rotationEuler: [0.7, 0, 0] }));
await same("after a scale", () => writer.tool("three.setTransform", { entity: box, scale: [2, 1, 1] }));
await same("after a restyle", () => writer.tool("scene.setTags", { entity: box, tags: ["crate", "red"] }));
await same("after a destruction", () => writer.tool("scene.destroyEntity", { entity: box }));
check(listed("turned", (c) => c.ids.includes(box)) && listed("changed", (c) => c.ids.includes(box)), "the box was in the full view's turned and changed columns");
check(listed("restyled", (c) => c?.some((e) => e.entity === box)) && listed("destroyed", (c) => c.includes(box)), "and in its restyled and destroyed lists");

// A full-view delta keeps its place among the connection's replies: an entity the client creates is in
// none of its deltas before the reply, and in the first one after it.
const own = await peer("own", "builder.readWrite");
await own.call("state/subscribe");
await own.next((m) => m.method === "state/snapshot");
let created, inFirstAfter;
const before = new Set();
own.ws.on("message", (data) => {
  const msg = JSON.parse(data.toString());
  if (msg.id === "order") created = msg.result?.result?.entity ?? null;
  else if (msg.method === "state/delta") {
    const ids = msg.params.created.map((e) => e.entity);
    if (created === undefined) ids.forEach((id) => before.add(id));
    else if (inFirstAfter === undefined) inFirstAfter = ids.includes(created);
  }
});
own.ws.send(JSON.stringify({ jsonrpc: "2.0", id: "order", method: "tools/call", params: { name: "scene.createEntity", arguments: { shape: "sphere", position: [5, 1, 5] } } }));
while (inFirstAfter === undefined) await own.next((m) => m.method === "state/delta");
check(created && !before.has(created) && inFirstAfter === true, `a JSON delta keeps its place among the replies: ${created} in no delta before its reply, created in the first after it (${inFirstAfter})`);

// A reader that stops reading while its replies are written: the first go out from the loop thread, the
// rest wait for the socket in the writer's queue. Once the server cannot send more (the connection's
// kernel queues hold bytes it wrote), the reader resumes and finds every reply, whole and in order.
// Each `tools/list` reply is about 250 KB: 20 are far more than a reader's socket takes while it does not read.
const CALLS = 20;
const { socket: slow, send: slowSend } = await rawWsClient(port);
slowSend(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { agentId: "slow", sessionId: "sess_slow", profile: "system.readonly" } }));
for (let id = 1; id <= CALLS; id++) slowSend(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }));
while (loopbackQueues(port, slow.localPort).unsent === 0) await writer.call("ping");
const replies = [];
let buffered = Buffer.alloc(0);
const allRead = new Promise((resolve) => {
  slow.on("data", (d) => {
    buffered = Buffer.concat([buffered, d]);
    // Server frames are unmasked: FIN and opcode, then a 7-bit, 16-bit or 64-bit length.
    for (;;) {
      if (buffered.length < 2) break;
      const short = buffered[1] & 127;
      const head = short === 126 ? 4 : short === 127 ? 10 : 2;
      if (buffered.length < head) break;
      const length = short === 126 ? buffered.readUInt16BE(2) : short === 127 ? Number(buffered.readBigUInt64BE(2)) : short;
      if (buffered.length < head + length) break;
      if ((buffered[0] & 15) === 1) replies.push(JSON.parse(buffered.subarray(head, head + length).toString()));
      buffered = buffered.subarray(head + length);
    }
    if (replies.length === CALLS + 1) resolve();
  });
});
slow.resume();
await allRead;
check(replies.every((r, i) => r.id === i && r.result !== undefined) && replies.slice(1).every((r) => r.result.tools.length > 0), `a reader that stopped reading gets all ${CALLS + 1} replies whole and in order once it reads again (${replies.map((r) => r.id).join()})`);
slow.destroy();

for (const p of [writer, full, wide, own]) p.ws.close();
server.kill();
console.log(JSON.stringify({ checks: checks.length }));
