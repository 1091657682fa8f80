// limina: --deterministic
// Terrain: deterministic generation (the same seed gives the same digest in
// two processes over MCP stdio, another seed another one), heights that the
// heightfield colliders agree with, bodies resting on and floating over it,
// deformation of heights and colliders together replayed exactly by
// `limina replay`, snapshots, the tile cache and its clear error, water,
// vegetation (deterministic, colliding, drawn by level of detail and seen in
// a capture), and the permission that guards it all.
import { assert, assertAlmostEquals, assertEquals, assertNotEquals, test } from "limina/testing";
import { BLADES_PER_CLUMP, createOffscreenRenderer, createWorldSession, generateHeightsNow, heightsDigest, type InvokeResult, loadWorld, readTrace, replay, resolveProfile, saveWorld, SCATTER_STRIDE, TERRAIN_ALGORITHM_VERSION, TerrainView, traceDir, waitSteps, type WorldSession } from "limina";
import * as THREE from "three";
import { refused, value } from "./support/results.ts";
import { sh } from "./support/shell.ts";
import { oracleHeights, ORACLE_PARAMS } from "../bench/terrain_oracle.ts";

const rpc = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const INIT = rpc(1, "initialize", { agentId: "terrain", sessionId: "sess_terrain", profile: "builder.readWrite" });
const REGION = { seed: 4242, size: 256, resolution: 65, tileSize: 128, preset: "island", erosion: { droplets: 20_000, thermal: 4 } };
const POINTS: [number, number][] = [[0, 0], [-97.3, 41.2], [63.9, -88.1], [12.5, 117.7], [-120.2, -120.9], [101.01, 7.77]];

