// nav.* and character.* through the skill registry, in worlds stepped by
// hand: a path round a wall, a character walked there (arriving within
// 0.3 m, its animation in locomotion on the way and idle after), a new
// obstacle rerouting a walk, a crowd that never interpenetrates, a
// replay of a crowd run reproducing every position bit for bit, a walk
// restored from a snapshot half-way going on exactly as the original, and a
// navmesh over generated terrain that follows its deformation.
import { assert, assertEquals, test } from "limina/testing";
import { createWorldSession, replay, resolveProfile, restoreBytes, snapshotBytes, type Vec3, type WorldSession } from "limina";
import { refused, value } from "./support/results.ts";

const STEP = 1 / 60;
const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const PLAYER = { agentId: "p1", sessionId: "s2", permissions: resolveProfile("player.limited"), profile: "player.limited" };

const call = async <T>(s: WorldSession, tool: string, input: unknown, who = BUILDER) => value<T>(await s.registry.invoke(tool, input, who));

/** A 40 × 40 m floor (top at y = 0) and a wall across x = 0 from z = -6 to 6, 3 m high. */
async function floorAndWall(s: WorldSession) {
  await call(s, "scene.createEntity", { shape: "box", size: 40, position: [0, -20, 0], static: true });
  // A thin wall: static geometry with no entity of its own.
  s.physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [0.25, 1.5, 6] }, position: [0, 1.5, 0] });
  s.step(STEP);
}

/** Whether segment a–b crosses the box [x0, x1] × [z0, z1] (sampled finely). */
function crosses(a: Vec3, b: Vec3, [x0, x1]: [number, number], [z0, z1]: [number, number]): boolean {
  for (let k = 0; k <= 400; k++) {
    const t = k / 400;
    const x = a[0] + (b[0] - a[0]) * t;
    const z = a[2] + (b[2] - a[2]) * t;
    if (x > x0 && x < x1 && z > z0 && z < z1) return true;
  }
  return false;
}

test("nav.findPath goes round a wall: longer than the straight line, no segment through it", async () => {
  const s = createWorldSession({ simulate: false });
  await floorAndWall(s);
  const built = await call<{ polygons: number; tiles: number }>(s, "nav.build", { agentRadius: 0.4 });
  assert(built.polygons > 4 && built.tiles >= 1, JSON.stringify(built));
  const r = await call<{ found: boolean; path: Vec3[]; length: number }>(s, "nav.findPath", { from: [-5, 0, 0], to: [5, 0, 0] });
  assert(r.found);
  assert(r.path.length >= 4, JSON.stringify(r.path));
  assert(r.length > 10 + 2, `longer than the straight 10 m: ${r.length}`);
  for (let i = 1; i < r.path.length; i++) assert(!crosses(r.path[i - 1], r.path[i], [-0.25, 0.25], [-6, 6]), `segment ${i} crosses the wall: ${JSON.stringify(r.path)}`);
  assertEquals(r.path[0], [-5, 0, 0]);
  assertEquals(value(await s.registry.invoke("nav.isReachable", { from: [-5, 0, 0], to: [5, 0, 0] }, PLAYER)), { reachable: true });
  assertEquals(value(await s.registry.invoke("nav.isReachable", { from: [-5, 0, 0], to: [0, 3, 0] }, PLAYER)), { reachable: false });
  // Bad input and missing permissions change nothing.
  refused(await s.registry.invoke("nav.build", { cellSize: 0 }, BUILDER), "invalid_input", "cellSize");
  refused(await s.registry.invoke("nav.build", {}, PLAYER), "forbidden", "nav.define");
  s.dispose();
});

test("nav.findPath before any nav.build is unavailable", async () => {
  const s = createWorldSession({ simulate: false });
  refused(await s.registry.invoke("nav.findPath", { from: [0, 0, 0], to: [1, 0, 0] }, BUILDER), "unavailable", "nav.build");
  s.dispose();
});

