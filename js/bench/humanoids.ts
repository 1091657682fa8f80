// 200 animated humanoids walking the crowd walk's plaza (examples/
// crowd_walk_core.ts), rendered offscreen on this machine's WebGPU adapter:
// frames per second at 1280×720 (4× MSAA, shadows) and at 640×360 (no MSAA),
// each frame running the fixed steps due by wall-clock time (at most 5, as
// the host's accumulator does), rendering and waiting for the GPU. Also the
// step's own cost: the crowd, 200 character controllers, 200 animators.
// Run: limina js/bench/humanoids.ts [walkers] [seconds]   (default 200, 10; final line: JSON figures)
import { createEngine, FIXED_DT } from "limina";
import { round, summarize } from "limina/bench";
import { buildPlaza, spawnWalkers } from "../../examples/crowd_walk_core.ts";

const N = Number(Limina.args[0] ?? 200);
const SECONDS = Number(Limina.args[1] ?? 10);

async function run(width: number, height: number, antialias: boolean) {
  const engine = await createEngine({ width, height, antialias, simulate: false });
  const { session } = engine;
  const host = session.mcp();
  host.initialize({ agentId: "bench", sessionId: "sess_bench", profile: "builder.readWrite" });
  await buildPlaza(host, session);
  const walkers = await spawnWalkers(host, session, N);
  engine.camera.position.set(0, 14, 26);
  engine.camera.lookAt(0, 0.8, 0);
  const device: GPUDevice = (engine.renderer.backend as unknown as { device: GPUDevice }).device;
  // The simulation alone first.
  const stepMs: number[] = [];
  for (let k = 0; k < 180; k++) {
    const t = performance.now();
    session.step(FIXED_DT);
    await walkers.keepWalking();
    if (k >= 30) stepMs.push(performance.now() - t);
  }
  const frameMs: number[] = [];
  let lag = 0;
  let last = performance.now();
  const start = performance.now();
  let frames = 0;
  while (performance.now() - start < SECONDS * 1000) {
    const now = performance.now();
    lag += Math.min(250, now - last);
    last = now;
    let steps = 0;
    while (lag >= FIXED_DT * 1000 && steps < 5) {
      session.step(FIXED_DT);
      await walkers.keepWalking();
      lag -= FIXED_DT * 1000;
      steps++;
    }
    if (steps === 5) lag = 0;
    const f0 = performance.now();
    engine.renderFrame(1);
    await device.queue.onSubmittedWorkDone();
    frameMs.push(performance.now() - f0);
    frames++;
  }
  const wall = performance.now() - start;
  const f = summarize(frameMs);
  const s = summarize(stepMs);
  const figures = { width, height, msaa: antialias, fps: round((frames * 1000) / wall, 1), frameP50Ms: round(f.p50, 2), frameP95Ms: round(f.p95, 2), stepP50Ms: round(s.p50), stepP95Ms: round(s.p95), arrivals: walkers.arrivals(), adapter: engine.output.adapter };
  session.dispose();
  return figures;
}

const large = await run(1280, 720, true);
console.log(`humanoids: ${N} at 1280×720: ${large.fps} fps (frame p50 ${large.frameP50Ms} ms), step p50 ${large.stepP50Ms} ms`);
const small = await run(640, 360, false);
console.log(`humanoids: ${N} at 640×360: ${small.fps} fps (frame p50 ${small.frameP50Ms} ms), step p50 ${small.stepP50Ms} ms`);
console.log(JSON.stringify({ bench: "humanoids", walkers: N, adapter: large.adapter, large, small }));
Limina.exit(0);
