// Soak: 64 well-behaved WebSocket clients and 4 hostile ones against one
// `limina --mcp-ws` world for a minute. The well-behaved subscribe to state
// and make a cheap read every 100 ms; the hostile are a flooder (pipelines
// calls and never reads a reply), a slow reader (subscribed, its socket
// paused), a half-open socket (connects, sends half a handshake, then
// nothing) and an oversize sender (2 MiB messages, reconnecting each time).
// Reports lost replies and the read round trip of the well-behaved, the
// server's frame rate and longest frame gap, and its RSS over time.
// Run: node js/bench/soak.mjs target/release/limina [seconds]   (final line: JSON figures)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import WebSocket from "ws";

const limina = process.argv[2] ?? "target/release/limina";
const SECONDS = Number(process.argv[3] ?? 60);
const GOOD = 64;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

const server = spawn(limina, ["--mcp-ws", "--port", "0", "tests/fixtures/arrival_world.ts"], { stdio: ["ignore", "ignore", "pipe"] });
const port = await new Promise((resolve, reject) => {
  let err = "";
  server.stderr.on("data", (d) => {
    err += d;
    const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
    if (m) resolve(Number(m[1]));
  });
  server.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
});
let alive = true;
server.on("exit", () => (alive = false));
const rssMiB = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))[1]) / 1024);
const url = `ws://127.0.0.1:${port}`;

function client(name, { subscribe }) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
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
      await call("initialize", { agentId: name, sessionId: `sess_${name}`, profile: "builder.readWrite" });
      if (subscribe) await call("state/subscribe");
      resolve({ ws, call, pending });
    });
  });
}

// The well-behaved.
const good = [];
for (let i = 0; i < GOOD; i++) good.push(await client(`good_${i}`, { subscribe: true }));
const monitor = await client("monitor", { subscribe: false });

// The hostile.
const flooder = await client("flooder", { subscribe: false });
flooder.ws._socket.pause(); // never reads a reply
const flood = setInterval(() => {
  for (let i = 0; i < 200; i++) flooder.ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1e6 + i, method: "tools/call", params: { name: "skills.list" } }));
}, 10);
const slow = await client("slow", { subscribe: true });
slow.ws._socket.pause();
const halfOpen = net.connect(port, "127.0.0.1", () => halfOpen.write("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"));
halfOpen.on("error", () => {});
let oversizeSent = 0;
let oversizeClosedWith1009 = 0;
let oversizeRunning = true;
(async () => {
  while (oversizeRunning) {
    const ws = new WebSocket(url);
    ws.on("error", () => {});
    await new Promise((r) => ws.on("open", r));
    const closed = new Promise((r) => ws.on("close", (code) => r(code)));
    ws.send("x".repeat(2 << 20));
    oversizeSent++;
    if ((await closed) === 1009) oversizeClosedWith1009++;
    await sleep(200);
  }
})();

// The minute: reads every 100 ms from each well-behaved client, staggered.
const rtts = [];
let sent = 0;
let answered = 0;
const timers = good.map((c, i) =>
  setTimeout(() => {
    timers.push(
      setInterval(async () => {
        sent++;
        const t = performance.now();
        const r = await c.call("tools/call", { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 5 } });
        if (r.result?.success) {
          answered++;
          rtts.push(performance.now() - t);
        }
      }, 100),
    );
  }, (i * 100) / GOOD),
);
await monitor.call("tools/call", { name: "probe.frames" });
const rss = [];
const frames = [];
const started = performance.now();
for (let s = 5; s <= SECONDS; s += 5) {
  await sleep(5000);
  rss.push(rssMiB());
  const probe = (await monitor.call("tools/call", { name: "probe.frames" })).result.result;
  frames.push(probe);
}
const elapsed = (performance.now() - started) / 1000;
timers.forEach((t) => clearInterval(t));
clearInterval(flood);
oversizeRunning = false;
await sleep(2000); // the last reads come home
const lost = sent - answered;
const serverAlive = alive;
server.kill("SIGTERM");
halfOpen.destroy();

rtts.sort((a, b) => a - b);
const figures = {
  bench: "soak",
  seconds: SECONDS,
  wellBehaved: GOOD,
  hostile: ["flooder", "slow reader", "half-open socket", "oversize frames"],
  serverAlive,
  readsSent: sent,
  lostReplies: lost,
  readRttP50Ms: +pct(rtts, 50).toFixed(2),
  readRttP99Ms: +pct(rtts, 99).toFixed(2),
  framesPerSec: +(frames.reduce((n, f) => n + f.frames, 0) / elapsed).toFixed(1),
  longestFrameGapMs: +Math.max(...frames.map((f) => f.maxGapMs)).toFixed(1),
  oversizeMessages: oversizeSent,
  oversizeClosedWith1009,
  rssMiB: rss,
};
console.log(
  `soak ${SECONDS} s, ${GOOD} well-behaved + 4 hostile clients: ${lost} of ${sent} reads lost; read p50 ${figures.readRttP50Ms} ms, p99 ${figures.readRttP99Ms} ms; ${figures.framesPerSec} frames/s (longest gap ${figures.longestFrameGapMs} ms); ${oversizeClosedWith1009}/${oversizeSent} oversize messages closed with 1009; RSS ${rss.join(" → ")} MiB`,
);
console.log(JSON.stringify(figures));
