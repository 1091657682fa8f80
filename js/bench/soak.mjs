// Soak: well-behaved clients measure while every hostile client we know of
// attacks one `limina --mcp-ws --mcp-http` world at once. The well-behaved
// are 64 WebSocket clients (subscribed to state, a cheap read every 100 ms
// each) and 8 Streamable HTTP sessions (a read every 250 ms each, from
// another peer address). The hostile, all running the whole time:
//   WebSocket: a flooder (pipelines calls, never reads a reply), a slow
//     reader (subscribed, its socket paused), half-open sockets and
//     connections that never handshake, an oversize sender (2 MiB
//     messages), and an identity thief (reserved and confusable agent ids);
//   HTTP: slow bodies and slow headers, idle keep-alive connections,
//     GET-stream and stateless listen floods, bursts of concurrent
//     initializes, and malformed requests;
//   the world: a session loading a busy package (1–2 ms a tick) under 40
//     agent ids, and one making thousands of UI bubbles.
// Reports lost replies (a request sent and never answered) of the
// well-behaved, their read round trips, the world's steps per second, its
// longest frame gap, what each attack got back, and the server's RSS over
// time.
// Run: node js/bench/soak.mjs target/release/limina [seconds]   (final line: JSON figures)
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { httpRequest, MCP_POST_HEADERS } from "../test/node/http_request.mjs";

const limina = process.argv[2] ?? "target/release/limina";
const SECONDS = Number(process.argv[3] ?? 60);
const GOOD = 64;
const GOOD_HTTP = 8;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

// A package to starve the loop with, installed unsigned for this run only.
const pkgDir = mkdtempSync(join(tmpdir(), "limina-soak-"));
cpSync("tests/packages/burner", join(pkgDir, "burner"), { recursive: true });

const server = spawn(limina, ["--mcp-ws", "--mcp-http", "--port", "0", "tests/fixtures/arrival_world.ts"], {
  stdio: ["ignore", "ignore", "pipe"],
  env: { ...process.env, LIMINA_PACKAGES_DIR: pkgDir, LIMINA_ALLOW_UNSIGNED_PACKAGES: "1" },
});
const ports = await new Promise((resolve, reject) => {
  let err = "";
  server.stderr.on("data", (d) => {
    err += d;
    const ws = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
    const h = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
    if (ws && h) resolve({ ws: Number(ws[1]), http: Number(h[1]) });
  });
  server.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
});
let alive = true;
server.on("exit", () => (alive = false));
process.on("exit", () => server.kill("SIGKILL"));
/** The server's CPU time so far, in seconds (user + system). */
const cpuSecs = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const rssMiB = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))[1]) / 1024);
const url = `ws://127.0.0.1:${ports.ws}`;

/** A WebSocket client (from `from`: each kind of client has an address of its own, as on a real network). */
function client(name, { subscribe, profile = "builder.readWrite", from = "127.0.0.1" }) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress: from });
    const pending = new Map();
    let next = 1;
    ws.on("message", (data) => {
      const head = data.toString("utf8", 0, 64);
      if (head.includes('"method"')) return;
      const msg = JSON.parse(data.toString());
      pending.get(msg.id)?.(msg);
      pending.delete(msg.id);
    });
    ws.on("error", reject);
    const call = (method, params = {}) => {
      const id = next++;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return new Promise((r) => pending.set(id, r));
    };
    ws.on("open", async () => {
      await call("initialize", { agentId: name, sessionId: `sess_${name}`, profile });
      if (subscribe) await call("state/subscribe");
      resolve({ ws, call, pending });
    });
  });
}