test("character.spawn + nav.moveTo: arrives within 0.3 m, in locomotion while walking and idle after; nav.arrived says so", async () => {
  const s = createWorldSession({ simulate: false });
  await floorAndWall(s);
  await call(s, "nav.build", {});
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [-5, 0, 0], appearance: { shirt: 0xcc4422 } });
  for (let i = 0; i < 30; i++) s.step(STEP);
  const standing = await call<{ state: string }>(s, "animation.getState", { entityId }, PLAYER);
  assertEquals(standing.state, "idle");
  const go = await call<{ moving: boolean; distance: number }>(s, "nav.moveTo", { entityId, target: [5, 0, 0] }, PLAYER);
  assert(go.moving && go.distance > 12, JSON.stringify(go));
  const states = new Set<string>();
  const trail: Vec3[] = [];
  let arrived = -1;
  for (let i = 0; i < 60 * 20 && arrived < 0; i++) {
    s.step(STEP);
    const at = s.world.position(s.world.entities.get(entityId)!.eid);
    trail.push(at);
    if (s.tracer.tail().some((e) => e.type === "nav.arrived")) arrived = i;
    else states.add((await call<{ state: string }>(s, "animation.getState", { entityId }, PLAYER)).state);
  }
  assert(arrived > 0, `arrived: last at ${JSON.stringify(trail.at(-1))}`);
  assert(arrived < 60 * 12, `within a walking time: ${arrived} steps`);
  assert(states.has("locomotion"), [...states].join());
  for (let i = 1; i < trail.length; i++) assert(!crosses(trail[i - 1], trail[i], [-0.25, 0.25], [-6, 6]), "never through the wall");
  const event = s.tracer.tail().find((e) => e.type === "nav.arrived")!;
  const p = event.payload as { entityId: string; distance: number; position: Vec3 };
  assertEquals([p.entityId, event.actorId], [entityId, "p1"]);
  assert(p.distance < 0.3, `within 0.3 m: ${p.distance}`);
  assert(event.causedBy.length === 1 && s.tracer.tail().find((e) => e.id === event.causedBy[0])?.type === "nav.moveTo");
  for (let i = 0; i < 30; i++) s.step(STEP);
  const after = await call<{ state: string; clip: string; speed: number }>(s, "animation.getState", { entityId }, PLAYER);
  assertEquals([after.state, after.clip], ["idle", "idle"]);
  assert(after.speed < 0.05, `stands still: ${after.speed}`);
  const at = s.world.position(s.world.entities.get(entityId)!.eid);
  assert(Math.hypot(at[0] - 5, at[2]) < 0.3 && Math.abs(at[1]) < 0.05, `at the goal on the floor: ${at}`);
  s.dispose();
});

test("a newly created obstacle reroutes a walking character", async () => {
  const s = createWorldSession({ simulate: false });
  await call(s, "scene.createEntity", { shape: "box", size: 40, position: [0, -20, 0], static: true });
  s.step(STEP);
  await call(s, "nav.build", {});
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [-8, 0, 0] });
  for (let i = 0; i < 10; i++) s.step(STEP);
  await call(s, "nav.moveTo", { entityId, target: [8, 0, 0] });
  for (let i = 0; i < 60; i++) s.step(STEP);
  const mid = s.world.position(s.world.entities.get(entityId)!.eid);
  assert(mid[0] > -7.5 && Math.abs(mid[2]) < 0.05, `walking straight so far: ${mid}`);
  // A wall drops across its way (a static body: the tiles under it are rebuilt).
  s.physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [0.25, 1.5, 5] }, position: [0, 1.5, 0] });
  const trail: Vec3[] = [];
  for (let i = 0; i < 60 * 20 && !s.tracer.tail().some((e) => e.type === "nav.arrived"); i++) {
    s.step(STEP);
    trail.push(s.world.position(s.world.entities.get(entityId)!.eid));
  }
  assert(s.tracer.tail().some((e) => e.type === "nav.arrived"), `arrived: ${JSON.stringify(trail.at(-1))}`);
  assert(trail.some((p) => Math.abs(p[2]) > 5), "it went round an end of the wall");
  for (const p of trail) assert(!(Math.abs(p[0]) < 0.25 + 0.3 && Math.abs(p[2]) < 5), `never inside the wall: ${p}`);
  s.dispose();
});

/** A crowd of `n` characters on an open plaza, each sent to the far side; returns the closest any two came (× sum of radii). */
async function crowd(s: WorldSession, n: number, steps: number, who = BUILDER): Promise<number> {
  await call(s, "scene.createEntity", { shape: "box", size: 50, position: [0, -25, 0], static: true }, who);
  s.step(STEP);
  await call(s, "nav.build", { tileSize: 48 }, who);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = (i / n) * Math.PI * 2;
    ids.push((await call<{ entityId: string }>(s, "character.spawn", { position: [Math.cos(a) * 12, 0, Math.sin(a) * 12] }, who)).entityId);
  }
  for (let i = 0; i < 5; i++) s.step(STEP);
  for (let i = 0; i < n; i++) {
    const a = (i / n) * Math.PI * 2 + Math.PI;
    await call(s, "nav.moveTo", { entityId: ids[i], target: [Math.cos(a) * 12, 0, Math.sin(a) * 12] }, who);
  }
  let closest = Infinity;
  const eids = ids.map((id) => s.world.entities.get(id)!.eid);
  for (let k = 0; k < steps; k++) {
    s.step(STEP);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const d = Math.hypot(s.world.Position.x[eids[i]] - s.world.Position.x[eids[j]], s.world.Position.z[eids[i]] - s.world.Position.z[eids[j]]);
        closest = Math.min(closest, d / 0.7);
      }
    }
  }
  return closest;
}

