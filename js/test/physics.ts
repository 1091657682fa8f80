// limina-physics through the real ops: determinism, handles, raycasts,
// events, write-back, and separate worlds per PhysicsWorld / world session.
import * as THREE from "three";
import { type BodyDesc, PhysicsWorld, World, WorldSession } from "limina";
import { assert, assertAlmostEquals, assertEquals, assertNotEquals, assertThrows, test } from "limina/testing";

const DT = 1 / 60;

function scene(physics: PhysicsWorld, world: World): Map<number, string> {
  const names = new Map<number, string>();
  const floor = world.spawn({ position: [0, -0.5, 0], tags: ["floor"] });
  physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0], eid: floor.eid });
  names.set(floor.eid, floor.id);
  for (let i = 0; i < 64; i++) {
    const p: [number, number, number] = [(i % 8) * 1.1 - 4, 1 + Math.floor(i / 8) * 1.2, ((i * 3) % 8) * 0.2];
    const e = world.spawn({ position: p });
    const shape: BodyDesc["shape"] = i % 3 === 0
      ? { type: "box", halfExtents: [0.4, 0.4, 0.4] }
      : i % 3 === 1
      ? { type: "sphere", radius: 0.45 }
      : { type: "capsule", halfHeight: 0.3, radius: 0.3 };
    const h = physics.createBody({ kind: "dynamic", shape, position: p, friction: 0.4, restitution: 0.3, eid: e.eid });
    if (i % 5 === 0) physics.applyImpulse(h, [0.3, 0.5, -0.2]);
    names.set(e.eid, e.id);
  }
  return names;
}

function runScenario(): Uint8Array {
  const world = new World();
  const physics = new PhysicsWorld();
  scene(physics, world);
  for (let s = 0; s < 600; s++) {
    physics.step(DT);
    physics.writeTransforms(world.Position, world.Rotation);
  }
  physics.dispose();
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

test("the write-back fills position and quaternion in place for dynamic bodies only, and lists those that moved", () => {
  const world = new World();
  const physics = new PhysicsWorld();
  physics.setGravity([0, -9.81, 0]);
  const e = world.spawn();
  const s = world.spawn({ position: [7, 7, 7] });
  const h = physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 10, 0], eid: e.eid });
  physics.createBody({ kind: "static", shape: { type: "sphere", radius: 0.5 }, position: [50, 0, 0], eid: s.eid });
  physics.applyImpulse(h, [0, 0, 2]);
  const column = world.Position.y;
  for (let i = 0; i < 30; i++) physics.step(DT);
  assertEquals([...physics.writeTransforms(world.Position, world.Rotation)], [e.eid], "the one dynamic body moved");
  assert(world.Position.y === column, "same typed array, written in place");
  const st = physics.bodyState(h);
  assertEquals(world.position(e.eid), st.position.map(Math.fround) as [number, number, number]);
  assertEquals(world.rotation(e.eid), st.rotation.map(Math.fround) as [number, number, number, number]);
  assert(world.Position.y[e.eid] < 10 && world.Position.z[e.eid] > 0, "it fell and moved forward");
  assertEquals(world.position(s.eid), [7, 7, 7], "static bodies are not written back");
  assertEquals(physics.writeTransforms(world.Position, world.Rotation).length, 0, "nothing moved since");
  physics.dispose();
});

test("destroyed handles are rejected forever with not_found", () => {
  const physics = new PhysicsWorld();
  const a = physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 1 } });
  physics.destroyBody(a);
  const b = physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 1 } });
  assertNotEquals(a, b);
  for (const call of [
    () => physics.destroyBody(a),
    () => physics.applyImpulse(a, [1, 0, 0]),
    () => physics.setPose(a, [0, 0, 0]),
    () => physics.bodyState(a),
  ]) {
    assertThrows(call, { name: "LiminaError", code: "not_found", message: `unknown physics body ${a}` });
  }
  physics.destroyBody(b);
  assertThrows(() => physics.bodyState(b), { code: "not_found" });
  assert(physics.createBody({ kind: "static", shape: { type: "sphere", radius: 1 } }) > b, "no handle is reissued");
  physics.dispose();
});