/** One HTTP request on a fresh connection from `from`: {status, headers, text, json}. */
const request = (method, { body, headers = {}, from = "127.0.0.2" } = {}) => httpRequest(ports.http, method, { body, from, headers: { ...MCP_POST_HEADERS, ...headers } });
const INIT = (name) => ({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1" } } });
const count = (tally, key) => (tally[key] = (tally[key] ?? 0) + 1);

// The well-behaved.
const good = [];
for (let i = 0; i < GOOD; i++) good.push(await client(`good_${i}`, { subscribe: true }));
const monitor = await client("monitor", { subscribe: false });
const goodHttp = [];
for (let i = 0; i < GOOD_HTTP; i++) goodHttp.push((await request("POST", { body: INIT(`http_good_${i}`) })).headers["mcp-session-id"]);

// What each attack got back, by outcome.
const attacks = {};
const running = [];
const every = (ms, attack) => {
  const t = setInterval(attack, ms);
  running.push(() => clearInterval(t));
};
let stopping = false;

// WebSocket: the flooder, the slow reader, half-open and silent sockets, oversize messages, identity theft.
const flooder = await client("flooder", { subscribe: false, from: "127.0.0.12" });
flooder.ws._socket.pause(); // never reads a reply
// 200 calls every 10 ms while its socket takes them: once the server stops reading it (its replies unread), a full
// socket is all the server sees of it, and what more it sent would only pile up in this process.
every(10, () => {
  for (let i = 0; i < 200 && flooder.ws.bufferedAmount < 1 << 20; i++) flooder.ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1e6 + i, method: "tools/call", params: { name: "skills.list" } }));
});
const slow = await client("slow", { subscribe: true, from: "127.0.0.12" });
slow.ws._socket.pause();
const sockets = [];
const silentSocket = (port, bytes) => {
  const s = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.1" });
  s.on("error", () => {});
  s.on("connect", () => s.write(bytes));
  s.on("close", () => count(attacks, port === ports.ws ? "wsSilentClosed" : "httpStalledClosed"));
  sockets.push(s);
};
every(500, () => {
  silentSocket(ports.ws, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n");
  silentSocket(ports.ws, "");
});
let oversizeSent = 0;
let oversizeClosedWith1009 = 0;
// Sent as a text message with a mask key of zeros: the server reads and unmasks the same bytes, and this
// process need not mask 2 MiB in JavaScript each time (ws's masking without its native add-on).
const OVERSIZE = Buffer.alloc(2 << 20, "x");
const zeroMask = (mask) => mask.fill(0);
/** Resolves once `ws` opens (true) or is refused (false). */
const opened = (ws) => new Promise((r) => (ws.on("open", () => r(true)), ws.on("error", () => r(false))));
(async () => {
  while (!stopping) {
    const ws = new WebSocket(url, { localAddress: "127.0.0.9", generateMask: zeroMask });
    if (!(await opened(ws))) {
      count(attacks, "oversizeRefused");
      await sleep(200);
      continue;
    }
    const closed = new Promise((r) => ws.on("close", (code) => r(code)));
    ws.send(OVERSIZE, { binary: false });
    oversizeSent++;
    if ((await closed) === 1009) oversizeClosedWith1009++;
    await sleep(200);
  }
})();
const CONFUSABLE = ["operator", "Operator", "SYSTEM", "operator\u200b", "\uff4fperator", "GOOD_0"];
(async () => {
  for (let i = 0; !stopping; i++) {
    const thief = new WebSocket(url, { localAddress: "127.0.0.8" });
    if (!(await opened(thief))) {
      count(attacks, "identityThiefRefused");
      await sleep(250);
      continue;
    }
    const reply = new Promise((r) => thief.once("message", (d) => r(JSON.parse(d.toString()))));
    thief.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: CONFUSABLE[i % CONFUSABLE.length], sessionId: "sess_good_0", profile: "builder.readWrite" } }));
    count(attacks, (await reply).error?.code === -32001 ? "identityRefused" : "identityGranted");
    thief.close();
    await sleep(250);
  }
})();

