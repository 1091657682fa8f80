// Physics beyond shapes and joints: sensors that report bodies entering and
// leaving without stopping them, collision groups, continuous collision
// detection for fast bodies, velocities and body types set by skills, and
// the kill plane that removes or respawns what falls out of the world — each
// traced, and all of it world state a snapshot restores and the digest covers.
import { createWorldSession, restoreBytes, snapshotBytes, type WorldSession } from "limina";
import { assert, assertAlmostEquals, assertEquals, assertNotEquals, test } from "limina/testing";
import { refused, value } from "./support/results.ts";
import { builder, builderWorld, pos, steps } from "./support/toolbox.ts";

const logged = (s: WorldSession, type: string) => s.tracer.history().filter((e) => e.type === type).map((e) => e.payload as Record<string, unknown>);

interface Contact {
  started: boolean;
  sensor: boolean;
  entityA?: string;
  entityB?: string;
}

test("a sensor reports a body entering and leaving it, stops nothing, and is invisible to rays", async () => {
  const w = builderWorld();
  const zone = await w.make({ shape: "box", size: [2, 2, 2], position: [0, 5, 0], sensor: true, visible: false, tags: ["trigger"] });
  const ball = await w.make({ shape: "sphere", radius: 0.25, position: [0, 9, 0], dynamic: true });
  let inside: string[] = [];
  for (let i = 0; i < 120 && inside.length === 0; i++) {
    steps(w.s, 1);
    inside = (await w.call<{ entities: string[] }>("physics.sensorContents", { entity: zone })).entities;
  }
  assertEquals(inside, [ball], "the ball is inside the zone");
  steps(w.s, 60);
  assert(pos(w.s, ball)[1] < 3, "and fell straight through it");
  assertEquals((await w.call<{ entities: string[] }>("physics.sensorContents", { entity: zone })).entities, []);
  const { events } = await w.call<{ events: Contact[] }>("physics.collisionEvents", {});
  const sensed = events.filter((e) => e.sensor).map((e) => [e.started, e.entityA, e.entityB]);
  assertEquals(sensed, [[true, zone, ball], [false, zone, ball]], "entered, then left; the sensor first");
  assertEquals(logged(w.s, "physics.sensor.entered").map((p) => [p.sensor, p.entity]), [[zone, ball]]);
  assertEquals(logged(w.s, "physics.sensor.exited").map((p) => [p.sensor, p.entity]), [[zone, ball]]);
  assert(typeof logged(w.s, "physics.sensor.entered")[0].tick === "number", "logged with its tick");
  // Rays pass through sensors to what is behind.
  const wall = await w.make({ shape: "box", size: [0.2, 4, 4], position: [5, 5, 0], static: true });
  steps(w.s, 1);
  assertEquals(value<{ entity: string }>(await w.raw("physics.raycast", { origin: [-5, 5, 0], direction: [1, 0, 0] })).entity, wall);
  refused(await w.raw("physics.sensorContents", { entity: "ent_404" }), "not_found", "ent_404");
});

test("a sensor notices kinematic bodies moved through it too", async () => {
  const w = builderWorld();
  const zone = await w.make({ shape: "sphere", radius: 1, position: [0, 0, 0], sensor: true });
  const mover = await w.make({ shape: "box", size: 0.5, position: [-5, 0, 0], kinematic: true });
  for (let x = -5; x <= 0; x += 0.5) {
    await w.call("three.setTransform", { entity: mover, position: [x, 0, 0] });
    steps(w.s, 1);
  }
  assertEquals((await w.call<{ entities: string[] }>("physics.sensorContents", { entity: zone })).entities, [mover]);
});

