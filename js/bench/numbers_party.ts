// The numbers party (examples/numbers_party_core.ts) at 1280×720 on this
// machine's WebGPU adapter, 200 agents: frames per second and sim-step
// times. The bench runs the demo's loop without the host's 60 Hz frame
// pacing: each frame runs the fixed steps due by wall-clock time (as the
// host's accumulator does: at most 5 a frame, at most 0.25 s of lag
// counted), then draws the crowd, renders, and waits for the GPU to finish
// the frame. The agent-ops HUD and perf overlay are updated as the demo
// updates them. A sim-step is one fixed step of the party: the world's step
// (the navmesh crowd, 200 character controllers and animators) plus the
// agent pipeline's tick (perception by one batched native query, decisions started, the queued actions run through the registry, traced),
// until its actions have run. First the party runs 600 steps alone (no
// rendering: the pipeline's own cost), then the frame loop for [seconds].
// simAlone also gives the loop thread's CPU time a step (simStepCpu*).
// Run: limina js/bench/numbers_party.ts [seconds]   (default 20; final line: JSON figures)
import { createEngine, FIXED_DT, gpuIdle } from "limina";
import { round, summarize } from "limina/bench";
import { AGENTS, createHud, createParty, dressPlaza, PLAZA_RADIUS } from "../../examples/numbers_party_core.ts";

const W = 1280;
const H = 720;
const SECONDS = Number(Limina.args[0] ?? 20);
const WARMUP_SECONDS = 3;
const STEP_MS = 1000 / 60;
const MAX_STEPS_PER_FRAME = 5;
const MAX_LAG_MS = 250;

const engine = await createEngine({ width: W, height: H, antialias: true, simulate: false });
dressPlaza(engine.session);
const party = await createParty(engine.session, { manual: true, frameHeight: () => engine.output.height });
/** One fixed step: the world (the crowd, the characters' controllers and animation), then the party's agents. */
const tick = (step: number) => {
  engine.session.step(FIXED_DT);
  return party.tick(step);
};
const host = engine.session.mcp();
host.initialize({ agentId: "party_host", sessionId: "sess_party_host", profile: "builder.readWrite" });
const hud = await createHud(host, engine.session);
const device: GPUDevice = (engine.renderer.backend as unknown as { device: GPUDevice }).device;
engine.camera.position.set(0, 12, PLAZA_RADIUS + 8);
engine.camera.lookAt(0, 0.8, 0);

let step = 0;
// The simulation alone: 60 warm-up steps, then 600 timed.
const aloneMs: number[] = [];
// The loop thread's CPU time a step: what other processes' load adds least to (pool threads' work is not in it).
const aloneCpuMs: number[] = [];
for (let k = 0; k < 660; k++) {
  const s0 = performance.now();
  const c0 = Limina.loop.stats().cpuMs;
  await tick(++step);
  if (k >= 60) {
    aloneMs.push(performance.now() - s0);
    aloneCpuMs.push(Limina.loop.stats().cpuMs - c0);
  }
}
const alone = summarize(aloneMs);
const aloneCpu = summarize(aloneCpuMs);

let lag = 0;
let last = performance.now();
const frameMs: number[] = [];
const stepMs: number[] = [];
let measuring = false;
let measuredSteps = 0;
const t0 = performance.now();
let measureStart = 0;
let measuredFrames = 0;
for (;;) {
  const now = performance.now();
  if (!measuring && now - t0 >= WARMUP_SECONDS * 1000) {
    measuring = true;
    measureStart = now;
  }
  if (measuring && now - measureStart >= SECONDS * 1000) break;
  lag += Math.min(MAX_LAG_MS, now - last);
  last = now;
  let steps = 0;
  while (lag >= STEP_MS && steps < MAX_STEPS_PER_FRAME) {
    const s0 = performance.now();
    await tick(++step);
    if (measuring) stepMs.push(performance.now() - s0);
    if (step % 12 === 0) hud.feed();
    if (step % 60 === 0) {
      const elapsed = Math.max(1, performance.now() - measureStart);
      hud.perf({ fps: (frameMs.length * 1000) / elapsed, stepsPerSecond: (stepMs.length * 1000) / elapsed, simStepP95Ms: summarize(stepMs.length ? stepMs : [0]).p95 }, party.stats());
    }
    lag -= STEP_MS;
    steps++;
  }
  if (steps === MAX_STEPS_PER_FRAME) lag = 0;
  if (measuring) measuredSteps += steps;
  // A slow orbit, so the frames are not all alike.
  const a = step * 0.002;
  engine.camera.position.set(Math.sin(a) * (PLAZA_RADIUS + 8), 12, Math.cos(a) * (PLAZA_RADIUS + 8));
  engine.camera.lookAt(0, 0.8, 0);
  const f0 = performance.now();
  party.draw();
  engine.renderFrame(1);
  await gpuIdle(device);
  if (measuring) {
    frameMs.push(performance.now() - f0);
    measuredFrames++;
  }
}
const wall = performance.now() - measureStart;
const frames = summarize(frameMs);
const steps = summarize(stepMs);
const stats = party.stats();
const figures = {
  bench: "numbers_party",
  adapter: engine.output.adapter,
  width: W,
  height: H,
  agents: AGENTS,
  simAlone: { steps: aloneMs.length, simStepP50Ms: round(alone.p50), simStepP95Ms: round(alone.p95), simStepMaxMs: round(alone.max), simStepCpuP50Ms: round(aloneCpu.p50), simStepCpuP95Ms: round(aloneCpu.p95) },
  seconds: round(wall / 1000, 1),
  fps: round((measuredFrames * 1000) / wall, 1),
  frameP50Ms: round(frames.p50, 2),
  frameP95Ms: round(frames.p95, 2),
  simSteps: measuredSteps,
  simStepsPerSecond: round((measuredSteps * 1000) / wall, 1),
  simStepP50Ms: round(steps.p50),
  simStepP95Ms: round(steps.p95),
  simStepMaxMs: round(steps.max),
  movesTraced: stats.moves,
  chats: stats.chats,
  events: engine.session.tracer.size,
};
console.log(`numbers_party: ${AGENTS} agents, simulation alone: sim-step p50 ${figures.simAlone.simStepP50Ms} ms, p95 ${figures.simAlone.simStepP95Ms} ms over ${aloneMs.length} steps`);
console.log(
  `numbers_party: ${AGENTS} agents at ${W}×${H} on ${figures.adapter}: ${figures.fps} fps (frame p50 ${figures.frameP50Ms} ms, p95 ${figures.frameP95Ms} ms), sim-step p50 ${figures.simStepP50Ms} ms, p95 ${figures.simStepP95Ms} ms over ${measuredSteps} steps (${figures.simStepsPerSecond}/s); ${stats.moves} moves traced, ${stats.chats} chats`,
);
console.log(JSON.stringify(figures));
party.dispose();
Limina.exit(0);
