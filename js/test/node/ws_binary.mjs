// The binary state stream (`state/subscribe` with `encoding: "binary"`)
// driven by real WebSocket clients beside a JSON one: the same world in
// both encodings (within the documented quantisation), change masks,
// creation, restyling and destruction, a delta in its place among the
// replies, areas of interest, an unknown encoding refused, and a paused reader that holds up nobody and catches up
// in one delta. Every wait is for an event, never for time.
// Usage: node js/test/node/ws_binary.mjs <path-to-limina>
import { readFileSync } from "node:fs";
import { StateView } from "../../../examples/state_view.mjs";
import { checker, loopbackQueues, rawWsClient, startWsServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];
const STEP = 1 / 1024;
/** Checks passed across both servers. */
let passed = 0;

class Peer {
  constructor(port, name) {
    this.port = port;
    this.name = name;
    this.listeners = new Set();
    this.view = new StateView();
    /** JSON clients: the world as the JSON stream tells it (id → transform). */
    this.json = new Map();
    /** While set, what the client held after each message, by tick (id → transform as 10 numbers). */
    this.states = null;
  }
  async open(profile = "builder.readWrite") {
    const { ws, call } = await wsPeer(this.port, (data, binary) => {
      let msg = data;
      if (binary) {
        msg = { binary: this.view.apply(data), bytes: data.length };
        // Copied only while kept: a copy a message of a 16,000-entity view is most of this client's CPU.
        if (this.states) this.states.set(this.view.tick, new Map([...this.view.entities].map(([id, e]) => [id, [...e.position, ...e.rotation, ...e.scale]])));
      } else if (msg.method === "state/snapshot" || msg.method === "state/delta") this.applyJson(msg);
      for (const l of [...this.listeners]) l(msg);
    });
    this.ws = ws;
    this.call = call;
    const r = await this.call("initialize", { agentId: this.name, sessionId: `sess_${this.name}`, profile });
    if (!r.result?.session) throw new Error(`${this.name} initialize: ${JSON.stringify(r)}`);
  }
  applyJson(msg) {
    const p = msg.params;
    if (msg.method === "state/snapshot") this.json = new Map(p.entities.map((e) => [e.entity, e.transform]));
    for (const e of p.created ?? []) this.json.set(e.entity, e.transform);
    for (const [group, key, stride] of [[p.moved, "positions", 3], [p.changed, "transforms", 10]]) {
      if (!group) continue;
      const bytes = Buffer.from(group[key], "base64");
      const f = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      group.ids.forEach((id, i) => this.json.set(id, [...f.subarray(i * stride, (i + 1) * stride), ...this.json.get(id).slice(stride)]));
    }
    if (p.turned) {
      const bytes = Buffer.from(p.turned.transforms, "base64");
      const f = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      p.turned.ids.forEach((id, i) => {
        const [px, py, pz, ry, rw] = f.subarray(i * 5, i * 5 + 5);
        this.json.set(id, [px, py, pz, 0, ry, 0, rw, ...this.json.get(id).slice(7)]);
      });
    }
    for (const id of p.destroyed ?? []) this.json.delete(id);
    this.states?.set(p.tick, new Map(this.json));
  }
  async tool(name, args = {}) {
    const r = await this.call("tools/call", { name, arguments: args });
    if (!r.result?.result) throw new Error(`${name}: ${JSON.stringify(r)}`);
    return r.result.result;
  }
  /** Resolves with the first message from now on that `pred` accepts. */
  next_(pred) {
    return new Promise((resolve) => {
      const l = (m) => {
        if (pred(m)) {
          this.listeners.delete(l);
          resolve(m);
        }
      };
      this.listeners.add(l);
    });
  }
  binary(pred = () => true) {
    return this.next_((m) => m.binary && pred(m.binary, m));
  }
  /** Resolves once `holds()` is true of what this client holds (now, or after a later message). */
  until(holds) {
    return holds() ? Promise.resolve() : this.next_(() => holds());
  }
}

/**
 * Whether a binary client's state (id → position, rotation, scale) is the JSON one within the
 * quantisation: positions ±½ step, rotations to 1e-3 (as a rotation: q ≡ -q), scales exact.
 */
