// Vegetation at scale: a 2.5 km region of hills scattered with 50,000+ trees
// and 1,000,000+ grass blades (clumps of 3) plus rocks and bushes, drawn by
// an engine at the look's balanced tier (as worlds draw: sky, image-based
// lighting, fitted sun shadows, the post stack) at 1280×720, from 25 m above
// a forest edge, the camera turning. Frame times with everything drawn, with
// the vegetation hidden and with the terrain hidden too, in turn, so the
// vegetation's and the terrain's shares of the frame are measured in the same
// run; what is drawn is reported (trees per level, grass blades, triangles,
// draw calls).
// Run: limina js/bench/terrain_vegetation.ts [W H FRAMES TIER]   (final line: JSON figures)
import { biomeOf, BLADES_PER_CLUMP, BIOMES, createEngine, gpuIdle, type QualityTier, scatter, type ScatterKind, TerrainView } from "limina";
import { round, summarize } from "limina/bench";

const [W, H] = Limina.args.length >= 2 ? [Number(Limina.args[0]), Number(Limina.args[1])] : [1280, 720];
const FRAMES = Number(Limina.args[2] ?? 20);
const TIER = (Limina.args[3] ?? "balanced") as QualityTier;
const engine = await createEngine({ width: W, height: H, antialias: false, simulate: false, quality: TIER });
const { session, camera } = engine;
await session.terrain.generate({ seed: 31, center: [0, 0], size: 2560, resolution: 129, tileSize: 160, preset: "hills", heightScale: 70, seaLevel: -50, erosion: {} }, { moisture: 0.75 });
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
const count = (k: ScatterKind) => (v.instances[k]?.length ?? 0) / 5;
const trees = count("tree");
const blades = count("grass") * BLADES_PER_CLUMP;

// A forest edge: the region's sample nearest its centre that is forest with grassland 40 m to one side.
const { samples: n, spacing, origin } = region.layout;
const forest = BIOMES.indexOf("forest"), grass = BIOMES.indexOf("grassland");
const step = Math.round(40 / spacing);
let edge: [number, number] = [0, 0];
for (let best = Infinity, i = 0; i < biomes.length; i++) {
  const x = i % n, z = Math.floor(i / n);
  if (biomes[i] !== forest || x + step >= n || biomes[i + step] !== grass) continue;
  const d = Math.hypot(x - n / 2, z - n / 2);
  if (d < best) [best, edge] = [d, [origin[0] + x * spacing, origin[1] + z * spacing]];
}
camera.near = 0.5;
camera.far = 5000;
camera.updateProjectionMatrix();
const t1 = performance.now();
const view = new TerrainView(session.terrain, session.scene);
const buildMs = performance.now() - t1;
const ground = session.terrain.heightAt(...edge) ?? 0;
const look = (f: number) => {
  const a = f * 0.02;
  camera.position.set(edge[0], ground + 25, edge[1]);
  camera.lookAt(edge[0] + Math.cos(a) * 100, ground + 5, edge[1] + Math.sin(a) * 100);
  camera.updateMatrixWorld();
};
const device: GPUDevice = (engine.renderer.backend as unknown as { device: GPUDevice }).device;
// Stream every tile in first (the bench times drawing, not streaming), then warm the pipelines and the environment.
for (let i = 0; i < 400 && (i === 0 || view.pending > 0); i++) (look(0), view.update(camera));
for (let i = 0; i < 3; i++) {
  engine.renderFrame();
  await gpuIdle(device);
}
// Every draw of a frame counted (the post passes' included), not only its last render call's.
engine.renderer.info.autoReset = false;
const shown: number[] = [], hidden: number[] = [], empty: number[] = [];
let drawn = view.vegetation.drawn;
let info = { triangles: 0, drawCalls: 0 };
let bare = { triangles: 0, drawCalls: 0 };
const { tiles, water, vegetation } = view;
// Three frames in turn — everything, the vegetation hidden, the terrain hidden too (the sky and the tier's own
// passes) — so load on the machine falls on each alike.
for (let f = 0; f < 3 * FRAMES; f++) {
  const part = f % 3;
  look(Math.floor(f / 3));
  view.update(camera);
  vegetation.group.visible = part === 0;
  tiles.group.visible = water.group.visible = part < 2;
  if (part === 0) drawn = vegetation.drawn;
  engine.renderer.info.reset();
  const a = performance.now();
  engine.renderFrame();
  await gpuIdle(device);
  [shown, hidden, empty][part].push(performance.now() - a);
  const r = engine.renderer.info.render;
  if (part === 0) info = { triangles: r.triangles, drawCalls: r.drawCalls };
  if (part === 1) bare = { triangles: r.triangles, drawCalls: r.drawCalls };
}
const s = summarize(shown), h = summarize(hidden), e = summarize(empty);
const result = {
  bench: "terrain_vegetation",
  scattered: { trees, rocks: count("rock"), bushes: count("bush"), grassClumps: count("grass"), grassBlades: blades, scatterMs: round(scatterMs, 0), viewMs: round(buildMs, 0) },
  drawn: { ...drawn, frameTriangles: info.triangles, frameDrawCalls: info.drawCalls, withoutVegetation: bare },
  frame: { width: W, height: H, tier: session.look.quality, adapter: engine.output.adapter, p50Ms: round(s.p50, 1), p95Ms: round(s.p95, 1), fps: round(1000 / s.p50, 1) },
  withoutVegetation: { p50Ms: round(h.p50, 1), p95Ms: round(h.p95, 1), fps: round(1000 / h.p50, 1) },
  emptyScene: { p50Ms: round(e.p50, 1), p95Ms: round(e.p95, 1) },
  vegetationMs: round(s.p50 - h.p50, 1),
  terrainMs: round(h.p50 - e.p50, 1),
};
console.log(`${trees} trees, ${blades} grass blades scattered; drawn ${JSON.stringify(drawn)}; ${result.frame.fps} fps at ${W}×${H} (${result.frame.tier}) on ${engine.output.adapter}, ${result.withoutVegetation.fps} fps without vegetation`);
console.log(JSON.stringify(result));
Limina.exit(0);
