// Sandbox benchmark: what isolation costs. Creating a QuickJS sandbox
// (runtime, context, the host prelude), the round trip of one
// `host.invoke` through the host bridge (an intent out, the policy engine's
// decision, a registry call, the promise settled back in), an empty entry
// into a sandbox (a tick's fixed cost), and the memory one sandbox holds.
// Usage: limina js/bench/sandbox.ts    Final line: JSON.
import { type Attribution, HostBridge, PolicyEngine, Sandbox, WorldSession } from "limina";

const LIMITS = { memoryBytes: 32 << 20, stackBytes: 256 << 10 };
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Creation: N sandboxes alive at once, so memory per sandbox is measured too.
const N = 200;
const created: Sandbox[] = [];
for (let i = 0; i < 20; i++) Sandbox.create(LIMITS).dispose();
const times: number[] = [];
for (let i = 0; i < N; i++) {
  const t0 = performance.now();
  created.push(Sandbox.create(LIMITS));
  times.push(performance.now() - t0);
}
const createUs = median(times) * 1000;
const idleBytes = median(created.map((s) => s.memoryBytes));
// A small package's worth of code: a few closures and a tick handler.
for (const s of created) s.eval("let n = 0; const seen = new Map(); host.onTick(({ tick }) => { n++; seen.set(tick % 8, n); });", "pkg.js", 50);
const loadedBytes = median(created.map((s) => s.memoryBytes));
const t1 = performance.now();
for (const s of created) s.dispose();
const disposeUs = ((performance.now() - t1) * 1000) / N;

// An empty entry: one tick of a package whose handler does almost nothing.
const ticker = Sandbox.create(LIMITS);
ticker.eval("let n = 0; host.onTick(() => { n++; });", "tick.js", 50);
const TICKS = 20_000;
for (let i = 0; i < 1000; i++) ticker.call(null, { tick: i }, 5);
let t2 = performance.now();
for (let i = 0; i < TICKS; i++) ticker.call(null, { tick: i }, 5);
const tickUs = ((performance.now() - t2) * 1000) / TICKS;
ticker.dispose();

// host.invoke round trip: agent.emitEvent through the bridge, one per round.
const session = new WorldSession({ simulate: false });
const policy = new PolicyEngine(session.tracer);
const bridge = new HostBridge(session.registry, policy);
const who: Attribution = { agentId: "agt_bench", sessionId: "sess_bench", profile: "builder.readWrite", permissions: new Set(["agent.write"]), pkg: "bench@1.0.0", causedBy: [] };
const sandbox = Sandbox.create(LIMITS);
sandbox.eval("function ping(i) { return host.invoke('agent.emitEvent', { type: 'ping', payload: { i } }); }", "ping.js", 50);
const ROUNDS = 5_000;
const budget = { cpuMs: 50, maxIntents: 4 };
for (let i = 0; i < 500; i++) await bridge.run(sandbox, (cpu) => sandbox.call("ping", i, cpu), who, budget);
t2 = performance.now();
for (let i = 0; i < ROUNDS; i++) {
  const r = await bridge.run(sandbox, (cpu) => sandbox.call("ping", i, cpu), who, budget);
  if (r.call !== "done" || r.invoked !== 1) throw new Error(`round ${i}: ${JSON.stringify(r)}`);
}
const invokeRoundTripUs = ((performance.now() - t2) * 1000) / ROUNDS;
// The same skill called directly, for the bridge's own share.
const direct = { agentId: "agt_bench", sessionId: "sess_bench", permissions: ["agent.write"], profile: "builder.readWrite" };
t2 = performance.now();
for (let i = 0; i < ROUNDS; i++) await session.registry.invoke("agent.emitEvent", { type: "ping", payload: { i } }, direct);
const directInvokeUs = ((performance.now() - t2) * 1000) / ROUNDS;
sandbox.dispose();
session.dispose();

const figures = {
  bench: "sandbox",
  createUs: round(createUs, 1),
  disposeUs: round(disposeUs, 1),
  idleKiB: round(idleBytes / 1024, 1),
  loadedKiB: round(loadedBytes / 1024, 1),
  tickUs: round(tickUs, 2),
  invokeRoundTripUs: round(invokeRoundTripUs, 1),
  directInvokeUs: round(directInvokeUs, 1),
};
console.log(`create ${figures.createUs} µs, ${figures.idleKiB} KiB idle (${figures.loadedKiB} KiB with a small package); empty tick ${figures.tickUs} µs; host.invoke round trip ${figures.invokeRoundTripUs} µs (the skill alone ${figures.directInvokeUs} µs)`);
console.log(JSON.stringify(figures));