function sameWorld(bin, json) {
  if (bin.size !== json.size) return `binary holds ${bin.size} entities, JSON ${json.size}`;
  for (const [id, t] of json) {
    const b = bin.get(id);
    if (!b) return `binary lacks ${id}`;
    for (let i = 0; i < 3; i++) if (Math.abs(b[i] - t[i]) > STEP / 2 + 1e-9) return `${id} position ${b.slice(0, 3)} vs ${t.slice(0, 3)}`;
    const n = Math.hypot(t[3], t[4], t[5], t[6]);
    const dot = Math.abs(b[3] * t[3] + b[4] * t[4] + b[5] * t[5] + b[6] * t[6]) / n;
    if (dot < 1 - 1e-3) return `${id} rotation ${b.slice(3, 7)} vs ${t.slice(3, 7)}`;
    for (let i = 7; i < 10; i++) if (b[i] !== t[i]) return `${id} scale ${b.slice(7)} vs ${t.slice(7)}`;
  }
  return null;
}

// --- One world, a JSON client and binary clients side by side: 40 entities moving every tick, forever.
{
  const { server, port } = await startWsServer(limina, ["js/bench/worlds/moving.ts", "--entities=40"]);
  const { check, checks } = checker(server);
  const writer = new Peer(port, "writer");
  const bin = new Peer(port, "bin");
  const json = new Peer(port, "json");
  await Promise.all([writer.open(), bin.open("system.readonly"), json.open("system.readonly")]);

  const bad = await bin.call("state/subscribe", { encoding: "msgpack" });
  check(bad.error?.code === -32602 && /unknown encoding "msgpack".*"json".*"binary"/.test(bad.error.message), `an unknown encoding is a clear -32602 (${bad.error?.message})`);
  const badRate = await bin.call("state/subscribe", { encoding: "binary", maxRate: 0 });
  check(badRate.error?.code === -32602, "a maxRate outside (0, 60] is -32602");

  const still = await writer.tool("scene.createEntity", { shape: "box", position: [3, 1, -20], rotation: [0, 0.3826834, 0, 0.9238795], color: 0x3366ff, tags: ["crate", "blue"] });

  const sub = await bin.call("state/subscribe", { encoding: "binary" });
  check(sub.result?.encoding === "binary" && sub.result.format === "limina-delta/1" && sub.result.positionStep === STEP, `state/subscribe with encoding "binary" says its format and step (${JSON.stringify(sub.result)})`);
  const jsonSub = await json.call("state/subscribe");
  check(jsonSub.result?.layout === "[px,py,pz,rx,ry,rz,rw,sx,sy,sz]" && jsonSub.result.encoding === undefined, "a client that does not ask gets the JSON stream as before");
  await bin.until(() => bin.view.tick > 0);
  check(bin.view.entities.size === 41 && bin.view.entities.get(still.entity).tags.join() === "crate,blue", "the binary snapshot holds every entity with its tags");
  check(bin.view.entities.get(still.entity).look?.shape === "box", `and its look (${JSON.stringify(bin.view.entities.get(still.entity).look)})`);

  // The same world: what each client held after its message of a tick, at 20 ticks both were sent.
  let masked = true;
  const watchMask = (m) => m.binary?.updated.includes(still.entity) && (masked = false);
  bin.listeners.add(watchMask);
  bin.states = new Map();
  json.states = new Map();
  const common = () => [...bin.states.keys()].filter((t) => json.states.has(t));
  let enough;
  await new Promise((resolve) => {
    enough = () => common().length >= 20 && resolve();
    bin.listeners.add(enough);
    json.listeners.add(enough);
  });
  for (const p of [bin, json]) p.listeners.delete(enough);
  bin.listeners.delete(watchMask);
  for (const t of common().slice(0, 20)) {
    const diff = sameWorld(bin.states.get(t), json.states.get(t));
    check(diff === null, `binary and JSON clients hold the same world at tick ${t}: ${diff}`);
  }
  bin.states = json.states = null;
  checks.push("binary and JSON clients hold the same world at 20 ticks, positions within half a step");
  check(masked, "an entity that did not move is never resent (change masks)");

  // Creation, restyling, destruction.
  const made = (await writer.tool("scene.createEntity", { shape: "cylinder", position: [-4, 2, 4], tags: ["new"] })).entity;
  await bin.until(() => bin.view.entities.has(made));
  check(bin.view.entities.get(made).tags.join() === "new" && bin.view.entities.get(made).look?.shape === "cylinder", "a created entity arrives with its tags and look");
  await writer.tool("scene.setTags", { entity: still.entity, tags: ["crate", "red"] });
  await bin.until(() => bin.view.entities.get(still.entity).tags.includes("red"));
  checks.push("a restyled entity is resent with its new tags");
  await writer.tool("scene.destroyEntity", { entity: made });
  await bin.until(() => !bin.view.entities.has(made));
  check(!bin.view.entities.has(made), "a destroyed entity leaves the binary view");

  // A delta keeps its place among the connection's replies, though both are written off the loop
  // thread: an entity the client creates is in none of its deltas before the reply, and in the first
  // one after it. The call goes out by hand so that its reply reaches the listeners in its place.
  const own = new Peer(port, "own");
  await own.open();
  await own.call("state/subscribe", { encoding: "binary" });
  await own.until(() => own.view.tick > 0);
  let created, heldAtReply, heldAfterNext;
  own.listeners.add((m) => {
    if (m.id === "order") {
      created = m.result?.result?.entity ?? null;
      heldAtReply = own.view.entities.has(created);
    } else if (m.binary && created !== undefined && heldAfterNext === undefined) heldAfterNext = own.view.entities.has(created);
  });
  own.ws.send(JSON.stringify({ jsonrpc: "2.0", id: "order", method: "tools/call", params: { name: "scene.createEntity", arguments: { shape: "sphere", position: [5, 1, 5] } } }));
  await own.until(() => heldAfterNext !== undefined);
  check(created && heldAtReply === false && heldAfterNext === true, `a delta keeps its place among the replies: ${created} absent when its creation is answered (${heldAtReply}), present after the next delta (${heldAfterNext})`);
  own.ws.close();

  // Area of interest: only what is near (3, 1, -20); the moving entities stay within 1 m of z = 0.
  const near = new Peer(port, "near");
  await near.open("system.readonly");
  await near.call("state/subscribe", { encoding: "binary" });
  const aoi = await near.call("aoi/declare", { center: [3, 1, -20], radius: 2 });
  check(aoi.result?.ok === true, "aoi/declare works for a binary subscriber");
  await near.until(() => near.view.aoi !== null);
  check([...near.view.entities.keys()].join() === still.entity, `an area-of-interest binary client holds only what is inside (${[...near.view.entities.keys()]})`);
  const inside = (await writer.tool("scene.createEntity", { position: [3.5, 1, -20.5] })).entity;
  const outside = (await writer.tool("scene.createEntity", { position: [30, 1, 30] })).entity;
  // Made after the outside one: once the near client holds it, it has been sent everything before.
  const inside2 = (await writer.tool("scene.createEntity", { position: [2.5, 1, -19.5] })).entity;
  const nearCreated = new Set();
  near.listeners.add((m) => m.binary?.created.forEach((id) => nearCreated.add(id)));
  await near.until(() => near.view.entities.has(inside) && near.view.entities.has(inside2));
  check(!near.view.entities.has(outside) && !nearCreated.has(outside), "and is not sent what is outside");

  for (const p of [writer, bin, json, near]) p.ws.close();
  server.kill("SIGTERM");
  passed += checks.length;
}

