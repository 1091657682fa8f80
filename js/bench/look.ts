// The look's cost per frame on this machine's WebGPU adapter: the fidelity
// scene at W×H (default 1280×720; `limina js/bench/look.ts 1920 1080`),
// rendered bare (a plain forward render: no sky, fog, environment lighting
// or post passes) and then with the look's environment, each post pass alone,
// and each quality tier — every figure also as a ratio to the bare render of
// the same run. A frame is the draw plus the GPU finishing it
// (gpuIdle), no readback. Also: the environment bake
// (sky → PMREM) and an HDRI bake, in ms.
// Run: limina js/bench/look.ts [W H]   (final line: JSON figures)
import { gpuIdle, lookRendererOf } from "limina";
import { round, summarize } from "limina/bench";
import { SPIN_RATE } from "../../examples/fidelity_scene_core.ts";
import { fidelityView } from "./worlds/fidelity_view.ts";

const [W, H] = Limina.args.length >= 2 ? [Number(Limina.args[0]), Number(Limina.args[1])] : [1280, 720];
const FRAMES = Number(Limina.args[2] ?? 40);
const { engine, scene, session, renderer, device } = await fidelityView(W, H);
const builder = { agentId: "bench", sessionId: "bench", permissions: ["render.write", "scene.write"], profile: null };
const call = async (skill: string, input: unknown) => {
  const r = await session.registry.invoke(skill, input, builder);
  if (!r.ok) throw new Error(`${skill}: ${r.error.code}: ${r.error.message}`);
  return r.value;
};

const OFF = { ao: false, bloom: false, antialias: "none", grade: false, dof: false };

/** Frame times of the engine's own frame path, the caster spinning. */
async function time(frames = FRAMES) {
  // Warm-up: pipelines compiled, the environment baked.
  for (let i = 0; i < 3; i++) {
    engine.renderFrame();
    await gpuIdle(device);
  }
  const t: number[] = [];
  for (let f = 0; f < frames; f++) {
    scene.spinTo(f * SPIN_RATE / 60);
    const a = performance.now();
    engine.renderFrame();
    await gpuIdle(device);
    t.push(performance.now() - a);
  }
  const s = summarize(t);
  return { meanMs: round(s.mean, 2), p50Ms: round(s.p50, 2), p95Ms: round(s.p95, 2), p99Ms: round(s.p99, 2) };
}

// Bare: what Limina drew before the look — the same scene and lights, a plain render.
await call("render.setPost", OFF);
await call("render.setEnvironment", { background: false, fog: false, environmentIntensity: 0, hemisphere: 0 });
const bareLook = session.look;
const saved = session.scene.environment;
session.scene.environment = null;
const bare = await (async () => {
  // The look steps aside entirely: a plain renderer.render of the scene.
  const t: number[] = [];
  for (let i = 0; i < 3; i++) {
    renderer.render(session.scene, engine.camera);
    await gpuIdle(device);
  }
  for (let f = 0; f < FRAMES; f++) {
    scene.spinTo(f * SPIN_RATE / 60);
    const a = performance.now();
    renderer.render(session.scene, engine.camera);
    await gpuIdle(device);
    t.push(performance.now() - a);
  }
  const s = summarize(t);
  return { meanMs: round(s.mean, 2), p50Ms: round(s.p50, 2), p95Ms: round(s.p95, 2), p99Ms: round(s.p99, 2) };
})();
session.scene.environment = saved;
void bareLook;

const ratio = (x: { meanMs: number }) => round(x.meanMs / bare.meanMs, 2);
const rows: Record<string, { meanMs: number; p95Ms: number; ratio: number }> = {};
const record = (name: string, x: Awaited<ReturnType<typeof time>>) => {
  rows[name] = { meanMs: x.meanMs, p95Ms: x.p95Ms, ratio: ratio(x) };
  console.log(`  ${name.padEnd(22)} ${x.meanMs.toFixed(1).padStart(7)} ms  p95 ${x.p95Ms.toFixed(1).padStart(7)} ms  ×${ratio(x).toFixed(2)}`);
};
console.log(`${engine.output.adapter} at ${W}×${H}, ${FRAMES} frames each; bare forward render ${bare.meanMs} ms (p95 ${bare.p95Ms} ms)`);

// The environment alone (sky background, image-based lighting, fog, fitted soft shadows), no post passes.
await call("render.setQuality", { tier: "balanced" });
await call("render.setEnvironment", { background: true, fog: true, environmentIntensity: 1, hemisphere: 0.15 });
record("environment", await time());
for (const [name, post] of Object.entries({
  "+ao": { ...OFF, ao: true },
  "+bloom": { ...OFF, bloom: true },
  "+fxaa": { ...OFF, antialias: "fxaa" },
  "+smaa": { ...OFF, antialias: "smaa" },
  "+taa": { ...OFF, antialias: "taa" },
  "+grade": { ...OFF, grade: true },
  "+grade+lut": { ...OFF, grade: { lut: "warm" } },
  "+dof": { ...OFF, dof: true },
})) {
  await call("render.setPost", post);
  record(name, await time());
}
// The tiers with their default post stack.
await call("render.setPost", { ao: true, bloom: true, antialias: "auto", grade: true, dof: false });
for (const tier of ["low", "balanced", "cinematic"]) {
  await call("render.setQuality", { tier });
  record(`tier ${tier}`, await time());
}

// Bakes: the sky after the sun moved (the window's renderer amortises these), and an HDRI.
const look = lookRendererOf(renderer);
await call("render.setQuality", { tier: "balanced" });
const bakes: number[] = [];
for (let i = 0; i < 5; i++) {
  await call("render.setEnvironment", { sunElevation: 20 + i * 8 });
  engine.renderFrame();
  await gpuIdle(device);
  bakes.push(look.lastBakeMs);
}
await call("render.setEnvironment", { preset: "studio" });
engine.renderFrame();
await gpuIdle(device);
const hdriBakeMs = round(look.lastBakeMs, 1);
const skyBake = summarize(bakes);

const figures = { bench: "look", adapter: engine.output.adapter, width: W, height: H, frames: FRAMES, bare, passes: rows, skyBakeMs: { p50: round(skyBake.p50, 1), max: round(skyBake.max, 1) }, hdriBakeMs };
console.log(`  sky bake ${figures.skyBakeMs.p50} ms (max ${figures.skyBakeMs.max}), HDRI bake ${hdriBakeMs} ms`);
console.log(JSON.stringify(figures));
Limina.exit(0);
