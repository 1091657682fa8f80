// limina-physics through the real ops: determinism, handles, raycasts, events, write-back.
import { assert, assertAlmostEquals, assertEquals, assertNotEquals, assertThrows, test } from "../src/testing.ts";
import { World } from "../src/ecs/world.ts";
import { type BodyDesc, Physics } from "../src/physics/physics.ts";

const DT = 1 / 60;

function scene(world: World): Map<number, string> {
  Physics.clear();
  const names = new Map<number, string>();
  const floor = world.spawn({ position: [0, -0.5, 0], tags: ["floor"] });
  Physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0], eid: floor.eid });
  names.set(floor.eid, floor.id);
  for (let i = 0; i < 64; i++) {
    const p: [number, number, number] = [(i % 8) * 1.1 - 4, 1 + Math.floor(i / 8) * 1.2, ((i * 3) % 8) * 0.2];
    const e = world.spawn({ position: p });
    const shape: BodyDesc["shape"] = i % 3 === 0
      ? { type: "box", halfExtents: [0.4, 0.4, 0.4] }
      : i % 3 === 1
      ? { type: "sphere", radius: 0.45 }
      : { type: "capsule", halfHeight: 0.3, radius: 0.3 };
    const h = Physics.createBody({ kind: "dynamic", shape, position: p, friction: 0.4, restitution: 0.3, eid: e.eid });
    if (i % 5 === 0) Physics.applyImpulse(h, [0.3, 0.5, -0.2]);
    names.set(e.eid, e.id);
  }
  return names;
}

function runScenario(): Uint8Array {
  const world = new World();
  scene(world);
  for (let s = 0; s < 600; s++) {
    Physics.step(DT);
    Physics.writeTransforms(world.Position, world.Rotation);
  }
  const cols = [world.Position.x, world.Position.y, world.Position.z, world.Rotation.x, world.Rotation.y, world.Rotation.z, world.Rotation.w];
  const out = new Uint8Array(cols.length * cols[0].byteLength);
  cols.forEach((c, k) => out.set(new Uint8Array(c.buffer), k * c.byteLength));
  return out;
}

test("identical inputs give bit-identical transforms after 600 steps", () => {
  const a = runScenario();
  const b = runScenario();
  assertEquals(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) throw new Error(`transforms differ at byte ${i}`);
  // And the bodies really moved: something fell and settled.
  const y = new Float32Array(a.buffer, 1 * 16384 * 4, 16384);
  assert(y[2] < 2 && y[2] > 0, `body 2 rests above the floor: ${y[2]}`);
});

test("the write-back fills position and quaternion in place for dynamic bodies only", () => {
  const world = new World();
  Physics.clear();
  Physics.setGravity([0, -9.81, 0]);
  const e = world.spawn();
  const s = world.spawn({ position: [7, 7, 7] });
  const h = Physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 10, 0], eid: e.eid });
  Physics.createBody({ kind: "static", shape: { type: "sphere", radius: 0.5 }, position: [50, 0, 0], eid: s.eid });
  Physics.applyImpulse(h, [0, 0, 2]);
  const column = world.Position.y;
  for (let i = 0; i < 30; i++) Physics.step(DT);
  assertEquals(Physics.writeTransforms(world.Position, world.Rotation), 1);
  assert(world.Position.y === column, "same typed array, written in place");
  const st = Physics.bodyState(h);
  assertEquals(world.position(e.eid), st.position.map(Math.fround) as [number, number, number]);
  assertEquals(world.rotation(e.eid), st.rotation.map(Math.fround) as [number, number, number, number]);
  assert(world.Position.y[e.eid] < 10 && world.Position.z[e.eid] > 0, "it fell and moved forward");
  assertEquals(world.position(s.eid), [7, 7, 7], "static bodies are not written back");
});

test("destroyed handles are rejected forever with not_found", () => {
  Physics.clear();
  const a = Physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 1 } });
  Physics.destroyBody(a);
  const b = Physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 1 } });
  assertNotEquals(a, b);
  for (const call of [
    () => Physics.destroyBody(a),
    () => Physics.applyImpulse(a, [1, 0, 0]),
    () => Physics.setPose(a, [0, 0, 0]),
    () => Physics.bodyState(a),
  ]) {
    assertThrows(call, { name: "LiminaError", code: "not_found", message: `unknown physics body ${a}` });
  }
  Physics.clear();
  assertThrows(() => Physics.bodyState(b), { code: "not_found" });
  assert(Physics.createBody({ kind: "static", shape: { type: "sphere", radius: 1 } }) > b, "no handle is reissued");
});

