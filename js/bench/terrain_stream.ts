// Flying over streamed terrain at 50 m/s: a 1.5 km island (12×12 tiles of
// 129 samples, eroded, with the sea, trees, rocks and bushes) and 64 dynamic
// bodies resting on it. Each frame takes one fixed step (physics against the
// heightfield colliders, buoyancy) and streams tiles around the camera within
// the view's 4 ms budget. First 30 s of flight (1.5 km) timed without
// drawing: the sim step and the tile streaming per frame; then 60 frames
// drawn offscreen at 960×540 on this machine's adapter (lavapipe here).
// Run: limina js/bench/terrain_stream.ts   (final line: JSON figures)
import { createOffscreenRenderer, createWorldSession, FIXED_DT, gpuIdle, TerrainView } from "limina";
import { round, summarize } from "limina/bench";
import * as THREE from "three";

const SPEED = 50;
const session = createWorldSession({ simulate: false, checkpointEvery: 60 });
const t0 = performance.now();
const region = await session.terrain.generate({
  seed: 77, center: [0, 0], size: 1536, resolution: 129, tileSize: 128, preset: "island", heightScale: 260, seaLevel: 0,
  erosion: { droplets: 200_000, thermal: 4 },
});
const generateMs = performance.now() - t0;
session.terrain.addWater(0, undefined);
session.terrain.populate(0.6, ["tree", "rock", "bush"]);
console.log(`generated in ${Math.round(generateMs)} ms; flying`);
for (let i = 0; i < 64; i++) {
  const x = -300 + (i % 8) * 80, z = -300 + Math.floor(i / 8) * 80;
  const y = (session.terrain.heightAt(x, z) ?? 0) + 3;
  session.entities.create({ shape: i % 2 ? "sphere" : "box", size: 1.2, color: 0xffffff, position: [x, Math.max(y, 2), z], dynamic: true, static: false, friction: 0.8, restitution: 0.1 });
}

const camera = new THREE.PerspectiveCamera(60, 16 / 9, 0.5, 6000);
const scene = new THREE.Scene();
const view = new TerrainView(session.terrain, scene);
// A straight pass across the island, 60 m above the ground below.
const fly = (frame: number) => {
  const s = frame * FIXED_DT * SPEED;
  const x = -750 + (s % 1500), z = -300 + (s % 1500) * 0.4;
  const ground = Math.max(session.terrain.heightAt(x, z) ?? 0, 0);
  camera.position.set(x, ground + 60, z);
  camera.lookAt(x + 100, ground + 30, z + 40);
  camera.updateMatrixWorld();
};

const steps: number[] = [];
const updates: number[] = [];
let waiting = 0;
const FRAMES = 1800;
for (let f = 0; f < FRAMES; f++) {
  fly(f);
  let a = performance.now();
  session.step(FIXED_DT);
  steps.push(performance.now() - a);
  a = performance.now();
  view.update(camera);
  updates.push(performance.now() - a);
  if (view.pending > 0) waiting++;
}
const step = summarize(steps);
const update = summarize(updates);
const built = view.tiles.built;

const out = await createOffscreenRenderer(960, 540, { antialias: true });
const device: GPUDevice = (out.renderer.backend as unknown as { device: GPUDevice }).device;
scene.background = new THREE.Color(0x9cc4e4);
scene.add(new THREE.AmbientLight(0xffffff, 0.6));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
sun.position.set(400, 600, 200);
scene.add(sun);
const frames: number[] = [];
for (let f = 0; f < 60 + 5; f++) {
  fly(FRAMES + f);
  session.step(FIXED_DT);
  view.update(camera);
  const a = performance.now();
  out.renderer.render(scene, camera);
  await gpuIdle(device);
  if (f >= 5) frames.push(performance.now() - a);
}
const frame = summarize(frames);
const result = {
  bench: "terrain_stream",
  region: `${region.layout.tiles}x${region.layout.tiles} tiles of ${region.layout.tileSamples}, ${region.layout.samples}² samples`,
  generateMs: round(generateMs, 0),
  simStepMs: { p50: round(step.p50, 3), p95: round(step.p95, 3), max: round(step.max, 3) },
  streamUpdateMs: { p50: round(update.p50, 3), p95: round(update.p95, 3), max: round(update.max, 3), budget: 4 },
  framesWithATileStillComing: waiting,
  tileMeshesBuilt: built,
  flownMetres: FRAMES * FIXED_DT * SPEED,
  render960x540: { adapter: out.adapter, p50Ms: round(frame.p50, 1), p95Ms: round(frame.p95, 1), fps: round(1000 / frame.p50, 1) },
};
console.log(`sim step p95 ${result.simStepMs.p95} ms; streaming p95 ${result.streamUpdateMs.p95} ms, max ${result.streamUpdateMs.max} ms; ${built} tile meshes built; ${result.render960x540.fps} fps drawn`);
console.log(JSON.stringify(result));
Limina.exit(0);