test("a crowd crossing through its middle never interpenetrates (distance ≥ 0.9 × the sum of radii)", async () => {
  const s = createWorldSession({ simulate: false });
  const closest = await crowd(s, 40, 900);
  assert(closest >= 0.9, `closest pair: ${closest.toFixed(3)} × the sum of their radii`);
  const arrived = s.tracer.tail().filter((e) => e.type === "nav.arrived").length;
  assert(arrived >= 30, `${arrived} of 40 got across`);
  s.dispose();
});

test("replaying a crowd run's world log reproduces its positions bit for bit", async () => {
  const s = createWorldSession({ simulate: false, checkpointEvery: 30 });
  await crowd(s, 24, 420);
  const log = s.tracer.history();
  const checkpoints = log.filter((e) => e.type === "world.checkpoint").length;
  assert(checkpoints >= 10, `${checkpoints} checkpoints`);
  const again = createWorldSession({ simulate: false, checkpointEvery: 0 });
  const r = await replay(again, log, { until: s.tick });
  assert(r.ok, JSON.stringify(r));
  assertEquals(r.checkpoints, checkpoints);
  assertEquals(again.digest(), s.digest(), "the replayed world ends in the same state, to the bit");
  const bits = (w: WorldSession) => [...w.world.entities.entries()].map((e) => [w.world.Position.x[e.eid], w.world.Position.y[e.eid], w.world.Position.z[e.eid]]);
  assertEquals(bits(again), bits(s));
  s.dispose();
  again.dispose();
});

test("a walk restored from a snapshot half-way goes on step for step as the original, animation included, and its arrival follows", async () => {
  const s = createWorldSession({ simulate: false, checkpointEvery: 0 });
  await floorAndWall(s);
  await call(s, "nav.build", {});
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [-5, 0, 0] });
  for (let i = 0; i < 20; i++) s.step(STEP);
  await call(s, "nav.moveTo", { entityId, target: [5, 0, 0] }, PLAYER);
  for (let i = 0; i < 120; i++) s.step(STEP);
  const mid = s.world.position(s.world.entities.get(entityId)!.eid);
  assert(mid[0] < 3 && s.tracer.tail().every((e) => e.type !== "nav.arrived"), `still on its way: ${mid}`);
  // Restyled, as a builder may dress a character: the snapshot carries its look too.
  await call(s, "three.setMaterial", { entity: entityId, color: 0x22aa44, roughness: 0.4 });
  const checkpoint = await call<{ digest: string }>(s, "checkpoint.create", { name: "mid-walk" });
  const bytes = snapshotBytes(s);
  const r = createWorldSession({ simulate: false, checkpointEvery: 0 });
  await restoreBytes(r, bytes);
  assertEquals(r.digest(), s.digest());
  const state = async (w: WorldSession) => call<{ state: string; clip: string; speed: number }>(w, "animation.getState", { entityId }, PLAYER);
  assertEquals(await state(r), await state(s));
  assertEquals((await state(r)).state, "locomotion");
  const at = (w: WorldSession) => w.world.position(w.world.entities.get(entityId)!.eid);
  const arrivedAt = (w: WorldSession) => w.tracer.tail().findIndex((e) => e.type === "nav.arrived");
  let steps = 0;
  for (; steps < 60 * 20 && arrivedAt(s) < 0; steps++) {
    s.step(STEP);
    r.step(STEP);
    assertEquals(at(r), at(s), `position after ${steps + 1} steps`);
    assertEquals(r.digest(), s.digest(), `digest after ${steps + 1} steps`);
  }
  assert(arrivedAt(s) >= 0 && arrivedAt(r) >= 0, `both arrive: ${at(s)} / ${at(r)}`);
  const end = at(r);
  assert(Math.hypot(end[0] - 5, end[2]) < 0.3, `the restored walker arrives at the goal: ${end}`);
  assertEquals((await state(r)).state, "idle");
  // The restored world is a world like any other: its walker takes the next walk.
  await call(r, "nav.moveTo", { entityId, target: [-5, 0, 0] }, PLAYER);
  for (let i = 0; i < 30; i++) r.step(STEP);
  assertEquals((await state(r)).state, "locomotion");
  assert(Math.hypot(at(r)[0] - end[0], at(r)[2] - end[2]) > 0.5, `walking again: ${at(r)}`);
  // Loaded in place (the walker destroyed with the world and made again), the mid-walk checkpoint walks on to the goal too.
  const arrivals = () => s.tracer.tail().filter((e) => e.type === "nav.arrived").length;
  const before = arrivals();
  assertEquals((await call<{ digest: string }>(s, "checkpoint.load", { name: "mid-walk" })).digest, checkpoint.digest);
  assertEquals((await state(s)).state, "locomotion");
  for (let i = 0; i < 60 * 20 && arrivals() === before; i++) s.step(STEP);
  assertEquals(arrivals(), before + 1);
  assert(Math.hypot(at(s)[0] - 5, at(s)[2]) < 0.3, `arrived again: ${at(s)}`);
  s.dispose();
  r.dispose();
});

