// GPU particles: live particles against frame time on this machine's WebGPU
// adapter. A floor under the engine's default look (the tier the adapter
// starts at), W×H (default 1280×720), and one emitter of N particles for
// each N — spread out (snow through a 40 m box: little overdraw) and
// packed (fire: every dot over the same few hundred pixels). A frame is
// one world step (one compute dispatch over every particle; none for snow,
// whose motion has a closed form worked out in the draw), the draw and
// the GPU finishing it (gpuIdle; not queue.onSubmittedWorkDone, whose poll loop
// in deno_webgpu sleeps 10 ms after the work is done), no readback; each figure
// is also a ratio to the frame with no particles in the same run. `computeMs`:
// the compute dispatch alone (a world step and its dispatch, waited for, no draw).
// Run: limina js/bench/vfx.ts [W H FRAMES]   (final line: JSON figures)
import { createEngine, gpuIdle, resolveProfile } from "limina";
import { round, summarize } from "limina/bench";

const [W, H] = Limina.args.length >= 2 ? [Number(Limina.args[0]), Number(Limina.args[1])] : [1280, 720];
const FRAMES = Number(Limina.args[2] ?? 30);
const COUNTS = [10_000, 50_000, 100_000, 200_000];
/** Each count is timed drawn both ways, back to back (see ParticleDrawing); a fourth argument times one only. */
const DRAWINGS = Limina.args[3] ? [Limina.args[3] as "triangles" | "splat"] : (["triangles", "splat"] as const);

const engine = await createEngine({ width: W, height: H, antialias: false, simulate: false });
const { session, renderer } = engine;
const device: GPUDevice = (renderer.backend as unknown as { device: GPUDevice }).device;
const builder = { agentId: "bench", sessionId: "bench", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const call = async (skill: string, input: unknown) => {
  const r = await session.registry.invoke(skill, input, builder);
  if (!r.ok) throw new Error(`${skill}: ${r.error.code}: ${r.error.message}`);
  return r.value as Record<string, unknown>;
};
await call("scene.createEntity", { shape: "box", size: 1, position: [0, -0.5, 0], static: true, color: 0x505050 });
await call("three.setTransform", { entity: "ent_1", scale: [60, 1, 60] });
engine.camera.position.set(0, 3, 12);
engine.camera.lookAt(0, 2, 0);

async function frames(n = FRAMES) {
  // Warm-up: pipelines compiled, the environment baked, the stream filled.
  for (let i = 0; i < 4; i++) {
    session.step(1 / 60);
    engine.renderFrame();
    await gpuIdle(device);
  }
  const t: number[] = [];
  for (let f = 0; f < n; f++) {
    const a = performance.now();
    session.step(1 / 60);
    engine.renderFrame();
    await gpuIdle(device);
    t.push(performance.now() - a);
  }
  const s = summarize(t);
  return { meanMs: round(s.mean, 2), p95Ms: round(s.p95, 2), fps: round(1000 / s.mean, 1) };
}

/** One world step's compute dispatch over the live particles, waited for, without drawing. */
async function computeOnly(n = FRAMES) {
  const t: number[] = [];
  for (let f = 0; f < n; f++) {
    const a = performance.now();
    session.step(1 / 60);
    session.particles.prepare(renderer, engine.camera, true);
    await gpuIdle(device);
    t.push(performance.now() - a);
  }
  return round(summarize(t).mean, 2);
}

const base = await frames();
console.log(`  no particles            ${base.meanMs.toFixed(1).padStart(7)} ms  ${base.fps.toFixed(1).padStart(6)} fps`);
const rows: Record<string, { particles: number; drawing: string; meanMs: number; p95Ms: number; fps: number; ratio: number; computeMs: number }> = {};
for (const [label, preset, position] of [["spread", "snow", [0, 8, 0]], ["packed", "fire", [0, 0.5, 0]]] as const) {
  for (const count of COUNTS) {
    const e = await call("vfx.spawn", { preset, position, count });
    // Let a steady stream fill (its particles' first lives) before timing.
    for (let i = 0; i < 90; i++) session.step(1 / 60);
    for (const drawing of DRAWINGS) {
      session.particles.drawing = drawing;
      const x = await frames();
      const drawn = session.particles.lastDrawn;
      if (drawn.particles !== count) throw new Error(`drew ${drawn.particles} particles, not ${count}`);
      if (drawing === "splat" && drawn.splatted === 0) {
        // Particles splat only in a bare frame (no post stack): at a post-processing tier they stay triangles.
        console.log(`  ${`${label} ${preset} ${count} splat`.padEnd(34)}  not drawn: the tier (${session.look.quality}) runs the post stack`);
        continue;
      }
      if (drawn.splatted !== (drawing === "splat" ? count : 0)) throw new Error(`splatted ${drawn.splatted} particles drawing ${drawing}`);
      const ratio = round(x.meanMs / base.meanMs, 2);
      const computeMs = await computeOnly();
      rows[`${label}${count}${drawing === "splat" ? "splat" : ""}`] = { particles: count, drawing, ...x, ratio, computeMs };
      console.log(`  ${`${label} ${preset} ${count} ${drawing}`.padEnd(34)}${x.meanMs.toFixed(1).padStart(7)} ms  ${x.fps.toFixed(1).padStart(6)} fps  ×${ratio.toFixed(2)}  compute ${computeMs.toFixed(1)} ms`);
    }
    await call("vfx.stop", { id: e.id });
  }
}
console.log(JSON.stringify({ bench: "vfx", adapter: engine.output.adapter, tier: session.look.quality, width: W, height: H, frames: FRAMES, base, rows }));
// The engine loop would keep the process alive after the figures.
Limina.exit(0);