test("collision groups: a body collides only with the groups it asks for", async () => {
  const w = builderWorld();
  const floor = await w.make({ shape: "box", size: [10, 1, 10], position: [0, -0.5, 0], static: true, groups: { belongsTo: [1] } });
  const ghost = await w.make({ shape: "sphere", radius: 0.5, position: [0, 3, 0], dynamic: true, groups: { belongsTo: [2], collidesWith: [0, 2] } });
  const solid = await w.make({ shape: "sphere", radius: 0.5, position: [3, 3, 0], dynamic: true, groups: { belongsTo: [2], collidesWith: [1] } });
  steps(w.s, 120);
  assert(pos(w.s, ghost)[1] < -2, "the ghost fell through a floor outside its groups");
  assertAlmostEquals(pos(w.s, solid)[1], 0.5, 0.02, "the other landed on it");
  const d = await w.call<{ body: { groups: unknown } }>("scene.describe", { entity: ghost });
  assertEquals(d.body.groups, { belongsTo: [2], collidesWith: [0, 2] });
  assertNotEquals(floor, ghost);
});

test("CCD: a body that asks for it is checked continuously; a very fast one stops at a thin wall", async () => {
  const w = builderWorld();
  await w.call("physics.setKillPlane", { action: "off" });
  w.s.physics.setGravity([0, 0, 0]);
  await w.make({ shape: "box", size: [0.05, 4, 4], position: [10, 0, 0], static: true });
  const bullet = await w.make({ shape: "sphere", radius: 0.05, position: [0, 0, 0], dynamic: true, ccd: true });
  // 50 m per step: it would be far past the 5 cm wall after one more step.
  await w.call("physics.setVelocity", { entity: bullet, linear: [3000, 0, 0] });
  steps(w.s, 10);
  assertAlmostEquals(pos(w.s, bullet)[0], 10 - 0.025 - 0.05, 0.01, "stopped against the wall's near face");
  assertEquals((await w.call<{ body: { ccd: boolean } }>("scene.describe", { entity: bullet })).body.ccd, true);
  // The flag is the physics world's own state: the digest tells the two apart.
  const twin = (ccd: boolean) => {
    const s = createWorldSession({ simulate: false });
    s.entities.create({ shape: "sphere", dynamic: true, ccd });
    return s.digest();
  };
  assertNotEquals(twin(true), twin(false));
});

test("setVelocity sets linear and angular velocity of dynamic bodies only; setBodyType switches how a body moves", async () => {
  const w = builderWorld();
  w.s.physics.setGravity([0, 0, 0]);
  const ball = await w.make({ shape: "sphere", radius: 0.5, dynamic: true });
  await w.call("physics.setVelocity", { entity: ball, linear: [1, 2, 3], angular: [0, 4, 0] });
  const state = w.s.physics.bodyState(w.s.world.entities.get(ball)!.body!);
  assertEquals([state.linearVelocity, state.angularVelocity], [[1, 2, 3], [0, 4, 0]]);
  refused(await w.raw("physics.setVelocity", { entity: ball }), "invalid_input", "linear and/or angular");
  const post = await w.make({ static: true, position: [5, 0, 0] });
  refused(await w.raw("physics.setVelocity", { entity: post, linear: [1, 0, 0] }), "invalid_input", "only dynamic bodies");

  w.s.physics.setGravity([0, -9.81, 0]);
  // Static: it stops where it is. Dynamic again: it falls. Kinematic: moved only by its transform.
  await w.call("physics.setBodyType", { entity: ball, type: "static" });
  const at = pos(w.s, ball);
  steps(w.s, 30);
  assertEquals(pos(w.s, ball), at);
  assertEquals((await w.call<{ body: { type: string } }>("scene.describe", { entity: ball })).body.type, "static");
  await w.call("physics.setBodyType", { entity: ball, type: "dynamic" });
  steps(w.s, 30);
  assert(pos(w.s, ball)[1] < at[1] - 0.5, "falls once dynamic");
  await w.call("physics.setBodyType", { entity: ball, type: "kinematic" });
  const held = pos(w.s, ball);
  steps(w.s, 30);
  assertEquals(pos(w.s, ball), held, "kinematic: gravity does not move it");
  const trimesh = await w.make({ shape: "box", static: true, collider: "trimesh", position: [0, 0, 8] });
  refused(await w.raw("physics.setBodyType", { entity: trimesh, type: "dynamic" }), "invalid_input", "trimesh");
});

