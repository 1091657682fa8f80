// MCP over stdio, Limina beside its peers in one run with one client: the
// official TypeScript SDK's server answering a trivial tool, and (when
// .venv has it) the Python SDK's. Each server is spawned and driven as a
// standard MCP client would: spawn to the first reply (initialize), to the
// first tools/list reply and to the first tools/call reply (a read, sent
// after the list's reply, as a client does), and idle memory, then sequential tools/call round trips (p50/p99) and pipelined
// throughput. Limina runs `--mcp-stdio` as shipped: the policy engine on,
// every call decided, recorded and traced in the sha256-chained world log;
// its read is `scene.queryEntities` (a spatial query finding one entity),
// its write `ecs.updateComponent`. The peers answer `peer.read` with a
// constant. Before anything is timed, every kind of call runs WARMUP
// times, interleaved, then once as a pipelined burst: whichever kind is
// timed first otherwise pays alone for the server's warm-up (V8 tiering
// its whole call path up, the first burst's buffers and heap growth).
// Beside the rates, the server's own CPU time per pipelined read (user +
// system, all its threads), and its CPU time when its first replies land,
// which a loaded machine distorts far less than wall time.
// Run: node js/bench/mcp_stdio.mjs target/release/limina   (final line: JSON figures)
//      node js/bench/mcp_stdio.mjs target/release/limina limina   (Limina alone)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectStdio } from "../test/node/stdio_rpc.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../..");
const limina = process.argv[2] ?? "target/release/limina";
const only = process.argv[3];
const python = join(root, ".venv/bin/python");

const SEQUENTIAL = 2000;
const WARMUP = 2000;
const PIPELINED = 20000;
const SPAWNS = 10;

const SERVERS = [
  { name: "limina", cmd: limina, args: ["--mcp-stdio"] },
  { name: "tsSdk", cmd: process.execPath, args: [join(here, "peers/ts_sdk_server.mjs")] },
  ...(existsSync(python) ? [{ name: "pythonSdk", cmd: python, args: [join(here, "peers/python_sdk_server.py")] }] : []),
].filter((s) => only === undefined || s.name === only);

const connect = ({ cmd, args }) => connectStdio(cmd, args, { cwd: root });
/** Each server's cheap read: Limina's spatial query finding what is near the origin; the peers' constant. */
const READ = { limina: { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 1 } } };
const readParams = (server) => READ[server.name] ?? { name: "peer.read", arguments: {} };

async function handshake(c) {
  const init = await c.call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } });
  if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
  const firstReplyMs = performance.now() - c.spawned;
  c.notify("notifications/initialized");
  return firstReplyMs;
}

const ok = (r) => r.result !== undefined && r.result.isError !== true;
const pct = (s, p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
const ms = (v) => +v.toFixed(4);
/** CPU time of all of a process's threads so far, in ms, to the nanosecond (`/proc/<pid>/task/<tid>/schedstat`). */
const threadsCpuMs = (pid) => {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ns / 1e6;
};
const rssMiB = (pid) => +(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024).toFixed(1);

async function warmUp(fns) {
  for (let i = 0; i < WARMUP; i++) for (const fn of fns) await fn(i);
  for (const fn of fns) await pipelined(fn, PIPELINED);
}

async function sequential(fn, n) {
  const rtt = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fn(i);
    rtt.push(performance.now() - t);
    if (!ok(r)) throw new Error(JSON.stringify(r));
  }
  rtt.sort((a, b) => a - b);
  return { p50Ms: ms(pct(rtt, 50)), p99Ms: ms(pct(rtt, 99)) };
}

async function pipelined(fn, n) {
  const t0 = performance.now();
  const replies = await Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
  const perSec = Math.round(n / ((performance.now() - t0) / 1000));
  if (!replies.every(ok)) throw new Error(`a pipelined call failed: ${JSON.stringify(replies.find((r) => !ok(r)))}`);
  return perSec;
}