test("raycasts hit the nearest body and map to its entity", () => {
  const world = new World();
  const physics = new PhysicsWorld();
  const near = world.spawn({ position: [0, 1, 5] });
  const far = world.spawn({ position: [0, 1, 9] });
  for (const e of [near, far]) {
    physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [1, 1, 1] }, position: world.position(e.eid), eid: e.eid });
  }
  physics.step(DT);
  const hit = physics.raycast([0, 1, 0], [0, 0, 1])!;
  assertEquals(world.entities.getByEid(hit.eid!)?.id, near.id);
  assertAlmostEquals(hit.distance, 4, 1e-4);
  assertAlmostEquals(hit.point[2], 4, 1e-4);
  assertAlmostEquals(hit.normal[2], -1, 1e-4);
  assertEquals(physics.raycast([0, 1, 0], [0, 0, -1]), null, "nothing behind");
  assertEquals(physics.raycast([0, 1, 0], [0, 0, 1], 3.9), null, "out of range");
  assertThrows(() => physics.raycast([0, 1, 0], [0, 0, 0]), { code: "invalid_input", message: "non-zero" });
  physics.dispose();
});

test("collision events arrive with entity mapping, contact point and normal", () => {
  const world = new World();
  const physics = new PhysicsWorld();
  const floor = world.spawn({ tags: ["floor"] });
  const ball = world.spawn({ position: [0, 2, 0] });
  physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0], eid: floor.eid });
  physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 2, 0], restitution: 0.8, eid: ball.eid });
  const events = [];
  for (let i = 0; i < 240; i++) {
    physics.step(DT);
    events.push(...physics.drainCollisions());
  }
  const starts = events.filter((e) => e.started);
  const stops = events.filter((e) => !e.started);
  assert(starts.length >= 2 && stops.length >= 1, `a bouncing ball starts and stops touching (${starts.length}/${stops.length})`);
  const first = starts[0];
  const ids = [first.eidA, first.eidB].map((eid) => world.entities.getByEid(eid!)!.id).sort();
  assertEquals(ids, [floor.id, ball.id].sort());
  assert(first.point !== null && Math.abs(first.point[1]) < 0.1, `contact on the floor: ${first.point}`);
  assert(first.normal !== null && Math.abs(Math.abs(first.normal[1]) - 1) < 1e-3, `vertical normal: ${first.normal}`);
  assertEquals(physics.drainCollisions(), [], "drained");
  physics.dispose();
});

test("bad descriptions and inputs are structured errors that create nothing", () => {
  const physics = new PhysicsWorld();
  const cases: [unknown, string][] = [
    [{ kind: "dynamic", shape: { type: "torus", radius: 1 } }, "unknown variant `torus`"],
    [{ kind: "dynamic", shape: { type: "cone", radius: 1 } }, "missing field `halfHeight`"],
    [{ kind: "dynamic" }, "a shape or at least one collider"],
    [{ kind: "dynamic", shape: { type: "trimesh", vertices: new Float32Array(9), triangles: new Uint32Array([0, 1, 2]) } }, "convexHull"],
    [{ kind: "dynamic", shape: { type: "sphere", radius: -1 } }, "sphere radius"],
    [{ kind: "dynamic", shape: { type: "box", halfExtents: [1, 1] } }, "bad body description"],
    [{ kind: "floating", shape: { type: "sphere", radius: 1 } }, "unknown variant `floating`"],
    [{ kind: "dynamic", shape: { type: "sphere", radius: 1 }, mass: 3 }, "unknown field `mass`"],
    [{ kind: "dynamic", shape: { type: "sphere", radius: 1 }, rotation: [0, 0, 0, 0] }, "non-zero"],
  ];
  for (const [desc, message] of cases) {
    assertThrows(() => physics.createBody(desc as BodyDesc), { code: "invalid_input", message });
  }
  assertEquals(physics.bodyCount(), 0);
  assertThrows(() => physics.step(0), { code: "invalid_input", message: "dt" });
  const s = physics.createBody({ kind: "static", shape: { type: "sphere", radius: 1 } });
  assertThrows(() => physics.applyImpulse(s, [1, 0, 0]), { code: "invalid_input", message: "only dynamic" });
  const world = new World();
  const d = physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 1 }, eid: 20000 });
  assertThrows(() => physics.writeTransforms(world.Position, world.Rotation), { code: "invalid_input", message: "eid 20000" });
  physics.destroyBody(d);
  physics.dispose();
});