test("the kill plane removes what falls out of the world, logged; respawn puts it back; off lets it fall", async () => {
  const w = builderWorld();
  const doomed = await w.make({ shape: "sphere", radius: 0.5, position: [0, 0, 0], dynamic: true });
  steps(w.s, 700); // 11.7 s of falling: past the default plane at y = -500
  assertEquals(w.s.world.entities.get(doomed), undefined, "the entity was removed");
  const [removed] = logged(w.s, "physics.killPlane");
  assertEquals([removed.entity, removed.action], [doomed, "removed"]);
  assert((removed.position as number[])[1] < -500, "where it was when it left");

  await w.call("physics.setKillPlane", { y: -20, action: "respawn" });
  const boomerang = await w.make({ shape: "box", size: 0.5, position: [3, 10, 0], dynamic: true });
  await w.call("physics.setVelocity", { entity: boomerang, linear: [0, -30, 0] });
  steps(w.s, 60);
  const back = logged(w.s, "physics.killPlane").at(-1)!;
  assertEquals([back.entity, back.action], [boomerang, "respawned"]);
  const p = pos(w.s, boomerang);
  assert(p[1] > -20 && p[0] === 3, `respawned where it was made, falling again (${p})`);

  // Sideways out of the world's extent counts as out too.
  await w.call("physics.setKillPlane", { y: -20, action: "remove" });
  w.s.physics.setGravity([0, 0, 0]);
  const runaway = await w.make({ shape: "sphere", radius: 0.1, position: [99_990, 0, 0], dynamic: true });
  await w.call("physics.setVelocity", { entity: runaway, linear: [1000, 0, 0] });
  steps(w.s, 5);
  assertEquals(w.s.world.entities.get(runaway), undefined);

  assertEquals(await w.call("physics.setKillPlane", { action: "off" }), { killPlane: null });
  w.s.physics.setGravity([0, -9.81, 0]);
  const faller = await w.make({ shape: "sphere", radius: 0.1, position: [0, -100, 0], dynamic: true });
  steps(w.s, 60);
  assert(pos(w.s, faller)[1] < -100, "no plane: it falls on");
});

test("sensors, groups, CCD, compound bodies, the kill plane and undrained events survive a snapshot, digest and all", async () => {
  const w = builderWorld();
  await w.call("physics.setKillPlane", { y: -30, action: "respawn" });
  await w.make({ shape: "box", size: [30, 1, 30], position: [0, -0.5, 0], static: true, groups: { belongsTo: [1] } });
  const zone = await w.make({ shape: "cylinder", radius: 2, height: 4, position: [0, 2, 0], sensor: true });
  await w.make({ shape: "box", size: 1, position: [0.5, 6, 0], dynamic: true, ccd: true, colliders: [{ type: "box", size: 1 }, { type: "sphere", radius: 0.4, offset: [0, 0.7, 0] }] });
  await w.make({ shape: "capsule", radius: 0.3, height: 1.2, position: [-1, 8, 0.5], dynamic: true, groups: { belongsTo: [3], collidesWith: [3] } });
  steps(w.s, 50);
  const restored = createWorldSession({ simulate: false });
  await restoreBytes(restored, snapshotBytes(w.s));
  assertEquals(restored.digest(), w.s.digest());
  assertEquals(restored.physics.killPlane(), { y: -30, respawn: true });
  for (let i = 0; i < 200; i++) {
    w.s.step(1 / 60);
    restored.step(1 / 60);
  }
  assertEquals(restored.digest(), w.s.digest());
  const drain = (s: WorldSession) => s.registry.invoke("physics.collisionEvents", {}, builder);
  assertEquals(value(await drain(restored)), value(await drain(w.s)));
  const contents = (s: WorldSession) => s.registry.invoke("physics.sensorContents", { entity: zone }, builder);
  assertEquals(value(await contents(restored)), value(await contents(w.s)));
  // The digest sees the kill plane: changing it changes the digest.
  const before = w.s.digest();
  await w.call("physics.setKillPlane", { y: -31, action: "respawn" });
  assertNotEquals(w.s.digest(), before);
});
