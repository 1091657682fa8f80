// Spectators beyond one machine: one world server (the numbers party, 200
// agents moving every tick) publishes its state stream to a real
// nats-server (`--spectator-sink`); R relays (`limina relay`) fan it out to
// S headless WebSocket spectators (initialize as `spectator`, state/subscribe,
// split evenly across the relays). Measured, with no spectators and then
// with S: end-to-end delta latency (the world stamps each delta with its
// tick's epoch time; spectators compare on arrival — same machine, same
// clock), the world server's sim-step p50/p95 (its own timing, from the first
// fixed-step system to the last: the party, the state stream, the sink) and
// CPU, and the relays' CPU. The world's cost must not grow with the audience.
// The spectators are spread over C client processes (forked from this
// script), so one process reading every socket is not what is measured; on
// a machine with fewer cores than C they still share those cores with the
// world, NATS and the relays.
// Run: node js/bench/web_fanout.mjs target/release/limina [spectators=2000] [relays=2] [seconds=5] [clients=4]
//      (final line: JSON figures)
import { fork, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { deltaSentAt } from "./delta_head.mjs";
import { startNats } from "../test/node/nats_server.mjs";

const limina = process.argv[2] ?? "target/release/limina";
const SPECTATORS = Number(process.argv[3] ?? 2000);
const RELAYS = Number(process.argv[4] ?? 2);
const SECONDS = Number(process.argv[5] ?? 5);
const CLIENTS = Math.max(1, Math.min(SPECTATORS || 1, Number(process.argv[6] ?? 4)));
const CLOCK_TICKS = 100; // USER_HZ: /proc/<pid>/stat times are in 1/100 s

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const pct = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
const round = (v, d = 2) => +v.toFixed(d);
const cpuSeconds = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
};

// ---- a client process: its share of the spectators -------------------------------------------
if (process.argv[2] === "--spectators") {
  const [first, count, ports, processes] = [Number(process.argv[3]), Number(process.argv[4]), process.argv[5].split(",").map(Number), Number(process.argv[6])];
  let measuring = false;
  const latencies = [];
  let deltas = 0;
  let bytes = 0;
  /** One spectator: a WebSocket client of relay `port` that only reads the head of each delta. */
  const spectator = (i, port) =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false });
      let synced = false;
      ws.on("open", () => {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: `spectator_${i}`, sessionId: `s${i}`, profile: "spectator" } }));
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "state/subscribe" }));
      });
      ws.on("message", (data) => {
        const at = now();
        const sent = deltaSentAt(data);
        if (sent !== undefined) {
          if (measuring) {
            latencies.push(at - sent);
            bytes += data.length;
            deltas++;
          }
        } else if (!synced && data.toString("utf8", 0, 120).includes('"state/snapshot"')) {
          synced = true;
          resolve(ws);
        }
      });
      ws.on("error", reject);
    });
  const clients = [];
  // In batches, so the handshakes all client processes have in progress stay within each relay's
  // limit per peer address (16; every process connects from 127.0.0.1, spreading its batch over the relays).
  const BATCH = Math.max(1, Math.floor((16 * ports.length) / processes));
  for (let i = 0; i < count; i += BATCH) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => spectator(first + i + k, ports[(first + i + k) % ports.length])))));
  }
  process.on("message", (m) => {
    if (m === "start") {
      latencies.length = 0;
      deltas = bytes = 0;
      measuring = true;
    } else if (m === "stop") {
      measuring = false;
      process.send({ latencies, deltas, bytes });
    } else if (m === "exit") {
      for (const ws of clients) ws.terminate();
      process.exit(0);
    }
  });
  process.send("ready");
  await new Promise(() => {});
}

/** Spawns `limina …args`; resolves once stderr matches `ready` (its first group: the port). */
function start(args, ready, onLine = () => {}) {
  const proc = spawn(limina, args, { stdio: ["ignore", "ignore", "pipe"] });
  process.on("exit", () => proc.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    let err = "";
    let port = null;
    proc.stderr.on("data", (d) => {
      err += d;
      const lines = err.split("\n");
      err = lines.pop();
      for (const line of lines) {
        onLine(line);
        const m = port === null && ready.exec(line);
        if (m) {
          port = Number(m[1]);
          resolve({ proc, port });
        }
      }
    });
    proc.on("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}: ${err}`)));
  });
}

const { port: natsPort } = await startNats();
const sink = `nats://127.0.0.1:${natsPort}/limina.fanout.bench${process.pid}`;
let steps = [];
let collecting = false;
const world = await start(["--mcp-ws", "--port", "0", "--spectator-sink", sink, "js/bench/worlds/numbers_party.ts"], /listening on ws:\/\/127\.0\.0\.1:(\d+)/, (line) => {
  if (collecting && line.startsWith("limina-bench steps ")) steps.push(...JSON.parse(line.slice(19)));
});
const perRelay = Math.ceil(SPECTATORS / RELAYS);
const relays = [];
for (let i = 0; i < RELAYS; i++) relays.push(await start(["--max-clients", String(perRelay + 16), "relay", sink, "--port", "0"], /serving spectators of \S+ on ws:\/\/127\.0\.0\.1:(\d+)/));

