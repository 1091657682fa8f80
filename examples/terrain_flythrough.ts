// Demo: A generated, eroded island with biomes, water and vegetation, flown over at 50 m/s.
// Terrain flythrough: a builder generates an island over MCP — native,
// deterministic heights from a seed, droplet and thermal erosion, a climate
// mapped to biomes (beaches, grassland, forest, taiga, snowy peaks, rock) —
// fills the sea and the inland lake, and scatters trees, rocks, bushes and
// grass by biome; then the camera flies a loop around the island at 50 m/s
// while streamed LOD tiles follow it and the sun moves across the sky.
// Run windowed:  limina demo terrain_flythrough --window
// Or offscreen:  limina demo terrain_flythrough --deterministic --frames 240 --screenshot flythrough.png
import { createEngine, onFixedStep, onFrame, type RegionParams, TerrainView } from "limina";
import * as THREE from "three";

const SPEED = 50;
const ISLAND: RegionParams = {
  seed: 2025,
  center: [0, 0],
  size: 1536,
  resolution: 129,
  tileSize: 192,
  preset: "island",
  heightScale: 240,
  erosion: { droplets: 300_000, thermal: 6 },
  seaLevel: 0,
};
const started = performance.now();
const engine = await createEngine({ antialias: true, paused: true });
const { session, camera } = engine;
engine.renderer.toneMapping = THREE.ACESFilmicToneMapping;
engine.renderer.toneMappingExposure = 1.05;
const sky = new THREE.Color(0x9cc4e4);
session.scene.background = sky;
session.scene.fog = new THREE.Fog(sky, 600, 2200);
camera.far = 6000;
camera.near = 0.5;
camera.updateProjectionMatrix();

const mcp = session.mcp();
mcp.initialize({ agentId: "builder", sessionId: "sess_flythrough", profile: "builder.readWrite" });
const region = await mcp.mustCall<{ tiles: number; samples: number; minHeight: number; maxHeight: number; digest: string; lake: { center: [number, number]; radius: number } }>("world.generateRegion", { ...ISLAND });
console.log(`terrain_flythrough: island of ${region.tiles} tiles, ${region.samples}² samples, heights ${region.minHeight.toFixed(1)}..${region.maxHeight.toFixed(1)} m, ${region.digest} (${Math.round(performance.now() - started)} ms)`);
await mcp.mustCall("world.addWater", { level: 0 });
const lake = await mcp.mustCall<{ level: number }>("world.addWater", { region: { center: region.lake.center, radius: region.lake.radius * 0.55 } });
const plants = await mcp.mustCall<{ counts: Record<string, number>; colliders: number }>("world.populateBiome", { density: 0.7 });
console.log(`terrain_flythrough: the sea at 0 m, a lake at ${lake.level.toFixed(1)} m; scattered ${Object.entries(plants.counts).map(([k, n]) => `${n} ${k}`).join(", ")} (${plants.colliders} colliders)`);

const view = new TerrainView(session.terrain, session.scene, { material: { snowLine: region.maxHeight * 0.62, snowBlend: 18 } });
const sun = session.lighting.directional;
sun.castShadow = false;
session.lighting.ambient.intensity = 0.9;
session.paused = false;

// The flight: an ellipse around the island, 45 m above the ground ahead (smoothed), looking along it.
const radius = 300;
const circumference = 2 * Math.PI * radius;
const position = (s: number): [number, number] => {
  const a = (s / circumference) * 2 * Math.PI;
  return [Math.cos(a) * radius * 1.05, Math.sin(a) * radius * 0.85];
};
let altitude = 120;
const place = (t: number) => {
  const s = t * SPEED;
  const [x, z] = position(s);
  const [ax, az] = position(s + 160);
  const ground = Math.max(session.terrain.heightAt(x, z) ?? 0, session.terrain.heightAt(ax, az) ?? 0, 0);
  altitude += (ground + 70 - altitude) * 0.05;
  camera.position.set(x, altitude, z);
  // Ahead along the path, turned a little toward the island's heart.
  camera.lookAt(ax * 0.6, altitude - 45, az * 0.6);
};
onFixedStep((dt, step) => {
  place(session.tick * dt);
  // The sun crosses the sky once a minute.
  const a = (session.tick / 3600) * Math.PI * 2 + 0.9;
  sun.position.set(Math.cos(a) * 800, 500 + Math.sin(a) * 300, Math.sin(a) * 800);
  sun.intensity = 2.2;
  if (step % 300 === 0) console.log(`terrain_flythrough: t=${(session.tick * dt).toFixed(0)} s, ${view.tiles.built} tile meshes built, ${view.pending} tiles waiting, ${view.vegetation.drawn.instances} plants drawn`);
});
place(0);
onFrame(() => view.update(camera));
