// Runtime bridge costs: an empty fast op, a 1M-element in-place buffer op,
// a small JSON round trip, and process start-up (hello world, a module
// importing three, one building a world session from "limina"), each with
// the start-up cache warm (its snapshot made) and with it off; and a fast
// op's cost through the engine in a process started from a snapshot.
// Run: limina --bench-ops js/bench/runtime.ts   (final line: JSON figures)
import { benchOps, medianMs, round, summarize } from "limina/bench";

const { op_limina_noop, op_limina_add, op_limina_scale_f32, op_limina_echo_json } = benchOps();

function perCallNs(calls: number, fn: () => void): number {
  fn(); // warm up to the optimized, fast-call path
  const t0 = performance.now();
  fn();
  return ((performance.now() - t0) * 1e6) / calls;
}

const CALLS = 10_000_000;
const fastOpNs = perCallNs(CALLS, () => {
  for (let i = 0; i < CALLS; i++) op_limina_noop();
});
let sink = 0;
const fastAddNs = perCallNs(CALLS, () => {
  for (let i = 0; i < CALLS; i++) sink = op_limina_add(sink, 1);
});
const jsLoopNs = perCallNs(CALLS, () => {
  for (let i = 0; i < CALLS; i++) sink += i & 1;
});

const N = 1 << 20;
const data = new Float32Array(N).fill(1);
const scale1MNativeMs = medianMs(50, () => op_limina_scale_f32(data, 1.0001));
const scale1MJsMs = medianMs(50, () => {
  for (let i = 0; i < N; i++) data[i] *= 1.0001;
});

const payload = { id: "ent_42", position: [1.5, -2.25, 3], tags: ["crate", "red"], dynamic: true };
const JSON_CALLS = 100_000;
const jsonRoundTripUs = perCallNs(JSON_CALLS, () => {
  for (let i = 0; i < JSON_CALLS; i++) op_limina_echo_json(payload);
}) / 1000;

const child = (module: string, env: Record<string, string>) =>
  Limina.run({ cmd: Limina.execPath, args: [`js/bench/startup/${module}.ts`], env }).then((out) => {
    if (out.code !== 0) throw new Error(`${module} failed: ${out.stderr}`);
    return out;
  });
const OFF = { LIMINA_CACHE_DIR: "off" };

// Until a run reports its start-up snapshot used (the first runs make it in the background).
async function warm(module: string) {
  for (let i = 0; i < 150; i++) {
    if (/start-up snapshot "\w+" used/.test((await child(module, { LIMINA_STARTUP_LOG: "1" })).stderr)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${module}: no start-up snapshot after 30 s`);
}

async function startup(module: string, runs: number, cache: boolean) {
  if (cache) await warm(module);
  const wall: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const out = await child(module, cache ? {} : OFF);
    if (i > 0) wall.push(out.wallMs); // the first run warms the page cache
  }
  return summarize(wall);
}
const hello = await startup("hello", 30, true);
const helloThree = await startup("three", 20, true);
const engine = await startup("engine", 20, true);
const helloCold = await startup("hello", 20, false);
const threeCold = await startup("three", 20, false);
const engineCold = await startup("engine", 20, false);

await warm("op_call");
const opCallNs = async (env: Record<string, string>) => Number((await child("op_call", env)).stdout.split(" ")[0]);
const opCallSnapshotNs = await opCallNs({});
const opCallFreshNs = await opCallNs(OFF);

const figures = {
  bench: "runtime",
  fastOpNs: round(fastOpNs),
  fastAddOpNs: round(fastAddNs),
  jsLoopIterationNs: round(jsLoopNs),
  scale1MNativeMs: round(scale1MNativeMs),
  scale1MJsMs: round(scale1MJsMs),
  jsonRoundTripUs: round(jsonRoundTripUs),
  startupHelloP50Ms: round(hello.p50, 2),
  startupHelloMinMs: round(hello.min, 2),
  startupThreeP50Ms: round(helloThree.p50, 2),
  startupEngineP50Ms: round(engine.p50, 2),
  startupHelloNoCacheP50Ms: round(helloCold.p50, 2),
  startupThreeNoCacheP50Ms: round(threeCold.p50, 2),
  startupEngineNoCacheP50Ms: round(engineCold.p50, 2),
  opCallFromSnapshotNs: opCallSnapshotNs,
  opCallWithoutSnapshotNs: opCallFreshNs,
  sink: sink > 0,
};
console.log(`fast op call: ${figures.fastOpNs} ns; 1M in-place scale: ${figures.scale1MNativeMs} ms native vs ${figures.scale1MJsMs} ms JS`);
console.log(`JSON round trip: ${figures.jsonRoundTripUs} µs; start-up p50: hello ${figures.startupHelloP50Ms} ms, three ${figures.startupThreeP50Ms} ms, engine ${figures.startupEngineP50Ms} ms (cache off: ${figures.startupHelloNoCacheP50Ms} / ${figures.startupThreeNoCacheP50Ms} / ${figures.startupEngineNoCacheP50Ms} ms)`);
console.log(`Limina.loop.steps(): ${opCallSnapshotNs} ns from a snapshot, ${opCallFreshNs} ns without`);
console.log(JSON.stringify(figures));