const tmp = (name: string) => `/tmp/limina-terrain-${name}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

/** One `limina --mcp-stdio` process: generate, then sample and raycast at POINTS. */
async function stdioRun(seed: number, env: Record<string, string>) {
  const lines = [INIT, rpc(2, "tools/call", { name: "world.generateRegion", arguments: { ...REGION, seed } })];
  POINTS.forEach(([x, z], i) => {
    lines.push(rpc(10 + i, "tools/call", { name: "terrain.sampleHeight", arguments: { x, z } }));
    lines.push(rpc(30 + i, "tools/call", { name: "physics.raycast", arguments: { origin: [x, 2000, z], direction: [0, -1, 0], maxDistance: 5000 } }));
  });
  const out = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-stdio"], stdin: lines.join("\n") + "\n", env });
  assertEquals(out.code, 0, out.stderr);
  const byId = new Map(out.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((r: { id: number }) => [r.id, r]));
  const generated = byId.get(2).result;
  assert(generated.success, JSON.stringify(generated));
  const pairs = POINTS.map((_, i) => [byId.get(10 + i).result.result, byId.get(30 + i).result.result]);
  return { region: generated.result, pairs };
}

test("over MCP stdio, two processes with the same seed report the same digest; sampled heights and downward rays agree", async () => {
  const cache = tmp("cache");
  const a = await stdioRun(4242, { LIMINA_TERRAIN_CACHE: cache });
  const b = await stdioRun(4242, { LIMINA_TERRAIN_CACHE: cache });
  const c = await stdioRun(4243, { LIMINA_TERRAIN_CACHE: "off" });
  assert(/^sha256:[0-9a-f]{64}$/.test(a.region.digest), a.region.digest);
  assertEquals([a.region.cache, b.region.cache, c.region.cache], ["stored", "hit", "off"]);
  assertEquals(b.region.digest, a.region.digest, "the same seed, the same heights (generated, then read from the tile cache)");
  assertNotEquals(c.region.digest, a.region.digest, "another seed, other heights");
  assertEquals([a.region.tiles, a.region.samples, a.region.colliders], [4, 129, 4]);
  assert(a.region.maxHeight > a.region.minHeight, JSON.stringify(a.region));
  for (const run of [a, b]) {
    for (const [i, [sample, ray]] of run.pairs.entries()) {
      assert(sample.inside && ray.hit, `point ${POINTS[i]}: ${JSON.stringify([sample, ray])}`);
      assertAlmostEquals(ray.point[1], sample.height, 1e-3, `the ray meets the ground where terrain.sampleHeight says at ${POINTS[i]}`);
    }
  }
  assertEquals(b.pairs, a.pairs);
  await Limina.run({ cmd: "rm", args: ["-rf", cache] });
});

async function builderSession(options: { checkpointEvery?: number } = {}): Promise<{ s: WorldSession; call: <T = Record<string, unknown>>(tool: string, input: Record<string, unknown>) => Promise<T> }> {
  const s = createWorldSession(options);
  const mcp = s.mcp();
  mcp.initialize({ agentId: "builder", sessionId: "sess_builder", profile: "builder.readWrite" });
  return { s, call: (tool, input) => mcp.mustCall(tool, input) };
}

test("terrain.sampleHeight equals a downward physics.raycast within 1e-3 m across the region, tile seams included", async () => {
  const { s, call } = await builderSession();
  const r = await call<{ origin: [number, number]; spacing: number }>("world.generateRegion", { seed: 11, size: 384, resolution: 33, tileSize: 128, preset: "mountains" });
  let worst = 0;
  for (let k = 0; k < 400; k++) {
    // Points on the tile seams (x or z a multiple of 128 from the origin) and in between.
    const x = k % 5 === 0 ? r.origin[0] + 128 * (1 + (k % 2)) : -190 + ((k * 37.77) % 380);
    const z = k % 7 === 0 ? r.origin[1] + 256 : -190 + ((k * 53.13) % 380);
    const h = s.terrain.heightAt(x, z)!;
    const hit = s.physics.raycast([x, 3000, z], [0, -1, 0], 6000)!;
    worst = Math.max(worst, Math.abs(hit.point[1] - h));
  }
  assert(worst < 1e-3, `largest disagreement ${worst} m`);
  const outside = await call<{ inside: boolean; height: number | null }>("terrain.sampleHeight", { x: 5000, z: 0 });
  assertEquals(outside, { inside: false, height: null });
  const batch = await call<{ heights: (number | null)[] }>("terrain.sampleHeights", { points: [[0, 0], [5000, 0], [10, -10]] });
  assertEquals(batch.heights, [s.terrain.heightAt(0, 0), null, s.terrain.heightAt(10, -10)]);
  s.dispose();
});

test("a dynamic sphere dropped on the terrain comes to rest on it", async () => {
  const { s, call } = await builderSession();
  await call("world.generateRegion", { seed: 5, size: 256, resolution: 65, tileSize: 128, preset: "hills" });
  const [x, z] = [20.5, -33.25];
  // Level ground to rest on (a ball on a slope rolls on).
  await call("terrain.deform", { center: [x, z], radius: 12, delta: 0, mode: "flatten" });
  const ground = s.terrain.heightAt(x, z)!;
  const { entity } = await call<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 1, position: [x, ground + 6, z], dynamic: true, friction: 0.9 });
  await waitSteps(360);
  const body = s.physics.bodyState(s.world.entities.get(entity)!.body!);
  const below = s.terrain.heightAt(body.position[0], body.position[2])!;
  const speed = Math.hypot(...body.linearVelocity);
  assert(body.position[1] > below + 0.3 && body.position[1] < below + 0.6, `resting on the ground: y ${body.position[1]}, ground ${below}`);
  assert(speed < 0.2 || body.sleeping, `at rest: ${speed} m/s`);
  s.dispose();
});

test("terrain.deform changes heights and the collider together; limina replay of the trace reproduces the deformed heights", async () => {
  const { s, call } = await builderSession({ checkpointEvery: 20 });
  await call("world.generateRegion", { seed: 99, size: 256, resolution: 65, tileSize: 128, preset: "island", erosion: { droplets: 5000 } });
  await waitSteps(10);
  const c: [number, number] = [30, 30];
  const before = s.terrain.heightAt(...c)!;
  const rayBefore = s.physics.raycast([c[0], 2000, c[1]], [0, -1, 0], 5000)!.point[1];
  const digestBefore = heightsDigest(s.terrain.region!.heights);
  const out = await call<{ samples: number; heightAtCenter: number }>("terrain.deform", { center: c, radius: 20, delta: 12, mode: "raise" });
  assert(out.samples > 100, JSON.stringify(out));
  assertAlmostEquals(out.heightAtCenter, before + 12, 0.5, "raised by delta at the centre");
  const rayAfter = s.physics.raycast([c[0], 2000, c[1]], [0, -1, 0], 5000)!.point[1];
  assertAlmostEquals(rayAfter - rayBefore, out.heightAtCenter - before, 1e-3, "the collider moved with the heights");
  // A deformation across a tile seam (x = 0) changes both tiles' colliders.
  await call("terrain.deform", { center: [0, -40], radius: 15, delta: 6, mode: "lower" });
  for (const x of [-3, 3]) assertAlmostEquals(s.physics.raycast([x, 2000, -40], [0, -1, 0], 5000)!.point[1], s.terrain.heightAt(x, -40)!, 1e-3);
  await call("terrain.deform", { center: [-50, 50], radius: 25, delta: 0.8, mode: "smooth" });
  await call("terrain.paint", { center: [-60, -60], radius: 10, biome: "desert" });
  const deformed = heightsDigest(s.terrain.region!.heights);
  assertNotEquals(deformed, digestBefore);
  await waitSteps(30);
  const atExport = { tick: s.tick, digest: s.digest() };
  const exported = await call<{ name: string }>("trace.export", { name: "terrain-deform" });
  const trace = `${traceDir()}/${exported.name}`;
  const events = readTrace(trace);
  assert(!JSON.stringify(events).includes(String(s.terrain.region!.heights[1000])), "the log holds parameters, never heights");
  const checkpoint = events.filter((e) => e.type === "world.checkpoint").at(-1)!.payload;
  assertEquals(checkpoint, atExport);
  const run = await Limina.run({ cmd: Limina.execPath, args: ["replay", trace] });
  assertEquals(run.code, 0, run.stdout + run.stderr);
  assert(run.stdout.includes(`digest ${atExport.digest}`), `${run.stdout}\nexpected ${atExport.digest}`);
  // The digest covers the heights: one sample changed behind the log's back is a divergence.
  s.terrain.region!.heights[500] += 1;
  s.terrain.deform([0, 0], 1, 0, "raise");
  assertNotEquals(s.digest(), atExport.digest);
  await Limina.run({ cmd: "rm", args: [trace] });
  s.dispose();
});

test("a world file restores the terrain exactly: heights regenerated, edits re-applied, colliders and digest the same", async () => {
  const { s, call } = await builderSession();
  await call("world.generateRegion", { seed: 3, size: 256, resolution: 33, tileSize: 64, preset: "island" });
  await call("terrain.deform", { center: [10, 10], radius: 30, delta: 9, mode: "flatten" });
  await call("world.addWater", { level: 1.5 });
  await call("world.populateBiome", { density: 0.5, kinds: ["tree", "rock"] });
  await call("terrain.paint", { center: [0, 0], radius: 12, biome: "rock" });
  const path = tmp("world");
  await saveWorld(s, path);
  const t = createWorldSession();
  assert(await loadWorld(t, path), "restored");
  assertEquals(t.digest(), s.digest());
  assertEquals(heightsDigest(t.terrain.region!.heights), heightsDigest(s.terrain.region!.heights));
  assertEquals(t.terrain.biomeAt(0, 0)!.biome, "rock");
  for (const [x, z] of POINTS) {
    const h = s.terrain.heightAt(x * 0.9, z * 0.9);
    assertEquals(t.terrain.heightAt(x * 0.9, z * 0.9), h);
    assertEquals(t.physics.raycast([x * 0.9, 2000, z * 0.9], [0, -1, 0], 5000), s.physics.raycast([x * 0.9, 2000, z * 0.9], [0, -1, 0], 5000));
  }
  assertEquals(t.terrain.vegetation!.instances.tree, s.terrain.vegetation!.instances.tree);
  await Limina.run({ cmd: "rm", args: ["-f", path] });
  s.dispose();
  t.dispose();
});

test("the tile cache: a directory it cannot create is a clear io_error that changes nothing", async () => {
  const file = tmp("not-a-dir");
  await sh(`echo x > ${file}`);
  const out = await Limina.run({
    cmd: Limina.execPath,
    args: ["--mcp-stdio"],
    stdin: [INIT, rpc(2, "tools/call", { name: "world.generateRegion", arguments: { seed: 1, size: 64, resolution: 17, tileSize: 32 } }), rpc(3, "tools/call", { name: "terrain.sampleHeight", arguments: { x: 0, z: 0 } }), rpc(4, "tools/call", { name: "inspector.snapshot", arguments: {} })].join("\n") + "\n",
    env: { LIMINA_TERRAIN_CACHE: `${file}/cache` },
  });
  assertEquals(out.code, 0, out.stderr);
  const byId = new Map(out.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((r: { id: number }) => [r.id, r]));
  const failed = byId.get(2).error.data;
  assertEquals([failed.success, failed.error.code], [false, "io_error"], JSON.stringify(byId.get(2)));
  assert(failed.error.message.includes(`terrain tile cache: cannot write ${file}/cache`) && failed.error.message.includes("Not a directory"), failed.error.message);
  assertEquals(byId.get(3).error.data.error.code, "not_found", "no terrain was made");
  assertEquals(byId.get(4).result.result.resources.counts.physicsBodies, 0, "no collider was made");
  await Limina.run({ cmd: "rm", args: ["-f", file] });
});

test("the heights are a Float32Array view of the region; the native generator matches the TypeScript oracle bit for bit, in every algorithm version", async () => {
  const { s, call } = await builderSession();
  const r = await call<{ samples: number; digest: string }>("world.generateRegion", { seed: 8, size: 128, resolution: 65, tileSize: 64, preset: "hills" });
  const region = s.terrain.region!;
  assert(region.heights instanceof Float32Array && region.heights.length === r.samples ** 2);
  assertEquals(heightsDigest(region.heights), r.digest);
  for (let algorithm = 1; algorithm <= TERRAIN_ALGORITHM_VERSION; algorithm++) {
    const params = { ...ORACLE_PARAMS, algorithm };
    const native = generateHeightsNow(params);
    const oracle = oracleHeights(params);
    assertEquals(native.length, oracle.length);
    const differ = native.findIndex((v, i) => !Object.is(v, oracle[i]));
    assertEquals(differ, -1, `version ${algorithm}: first differing sample ${differ}: ${native[differ]} vs ${oracle[differ]}`);
    assertEquals(heightsDigest(generateHeightsNow(params, 1)), heightsDigest(native), `version ${algorithm}: one thread or the pool, the same heights`);
    // Version 1's bench tile as it was before version 2 existed.
    if (algorithm === 1) assertEquals(heightsDigest(native), "sha256:80836fbdae42507c9fa63a92cf58aafd48e363e739b240a0493261815c6fd6d6");
  }
  assertEquals(heightsDigest(generateHeightsNow(ORACLE_PARAMS)), heightsDigest(generateHeightsNow({ ...ORACLE_PARAMS, algorithm: TERRAIN_ALGORITHM_VERSION })), "no version: the latest");
  s.dispose();
});

test("a region keeps the heights of the algorithm version it was made with: snapshots without a version and world logs of world.generateRegion 1.0.0 regenerate version 1's", async () => {
  const REGION = { seed: 99, size: 256, resolution: 129, tileSize: 256, preset: "island", erosion: { droplets: 20_000 } };
  const { s, call } = await builderSession();
  const v1 = (await call<{ digest: string }>("world.generateRegion", { ...REGION, algorithm: 1 })).digest;
  const saved = s.terrain.save();
  const latest = (await call<{ digest: string }>("world.generateRegion", REGION)).digest;
  assertEquals(s.terrain.region!.params.algorithm, TERRAIN_ALGORITHM_VERSION, "a new region records the version that made it");
  assertNotEquals(latest, v1, "the versions give other heights");
  refused(await s.registry.invoke("world.generateRegion", { ...REGION, algorithm: TERRAIN_ALGORITHM_VERSION + 1 }, { agentId: "builder", sessionId: "sess_builder", permissions: resolveProfile("builder.readWrite") }), "invalid_input", "algorithm");
  // A snapshot taken before versions were recorded holds no version: version 1 made it.
  delete saved.region!.params.algorithm;
  const restored = createWorldSession({ simulate: false });
  restored.terrain.load(saved);
  assertEquals(restored.terrain.region!.digest, v1);
  restored.dispose();
  // A world log recorded by world.generateRegion 1.0.0 (no algorithm in its input) replays version 1; one of 1.1.0 the latest.
  const logged = (version: string) => [{ id: "evt_builder_000000000001_0000", type: "skill.executed", actorId: "builder", threadId: "sess_builder", parentEventId: null, causedBy: [], timestamp: new Date(0).toISOString(), payload: { skill: "world.generateRegion", version, input: REGION, tick: 0 } }];
  for (const [version, digest] of [["1.0.0", v1], ["1.1.0", latest]]) {
    const replayed = createWorldSession({ simulate: false });
    const result = await replay(replayed, logged(version));
    assert(result.ok, JSON.stringify(result));
    assertEquals(replayed.terrain.region!.digest, digest, `a log of world.generateRegion ${version}`);
    replayed.dispose();
  }
  s.dispose();
});

test("water floats a body and slows it; vegetation is deterministic and its trunks and rocks collide", async () => {
  const { s, call } = await builderSession();
  await call("world.generateRegion", { seed: 21, size: 256, resolution: 65, tileSize: 128, preset: "island" });
  const lake = await call<{ water: string; level: number }>("world.addWater", { level: 4 });
  assertEquals(lake.water, "wat_1");
  // A point of open sea, well under the surface.
  let sea: [number, number] = [0, 0];
  for (let x = -125; x < 125 && s.terrain.heightAt(...sea)! > -5; x += 5) sea = [x, -125];
  assert(s.terrain.heightAt(...sea)! < 0, `found deep water at ${sea}`);
  const { entity } = await call<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 1, position: [sea[0], 12, sea[1]], dynamic: true });
  await waitSteps(420);
  const body = s.physics.bodyState(s.world.entities.get(entity)!.body!);
  assert(Math.abs(body.position[1] - 4) < 1, `floating at the surface (level 4): y ${body.position[1]}`);
  const first = await call<{ counts: Record<string, number>; colliders: number }>("world.populateBiome", { density: 0.8, kinds: ["tree", "rock", "grass"] });
  assert(first.counts.tree > 5 && first.counts.grass > first.counts.tree, JSON.stringify(first));
  const trees = s.terrain.vegetation!.instances.tree!;
  const again = await call<{ counts: Record<string, number> }>("world.populateBiome", { density: 0.8, kinds: ["tree", "rock", "grass"] });
  assertEquals(again.counts, first.counts);
  assertEquals(s.terrain.vegetation!.instances.tree, trees, "the same scatter again");
  const [x, y, z, scale] = trees.subarray(0, 4);
  const hit = s.physics.raycast([x, y + 40, z], [0, -1, 0], 100)!;
  assert(hit.point[1] > y + 2, `a ray down the first tree meets its trunk above the ground: ${hit.point[1]} vs ground ${y} (scale ${scale})`);
  s.dispose();
});

test("vegetation is drawn at what the eye resolves: near trees from meshes, far trees from impostors, out-of-view cells not at all, grass near only, no instanced draws; a capture shows trees at both distances", async () => {
  const s = createWorldSession({ simulate: false });
  await s.terrain.generate({ seed: 31, center: [0, 0], size: 768, resolution: 65, tileSize: 128, preset: "hills", heightScale: 40, seaLevel: -50, erosion: {} }, { moisture: 0.75 });
  s.terrain.populate(1, ["tree", "grass"]);
  const trees = s.terrain.vegetation!.instances.tree!;
  const clumps = s.terrain.vegetation!.instances.grass!;
  assert(trees.length / SCATTER_STRIDE > 1000, `a forest: ${trees.length / SCATTER_STRIDE} trees`);
  const view = new TerrainView(s.terrain, s.scene);
  const veg = view.vegetation;
  // 25 m above the tree with the most others within 120 m (of those within 150 m of the centre), looking a little down.
  const around = (i: number) => {
    let n = 0;
    for (let j = 0; j < trees.length; j += SCATTER_STRIDE) if (Math.hypot(trees[j] - trees[i], trees[j + 2] - trees[i + 2]) <= 120) n++;
    return n;
  };
  let first = 0, most = -1;
  for (let i = 0; i < trees.length; i += SCATTER_STRIDE * 7) {
    if (Math.hypot(trees[i], trees[i + 2]) > 150) continue;
    const n = around(i);
    if (n > most) [first, most] = [i, n];
  }
  const [cx, cy, cz] = [trees[first], trees[first + 1] + 25, trees[first + 2]];
  const camera = new THREE.PerspectiveCamera(60, 16 / 9, 0.5, 5000);
  camera.position.set(cx, cy, cz);
  // Facing away from the most trees within reach, so the near cells behind the camera hold plenty.
  const behindOf = (a: number) => {
    let n = 0;
    for (let j = 0; j < trees.length; j += SCATTER_STRIDE) {
      const dx = trees[j] - cx, dz = trees[j + 2] - cz;
      if (Math.hypot(dx, dz) <= 110 && dx * Math.cos(a) + dz * Math.sin(a) < -100) n++;
    }
    return n;
  };
  const heading = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => (k * Math.PI) / 4).reduce((a, b) => (behindOf(b) > behindOf(a) ? b : a));
  camera.lookAt(cx + 100 * Math.cos(heading), cy - 20, cz + 100 * Math.sin(heading));
  view.update(camera);
  const frustum = new THREE.Frustum().setFromProjectionMatrix(new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
  const forward = camera.getWorldDirection(new THREE.Vector3());
  const p = new THREE.Vector3();
  const levels = { mesh: 0, impostor: 0 };
  let nearSeen = 0, farSeen = 0, behind = 0;
  for (let i = 0; i < trees.length; i += SCATTER_STRIDE) {
    p.set(trees[i], trees[i + 1] + 3, trees[i + 2]);
    const level = veg.treeLevel(i / SCATTER_STRIDE);
    if (level) levels[level]++;
    const d = p.distanceTo(camera.position);
    const depth = p.clone().sub(camera.position).dot(forward);
    if (frustum.containsPoint(p) && d <= 120) (nearSeen++, assertEquals(level, "mesh", `tree ${i / SCATTER_STRIDE} in view ${d.toFixed(0)} m away`));
    if (frustum.containsPoint(p) && d > 220) (farSeen++, assertEquals(level, "impostor", `tree ${i / SCATTER_STRIDE} in view ${d.toFixed(0)} m away`));
    // A near cell wholly behind the camera is not drawn.
    if (d <= 120 && depth < -100) (behind++, assertEquals(level, null, `tree ${i / SCATTER_STRIDE} behind the camera`));
  }
  assert(nearSeen > 20 && farSeen > 100 && behind > 3, JSON.stringify({ nearSeen, farSeen, behind }));
  assertEquals(veg.drawn.trees, levels, "the counts per level are the trees each level drew");
  assert(levels.mesh + levels.impostor < (trees.length / SCATTER_STRIDE) * 0.8, "trees out of view are not drawn");
  // Plain merged buffers, one draw per cell or block: no instanced draws, far fewer draws than plants.
  const meshes = veg.group.children as THREE.Mesh[];
  assert(meshes.every((m) => !(m as THREE.InstancedMesh).isInstancedMesh), "no instanced draws");
  assert(veg.drawn.cells < 200 && veg.drawn.cells <= meshes.filter((m) => m.visible).length, JSON.stringify(veg.drawn));
  // Grass: near only, and thinner with distance.
  assert(veg.drawn.blades > 0 && veg.drawn.blades < (clumps.length / SCATTER_STRIDE) * BLADES_PER_CLUMP * 0.1, JSON.stringify(veg.drawn));
  for (const m of meshes.filter((m) => m.visible && m.name === "grass_cell")) assert(m.geometry.boundingSphere!.distanceToPoint(camera.position) <= 90, "grass beyond 90 m");
  // Thinned far blocks draw fewer impostors, never under 40% of them.
  const thin = new TerrainView(s.terrain, new THREE.Scene(), { vegetation: { treeThinning: 150 } });
  thin.update(camera);
  const [all, some] = [veg.drawn.trees.impostor, thin.vegetation.drawn.trees.impostor];
  assert(some < all && some >= all * 0.4, `impostors thinned past 150 m: ${some} of ${all}`);
  thin.dispose();

  // A capture: each level changes pixels, the meshes low in the frame (near), the impostors high (far).
  const out = await createOffscreenRenderer(192, 108, { antialias: false });
  const show = (names: string[]) => meshes.forEach((m) => (m.userData.wasVisible ??= m.visible, (m.visible = m.userData.wasVisible && names.includes(m.name))));
  const frame = async (names: string[]) => {
    show(names);
    out.renderer.render(s.scene, camera);
    return await out.readPixels();
  };
  const bare = await frame([]);
  const changed = (img: Uint8Array) => {
    let n = 0, rows = 0;
    for (let i = 0; i < img.length; i += 4) {
      if (Math.abs(img[i] - bare[i]) + Math.abs(img[i + 1] - bare[i + 1]) + Math.abs(img[i + 2] - bare[i + 2]) > 24) (n++, rows += Math.floor(i / 4 / 192));
    }
    return { n, row: rows / Math.max(1, n) };
  };
  const near = changed(await frame(["tree_cell"]));
  const far = changed(await frame(["tree_block", "tree_impostor_cell"]));
  assert(near.n > 200 && far.n > 200, `trees at both distances change the picture: ${JSON.stringify({ near, far })}`);
  assert(near.row > far.row + 10, `near trees lower in the frame than far ones: ${JSON.stringify({ near, far })}`);
  view.dispose();
  s.dispose();
});

test("world.write guards every terrain change; a denied call changes nothing; reads need scene.read", async () => {
  const s = createWorldSession({ simulate: false });
  const as = (profile: string) => ({ agentId: "a", sessionId: "s", permissions: resolveProfile(profile), profile });
  const calls: [string, Record<string, unknown>][] = [
    ["world.generateRegion", { seed: 1, size: 64, resolution: 17, tileSize: 32 }],
    ["terrain.deform", { center: [0, 0], radius: 5, delta: 1 }],
    ["terrain.paint", { center: [0, 0], radius: 5, biome: "snow" }],
    ["world.addWater", { level: 1 }],
    ["world.populateBiome", { density: 0.5 }],
    ["world.streamFollow", { entityId: null }],
  ];
  const before = s.digest();
  for (const profile of ["player.limited", "social.actor", "system.readonly"]) {
    for (const [tool, input] of calls) refused(await s.registry.invoke(tool, input, as(profile)), "forbidden", "world.write");
  }
  assertEquals(s.digest(), before);
  assertEquals(s.physics.bodyCount(), 0);
  value(await s.registry.invoke("world.generateRegion", calls[0][1], as("builder.readWrite")));
  const r: InvokeResult = await s.registry.invoke("terrain.sampleBiome", { x: 0, z: 0 }, as("system.readonly"));
  assert(value<{ inside: boolean }>(r).inside);
  refused(await s.registry.invoke("terrain.paint", { center: [0, 0], radius: 5, biome: "lava" }, as("builder.readWrite")), "invalid_input", "biome");
  refused(await s.registry.invoke("world.generateRegion", { seed: 1, resolution: 100 }, as("builder.readWrite")), "invalid_input", "resolution");
  s.dispose();
});
