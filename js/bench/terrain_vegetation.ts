// Vegetation at scale: a 2 km region of hills scattered with 50,000+ trees
// and 1,000,000+ grass blades (clumps of 3) plus rocks and bushes, drawn as
// instanced meshes in 64 m cells culled by distance and frustum, trees past
// 160 m as impostors. Frame time at 1280×720 (4× MSAA) on this machine's
// adapter from a viewpoint above a forest edge, the camera turning slowly.
// Run: limina js/bench/terrain_vegetation.ts   (final line: JSON figures)
import { biomeOf, BLADES_PER_CLUMP, createOffscreenRenderer, createWorldSession, gpuIdle, scatter, type ScatterKind, TerrainView } from "limina";
import { round, summarize } from "limina/bench";
import * as THREE from "three";

const session = createWorldSession({ simulate: false });
await session.terrain.generate({ seed: 31, center: [0, 0], size: 2048, resolution: 129, tileSize: 128, preset: "hills", heightScale: 70, seaLevel: -50, erosion: {} }, { moisture: 0.75 });
// Each kind at its own density (world.populateBiome takes one for all): every tree the forest
// holds, and grass thin enough to stay within the scatter's limit.
const region = session.terrain.region!;
const biomes = region.biomes.map((_, i) => biomeOf(region, i));
const DENSITY: Record<ScatterKind, number> = { tree: 1, rock: 0.6, bush: 0.5, grass: 0.1 };
const t0 = performance.now();
const instances: Partial<Record<ScatterKind, Float32Array>> = {};
for (const kind of Object.keys(DENSITY) as ScatterKind[]) instances[kind] = scatter(region.params, region.heights, biomes, kind, DENSITY[kind], 2_000_000);
const scatterMs = performance.now() - t0;
const v = (session.terrain.vegetation = { density: 1, kinds: Object.keys(DENSITY) as ScatterKind[], props: null, instances });
const count = (k: "tree" | "rock" | "bush" | "grass") => (v.instances[k]?.length ?? 0) / 5;
const trees = count("tree");
const blades = count("grass") * BLADES_PER_CLUMP;

const W = 1280, H = 720;
const out = await createOffscreenRenderer(W, H, { antialias: true });
const device: GPUDevice = (out.renderer.backend as unknown as { device: GPUDevice }).device;
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x9cc4e4);
scene.fog = new THREE.Fog(0x9cc4e4, 600, 2200);
scene.add(new THREE.AmbientLight(0xffffff, 0.6));
const sun = new THREE.DirectionalLight(0xffffff, 2.2);
sun.position.set(400, 600, 200);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(60, W / H, 0.5, 5000);
const t1 = performance.now();
const view = new TerrainView(session.terrain, scene);
const buildMs = performance.now() - t1;
const look = (f: number) => {
  const a = f * 0.004;
  const ground = session.terrain.heightAt(0, 0) ?? 0;
  camera.position.set(0, ground + 25, 0);
  camera.lookAt(Math.cos(a) * 100, ground + 5, Math.sin(a) * 100);
  camera.updateMatrixWorld();
};
// Stream every tile in first (the bench times drawing, not streaming).
for (let i = 0; i < 400 && (i === 0 || view.pending > 0); i++) (look(0), view.update(camera));
const frames: number[] = [];
let drawn = view.vegetation.drawn;
for (let f = 0; f < 20 + 3; f++) {
  look(f);
  view.update(camera);
  drawn = view.vegetation.drawn;
  const a = performance.now();
  out.renderer.render(scene, camera);
  await gpuIdle(device);
  if (f >= 3) frames.push(performance.now() - a);
}
const s = summarize(frames);
const info = out.renderer.info.render;
const result = {
  bench: "terrain_vegetation",
  scattered: { trees, rocks: count("rock"), bushes: count("bush"), grassClumps: count("grass"), grassBlades: blades, scatterMs: round(scatterMs, 0), instancingMs: round(buildMs, 0) },
  drawnNearCamera: { instances: drawn.instances, grassBlades: drawn.blades, cells: drawn.cells, triangles: info.triangles, drawCalls: info.drawCalls },
  frame1280x720: { adapter: out.adapter, p50Ms: round(s.p50, 1), p95Ms: round(s.p95, 1), fps: round(1000 / s.p50, 1) },
};
console.log(`${trees} trees, ${blades} grass blades scattered; ${drawn.instances} instances drawn near the camera; ${result.frame1280x720.fps} fps at 1280×720 on ${out.adapter}`);
console.log(JSON.stringify(result));
Limina.exit(0);
