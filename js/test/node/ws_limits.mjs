// The WebSocket server's limits, against `limina --mcp-ws --max-clients 4
// --max-message-bytes 65536 --idle-timeout 3` serving tests/fixtures/arrival_world.ts: each fault
// gets its RFC 6455 close code (and a close frame, not a reset), a full server says so with 1013,
// a client's close is answered, a connection that never finishes its handshake is dropped, a
// flooder's calls take turns with another client's instead of going first, and the server keeps
// serving throughout.
// Usage: node js/test/node/ws_limits.mjs <path-to-limina>
import net from "node:net";
import WebSocket from "ws";
import { checker, startWsServer } from "./ws_server.mjs";

const limina = process.argv[2];

const { server, port } = await startWsServer(limina, ["--max-clients", "4", "--max-message-bytes", "65536", "--idle-timeout", "3", "tests/fixtures/arrival_world.ts"]);
const { check, checks } = checker(server);

const open = () =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    ws.on("open", () => resolve(ws));
    ws.on("error", reject);
  });
/** Resolves with the close code and reason the server sent (1006: none — the connection just dropped). */
const closed = (ws) => new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
const ping = (ws) =>
  new Promise((resolve) => {
    ws.once("message", (d) => resolve(JSON.parse(d.toString())));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
  });

// A TCP connection that never sends its handshake: dropped after the handshake timeout.
const silent = net.connect(port, "127.0.0.1");
const silentEnded = new Promise((resolve) => silent.on("close", () => resolve(Date.now())));
const silentSince = Date.now();
silent.on("error", () => {});

const keeper = await open();
check((await ping(keeper)).result !== undefined, "a client is served");

/** Sends a call on `ws`; resolves with its reply (`ws`'s replies are read by id). */
const caller = (ws) => {
  const waiting = new Map();
  ws.on("message", (d) => {
    const m = JSON.parse(d.toString());
    waiting.get(m.id)?.(m);
  });
  return (id, method, params) =>
    new Promise((resolve) => {
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
};
const count = { name: "probe.count", arguments: {} };
// A flooder never reads a reply, and its calls take turns with another client's instead of going
// first. Holds (`probe.hold`, the fixture world's) keep the server from applying anything meanwhile:
// the keeper's first until the server has read the flooder's FLOOD calls, its second until it has
// also read the keeper's TURNS, sent only once the first has answered — so every one of the
// flooder's was read before any of the keeper's, and a first-come queue applies them all first.
// Each call's place in the one total order is its `probe.count`: in turns, the keeper's i-th
// follows at most the flooder's calls taken in the two holds' batches of 64 and one a turn, place
// ≤ 126 + 2i, however slowly the machine runs; first come, it would be past FLOOD.
const FLOOD = 250;
const TURNS = 10;
const keeperCall = caller(keeper);
const flooder = await open();
const flooderCall = caller(flooder);
check((await flooderCall(1, "initialize", { agentId: "flooder", sessionId: "sess_flooder", profile: "builder.readWrite" })).result?.session, "the flooder initializes");
check((await keeperCall(2, "initialize", { agentId: "keeper", sessionId: "sess_keeper", profile: "builder.readWrite" })).result?.session, "the keeper initializes");
// Read so far: the keeper's ping and the two initializes.
const flooded = keeperCall(3, "tools/call", { name: "probe.hold", arguments: { messages: 3 + 2 + FLOOD } });
const held = keeperCall(4, "tools/call", { name: "probe.hold", arguments: { messages: 3 + 2 + FLOOD + TURNS } });
flooder._socket.pause();
for (let i = 0; i < FLOOD; i++) flooder.send(JSON.stringify({ jsonrpc: "2.0", id: 100 + i, method: "tools/call", params: count }));
check((await flooded).result?.success, `the first hold answers once the flood is read: ${JSON.stringify(await flooded)}`);
const turns = await Promise.all(Array.from({ length: TURNS }, (_, i) => keeperCall(10 + i, "tools/call", count)));
check((await held).result?.success, `the second once the keeper's calls are read too: ${JSON.stringify(await held)}`);
const places = turns.map((r) => r.result?.result?.n);
check(places.every((n, i) => n <= 126 + 2 * (i + 1)), `the keeper's calls take turns with the flooder's ${FLOOD}: places ${places.join(", ")} (≤ 126 + 2i)`);
// The flooder goes on (10,000 calls in all, never read): it is queued against itself and the keeper is still served.
for (let i = FLOOD; i < 10_000; i++) flooder.send(JSON.stringify({ jsonrpc: "2.0", id: 100 + i, method: "tools/call", params: { name: "skills.list" } }));
check((await ping(keeper)).result !== undefined, "a client is served while the flooder's calls pile up");
flooder.terminate();

const big = await open();
const bigClosed = closed(big);
big.on("error", () => {});
big.send("x".repeat(2 << 20));
const size = await bigClosed;
check(size.code === 1009 && size.reason === "message exceeds the 65536-byte limit", `a 2 MiB message gets close code 1009 (${size.code} ${size.reason})`);

const utf8 = await open();
const utf8Closed = closed(utf8);
utf8.on("error", () => {});
utf8.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
const bad = await utf8Closed;
check(bad.code === 1007, `text that is not UTF-8 gets close code 1007 (${bad.code} ${bad.reason})`);

/** A raw client: handshakes, then sends `after` (if any); resolves with what the server sent after its handshake reply, once it closes. */
const rawClient = (after) =>
  new Promise((resolve) => {
    const raw = net.connect(port, "127.0.0.1");
    raw.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    let buf = Buffer.alloc(0);
    let upgraded = false;
    raw.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      const head = buf.indexOf("\r\n\r\n");
      if (head >= 0 && !upgraded) {
        upgraded = true;
        buf = buf.subarray(head + 4);
        if (after) raw.write(after);
      }
    });
    raw.on("close", () => resolve(buf));
    raw.on("error", () => {});
  });
