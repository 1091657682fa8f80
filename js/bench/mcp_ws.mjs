// The WebSocket world server under load: N subscribed clients (1, 4, 16
// and 64, a fresh server each), 2000 entities all moving at 60 Hz. Each
// client also makes a cheap read call (`scene.queryEntities`) every 50 ms.
// Measures the request round trip, tick-to-delivery latency of the state
// deltas (the server stamps each delta with its tick's epoch time; clients
// compare on arrival — same machine, same clock), server CPU and memory
// per client. Each count runs twice: clients on the JSON stream (`curve`)
// and on the binary one (`binaryCurve`, `state/subscribe` with
// `encoding: "binary"`). With a busy time, the server's loop thread stays
// busy that long every frame after its steps, as drawing or agents' work
// keeps it (js/bench/worlds/moving.ts --busy-ms).
// Run: node js/bench/mcp_ws.mjs target/release/limina [clients,…] [busy ms]   (final line: JSON figures)
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import WebSocket from "ws";
import { deltaSentAt } from "./delta_head.mjs";

const limina = process.argv[2] ?? "target/release/limina";
const COUNTS = (process.argv[3] ?? "1,4,16,64").split(",").map(Number);
const BUSY_MS = Number(process.argv[4] ?? 0);
const ENTITIES = 2000;
const SECONDS = 4;
const CALL_EVERY_MS = 50;
const CLOCK_TICKS = 100; // USER_HZ: /proc/<pid>/stat times are in 1/100 s

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