test("a navmesh over generated terrain: paths lie on the ground, a raised mound is rebuilt into the mesh and walked round, a character crosses the hills", async () => {
  const s = createWorldSession({ simulate: false, checkpointEvery: 0 });
  await call(s, "world.generateRegion", { seed: 5, size: 128, resolution: 65, tileSize: 128, preset: "hills", heightScale: 12 });
  s.step(STEP);
  const built = await call<{ polygons: number; tiles: number }>(s, "nav.build", {});
  assert(built.polygons > 50 && built.tiles === 64, JSON.stringify(built));
  const ground = (x: number, z: number) => s.terrain.heightAt(x, z)!;
  const from: Vec3 = [-40, ground(-40, -40), -40];
  const to: Vec3 = [40, ground(40, 40), 40];
  const onGround = (path: Vec3[]) => Math.max(...path.map((p) => Math.abs(p[1] - ground(p[0], p[2]))));
  const before = await call<{ found: boolean; path: Vec3[]; length: number }>(s, "nav.findPath", { from, to });
  assert(before.found && before.length >= Math.hypot(80, 80), JSON.stringify(before));
  assert(onGround(before.path) < 0.5, `every corner on the ground: ${JSON.stringify(before.path)}`);
  // A 20 m mound, far steeper than maxSlope, raised across the way: the tiles under it are rebuilt on the next step.
  await call(s, "terrain.deform", { center: [0, 0], radius: 10, delta: 20, mode: "raise" });
  const revision = s.nav.counts()!.revision;
  s.step(STEP);
  assert(s.nav.counts()!.revision > revision, "the deformed tiles were rebuilt");
  const after = await call<{ found: boolean; path: Vec3[]; length: number }>(s, "nav.findPath", { from, to });
  assert(after.found && after.length > before.length, `${after.length} after, ${before.length} before`);
  assert(after.path.every((p) => Math.hypot(p[0], p[2]) > 8), `round the mound: ${JSON.stringify(after.path)}`);
  assert(onGround(after.path) < 0.5, `every corner on the ground: ${JSON.stringify(after.path)}`);
  assertEquals(await call(s, "nav.isReachable", { from, to: [0, ground(0, 0), 0] }), { reachable: false });
  // A character walks it, over the hills and round the mound.
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: from });
  for (let i = 0; i < 10; i++) s.step(STEP);
  await call(s, "nav.moveTo", { entityId, target: to }, PLAYER);
  let closest = Infinity;
  for (let i = 0; i < 60 * 60 && !s.tracer.tail().some((e) => e.type === "nav.arrived"); i++) {
    s.step(STEP);
    const p = s.world.position(s.world.entities.get(entityId)!.eid);
    closest = Math.min(closest, Math.hypot(p[0], p[2]));
  }
  const end = s.world.position(s.world.entities.get(entityId)!.eid);
  assert(s.tracer.tail().some((e) => e.type === "nav.arrived") && Math.hypot(end[0] - to[0], end[2] - to[2]) < 0.3, `arrived: ${end}`);
  assert(Math.abs(end[1] - ground(end[0], end[2])) < 0.3, `standing on the ground: ${end[1]} over ${ground(end[0], end[2])}`);
  assert(closest > 7, `never over the mound: came within ${closest} m of its top`);
  s.dispose();
});
