// 200 animated humanoids walking the crowd walk's plaza (examples/
// crowd_walk_core.ts), rendered offscreen on this machine's WebGPU adapter:
// frames per second at 1280×720 (4× MSAA) and at 640×360 (no MSAA; nothing in
// the plaza receives shadows, so neither size draws a shadow pass),
// each frame running the fixed steps due by wall-clock time (at most 5, as
// the host's accumulator does), rendering and waiting for the GPU (gpuIdle:
// queue.onSubmittedWorkDone in deno_webgpu sleeps 10 ms after the work is done). Three
// ways in the same run: the plaza alone (the empty-scene baseline), each
// humanoid its own SkinnedMesh ("meshes"), and the whole crowd one
// instanced, GPU-skinned draw from baked clips ("instanced": CrowdDraw,
// its palette filled each frame from the characters, inside the frame
// time; members beyond LOD_DISTANCES (scaled to the frame's size) from the camera drawn from the coarse
// humanoid and the far silhouette, "levels" in the JSON counts the members
// at each level in the last frame). Also the step's own cost: the crowd,
// 200 character controllers, 200 animators.
// Run: limina js/bench/humanoids.ts [walkers] [seconds] [draws]   (default 200, 10,
// empty,instanced,meshes; final line: JSON figures)
import { createEngine, CrowdDraw, FIXED_DT, gpuIdle, lodScale } from "limina";
import { round, summarize } from "limina/bench";
import { buildPlaza, spawnWalkers } from "../../examples/crowd_walk_core.ts";

const N = Number(Limina.args[0] ?? 200);
const SECONDS = Number(Limina.args[1] ?? 10);
const DRAWS = (Limina.args[2] ?? "empty,instanced,meshes").split(",") as Draw[];

type Draw = "empty" | "meshes" | "instanced";

async function run(width: number, height: number, antialias: boolean, draw: Draw) {
  const engine = await createEngine({ width, height, antialias, simulate: false });
  const { session } = engine;
  const host = session.mcp();
  host.initialize({ agentId: "bench", sessionId: "sess_bench", profile: "builder.readWrite" });
  await buildPlaza(host, session);
  const walkers = await spawnWalkers(host, session, draw === "empty" ? 0 : N, undefined, draw === "instanced");
  let crowd: CrowdDraw | null = null;
  if (draw === "instanced") {
    crowd = new CrowdDraw(N);
    walkers.appearances.forEach((a, i) => crowd!.paint(i, a));
    session.scene.add(crowd.object);
  }
  const members = walkers.ids.map((id) => session.characters.require(id));
  const { Position, Rotation } = session.world;
  const pose = () => {
    if (!crowd) return;
    members.forEach((c, i) => crowd!.follow(i, Position, Rotation, c.entity.eid, c.animator));
    crowd.update(engine.camera.position, lodScale(height, engine.camera.fov));
  };
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
  // Two frames first: the first compiles the pipelines (seconds on lavapipe), which is no frame rate.
  for (let k = 0; k < 2; k++) {
    pose();
    engine.renderFrame(1);
    await gpuIdle(device);
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
    pose();
    engine.renderFrame(1);
    await gpuIdle(device);
    frameMs.push(performance.now() - f0);
    frames++;
  }
  const wall = performance.now() - start;
  const f = summarize(frameMs);
  const s = summarize(stepMs);
  const figures = { draw, width, height, msaa: antialias, tier: session.look.quality, fps: round((frames * 1000) / wall, 1), frameP50Ms: round(f.p50, 2), frameP95Ms: round(f.p95, 2), stepP50Ms: round(s.p50), stepP95Ms: round(s.p95), levels: crowd ? crowd.levels.map((_, l) => crowd!.level.filter((m) => m === l).length) : [], arrivals: walkers.arrivals(), adapter: engine.output.adapter };
  session.dispose();
  return figures;
}

const results: Record<string, Record<string, Awaited<ReturnType<typeof run>>>> = {};
for (const draw of DRAWS) {
  for (const [key, w, h, msaa] of [["large", 1280, 720, true], ["small", 640, 360, false]] as const) {
    const r = await run(w, h, msaa, draw);
    (results[draw] ??= {})[key] = r;
    console.log(`humanoids: ${draw === "empty" ? "the plaza alone" : `${N} ${draw}`} at ${w}×${h}: ${r.fps} fps (frame p50 ${r.frameP50Ms} ms), step p50 ${r.stepP50Ms} ms`);
  }
}
console.log(JSON.stringify({ bench: "humanoids", walkers: N, adapter: Object.values(results)[0].large.adapter, ...results }));
Limina.exit(0);