async function scenario(clientCount, encoding) {
  const server = spawn(limina, ["--mcp-ws", "--port", "0", "js/bench/worlds/moving.ts", `--entities=${ENTITIES}`, `--busy-ms=${BUSY_MS}`], { stdio: ["ignore", "inherit", "pipe"] });
  const port = await new Promise((resolve) => {
    let err = "";
    server.stderr.on("data", (d) => {
      err += d;
      const m = /ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
  });
  const proc = (file) => readFileSync(`/proc/${server.pid}/${file}`, "utf8");
  const rssKiB = () => Number(/VmRSS:\s+(\d+)/.exec(proc("status"))[1]);
  // utime + stime, fields 14 and 15 after the parenthesised command name.
  const cpuSeconds = () => {
    const f = proc("stat").slice(proc("stat").lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  };
  // The loop thread is the process's first (its calls, steps and state fan-out); schedstat counts nanoseconds.
  const loopCpuSeconds = () => Number(proc(`task/${server.pid}/schedstat`).split(" ")[0]) / 1e9;
  // How many times the socket writer threads were run (schedstat's third field): each is a wake-up.
  const writerRuns = () =>
    readdirSync(`/proc/${server.pid}/task`)
      .filter((t) => proc(`task/${t}/comm`).startsWith("limina-ws-write"))
      .reduce((n, t) => n + Number(proc(`task/${t}/schedstat`).split(" ")[2]), 0);

  await sleep(500);
  const rssBefore = rssKiB();
  const latencies = [];
  const rtts = [];
  let bytes = 0;
  let deltas = 0;
  let measuring = false;
  // Opened 8 at a time: the server admits a bounded number of handshakes per peer address.
  const open = (i) =>
    new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`);
      const sentAt = new Map();
      let next = 3;
      ws.on("open", () => {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: `viewer_${i}`, sessionId: `sess_${i}`, profile: "system.readonly" } }));
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "state/subscribe", ...(encoding === "binary" ? { params: { encoding } } : {}) }));
        resolve({ ws, call });
      });
      function call() {
        const id = next++;
        sentAt.set(id, now());
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 1 } } }));
      }
      ws.on("message", (data, isBinary) => {
        const at = now();
        const sent = deltaSentAt(data, isBinary);
        if (sent !== undefined) {
          if (measuring) {
            latencies.push(at - sent);
            bytes += data.length;
            deltas++;
          }
          return;
        }
        const id = /"id":(\d+)/.exec(data.toString("utf8", 0, 120))?.[1];
        if (id !== undefined && sentAt.has(Number(id))) {
          if (measuring) rtts.push(at - sentAt.get(Number(id)));
          sentAt.delete(Number(id));
        }
      });
    });
  const clients = [];
  for (let i = 0; i < clientCount; i += 8) clients.push(...(await Promise.all(Array.from({ length: Math.min(8, clientCount - i) }, (_, k) => open(i + k)))));
  // Calls staggered over the interval, so they do not all land on one tick.
  // Each client keeps its own schedule: Node re-arms every interval that
  // fired in one late batch from the same loop time, so `setInterval`s
  // merged for good each time this process fell behind (all 16 within
  // ~1 ms after a few seconds: every call queued behind the others).
  const timers = [];
  const start = now();
  clients.forEach((c, i) => {
    let n = 0;
    const next = () => {
      const due = start + ((i + n * clientCount) * CALL_EVERY_MS) / clientCount;
      timers[i] = setTimeout(() => {
        c.call();
        n++;
        next();
      }, Math.max(0, due - now()));
    };
    next();
  });
  await sleep(1000);
  const rssAfter = rssKiB();
  const cpuBefore = cpuSeconds();
  const loopCpuBefore = loopCpuSeconds();
  const writerRunsBefore = writerRuns();
  measuring = true;
  await sleep(SECONDS * 1000);
  measuring = false;
  const cpu = cpuSeconds() - cpuBefore;
  const loopCpu = loopCpuSeconds() - loopCpuBefore;
  const writerWakeups = writerRuns() - writerRunsBefore;
  timers.forEach((t) => clearTimeout(t));
  for (const c of clients) c.ws.close();
  server.kill("SIGTERM");
  await new Promise((r) => server.on("exit", r));

  latencies.sort((a, b) => a - b);
  rtts.sort((a, b) => a - b);
  return {
    clients: clientCount,
    encoding,
    deltasPerClientPerSec: +(deltas / clientCount / SECONDS).toFixed(1),
    deltaKiB: +(bytes / deltas / 1024).toFixed(1),
    calls: rtts.length,
    rttP50Ms: +pct(rtts, 50).toFixed(3),
    rttP95Ms: +pct(rtts, 95).toFixed(3),
    rttP99Ms: +pct(rtts, 99).toFixed(3),
    deltaLatencyP50Ms: +pct(latencies, 50).toFixed(2),
    deltaLatencyP95Ms: +pct(latencies, 95).toFixed(2),
    deltaLatencyMaxMs: +latencies[latencies.length - 1].toFixed(2),
    serverCpuPercent: +((cpu / SECONDS) * 100).toFixed(1),
    loopCpuPercent: +((loopCpu / SECONDS) * 100).toFixed(1),
    writerWakeupsPerSec: Math.round(writerWakeups / SECONDS),
    serverCpuPerClientPercent: +((cpu / SECONDS / clientCount) * 100).toFixed(2),
    serverMemoryPerClientKiB: Math.round((rssAfter - rssBefore) / clientCount),
  };
}

const curve = [];
const binaryCurve = [];
for (const n of COUNTS) for (const encoding of ["json", "binary"]) {
  const s = await scenario(n, encoding);
  (encoding === "json" ? curve : binaryCurve).push(s);
  console.log(
    `${encoding}: ${n} clients × ${ENTITIES} moving entities: call round trip p50 ${s.rttP50Ms} ms, p95 ${s.rttP95Ms} ms; ${s.deltasPerClientPerSec} deltas/s per client (${s.deltaKiB} KiB), tick-to-delivery p50 ${s.deltaLatencyP50Ms} ms, p95 ${s.deltaLatencyP95Ms} ms; server CPU ${s.serverCpuPercent} % (loop thread ${s.loopCpuPercent} %, ${s.serverCpuPerClientPercent} % per client), ~${s.serverMemoryPerClientKiB} KiB per client`,
  );
}
console.log(JSON.stringify({ bench: "mcp_ws", entities: ENTITIES, seconds: SECONDS, callEveryMs: CALL_EVERY_MS, busyMs: BUSY_MS, curve, binaryCurve }));