test("raycasts hit the nearest body and map to its entity", () => {
  const world = new World();
  Physics.clear();
  const near = world.spawn({ position: [0, 1, 5] });
  const far = world.spawn({ position: [0, 1, 9] });
  for (const e of [near, far]) {
    Physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [1, 1, 1] }, position: world.position(e.eid), eid: e.eid });
  }
  Physics.step(DT);
  const hit = Physics.raycast([0, 1, 0], [0, 0, 1])!;
  assertEquals(world.entities.getByEid(hit.eid!)?.id, near.id);
  assertAlmostEquals(hit.distance, 4, 1e-4);
  assertAlmostEquals(hit.point[2], 4, 1e-4);
  assertAlmostEquals(hit.normal[2], -1, 1e-4);
  assertEquals(Physics.raycast([0, 1, 0], [0, 0, -1]), null, "nothing behind");
  assertEquals(Physics.raycast([0, 1, 0], [0, 0, 1], 3.9), null, "out of range");
  assertThrows(() => Physics.raycast([0, 1, 0], [0, 0, 0]), { code: "invalid_input", message: "non-zero" });
});

test("collision events arrive with entity mapping, contact point and normal", () => {
  const world = new World();
  Physics.clear();
  const floor = world.spawn({ tags: ["floor"] });
  const ball = world.spawn({ position: [0, 2, 0] });
  Physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0], eid: floor.eid });
  Physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 2, 0], restitution: 0.8, eid: ball.eid });
  const events = [];
  for (let i = 0; i < 240; i++) {
    Physics.step(DT);
    events.push(...Physics.drainCollisions());
  }
  const starts = events.filter((e) => e.started);
  const stops = events.filter((e) => !e.started);
  assert(starts.length >= 2 && stops.length >= 1, `a bouncing ball starts and stops touching (${starts.length}/${stops.length})`);
  const first = starts[0];
  const ids = [first.eidA, first.eidB].map((eid) => world.entities.getByEid(eid!)!.id).sort();
  assertEquals(ids, [floor.id, ball.id].sort());
  assert(first.point !== null && Math.abs(first.point[1]) < 0.1, `contact on the floor: ${first.point}`);
  assert(first.normal !== null && Math.abs(Math.abs(first.normal[1]) - 1) < 1e-3, `vertical normal: ${first.normal}`);
  assertEquals(Physics.drainCollisions(), [], "drained");
});

test("bad descriptions and inputs are structured errors that create nothing", () => {
  Physics.clear();
  const cases: [unknown, string][] = [
    [{ kind: "dynamic", shape: { type: "cone", radius: 1 } }, "unknown variant `cone`"],
    [{ kind: "dynamic", shape: { type: "sphere", radius: -1 } }, "sphere radius"],
    [{ kind: "dynamic", shape: { type: "box", halfExtents: [1, 1] } }, "bad body description"],
    [{ kind: "floating", shape: { type: "sphere", radius: 1 } }, "unknown variant `floating`"],
    [{ kind: "dynamic", shape: { type: "sphere", radius: 1 }, mass: 3 }, "unknown field `mass`"],
    [{ kind: "dynamic", shape: { type: "sphere", radius: 1 }, rotation: [0, 0, 0, 0] }, "non-zero"],
  ];
  for (const [desc, message] of cases) {
    assertThrows(() => Physics.createBody(desc as BodyDesc), { code: "invalid_input", message });
  }
  assertEquals(Physics.bodyCount(), 0);
  assertThrows(() => Physics.step(0), { code: "invalid_input", message: "dt" });
  const s = Physics.createBody({ kind: "static", shape: { type: "sphere", radius: 1 } });
  assertThrows(() => Physics.applyImpulse(s, [1, 0, 0]), { code: "invalid_input", message: "only dynamic" });
  const world = new World();
  const d = Physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 1 }, eid: 20000 });
  assertThrows(() => Physics.writeTransforms(world.Position, world.Rotation), { code: "invalid_input", message: "eid 20000" });
  Physics.destroyBody(d);
});