test("two physics worlds in one process keep their bodies apart", () => {
  const a = new PhysicsWorld();
  const b = new PhysicsWorld();
  assertNotEquals(a.id, b.id);
  const worldA = new World();
  const worldB = new World();
  const wallA = worldA.spawn({ position: [0, 1, 5] });
  a.createBody({ kind: "static", shape: { type: "box", halfExtents: [1, 1, 1] }, position: [0, 1, 5], eid: wallA.eid });
  const ballA = worldA.spawn({ position: [0, 5, 0] });
  const hA = a.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 5, 0], eid: ballA.eid });
  assertEquals([a.bodyCount(), b.bodyCount()], [2, 0], "bodies made in A are A's alone");
  // B's first bodies: handles count per world, so B may reuse A's numbers — and still address only its own.
  const ballB = worldB.spawn({ position: [10, 5, 0] });
  const hB = b.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [10, 5, 0], eid: ballB.eid });
  const hB2 = b.createBody({ kind: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [20, 5, 0] });
  assertEquals([a.bodyCount(), b.bodyCount()], [2, 2]);
  assert(b.bodyState(hB).position[0] === 10 && a.bodyState(hA).position[0] === 0, "each handle resolves in its own world");

  // Raycasts see only their own world (once a step has indexed its colliders).
  b.setGravity([0, 0, 0]);
  a.step(DT);
  b.step(DT);
  assertEquals(a.raycast([0, 1, 0], [0, 0, 1])?.eid, wallA.eid);
  assertEquals(b.raycast([0, 1, 0], [0, 0, 1]), null, "A's wall is not in B");
  assertEquals(a.raycast([10, 10, 0], [0, -1, 0]), null, "B's ball is not in A");
  assertEquals(b.raycast([10, 10, 0], [0, -1, 0])?.handle, hB);

  // Stepping A moves only A's bodies; impulses and gravity stay in their world.
  a.applyImpulse(hA, [0, 0, 1]);
  for (let i = 0; i < 30; i++) a.step(DT);
  assert(a.bodyState(hA).position[1] < 5, "A's ball fell");
  assertEquals(b.bodyState(hB).position, [10, 5, 0], "B did not move: A's steps are not B's");
  assertEquals(b.bodyState(hB).linearVelocity, [0, 0, 0], "A's impulse did not reach B's body with the same handle number");
  assertEquals([...a.writeTransforms(worldA.Position, worldA.Rotation)], [ballA.eid], "A writes back its one dynamic body");
  assertEquals(worldB.position(ballB.eid), [10, 5, 0], "and nothing of B's");
  for (let i = 0; i < 30; i++) b.step(DT);
  assertEquals(b.bodyState(hB).position, [10, 5, 0], "B's gravity is its own (zero)");
  assert(a.bodyState(hA).position[1] < 5 && a.bodyState(hA).linearVelocity[1] < 0, "A's gravity is untouched");
  assertEquals(b.drainCollisions(), []);

  // Destroying a body in one world leaves the other's same-numbered body alone.
  b.destroyBody(hB2);
  assertEquals([a.bodyCount(), b.bodyCount()], [2, 1]);

  // Dropping A leaves B working; every op on A then fails with not_found.
  a.dispose();
  b.step(DT);
  assertEquals(b.bodyCount(), 1);
  assertEquals(b.raycast([10, 10, 0], [0, -1, 0])?.handle, hB);
  const gone = { name: "LiminaError", code: "not_found", message: `no physics world ${a.id}` };
  for (const call of [
    () => a.createBody({ kind: "static", shape: { type: "sphere", radius: 1 } }),
    () => a.destroyBody(hA),
    () => a.step(DT),
    () => a.applyImpulse(hA, [1, 0, 0]),
    () => a.setPose(hA, [0, 0, 0]),
    () => a.setLinearVelocity(hA, [0, 0, 0]),
    () => a.bodyState(hA),
    () => a.raycast([0, 1, 0], [0, 0, 1]),
    () => a.drainCollisions(),
    () => a.writeTransforms(worldA.Position, worldA.Rotation),
    () => a.bodyCount(),
    () => a.setGravity([0, -1, 0]),
  ]) {
    assertThrows(call, gone);
  }
  a.dispose(); // disposing twice is harmless
  assertEquals(b.bodyState(hB).position, [10, 5, 0]);
  const later = new PhysicsWorld();
  assert(later.id > b.id, "world ids are never reused");
  assertEquals(later.bodyCount(), 0);
  later.dispose();
  b.dispose();
});