// HTTP: slow bodies and headers, idle keep-alive connections, stream and listen floods, initialize bursts, garbage.
every(1000, () => {
  for (let i = 0; i < 4; i++) silentSocket(ports.http, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
  silentSocket(ports.http, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
});
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64, localAddress: "127.0.0.3" });
const hogSession = (await request("POST", { body: INIT("hog"), from: "127.0.0.3" })).headers["mcp-session-id"];
every(2000, () => {
  for (let i = 0; i < 32; i++) {
    const req = http.request({ host: "127.0.0.1", port: ports.http, method: "POST", path: "/mcp", agent: keepAlive, headers: { "content-type": "application/json", accept: "application/json", "mcp-session-id": hogSession } }, (res) => {
      count(attacks, `keepAlive${res.statusCode}`);
      res.resume();
    });
    req.on("error", () => count(attacks, "keepAliveError"));
    req.end(JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" }));
  }
});
const streams = [];
const streamSession = (await request("POST", { body: INIT("streamer"), from: "127.0.0.4" })).headers["mcp-session-id"];
every(1000, () => {
  const get = http.request({ host: "127.0.0.1", port: ports.http, method: "GET", path: "/mcp", localAddress: "127.0.0.4", agent: false, headers: { accept: "text/event-stream", "mcp-session-id": streamSession } }, (res) => {
    count(attacks, `getStream${res.statusCode}`);
    res.resume();
  });
  get.on("error", () => {});
  get.end();
  streams.push(get);
  const listen = http.request({ host: "127.0.0.1", port: ports.http, method: "POST", path: "/mcp", localAddress: "127.0.0.4", agent: false, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" } }, (res) => {
    count(attacks, `listen${res.statusCode}`);
    res.resume();
  });
  listen.on("error", () => {});
  listen.end(JSON.stringify({ jsonrpc: "2.0", id: "l", method: "subscriptions/listen", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "listener", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} }, notifications: { toolsListChanged: true } } }));
  streams.push(listen);
});
every(3000, async () => {
  const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => request("POST", { body: INIT(`burst_${i}`), from: "127.0.0.5" })));
  for (const r of burst) {
    count(attacks, `initBurst${r.status}`);
    if (r.status === 200) await request("DELETE", { headers: { "mcp-session-id": r.headers["mcp-session-id"] }, from: "127.0.0.5" });
  }
});
every(100, () => {
  for (const body of ["{nope", "[]", JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "ping" })]) {
    const req = http.request({ host: "127.0.0.1", port: ports.http, method: "POST", path: "/mcp", localAddress: "127.0.0.6", agent: false, headers: { "content-type": "application/json" } }, (res) => {
      count(attacks, `garbage${res.statusCode}`);
      res.resume();
    });
    req.on("error", () => {});
    req.end(body);
  }
});

// The world: a busy package under 40 agent ids, and thousands of UI bubbles.
const starver = await client("starver", { subscribe: false, profile: "player.limited", from: "127.0.0.10" });
for (let i = 0; i < 40; i++) {
  const r = await starver.call("tools/call", { name: "package.load", arguments: { ref: "burner@1.0.0", agentId: `agt_burn_${i}`, sessionId: "burners", profile: "player.limited" } });
  count(attacks, `packageLoad:${r.result?.result?.ok ? "ok" : r.result?.result?.rejectReason ?? r.error?.message}`);
}
const bubbler = await client("bubbler", { subscribe: false, from: "127.0.0.11" });
// Thousands of bubbles, pipelined (a slow server queues them against the bubbler's own connection).
for (let i = 0; i < 3000; i++) {
  bubbler.call("tools/call", { name: "ui.speechBubble", arguments: { anchor: { type: "world", position: [i % 40, 2, 0] }, text: `bubble ${i}` } }).then((r) => {
    count(attacks, r.result?.success ? "bubbleMade" : `bubble:${r.error?.data?.error?.code ?? r.error?.code}`);
  });
}

// The measured run: reads every 100 ms from each well-behaved WebSocket client, staggered, and every 250 ms from each HTTP session.
const rtts = [];
/** Well-behaved reads answered with a refusal instead of a result, by what they were told. */
const refusals = {};
let sent = 0;
let answered = 0;
/** Reads not answered yet: a reply is lost only if it never comes. */
const inFlight = new Set();
const timers = good.map((c, i) =>
  setTimeout(() => {
    timers.push(
      setInterval(() => {
        sent++;
        const t = performance.now();
        const read = c.call("tools/call", { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 5 } }).then((r) => {
          answered++;
          if (r.result?.success) rtts.push(performance.now() - t);
          else count(refusals, `ws ${r.error?.message ?? "failed"}`);
        });
        inFlight.add(read);
        read.then(() => inFlight.delete(read));
      }, 100),
    );
  }, (i * 100) / GOOD),
);
const httpRtts = [];
let httpSent = 0;
let httpAnswered = 0;
const httpTimers = goodHttp.map((sid) =>
  setInterval(() => {
    const id = ++httpSent;
    const t = performance.now();
    const read = request("POST", { body: { jsonrpc: "2.0", id, method: "tools/call", params: { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 5 } } }, headers: { "mcp-session-id": sid } }).then((r) => {
      // A refusal (503 with Retry-After) is an answer too.
      if (typeof r.status === "number") httpAnswered++;
      if (r.status === 200 && r.json?.result && !r.json.result.isError) httpRtts.push(performance.now() - t);
      else count(refusals, `http ${r.status} ${r.json?.error?.message ?? ""}`.trim());
    });
    inFlight.add(read);
    read.then(() => inFlight.delete(read));
  }, 250),
);
const tickOf = async () => (await monitor.call("tools/call", { name: "inspector.snapshot", arguments: { limit: 0 } })).result.result.world.tick;
await monitor.call("tools/call", { name: "probe.frames" });
const rss = [];
const frames = [];
const tick0 = await tickOf();
const cpu0 = cpuSecs();
const started = performance.now();
// Looked for every 5 s as well as at the end: `trace.tail` reads the recent window (8192 events), which a
// server catching up on a backlog of reads can pass in less than the second between two such events.
const overBudgetSeen = async () =>
  (await monitor.call("tools/call", { name: "trace.tail", arguments: { type: "package.tick.overbudget", limit: 1 } })).result?.result?.events?.length ?? 0;
