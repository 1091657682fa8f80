// Attacks on the network servers' connection limits (`limina --mcp-http
// --mcp-ws --token … --max-clients 4`): slow bodies, slow headers, idle
// keep-alive connections filling every slot, concurrent initializes past
// the session cap, GET and stateless listen streams, and WebSocket
// handshakes that never finish. Attackers connect from 127.0.0.1, the
// well-behaved client from 127.0.0.2 (another peer address, as on a real
// network). Every check waits for an event, never for a clock; the
// timeouts themselves are checked as bounds with a wide margin.
// Usage: node js/test/node/http_limits.mjs <path-to-limina> <case>
import http from "node:http";
import net from "node:net";
import WebSocket from "ws";
import { httpRequest, MCP_POST_HEADERS } from "./http_request.mjs";
import { checker, startServer } from "./ws_server.mjs";

const [limina, only] = process.argv.slice(2);
const TOKEN = "a-test-token-of-enough-length";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const INIT = (name) => ({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1" } } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function serve(idle) {
  const s = await startServer(limina, ["--mcp-http", "--mcp-ws", "--port", "0", "--token", TOKEN, "--max-clients", "4", "--idle-timeout", String(idle)]);
  return { ...s, ...checker(s.server) };
}

/** One request from `from` (on a fresh connection unless `agent` says otherwise): {status, headers, text, json}. */
const request = (port, method, { body, headers = {}, from = "127.0.0.2", agent = false } = {}) => httpRequest(port, method, { body, from, agent, headers: { ...AUTH, ...MCP_POST_HEADERS, ...headers } });

/** A raw connection (from `from`) that sends `bytes` and then nothing; `.received()` is what the server sent so far, `.closed` resolves with it (`.reply`) once the server closed. */
function stalled(port, bytes, from = "127.0.0.1") {
  const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
  let got = "";
  socket.on("data", (d) => (got += d));
  socket.on("error", () => {});
  const closed = new Promise((resolve) => socket.on("close", () => resolve({ at: Date.now(), reply: got })));
  const opened = new Promise((resolve) => socket.on("connect", () => (socket.write(bytes), resolve())));
  return { socket, opened, closed, received: () => got };
}
const statusOf = (reply) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);

/** The first `n` settle on whatever settles first; the rest of `all` are checked to have not. */
async function firstSettled(all, n) {
  const done = new Set();
  all.forEach((p, i) => p.closed.then(() => done.add(i)));
  while (done.size < n) await sleep(10);
  return done;
}