test("two world sessions own separate physics worlds", async () => {
  const a = new WorldSession({ simulate: false });
  const b = new WorldSession({ simulate: false });
  assert(a.physics !== b.physics && a.physics.id !== b.physics.id, "each session has its own PhysicsWorld");
  const opts = { shape: "sphere" as const, size: 1, color: 0xffffff, position: [0, 5, 0] as [number, number, number], dynamic: true, static: false, friction: 0.5, restitution: 0 };
  const floorA = a.entities.create({ ...opts, shape: "box", size: 10, position: [0, -5, 0], dynamic: false, static: true });
  const ballA = a.entities.create(opts);
  assertEquals([a.physics.bodyCount(), b.physics.bodyCount()], [2, 0]);
  // B's first entity has the same id (and eid) as A's first: still B's own.
  const ballB = b.entities.create(opts);
  assertEquals(ballB.id, floorA.id);
  assertEquals([a.physics.bodyCount(), b.physics.bodyCount()], [2, 1]);

  a.step(DT);
  b.step(DT);
  const builder = { agentId: "t", sessionId: "t", permissions: new Set(["physics.read"]), profile: null };
  const rayA = await a.registry.invoke("physics.raycast", { origin: [0, -0.5, 3], direction: [0, 0, -1] }, builder);
  const rayB = await b.registry.invoke("physics.raycast", { origin: [0, -0.5, 3], direction: [0, 0, -1] }, builder);
  assertEquals(rayA.ok && (rayA.value as { entity?: string }).entity, floorA.id, "A's floor is in A");
  assertEquals(rayB.ok && rayB.value, { hit: false }, "and not in B");

  const soaB = b.world.position(ballB.eid);
  const bodyB = b.physics.bodyState(ballB.body!);
  for (let i = 0; i < 60; i++) a.step(DT);
  assert(a.world.position(ballA.eid)[1] < 4, `A's ball fell (${a.world.position(ballA.eid)})`);
  assertEquals(b.world.position(ballB.eid), soaB, "stepping A does not move B");
  assertEquals(b.physics.bodyState(ballB.body!), bodyB);
  const fallen = a.world.position(ballA.eid);
  for (let i = 0; i < 10; i++) b.step(DT);
  assert(b.world.position(ballB.eid)[1] < soaB[1], "B steps its own ball");
  assertEquals(a.world.position(ballA.eid), fallen, "stepping B does not move A");

  assert(b.entities.destroy(ballB.id));
  assertEquals([a.physics.bodyCount(), b.physics.bodyCount()], [2, 0], "destroying in B frees only B's body");

  a.dispose();
  assertThrows(() => a.physics.bodyCount(), { code: "not_found" });
  assertThrows(() => a.step(DT), { code: "not_found" });
  const again = b.entities.create(opts);
  b.step(DT);
  assertEquals(b.physics.bodyCount(), 1, "B keeps working after A is disposed");
  assert(b.world.position(again.eid)[1] < 5);
  b.dispose();
});

test("a spinning body's scene object shows the quaternion's Euler angles when read, and an angle written there turns the quaternion", () => {
  const s = new WorldSession({ simulate: false, checkpointEvery: 0 });
  const entry = s.entities.create({ shape: "box", size: 1, position: [0, 5, 0], dynamic: true });
  const object = entry.mesh as THREE.Object3D;
  s.physics.setGravity([0, 0, 0]);
  s.physics.setAngularVelocity(entry.body!, [0.7, 1.9, -0.4]);
  const euler = object.rotation;
  for (let i = 0; i < 40; i++) {
    s.step(DT);
    const q = new THREE.Quaternion(...s.world.rotation(entry.eid));
    assertEquals(object.quaternion.toArray(), q.toArray(), `step ${i + 1}: the quaternion is the SoA rotation`);
    const expected = new THREE.Euler().setFromQuaternion(q, object.rotation.order);
    assertEquals(object.rotation.toArray(), expected.toArray(), `step ${i + 1}: the rotation read is the quaternion's`);
  }
  assert(object.rotation === euler, "the same Euler object");
  s.step(DT);
  object.rotation.y = 0.25;
  const turned = new THREE.Quaternion().setFromEuler(new THREE.Euler().setFromQuaternion(new THREE.Quaternion(...s.world.rotation(entry.eid))).set(euler.x, 0.25, euler.z));
  assertEquals(object.quaternion.toArray(), turned.toArray(), "writing one angle keeps the others current");
  s.step(DT);
  const copy = new THREE.Object3D().copy(object);
  assertEquals(copy.quaternion.toArray(), object.quaternion.toArray(), "a copy takes the current rotation");
  assertEquals(copy.rotation.toArray(), object.rotation.toArray());
  s.dispose();
});