let overBudget = 0;
for (let s = 5; s <= SECONDS; s += 5) {
  // At each 5 s mark of the clock, not 5 s after the last look's answers: a starved server answers the monitor
  // slowly (seconds), and the attacks last the minute, not a minute plus every wait.
  await sleep(started + s * 1000 - performance.now());
  rss.push(rssMiB());
  frames.push((await monitor.call("tools/call", { name: "probe.frames" })).result.result);
  overBudget += await overBudgetSeen();
}
const tick1 = await tickOf();
const elapsed = (performance.now() - started) / 1000;
const serverCpuPercent = Math.round(((cpuSecs() - cpu0) / elapsed) * 100);
const machineLoad = +loadavg()[0].toFixed(1);
timers.forEach((t) => clearInterval(t));
httpTimers.forEach((t) => clearInterval(t));
running.forEach((stop) => stop());
stopping = true;
// Every read sent comes home, however far behind a busy machine left the server: waited for as long as
// replies keep coming; one still out after two minutes without any is lost.
for (let quiet = 0, last = -1; inFlight.size > 0 && quiet < 120_000; ) {
  await sleep(100);
  const now = answered + httpAnswered;
  quiet = now === last ? quiet + 100 : 0;
  last = now;
}
overBudget += await overBudgetSeen();
const lost = sent - answered + (httpSent - httpAnswered);
const serverAlive = alive;
server.kill("SIGTERM");
for (const s of [...sockets, ...streams]) s.destroy();
keepAlive.destroy();
rmSync(pkgDir, { recursive: true, force: true });

rtts.sort((a, b) => a - b);
httpRtts.sort((a, b) => a - b);
const figures = {
  bench: "soak",
  seconds: SECONDS,
  wellBehaved: { ws: GOOD, http: GOOD_HTTP },
  serverAlive,
  readsSent: sent + httpSent,
  lostReplies: lost,
  refusedReads: refusals,
  readRttP50Ms: +pct(rtts, 50).toFixed(2),
  readRttP99Ms: +pct(rtts, 99).toFixed(2),
  httpReadRttP50Ms: +pct(httpRtts, 50).toFixed(2),
  httpReadRttP99Ms: +pct(httpRtts, 99).toFixed(2),
  stepsPerSec: +((tick1 - tick0) / elapsed).toFixed(1),
  serverCpuPercent,
  machineLoad,
  framesPerSec: +(frames.reduce((n, f) => n + f.frames, 0) / elapsed).toFixed(1),
  longestFrameGapMs: +Math.max(...frames.map((f) => f.maxGapMs)).toFixed(1),
  longestFrameGapCpuMs: +Math.max(...frames.map((f) => f.maxGapCpuMs)).toFixed(1),
  oversizeMessages: oversizeSent,
  oversizeClosedWith1009,
  packageOverBudgetRecorded: overBudget > 0,
  attacks,
  rssMiB: rss,
};
console.log(
  `soak ${SECONDS} s, ${GOOD} WebSocket + ${GOOD_HTTP} HTTP well-behaved clients against every hostile one: ${lost} of ${figures.readsSent} reads lost; ` +
    `read p50 ${figures.readRttP50Ms} ms, p99 ${figures.readRttP99Ms} ms (HTTP ${figures.httpReadRttP50Ms}/${figures.httpReadRttP99Ms} ms); ` +
    `${figures.stepsPerSec} steps/s, ${figures.framesPerSec} frames/s (longest gap ${figures.longestFrameGapMs} ms); server CPU ${serverCpuPercent}% of a core, machine load ${machineLoad}; RSS ${rss.join(" → ")} MiB`,
);
console.log(JSON.stringify(figures));
