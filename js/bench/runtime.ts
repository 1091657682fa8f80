// Runtime bridge costs: an empty fast op, a 1M-element in-place buffer op,
// a small JSON round trip, and process start-up.
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

async function startup(module: string, runs: number) {
  const wall: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = await Limina.run({ cmd: Limina.execPath, args: [module] });
    if (out.code !== 0) throw new Error(`${module} failed: ${out.stderr}`);
    wall.push(out.wallMs);
  }
  return summarize(wall);
}
const hello = await startup("tests/fixtures/hello.ts", 30);
const helloThree = await startup("tests/fixtures/hello_three.ts", 10);

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
  startupWithThreeP50Ms: round(helloThree.p50, 2),
  sink: sink > 0,
};
console.log(`fast op call: ${figures.fastOpNs} ns; 1M in-place scale: ${figures.scale1MNativeMs} ms native vs ${figures.scale1MJsMs} ms JS`);
console.log(`JSON round trip: ${figures.jsonRoundTripUs} µs; start-up (hello): p50 ${figures.startupHelloP50Ms} ms`);
console.log(JSON.stringify(figures));
