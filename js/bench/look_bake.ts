// The environment re-bake in the window's frame path (amortised): the
// fidelity scene at W×H (default 640×360), ROUNDS times: STEADY frames with
// nothing to bake, then code moves the sun light (as a day cycle does) and
// frames run until the re-bake is complete; then the same for switching to
// an HDRI preset (its EXR decoded once before, in the skill, timed apart).
// Reports the frames without bake work (steady p50/p99), the frames carrying
// a bake step (p50/p99/max), the frame that swaps the new map in, how many
// frames a bake spans, and, for comparison, one at-once bake (what a capture
// does) of the same sky. A frame is the draw plus the GPU finishing it, no
// readback. Steady and baking frames interleave, so machine load weighs on both.
// Run: limina js/bench/look_bake.ts [W H ROUNDS [debug]]   (final line: JSON figures; `debug` prints each frame)
import { gpuIdle, LookRenderer, lookRendererOf } from "limina";
import { round, summarize } from "limina/bench";
import { SPIN_RATE } from "../../examples/fidelity_scene_core.ts";
import { fidelityView } from "./worlds/fidelity_view.ts";

const [W, H] = Limina.args.length >= 2 ? [Number(Limina.args[0]), Number(Limina.args[1])] : [640, 360];
const ROUNDS = Number(Limina.args[2] ?? 3);
const STEADY = 20;
const debug = Limina.args[3] === "debug";
const { engine, scene, session, renderer, device } = await fidelityView(W, H);
const environment = session.look.environment;
const window = lookRendererOf(renderer);

let f = 0;
const steady: number[] = [];
const baking: number[] = [];
const swaps: number[] = [];
const spans: number[] = [];
const hdriFrames: number[] = [];
/** One frame, filed by what it carried. */
const frame = async (bakeFrames = baking) => {
  scene.spinTo((f++ * SPIN_RATE) / 60);
  const [steps, done] = [window.bakeSteps, window.bakesDone];
  const a = performance.now();
  engine.renderFrame();
  await gpuIdle(device);
  const ms = performance.now() - a;
  const kind = window.bakesDone > done ? "swap" : window.bakeSteps > steps ? "bake" : "-";
  (kind === "swap" ? swaps : kind === "bake" ? bakeFrames : steady).push(ms);
  if (kind === "swap") spans.push(window.lastBakeFrames);
  if (debug) console.log(f, kind, ms.toFixed(1), window.lastBakeMs.toFixed(1));
  return kind;
};
/** Frames until the re-bake under way is complete. */
const rebake = async (bakeFrames = baking) => {
  while ((await frame(bakeFrames)) !== "swap");
};
/** Code moves the sun light, as a day cycle does (not a settings change, which would start a bake too). */
const moveSun = (azimuth: number, elevation: number) => {
  const { sun } = environment;
  const [a, e] = [(azimuth * Math.PI) / 180, (elevation * Math.PI) / 180];
  sun.position.set(Math.cos(e) * Math.sin(a), Math.sin(e), Math.cos(e) * Math.cos(a)).multiplyScalar(20).add(sun.target.position);
};

// Warm-up: pipelines compiled, the first environment baked at once, one amortised re-bake done.
for (let i = 0; i < 3; i++) await frame([]);
moveSun(140, 30);
await rebake([]);
[steady, swaps, spans].forEach((a) => (a.length = 0));

for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < STEADY; i++) await frame();
  moveSun(150 + r * 10, 20 + r * 12);
  await rebake();
}

// An HDRI preset: its EXR decoded (once per process, in the skill's handler), then baked amortised.
let a = performance.now();
await environment.set({ ...environment.settings(), preset: "forest" });
const hdriDecodeMs = performance.now() - a;
await rebake(hdriFrames);
const hdriSwap = swaps[swaps.length - 1];
const hdriSpan = spans[spans.length - 1];

// The same sky baked at once, as a capture bakes it.
await environment.set({ ...environment.settings(), preset: "sky" });
const once = new LookRenderer(renderer, false);
const onceMs: number[] = [];
for (let i = 0; i < 3; i++) {
  environment.setSun(150 + i * 7, 20 + i * 9);
  a = performance.now();
  once.render(session.look, session.scene, engine.camera);
  await gpuIdle(device);
  onceMs.push(performance.now() - a);
}

const s = summarize(steady);
const b = summarize(baking);
const w = summarize(swaps.slice(0, ROUNDS));
const h = summarize(hdriFrames);
const o = summarize(onceMs);
const figures = {
  bench: "look_bake", adapter: engine.output.adapter, width: W, height: H, rounds: ROUNDS,
  steady: { frames: steady.length, p50Ms: round(s.p50, 1), p99Ms: round(s.p99, 1) },
  baking: { frames: baking.length, p50Ms: round(b.p50, 1), p99Ms: round(b.p99, 1), maxMs: round(b.max, 1) },
  swapFrameMs: { p50: round(w.p50, 1), max: round(w.max, 1) },
  framesPerBake: Math.max(...spans.slice(0, ROUNDS)),
  hdri: { decodeMs: round(hdriDecodeMs, 1), frames: hdriSpan, p50Ms: round(h.p50, 1), maxMs: round(h.max, 1), swapMs: round(hdriSwap, 1) },
  atOnceFrameMs: { p50: round(o.p50, 1), max: round(o.max, 1) },
};
console.log(
  `${engine.output.adapter} at ${W}×${H}: steady p50 ${figures.steady.p50Ms} ms p99 ${figures.steady.p99Ms} ms; ` +
    `frames with a bake step p50 ${figures.baking.p50Ms} p99 ${figures.baking.p99Ms} max ${figures.baking.maxMs} ms; swap frame p50 ${figures.swapFrameMs.p50} ms; ` +
    `${figures.framesPerBake} frames a bake; HDRI: decode ${figures.hdri.decodeMs} ms, ${figures.hdri.frames} frames p50 ${figures.hdri.p50Ms} max ${figures.hdri.maxMs} ms; ` +
    `an at-once bake frame ${figures.atOnceFrameMs.p50} ms`,
);
console.log(JSON.stringify(figures));
// The engine's loop would keep the process serving: a benchmark ends here.
Limina.exit(0);
