// stdio MCP round trips against `limina --mcp-stdio` (policy engine on,
// every call traced): sequential tools/call latency (p50/p99) and pipelined
// throughput, for a cheap read (`scene.queryEntities`) and a write
// (`ecs.updateComponent`).
// Run: node js/bench/mcp_stdio.mjs target/release/limina   (final line: JSON figures)
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const limina = process.argv[2] ?? "target/release/limina";
const child = spawn(limina, ["--mcp-stdio"], { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map();
createInterface({ input: child.stdout }).on("line", (line) => {
  const msg = JSON.parse(line);
  waiting.get(msg.id)?.(msg);
  waiting.delete(msg.id);
});
let next = 1;
const call = (method, params) => {
  const id = next++;
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((r) => waiting.set(id, r));
};
const pct = (s, p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];

await call("initialize", { agentId: "bench", sessionId: "sess_bench", profile: "builder.readWrite" });
const ent = (await call("tools/call", { name: "scene.createEntity", arguments: {} })).result.result.entity;
// The cheap read: a spatial query that finds the one entity.
const read = () => call("tools/call", { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 1 } });
const write = (i) => call("tools/call", { name: "ecs.updateComponent", arguments: { entity: ent, component: "position", value: [i % 2, 0, 0] } });

async function sequential(fn, n) {
  for (let i = 0; i < 200; i++) await fn(i); // warm-up
  const rtt = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fn(i);
    if (!r.result?.success) throw new Error(JSON.stringify(r));
    rtt.push(performance.now() - t);
  }
  return rtt.sort((a, b) => a - b);
}

async function pipelined(fn, n) {
  const t0 = performance.now();
  const replies = await Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
  if (!replies.every((r) => r.result?.success)) throw new Error("a pipelined call failed");
  return Math.round(n / ((performance.now() - t0) / 1000));
}

const SEQUENTIAL = 2000;
const PIPELINED = 20000;
const reads = await sequential(read, SEQUENTIAL);
const writes = await sequential(write, SEQUENTIAL);
const readsPerSec = await pipelined(read, PIPELINED);
const writesPerSec = await pipelined(write, PIPELINED);
child.stdin.end();
await new Promise((r) => child.on("exit", r));

const ms = (v) => +v.toFixed(3);
const figures = {
  bench: "mcp_stdio",
  sequentialCalls: SEQUENTIAL,
  readRttP50Ms: ms(pct(reads, 50)),
  readRttP99Ms: ms(pct(reads, 99)),
  writeRttP50Ms: ms(pct(writes, 50)),
  writeRttP99Ms: ms(pct(writes, 99)),
  pipelinedCalls: PIPELINED,
  pipelinedReadsPerSec: readsPerSec,
  pipelinedWritesPerSec: writesPerSec,
};
console.log(
  `tools/call round trip: read p50 ${figures.readRttP50Ms} ms, p99 ${figures.readRttP99Ms} ms; write p50 ${figures.writeRttP50Ms} ms, p99 ${figures.writeRttP99Ms} ms; pipelined: ${readsPerSec} reads/s, ${writesPerSec} writes/s`,
);
console.log(JSON.stringify(figures));