/** The client processes, each holding its share of the spectators. */
const clients = [];
/** Asks every client process for what it measured since "start". */
const gather = () =>
  Promise.all(clients.map((c) => new Promise((resolve) => {
    c.once("message", resolve);
    c.send("stop");
  })));

/** The world's sim-step times and CPU, and the relays' CPU, over SECONDS; the spectators' deltas from the client processes. */
async function measure() {
  const worldCpu = cpuSeconds(world.proc.pid);
  const relayCpu = relays.map((r) => cpuSeconds(r.proc.pid));
  steps = [];
  for (const c of clients) c.send("start");
  collecting = true;
  await sleep(SECONDS * 1000);
  collecting = false;
  const worldCpuSeconds = cpuSeconds(world.proc.pid) - worldCpu;
  const got = await gather();
  const latencies = got.flatMap((g) => g.latencies);
  const deltas = got.reduce((n, g) => n + g.deltas, 0);
  const bytes = got.reduce((n, g) => n + g.bytes, 0);
  const s = [...steps].sort((a, b) => a - b);
  const l = [...latencies].sort((a, b) => a - b);
  return {
    simStepP50Ms: round(pct(s, 50), 3),
    simStepP95Ms: round(pct(s, 95), 3),
    steps: s.length,
    worldCpuPercent: round((worldCpuSeconds / SECONDS) * 100, 1),
    // The world's CPU per step it took: its cost, however the scheduler spread the steps.
    worldCpuMsPerStep: s.length ? round((worldCpuSeconds * 1000) / s.length, 2) : NaN,
    relayCpuPercent: relays.map((r, i) => round(((cpuSeconds(r.proc.pid) - relayCpu[i]) / SECONDS) * 100, 1)),
    deltasPerSpectatorPerSec: SPECTATORS && deltas ? round(deltas / SPECTATORS / SECONDS, 1) : 0,
    deltaKiB: deltas ? round(bytes / deltas / 1024, 2) : 0,
    deltaLatencyP50Ms: round(pct(l, 50)),
    deltaLatencyP95Ms: round(pct(l, 95)),
    deltaLatencyMaxMs: round(l.length ? l[l.length - 1] : NaN),
  };
}

await sleep(2000); // the party under way, the relays holding the world's first snapshot
const alone = await measure();
console.log(`no spectators (world → NATS → ${RELAYS} relays): sim-step p50 ${alone.simStepP50Ms} ms, p95 ${alone.simStepP95Ms} ms; world CPU ${alone.worldCpuPercent} % (${alone.worldCpuMsPerStep} ms a step)`);

// The spectators, split evenly over the client processes (each connects its share in batches).
const ports = relays.map((r) => r.port).join(",");
const share = Math.ceil(SPECTATORS / CLIENTS);
for (let first = 0; first < SPECTATORS; first += share) {
  const c = fork(fileURLToPath(import.meta.url), ["--spectators", String(first), String(Math.min(share, SPECTATORS - first)), ports, String(Math.ceil(SPECTATORS / share))], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  process.on("exit", () => c.kill("SIGKILL"));
  clients.push(c);
}
await Promise.all(clients.map((c) => new Promise((resolve, reject) => {
  c.once("message", resolve);
  c.once("exit", (code) => reject(new Error(`a client process exited ${code} while connecting`)));
})));
await sleep(1000);
const watched = await measure();
console.log(
  `${SPECTATORS} spectators over ${RELAYS} relays: delta latency p50 ${watched.deltaLatencyP50Ms} ms, p95 ${watched.deltaLatencyP95Ms} ms (max ${watched.deltaLatencyMaxMs}); ${watched.deltasPerSpectatorPerSec} deltas/s each (${watched.deltaKiB} KiB); world sim-step p50 ${watched.simStepP50Ms} ms, p95 ${watched.simStepP95Ms} ms, CPU ${watched.worldCpuPercent} % (${watched.worldCpuMsPerStep} ms a step); relays CPU ${watched.relayCpuPercent.join(" %, ")} %`,
);
for (const c of clients) c.send("exit");
for (const r of relays) r.proc.kill("SIGTERM");
world.proc.kill("SIGTERM");
console.log(JSON.stringify({ bench: "web_fanout", world: "numbers_party", spectators: SPECTATORS, relays: RELAYS, seconds: SECONDS, clientProcesses: CLIENTS, alone, watched }));
process.exit(0);