const cases = {
  async "slow bodies"() {
    const { http: port, server, check, checks } = await serve(2);
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 100\r\n\r\n{`;
    const started = Date.now();
    const attackers = Array.from({ length: 16 }, () => stalled(port, head));
    await Promise.all(attackers.map((a) => a.opened));
    // Half of the unfinished slots (4 of 8) per peer: the other 12 are refused at once, with a 503 they can read.
    const refused = await firstSettled(attackers, 12);
    const early = await Promise.all([...refused].map((i) => attackers[i].closed));
    check(early.every((c) => statusOf(c.reply) === 503 && c.reply.includes("from your address")), `12 of 16 slow bodies from one address are refused with 503: ${early.map((c) => statusOf(c.reply))}`);
    // Meanwhile a client from another address is served.
    const r = await request(port, "POST", { body: INIT("good") });
    check(r.status === 200 && r.headers["mcp-session-id"], `a well-behaved client is served during the attack: ${r.status}`);
    // The four admitted are answered 408 once the request timeout (2 s) passes, and closed.
    const late = await Promise.all(attackers.filter((_, i) => !refused.has(i)).map((a) => a.closed));
    check(late.length === 4 && late.every((c) => statusOf(c.reply) === 408 && c.reply.includes("did not arrive within 2 s")), `the 4 admitted slow bodies get 408: ${late.map((c) => statusOf(c.reply))}`);
    const took = Math.max(...late.map((c) => c.at)) - started;
    check(took >= 1500 && took < 20_000, `closed after the request timeout (${took} ms)`);
    server.kill("SIGTERM");
    return checks.length;
  },

  async "slow headers"() {
    const { http: port, server, check, checks } = await serve(2);
    const started = Date.now();
    // Unauthenticated and unfinished: the token is never seen, the headers never end.
    const attackers = Array.from({ length: 16 }, () => stalled(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n`));
    await Promise.all(attackers.map((a) => a.opened));
    const refused = await firstSettled(attackers, 12);
    const early = await Promise.all([...refused].map((i) => attackers[i].closed));
    check(early.every((c) => statusOf(c.reply) === 503), `12 of 16 slow headers from one address are refused with 503: ${early.map((c) => statusOf(c.reply))}`);
    const r = await request(port, "POST", { body: INIT("good") });
    check(r.status === 200, `a well-behaved client is served during the attack: ${r.status}`);
    const late = await Promise.all(attackers.map((a) => a.closed));
    const took = Math.max(...late.map((c) => c.at)) - started;
    check(took >= 1500 && took < 20_000, `every slow header is closed after the request timeout (${took} ms)`);
    server.kill("SIGTERM");
    return checks.length;
  },

  async "idle keep-alive connections"() {
    // A long idle timeout: idle connections stay until their slots are needed.
    const { http: port, server, check, checks } = await serve(60);
    const sid = (await request(port, "POST", { body: INIT("keeper") })).headers["mcp-session-id"];
    /** A keep-alive connection that sends one ping and reads its answer, then stays open. */
    const keepAlive = (i) =>
      new Promise((resolve) => {
        const body = JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" });
        const socket = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.2" });
        const closed = new Promise((r) => socket.on("close", r));
        socket.on("error", () => {});
        socket.on("data", (d) => d.toString().startsWith("HTTP/1.1 200") && resolve({ socket, closed }));
        socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: ${sid}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
    // Every slot (4 sessions × 4 connections): 16 connections, each served once, then idle.
    const held = [];
    for (let i = 0; i < 16; i++) held.push(await keepAlive(i));
    check(held.length === 16, "16 keep-alive connections served and held open");
    const firstClosed = Promise.race(held.map((h, i) => h.closed.then(() => i)));
    // A new client is served, not reset: the connection idle longest (the first) was closed for it.
    const r = await request(port, "POST", { body: { jsonrpc: "2.0", id: "new", method: "ping" }, headers: { "mcp-session-id": sid }, from: "127.0.0.3" });
    check(r.status === 200 && r.json?.id === "new", `a new client is served, not reset: ${r.status}`);
    check((await firstClosed) === 0, "the longest-idle keep-alive connection was closed to make room");
    for (const h of held) h.socket.destroy();
    server.kill("SIGTERM");
    return checks.length;
  },

  async "concurrent initializes"() {
    const { http: port, server, check, checks } = await serve(60);
    // Twelve released together from three addresses against --max-clients 4.
    const all = await Promise.all(Array.from({ length: 12 }, (_, i) => request(port, "POST", { body: INIT(`c${i}`), from: `127.0.0.${2 + (i % 3)}` })));
    const granted = all.filter((r) => r.status === 200 && r.headers["mcp-session-id"]);
    const refused = all.filter((r) => r.status === 503 && r.json?.error?.code === -32002);
    check(granted.length === 4, `exactly 4 sessions granted: ${all.map((r) => r.status)}`);
    check(refused.length === 8, `the other 8 are refused with 503 -32002: ${all.map((r) => `${r.status} ${r.json?.error?.message ?? ""}`)}`);
    // Ending one makes room for exactly one more.
    await request(port, "DELETE", { headers: { "mcp-session-id": granted[0].headers["mcp-session-id"] } });
    const again = await Promise.all([0, 1].map((i) => request(port, "POST", { body: INIT(`again${i}`) })));
    check(again.filter((r) => r.status === 200).length === 1, `a freed place is granted once: ${again.map((r) => r.status)}`);
    server.kill("SIGTERM");
    return checks.length;
  },

  async "stream floods"() {
    const { http: port, server, check, checks } = await serve(60);
    const sid = (await request(port, "POST", { body: INIT("streamer") })).headers["mcp-session-id"];
    /** Opens a GET stream; resolves with its status once the head arrives (the stream stays open). */
    const open = (headers, from = "127.0.0.2") =>
      new Promise((resolve) => {
        const req = http.request({ host: "127.0.0.1", port, method: "GET", path: "/mcp", localAddress: from, agent: false, headers: { ...AUTH, accept: "text/event-stream", ...headers } }, (res) => {
          resolve({ status: res.statusCode, req, res });
          res.resume();
        });
        req.on("error", (e) => resolve({ status: e.code, req }));
        req.end();
      });
    // Streams may take half of the 16 connection slots: 8, across sessions and listen streams together.
    const streams = [];
    for (let i = 0; i < 8; i++) streams.push(await open({ "mcp-session-id": sid }));
    check(streams.every((s) => s.status === 200), `8 GET streams open: ${streams.map((s) => s.status)}`);
    const ninth = await open({ "mcp-session-id": sid });
    check(ninth.status === 429, `a session's 9th stream → 429: ${ninth.status}`);
    const other = (await request(port, "POST", { body: INIT("other") })).headers["mcp-session-id"];
    const full = await open({ "mcp-session-id": other });
    check(full.status === 503, `another session's stream past half the slots → 503: ${full.status}`);
    // Stateless listen requests share the same streams' half.
    const listen = await request(port, "POST", {
      body: { jsonrpc: "2.0", id: "l", method: "subscriptions/listen", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } },
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen", accept: "application/json, text/event-stream" },
    });
    check(listen.status === 503 && listen.json?.error?.code === -32002, `a stateless listen past half the slots → 503: ${listen.status} ${listen.text}`);
    // Requests keep the other half.
    const r = await request(port, "POST", { body: { jsonrpc: "2.0", id: "p", method: "ping" }, headers: { "mcp-session-id": other } });
    check(r.status === 200, `requests are served while the streams hold their half: ${r.status}`);
    // Closing streams frees their places.
    for (const s of streams) s.req.destroy();
    let reopened = null;
    for (let i = 0; i < 100 && reopened?.status !== 200; i++) {
      reopened?.req.destroy();
      reopened = await open({ "mcp-session-id": other });
      if (reopened.status !== 200) await sleep(50);
    }
    check(reopened.status === 200, `a closed stream's place is taken again: ${reopened.status}`);
    reopened.req.destroy();
    ninth.req.destroy();
    full.req.destroy();
    server.kill("SIGTERM");
    return checks.length;
  },

  async "a stopped server's backlog"() {
    // A server that has not run for a while (starved on a loaded machine; stopped here) accepts its
    // backlog in one burst before it reads any of it. Requests already whole in that backlog are not
    // slow: however many come from one address, beside slow bodies from it, each is served.
    const { http: port, server, check, checks } = await serve(60);
    const session = (await request(port, "POST", { body: INIT("good") })).headers["mcp-session-id"];
    check(session, "a session to ping in");
    const head = (length, more = "") => `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json\r\n${more}Content-Length: ${length}\r\n\r\n`;
    const ping = (id) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
      return head(body.length, `Mcp-Session-Id: ${session}\r\nConnection: close\r\n`) + body;
    };
    server.kill("SIGSTOP");
    const slow = [];
    const whole = [];
    for (let i = 0; i < 10; i++) {
      if (i % 3 === 0) slow.push(stalled(port, `${head(100)}{`, "127.0.0.2"));
      whole.push(stalled(port, ping(i + 2), "127.0.0.2"));
    }
    await Promise.all([...slow, ...whole].map((c) => c.opened));
    server.kill("SIGCONT");
    const replies = await Promise.all(whole.map((c) => c.closed));
    // Past the address's 4 unfinished slots (of 8) they would have been refused with 503 before.
    check(replies.every((r) => statusOf(r.reply) === 200 && r.reply.includes('"result":{}')), `10 whole requests from one address in a stopped server's backlog, 4 slow bodies among them, are all served: ${replies.map((r) => statusOf(r.reply))}`);
    for (const c of slow) c.socket.destroy();
    server.kill("SIGTERM");
    return checks.length;
  },

  async "a stopped server's handshake backlog"() {
    // The same for the WebSocket port: handshakes already whole in a stopped server's backlog are
    // answered 101 however many come from one address, beside connections from it that sent nothing.
    const { ws: port, server, check, checks } = await serve(60);
    const handshake = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;
    server.kill("SIGSTOP");
    const silent = Array.from({ length: 4 }, () => stalled(port, "", "127.0.0.2"));
    const whole = Array.from({ length: 12 }, () => stalled(port, handshake, "127.0.0.2"));
    await Promise.all([...silent, ...whole].map((c) => c.opened));
    server.kill("SIGCONT");
    while (!whole.every((c) => c.received().includes("\r\n\r\n"))) await sleep(10);
    // Past the address's 8 handshake slots (of 16) they would have been refused with 503 before.
    const statuses = whole.map((c) => statusOf(c.received()));
    check(statuses.every((s) => s === 101), `12 whole handshakes from one address in a stopped server's backlog, 4 silent connections among them, are all answered 101: ${statuses}`);
    for (const c of [...silent, ...whole]) c.socket.destroy();
    server.kill("SIGTERM");
    return checks.length;
  },

  async "websocket handshakes"() {
    const { ws: port, server, check, checks } = await serve(2);
    const started = Date.now();
    // TCP connections that never send their handshake: 8 of 16 places (half) per address, the rest refused.
    const attackers = Array.from({ length: 20 }, () => stalled(port, ""));
    await Promise.all(attackers.map((a) => a.opened));
    const refused = await firstSettled(attackers, 12);
    const early = await Promise.all([...refused].map((i) => attackers[i].closed));
    check(early.every((c) => statusOf(c.reply) === 503), `12 of 20 silent connections from one address are refused with 503: ${early.map((c) => statusOf(c.reply))}`);
    // A client from another address handshakes and is served.
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { headers: AUTH, localAddress: "127.0.0.2" });
    await new Promise((resolve, reject) => (ws.on("open", resolve), ws.on("error", reject)));
    const pong = await new Promise((resolve) => {
      ws.once("message", (d) => resolve(JSON.parse(d.toString())));
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    });
    check(pong.id === 1 && pong.result, "a WebSocket client is served while silent connections wait");
    const late = await Promise.all(attackers.map((a) => a.closed));
    const took = Math.max(...late.map((c) => c.at)) - started;
    check(took >= 1500 && took < 20_000, `silent connections are dropped after the handshake timeout (${took} ms)`);
    ws.close();
    server.kill("SIGTERM");
    return checks.length;
  },
};

const checks = await cases[only]();
console.log(JSON.stringify({ ok: true, case: only, checks }));
process.exit(0);