/** The close code in a server's frames (skipping its pings). */
const closeCodeIn = (bytes) => {
  for (let i = 0; i + 1 < bytes.length; ) {
    const len = bytes[i + 1] & 0x7f;
    if ((bytes[i] & 0x0f) === 0x8) return bytes.readUInt16BE(i + 2);
    i += 2 + len;
  }
  return null;
};

// A half-open client: handshakes, then never answers a ping; closed with 1001 after the idle timeout.
const silentSocketSince = Date.now();
const halfOpen = rawClient(null);

const rawBytes = await rawClient(Buffer.from([0x83, 0x80, 1, 2, 3, 4])); // FIN + opcode 3 (reserved), masked, empty
check(closeCodeIn(rawBytes) === 1002, `a reserved opcode gets close code 1002 (${rawBytes.subarray(0, 4).toString("hex")})`);

// A client's own close is answered with a close frame.
const polite = await open();
const politeClosed = closed(polite);
polite.close(1000, "bye");
check((await politeClosed).code === 1000, "a client's close is answered (no 1006)");

// The half-open client is gone by now: closed for its silence, with 1001.
const idleBytes = await halfOpen;
const idleFor = Date.now() - silentSocketSince;
check(closeCodeIn(idleBytes) === 1001 && idleFor >= 2500, `a silent client is pinged, then closed with 1001 after the idle timeout (${closeCodeIn(idleBytes)} after ${idleFor} ms)`);

// Four connections at most: opening more, one is told the server is full. Each new
// client is either served (its ping is answered) or closed: no clock decides which.
const extra = [];
let full = null;
for (let i = 0; i < 6 && !full; i++) {
  const ws = await open();
  full = await Promise.race([closed(ws), ping(ws).then(() => null)]);
  if (!full) extra.push(ws);
}
check(full?.code === 1013 && full.reason === "server full: 4 clients", `the client over --max-clients gets 1013 (${full?.code} ${full?.reason})`);
check((await ping(keeper)).result !== undefined, "and the server keeps serving its clients");
await Promise.all(extra.map((ws) => {
  const done = closed(ws);
  ws.close();
  return done;
}));
// The server frees a place once it has handled the close: a client that comes meanwhile is told it is full, and tries again.
let later = null;
for (let i = 0; i < 50 && !later; i++) {
  const ws = await open();
  const served = await Promise.race([closed(ws).then(() => false), ping(ws).then(() => true)]);
  if (served) later = ws;
  else await new Promise((r) => setTimeout(r, 100));
}
check(later !== null, "a place freed is taken again");

// The handshake timeout is 10 s, or the idle timeout (3 s here) when shorter.
const droppedAt = await silentEnded;
check(droppedAt - silentSince >= 2500, `a connection without a handshake is dropped after the timeout (${droppedAt - silentSince} ms)`);

for (const ws of [keeper, later]) ws.close();
server.kill("SIGTERM");
console.log(`ok: ${checks.length} checks`);