async function measure(server) {
  // Spawn to first reply, first list and first call (wall, and the server's CPU by then), p50 of
  // SPAWNS fresh processes; the last one's memory once idle.
  const [firsts, lists, calls, cpuFirsts, cpuLists, cpuCalls] = [[], [], [], [], [], []];
  for (let i = 0; i < SPAWNS; i++) {
    const c = connect(server);
    firsts.push(await handshake(c));
    cpuFirsts.push(threadsCpuMs(c.child.pid));
    if (!(await c.call("tools/list", {})).result) throw new Error("tools/list failed");
    lists.push(performance.now() - c.spawned);
    cpuLists.push(threadsCpuMs(c.child.pid));
    if (!ok(await c.call("tools/call", readParams(server)))) throw new Error("the first tools/call failed");
    calls.push(performance.now() - c.spawned);
    cpuCalls.push(threadsCpuMs(c.child.pid));
    await c.close();
  }
  for (const list of [firsts, lists, calls, cpuFirsts, cpuLists, cpuCalls]) list.sort((a, b) => a - b);
  const c = connect(server);
  await handshake(c);
  await c.call("tools/list", {});
  await new Promise((r) => setTimeout(r, 500));
  const idleRssMiB = rssMiB(c.child.pid);

  let read, write;
  if (server.name === "limina") {
    const made = await c.call("tools/call", { name: "scene.createEntity", arguments: {} });
    const entity = made.result.structuredContent.entity;
    read = () => c.call("tools/call", readParams(server));
    write = (i) => c.call("tools/call", { name: "ecs.updateComponent", arguments: { entity, component: "position", value: [i % 2, 0, 0] } });
  } else {
    read = () => c.call("tools/call", readParams(server));
  }
  await warmUp([read, write].filter(Boolean));
  const figures = { spawnToFirstReplyP50Ms: ms(pct(firsts, 50)), spawnToFirstListP50Ms: ms(pct(lists, 50)), spawnToFirstCallP50Ms: ms(pct(calls, 50)),
    serverCpuToFirstReplyP50Ms: +pct(cpuFirsts, 50).toFixed(1), serverCpuToFirstListP50Ms: +pct(cpuLists, 50).toFixed(1), serverCpuToFirstCallP50Ms: +pct(cpuCalls, 50).toFixed(1), idleRssMiB, read: await sequential(read, SEQUENTIAL) };
  if (write) figures.write = await sequential(write, SEQUENTIAL);
  const cpuBefore = threadsCpuMs(c.child.pid);
  const clientBefore = process.cpuUsage();
  figures.pipelinedReadsPerSec = await pipelined(read, PIPELINED);
  figures.serverCpuUsPerPipelinedRead = +(((threadsCpuMs(c.child.pid) - cpuBefore) * 1000) / PIPELINED).toFixed(1);
  const client = process.cpuUsage(clientBefore);
  figures.clientCpuUsPerPipelinedRead = +((client.user + client.system) / PIPELINED).toFixed(1);
  if (write) figures.pipelinedWritesPerSec = await pipelined(write, PIPELINED);
  figures.stderrAtStart = c.stderr().slice(0, 400);
  await c.close();
  return figures;
}

const results = {};
for (const server of SERVERS) results[server.name] = await measure(server);

const out = { bench: "mcp_stdio", sequentialCalls: SEQUENTIAL, pipelinedCalls: PIPELINED, spawns: SPAWNS, ...results };
if (results.limina && results.tsSdk) {
  out.vsTsSdk = {
    readP50Ratio: +(results.limina.read.p50Ms / results.tsSdk.read.p50Ms).toFixed(2),
    pipelinedRatio: +(results.limina.pipelinedReadsPerSec / results.tsSdk.pipelinedReadsPerSec).toFixed(2),
    serverCpuPerReadRatio: +(results.limina.serverCpuUsPerPipelinedRead / results.tsSdk.serverCpuUsPerPipelinedRead).toFixed(2),
  };
}
for (const [name, f] of Object.entries(results)) {
  console.log(
    `${name}: first reply ${f.spawnToFirstReplyP50Ms} ms (first list ${f.spawnToFirstListP50Ms} ms, first call ${f.spawnToFirstCallP50Ms} ms; server CPU ${f.serverCpuToFirstReplyP50Ms} / ${f.serverCpuToFirstListP50Ms} / ${f.serverCpuToFirstCallP50Ms} ms), idle RSS ${f.idleRssMiB} MiB; read p50 ${f.read.p50Ms} ms p99 ${f.read.p99Ms} ms; pipelined ${f.pipelinedReadsPerSec} reads/s (server CPU ${f.serverCpuUsPerPipelinedRead} µs a read)` +
      (f.write ? `; write p50 ${f.write.p50Ms} ms p99 ${f.write.p99Ms} ms, pipelined ${f.pipelinedWritesPerSec}/s` : ""),
  );
}
console.log(JSON.stringify(out));
