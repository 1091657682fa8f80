// stdio MCP round trips: sequential tools/call latency (p50/p99) and
// pipelined throughput, against `limina --mcp-stdio`.
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
const move = (i) => call("tools/call", { name: "ecs.updateComponent", arguments: { entity: ent, component: "position", value: [i, 0, 0] } });
for (let i = 0; i < 50; i++) await move(i);
console.error("warm");

const rtt = [];
for (let i = 0; i < 600; i++) {
  const t = performance.now();
  const r = await move(i);
  if (!r.result?.success) throw new Error(JSON.stringify(r));
  rtt.push(performance.now() - t);
}
rtt.sort((a, b) => a - b);
console.error("seq done");

const PIPELINED = 5000;
const t0 = performance.now();
await Promise.all(Array.from({ length: PIPELINED }, (_, i) => move(i)));
const callsPerSec = PIPELINED / ((performance.now() - t0) / 1000);
child.stdin.end();
await new Promise((r) => child.on("exit", r));

const figures = {
  bench: "mcp_stdio",
  sequentialCalls: rtt.length,
  rttP50Ms: +pct(rtt, 50).toFixed(3),
  rttP99Ms: +pct(rtt, 99).toFixed(3),
  pipelinedCalls: PIPELINED,
  pipelinedCallsPerSec: Math.round(callsPerSec),
};
console.log(`tools/call round trip: p50 ${figures.rttP50Ms} ms, p99 ${figures.rttP99Ms} ms; pipelined: ${figures.pipelinedCallsPerSec} calls/s`);
console.log(JSON.stringify(figures));
