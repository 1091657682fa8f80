// The WebSocket world server under load: 16 subscribed clients, 2000
// entities all moving at 60 Hz. Measures tick-to-delivery latency (the
// server stamps each delta with its tick's epoch time; clients compare on
// arrival — same machine, same clock) and server memory per client.
// Run: node js/bench/mcp_ws.mjs target/release/limina   (final line: JSON figures)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import WebSocket from "ws";

const limina = process.argv[2] ?? "target/release/limina";
const CLIENTS = 16;
const ENTITIES = 2000;
const SECONDS = 5;

const server = spawn(limina, ["--mcp-ws", "--port", "0", "js/bench/worlds/moving.ts", `--entities=${ENTITIES}`], { stdio: ["ignore", "inherit", "pipe"] });
const port = await new Promise((resolve) => {
  let err = "";
  server.stderr.on("data", (d) => {
    err += d;
    const m = /ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
    if (m) resolve(Number(m[1]));
  });
});
const rssKiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))[1]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();

await sleep(500);
const rssBefore = rssKiB();
const latencies = [];
let bytes = 0;
let deltas = 0;
let measuring = false;
const clients = await Promise.all(
  Array.from({ length: CLIENTS }, (_, i) =>
    new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`);
      ws.on("open", () => {
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { agentId: `viewer_${i}`, sessionId: `sess_${i}`, profile: "system.readonly" } }));
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "state/subscribe" }));
        resolve(ws);
      });
      ws.on("message", (data) => {
        const at = now();
        // Read the stamp from the head of the message; the body is not parsed.
        const head = data.toString("utf8", 0, 120);
        const m = /"method":"state\/delta","params":\{"tick":\d+,"sentAt":([\d.]+)/.exec(head);
        if (m && measuring) {
          latencies.push(at - Number(m[1]));
          bytes += data.length;
          deltas++;
        }
      });
    })
  ),
);
await sleep(1000);
const rssAfter = rssKiB();
measuring = true;
await sleep(SECONDS * 1000);
measuring = false;
for (const ws of clients) ws.close();
server.kill("SIGTERM");

latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
const figures = {
  bench: "mcp_ws",
  clients: CLIENTS,
  entities: ENTITIES,
  seconds: SECONDS,
  deltasPerClientPerSec: +(deltas / CLIENTS / SECONDS).toFixed(1),
  deltaKiB: +(bytes / deltas / 1024).toFixed(1),
  latencyP50Ms: +pct(50).toFixed(2),
  latencyP95Ms: +pct(95).toFixed(2),
  latencyMaxMs: +latencies[latencies.length - 1].toFixed(2),
  serverMemoryPerClientKiB: Math.round((rssAfter - rssBefore) / CLIENTS),
};
console.log(
  `${CLIENTS} clients × ${ENTITIES} moving entities: ${figures.deltasPerClientPerSec} deltas/s per client (${figures.deltaKiB} KiB each), tick-to-delivery p50 ${figures.latencyP50Ms} ms, p95 ${figures.latencyP95Ms} ms; ~${figures.serverMemoryPerClientKiB} KiB server memory per client`,
);
console.log(JSON.stringify(figures));