// --- A paused reader: 16,000 entities moving every tick fill its socket.
{
  const ENTITIES = 16000;
  // The paused reader sends nothing for as long as the stream takes to fill its socket, which on a
  // loaded machine can outlast the default idle timeout; this part is about pacing, not idleness.
  const { server, port } = await startWsServer(limina, ["--idle-timeout", "3600", "js/bench/worlds/moving.ts", `--entities=${ENTITIES}`]);
  const { check, checks } = checker(server);
  const fast = new Peer(port, "fast");
  await fast.open("system.readonly");
  await fast.call("state/subscribe", { encoding: "binary" });
  await fast.until(() => fast.view.tick > 0);

  // A client that asks for 10 deltas a second gets one every 6 ticks or more, each from what it holds.
  const paced = new Peer(port, "paced");
  await paced.open("system.readonly");
  const pacedSub = await paced.call("state/subscribe", { encoding: "binary", maxRate: 10 });
  check(pacedSub.result?.maxRate === 10, "maxRate is granted");
  await paced.until(() => paced.view.tick > 0);
  const gaps = [];
  while (gaps.length < 5) gaps.push((await paced.binary()).binary);
  check(gaps.every((m) => m.tick - m.baseTick >= 6), `and its deltas come at most 10 a second (${gaps.map((m) => m.tick - m.baseTick)} ticks apart)`);
  paced.ws.close();

  // The slow reader: a raw socket that subscribes, then stops reading.
  const { socket: slow, send: slowSend } = await rawWsClient(port);
  slowSend(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: "slow", sessionId: "sess_slow", profile: "system.readonly" } }));
  slowSend(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "state/subscribe", params: { encoding: "binary" } }));
  slow.pause();

  // While it is paused the fast client gets delta after delta, each from the tick it holds, until the
  // slow reader's writer is surely blocked: its connection's kernel queues (/proc/net/tcp, both ends on
  // this machine) hold bytes the server could not send, and stay as they are while the stream goes on;
  // or, at the latest, once the stream has carried more than the kernel can buffer for the paused socket
  // (both ends at their largest, with a margin).
  const sysMax = (f) => Number(readFileSync(`/proc/sys/net/ipv4/${f}`, "utf8").trim().split(/\s+/)[2]);
  const enough = 1.2 * (sysMax("tcp_rmem") + sysMax("tcp_wmem"));
  const start = fast.view.tick;
  let deltas = 0;
  let bytes = 0;
  let lastTick = start;
  let increasing = true;
  const count = (m) => {
    if (!m.binary) return;
    deltas++;
    bytes += m.bytes;
    increasing &&= m.binary.tick > lastTick;
    lastTick = m.binary.tick;
  };
  const carried = () => bytes >= enough;
  fast.listeners.add(count);
  const full = () => {
    const q = loopbackQueues(port, slow.localPort);
    return q.unsent > 0 ? q.key : null;
  };
  /**
   * Whether the slow connection's queues are still `held` once the fast client's view has moved on `ticks`
   * ticks. Read at the end only, not at every delta: each read of the table walks the kernel's whole TCP
   * hash (some 4 ms of system CPU here), and a writer that is not blocked changes them over the ticks anyway.
   */
  const stays = async (held, ticks) => {
    const from = fast.view.tick;
    await fast.binary(() => carried() || fast.view.tick - from >= ticks);
    return full() === held;
  };
  let held = null;
  let blockedAt = null;
  let deltasAtBlock = 0;
  while (!carried()) {
    await fast.binary();
    if ((held = full()) === null || !(await stays(held, 20))) continue;
    // Whatever the slow reader was sent is older than the server's tick now: a reply keeps its place
    // among the deltas, so the fast client's first delta after this one is from that tick or later (its
    // view may lag the server's on a loaded machine).
    await fast.call("ping");
    await fast.binary();
    blockedAt = fast.view.tick;
    deltasAtBlock = deltas;
    if (await stays(held, 120)) break;
  }
  // Past this point the slow reader's writer is surely blocked (its socket full and staying so since
  // `blockedAt`, or more carried than the kernel can buffer for it) and stays blocked while it is paused.
  // The fast client goes on getting deltas, each a later tick: a count, waited for message by message,
  // which a writer that held every client behind the slow one would leave at 0 however long it ran, and
  // which a loaded machine only delays.
  if (carried()) [blockedAt, deltasAtBlock] = [fast.view.tick, deltas];
  const AFTER_BLOCK = 3;
  await fast.until(() => deltas - deltasAtBlock >= AFTER_BLOCK);
  fast.listeners.delete(count);
  const ticks = fast.view.tick - start;
  const blocked = carried() ? `${bytes} bytes, more than the kernel can buffer` : `the slow reader's socket full (${held})`;
  check(
    deltas - deltasAtBlock >= AFTER_BLOCK && increasing,
    `a paused reader holds up no one: the fast client got ${deltas - deltasAtBlock} deltas over the ${fast.view.tick - blockedAt} ticks since tick ${blockedAt}, ${blocked}, ` +
      `each a later tick than the one before: ${increasing} (${deltas} deltas over ${ticks} ticks in all)`,
  );

  // Resumed, the slow reader reads what its socket holds, then one delta takes it to now.
  const slowView = new StateView();
  const got = [];
  let buf = Buffer.alloc(0);
  const caughtUp = new Promise((resolve) => {
    slow.on("close", () => check(false, `the slow reader's connection closed before it caught up (${got.length} messages)`));
    slow.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (buf.length < 2) return;
        let len = buf[1] & 127;
        let at = 2;
        if (len === 126) (len = buf.readUInt16BE(2)), (at = 4);
        else if (len === 127) (len = Number(buf.readBigUInt64BE(2))), (at = 10);
        if (buf.length < at + len) return;
        const opcode = buf[0] & 15;
        const payload = buf.subarray(at, at + len);
        buf = buf.subarray(at + len);
        if (opcode !== 2) continue;
        const m = slowView.apply(payload);
        got.push(m);
        if (m.tick >= resumedAt) resolve(m);
      }
    });
  });
  const resumedAt = fast.view.tick;
  slow.resume();
  const last = await caughtUp;
  // Its socket held what was written before it filled; the next message goes from there to now.
  const span = last.tick - got[0].tick;
  check(last.tick - last.baseTick > 60 && got.length < span / 2, `the slow reader was left where it was and caught up in one delta: ${last.baseTick} → ${last.tick} (${got.length} messages over ${span} ticks)`);
  check(slowView.entities.size === ENTITIES && last.updated.length === ENTITIES, "that one delta brings every moved entity");
  slow.removeAllListeners("close");
  slow.destroy();
  fast.ws.close();
  server.kill("SIGTERM");
  passed += checks.length;
}
console.log(JSON.stringify({ ok: true, checks: passed }));
