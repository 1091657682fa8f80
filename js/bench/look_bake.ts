// The environment re-bake in the window's frame path (amortised): the
// fidelity scene at W×H (default 640×360) while the sun sweeps across the
// sky, one elevation step every SWEEP_EVERY frames, so the sky is re-baked
// again and again. Reports the frames without bake work (steady p50/p99),
// the frames carrying a bake step (max, p50), how many frames one bake
// spans, and, for comparison, one at-once bake (what a capture does) of the
// same sky. A frame is the draw plus the GPU finishing it, no readback.
// Run: limina js/bench/look_bake.ts [W H FRAMES [debug]]   (final line: JSON figures; `debug` prints each frame)
import { createEngine, LookRenderer, lookRendererOf } from "limina";
import { round, summarize } from "limina/bench";
import { buildFidelityScene, SPIN_RATE } from "../../examples/fidelity_scene_core.ts";

const [W, H] = Limina.args.length >= 2 ? [Number(Limina.args[0]), Number(Limina.args[1])] : [640, 360];
const FRAMES = Number(Limina.args[2] ?? 60);
const SWEEP_EVERY = 2;
const engine = await createEngine({ width: W, height: H, antialias: false, simulate: false });
const scene = await buildFidelityScene(engine.session);
engine.camera.position.set(-4.3, 3.6, 5.6);
engine.camera.lookAt(0.3, 0.6, 0.4);
const { session, renderer } = engine;
const device: GPUDevice = (renderer.backend as unknown as { device: GPUDevice }).device;
const environment = session.look.environment;
const window = lookRendererOf(renderer);

const frame = async () => {
  const a = performance.now();
  engine.renderFrame();
  await device.queue.onSubmittedWorkDone();
  return performance.now() - a;
};

// Warm-up: pipelines compiled, the first environment baked, one amortised re-bake done.
for (let i = 0; i < 3; i++) await frame();
environment.setSun(140, 30);
for (let i = 0; i < 12; i++) await frame();


const steady: number[] = [];
const baking: number[] = [];
const spans: number[] = [];
let elevation = 30;
for (let f = 0; f < FRAMES; f++) {
  if (f % SWEEP_EVERY === 0) {
    elevation = 30 + 25 * Math.sin(f / 20);
    // Code moves the sun light, as a day cycle does (not a settings change, which starts a bake at once).
    const { sun } = environment;
    const a = ((140 + f) * Math.PI) / 180;
    const e = (elevation * Math.PI) / 180;
    sun.position.set(Math.cos(e) * Math.sin(a), Math.sin(e), Math.cos(e) * Math.cos(a)).multiplyScalar(20).add(sun.target.position);
  }
  scene.spinTo(f * SPIN_RATE / 60);
  const [steps, done] = [window.bakeSteps, window.bakesDone];
  const ms = await frame();
  (window.bakeSteps > steps ? baking : steady).push(ms);
  if (Limina.args[3] === "debug") console.log(f, window.bakeSteps > steps ? "bake" : "-", ms.toFixed(0), window.lastBakeMs.toFixed(0));
  if (window.bakesDone > done) spans.push(window.lastBakeFrames);
}

// The same sky baked at once, as a capture bakes it.
const once = new LookRenderer(renderer, false);
const onceMs: number[] = [];
for (let i = 0; i < 3; i++) {
  environment.setSun(150 + i * 7, 20 + i * 9);
  const a = performance.now();
  once.render(session.look, session.scene, engine.camera);
  await device.queue.onSubmittedWorkDone();
  onceMs.push(performance.now() - a);
}

const s = summarize(steady);
const b = summarize(baking);
const o = summarize(onceMs);
const figures = {
  bench: "look_bake", adapter: engine.output.adapter, width: W, height: H, frames: FRAMES,
  steady: { frames: steady.length, p50Ms: round(s.p50, 1), p99Ms: round(s.p99, 1) },
  baking: { frames: baking.length, p50Ms: round(b.p50, 1), maxMs: round(b.max, 1) },
  framesPerBake: spans.length ? Math.max(...spans) : 0,
  atOnceFrameMs: { p50: round(o.p50, 1), max: round(o.max, 1) },
};
console.log(`${engine.output.adapter} at ${W}×${H}: steady p50 ${figures.steady.p50Ms} ms p99 ${figures.steady.p99Ms} ms; frames with a bake step p50 ${figures.baking.p50Ms} ms max ${figures.baking.maxMs} ms; ${figures.framesPerBake} frames a bake; an at-once bake frame ${figures.atOnceFrameMs.p50} ms`);
console.log(JSON.stringify(figures));
