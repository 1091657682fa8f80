// Every shape scene.createEntity makes, with the collider that matches it by
// default, the overrides (one collider type, a compound body), mesh shapes
// from a glTF model (a trimesh for static bodies, a convex hull for moving
// ones), heightfield ground, colliders refitted when an entity is rescaled, and the shapes'
// rules refused precisely with nothing created. Colliders are measured the
// way a game sees them: where bodies come to rest and where rays hit.
import { createWorldSession, restoreBytes, snapshotBytes, type WorldSession } from "limina";
import { assert, assertAlmostEquals, assertEquals, test } from "limina/testing";
import { refused, value } from "./support/results.ts";
import { builder, builderWorld, steps } from "./support/toolbox.ts";

/** Where a ray straight down from (x, 50, z) first hits, or null (after a step: a step indexes new colliders for rays). */
function groundAt(s: WorldSession, x: number, z: number): { y: number; entity: string | undefined } | null {
  s.step(1 / 60);
  const hit = s.physics.raycast([x, 50, z], [0, -1, 0], 100);
  return hit && { y: hit.point[1], entity: hit.eid === null ? undefined : s.world.entities.getByEid(hit.eid)?.id };
}

const height = (s: WorldSession, id: string) => s.world.position(s.world.entities.get(id)!.eid)[1];

test("each shape falls onto a floor and rests where its matching collider says", async () => {
  const { s, call } = builderWorld();
  await call("scene.createEntity", { shape: "box", size: [200, 1, 200], position: [0, -0.5, 0], static: true });
  const cases: [Record<string, unknown>, number][] = [
    [{ shape: "box", size: [2, 0.5, 1] }, 0.25],
    [{ shape: "sphere", radius: 0.4 }, 0.4],
    [{ shape: "capsule", radius: 0.3, height: 1.6 }, 0.8],
    [{ shape: "cylinder", radius: 0.5, height: 1.2 }, 0.6],
    [{ shape: "cone", radius: 0.6, height: 1 }, 0.5],
    [{ shape: "torus", radius: 0.8, tube: 0.2 }, 0.2],
  ];
  const ids: string[] = [];
  for (const [i, [spec]] of cases.entries()) {
    ids.push((await call<{ entity: string }>("scene.createEntity", { ...spec, position: [i * 4 - 10, 2, 0], dynamic: true })).entity);
  }
  steps(s, 240);
  cases.forEach(([spec, rest], i) => assertAlmostEquals(height(s, ids[i]), rest, 0.03, `${spec.shape} rests at ${rest}`));
  // The torus's collider has a hole: a ray through its middle reaches the floor.
  const torus = s.world.position(s.world.entities.get(ids[5])!.eid);
  assertEquals(groundAt(s, torus[0], torus[2])!.entity, "ent_1");
  assertAlmostEquals(groundAt(s, torus[0] + 0.8, torus[2])!.y, 0.4, 0.05, "and hits its ring");
});

test("a plane is a floor: its top face is the plane", async () => {
  const { s, call } = builderWorld();
  const { entity: floor } = await call<{ entity: string }>("scene.createEntity", { shape: "plane", size: [10, 0, 6], static: true, position: [0, 1, 0] });
  const { entity: ball } = await call<{ entity: string }>("scene.createEntity", { shape: "sphere", radius: 0.5, position: [0, 4, 0], dynamic: true });
  steps(s, 180);
  assertAlmostEquals(height(s, ball), 1.5, 0.02);
  assertEquals(groundAt(s, 4.9, 2.9), { y: 1, entity: floor });
  assertEquals(groundAt(s, 5.2, 0), null, "no wider than its size");
});

test("overrides: one collider type, or a compound body of several", async () => {
  const { s, call } = builderWorld();
  // A visible box with a sphere collider fitted around it.
  const { entity: odd } = await call<{ entity: string }>("scene.createEntity", { shape: "box", size: 2, static: true, collider: "sphere" });
  assertAlmostEquals(groundAt(s, 0, 0)!.y, 1, 1e-4);
  assertAlmostEquals(groundAt(s, 0.5, 0.5)!.y, Math.sqrt(0.5), 1e-3, "a sphere of radius 1, not the box");
  await call("scene.destroyEntity", { entity: odd });
  // A table: a top and four legs, one static body.
  const legs = [[-0.9, -0.9], [0.9, -0.9], [-0.9, 0.9], [0.9, 0.9]].map(([x, z]) => ({ type: "box", size: [0.1, 1, 0.1], offset: [x, -0.5, z] }));
  const { entity: table } = await call<{ entity: string }>("scene.createEntity", {
    shape: "box", size: [2, 0.1, 2], position: [10, 1, 0], static: true,
    colliders: [{ type: "box", size: [2, 0.1, 2] }, ...legs],
  });
  assertAlmostEquals(groundAt(s, 10, 0)!.y, 1.05, 1e-4, "the top");
  const d = await call<{ body: { colliders: unknown[] } }>("scene.describe", { entity: table });
  assertEquals(d.body.colliders.length, 5);
  const under = s.physics.raycast([10.9, 0.5, 1.2], [0, 0, -1], 0.5);
  assertEquals(under?.eid, s.world.entities.get(table)!.eid, "a leg stands under a corner");
  assertAlmostEquals(under!.distance, 0.25, 1e-4);
  // Explicit dimensions win over the fitted ones, and an offset moves the collider on the body.
  await call("scene.createEntity", { shape: "sphere", radius: 0.1, position: [20, 0, 0], static: true, collider: { type: "cylinder", radius: 1, height: 4, offset: [0, 1, 0] } });
  assertAlmostEquals(groundAt(s, 20.9, 0)!.y, 3, 1e-4);
});

test("a mesh shape from a glTF model: a trimesh when static, a convex hull when it moves", async () => {
  const { s, call } = builderWorld();
  const { entity: crate } = await call<{ entity: string }>("scene.createEntity", { shape: "mesh", asset: "crate", position: [0, 0, 0], static: true });
  const d = await call<{ look: Record<string, unknown> }>("scene.describe", { entity: crate });
  assertEquals(d.look, { shape: "mesh", asset: "crate", color: null, material: null, visible: true });
  const top = groundAt(s, 0, 0)!;
  assertEquals(top.entity, crate);
  assert(top.y > 0.3, `the crate has height (${top.y})`);
  // A ball dropped on the static crate bounces off it (and rolls off its roof): the trimesh is solid to it.
  await call("scene.createEntity", { shape: "box", size: [40, 1, 40], position: [0, -5.5, 0], static: true });
  const { entity: ball } = await call<{ entity: string }>("scene.createEntity", { shape: "sphere", radius: 0.1, position: [0.2, 4, 0.2], dynamic: true });
  // A moving crate is its convex hull: it lands on the floor and stands on its base.
  const { entity: falling } = await call<{ entity: string }>("scene.createEntity", { shape: "mesh", asset: "crate", position: [6, 0, 0], dynamic: true });
  steps(s, 60);
  const touched = s.entities.drainContacts().events.find((e) => e.started && [e.entityA, e.entityB].includes(crate) && [e.entityA, e.entityB].includes(ball));
  assert(touched && touched.point![1] > 0.9, `the ball hit the crate's top (${JSON.stringify(touched)})`);
  steps(s, 180);
  assertAlmostEquals(height(s, falling), -5, 0.02, "the moving crate stands on the floor");
  // The same model, scaled at creation: its trimesh scales with it.
  await call("scene.createEntity", { shape: "mesh", asset: "crate", position: [10, 0, 0], scale: [2, 2, 2], static: true });
  assertAlmostEquals(groundAt(s, 10, 0)!.y, top.y * 2, 1e-3);
  refused(await s.registry.invoke("scene.createEntity", { shape: "mesh", asset: "crate", dynamic: true, collider: "trimesh" }, builder), "invalid_input", "convexHull");
  refused(await s.registry.invoke("scene.createEntity", { shape: "mesh", asset: "no_such_model", static: true }, builder), "not_found", "no_such_model");
});

test("a heightfield collider: ground of given heights under any shape, refitted with its scale, kept by snapshots", async () => {
  const { s, call, raw } = builderWorld();
  // A 3×3 grid over 8 m × 8 m (a plane's extent), rising 0.5 m per metre along x and flat along z.
  const ground = { shape: "plane", size: [8, 0, 8], position: [0, 1, 0], static: true, collider: { type: "heightfield", heights: [-2, 0, 2, -2, 0, 2, -2, 0, 2], rows: 3, cols: 3 } };
  const { entity: hill } = await call<{ entity: string }>("scene.createEntity", ground);
  for (const x of [-3, 0, 2.5]) assertAlmostEquals(groundAt(s, x, 1.5)!.y, 1 + x * 0.5, 1e-4, `the ground at x = ${x}`);
  assertEquals(groundAt(s, 4.2, 0), null, "no wider than the plane");
  const { entity: ball } = await call<{ entity: string }>("scene.createEntity", { shape: "sphere", radius: 0.5, position: [-3, 3, 0], dynamic: true });
  steps(s, 20);
  assert(height(s, ball) > 1 + -3 * 0.5, "the ball lands on the slope, not through it");
  const restored = createWorldSession({ simulate: false });
  await restoreBytes(restored, snapshotBytes(s));
  assertEquals(restored.digest(), s.digest(), "a snapshot keeps the heightfield");
  assertAlmostEquals(groundAt(restored, 2.5, 1.5)!.y, 2.25, 1e-4);
  restored.dispose();
  await call("scene.destroyEntity", { entity: ball });
  await call("three.setTransform", { entity: hill, scale: [2, 2, 2] });
  assertAlmostEquals(groundAt(s, 6, 0)!.y, 1 + 6 * 0.5, 1e-4, "twice as wide and twice as tall");
  const before = s.world.entities.size;
  const hf = { type: "heightfield", heights: [0, 0, 0, 0], rows: 2, cols: 2 };
  const cases: [Record<string, unknown>, string][] = [
    [{ shape: "box", size: 1, dynamic: true, collider: hf }, "static and kinematic"],
    [{ shape: "box", size: 1, static: true, collider: "heightfield" }, "needs heights, rows and cols"],
    [{ shape: "box", size: 1, static: true, collider: { ...hf, rows: 3 } }, "3×2 takes 6 heights, got 4"],
    [{ shape: "box", size: 1, static: true, collider: { ...hf, heights: [0, 0, 0] } }, "heights"],
  ];
  for (const [input, message] of cases) refused(await raw("scene.createEntity", input), "invalid_input", message);
  assertEquals(s.world.entities.size, before, "nothing created");
  s.dispose();
});

test("rescaling an entity refits its colliders; a scale they cannot take changes nothing", async () => {
  const { s, call } = builderWorld();
  const { entity } = await call<{ entity: string }>("scene.createEntity", { shape: "cylinder", radius: 0.5, height: 2, static: true });
  assertAlmostEquals(groundAt(s, 0, 0)!.y, 1, 1e-4);
  await call("three.setTransform", { entity, scale: [3, 0.5, 3] });
  assertAlmostEquals(groundAt(s, 0, 0)!.y, 0.5, 1e-4, "half as tall");
  assertAlmostEquals(groundAt(s, 1.4, 0)!.y, 0.5, 1e-4, "three times as wide");
  await call("ecs.updateComponent", { entity, component: "scale", value: [2, 2, 1] });
  assert(groundAt(s, 0, 0)!.y > 1.99, "a stretched cylinder becomes its convex hull");
  assertEquals(groundAt(s, 0, 0.6), null, "narrow along z");
});

test("the shapes' rules are refused precisely and create nothing", async () => {
  const { s, raw } = builderWorld();
  const cases: [Record<string, unknown>, string][] = [
    [{ shape: "sphere", size: [1, 2, 1] }, "diameter"],
    [{ shape: "capsule", radius: 1, height: 1 }, "at least twice its radius"],
    [{ shape: "cylinder", size: [1, 2, 3] }, "x and z must be equal"],
    [{ shape: "torus", radius: 1, tube: 2 }, "thinner"],
    [{ shape: "box", radius: 2 }, "a box takes no radius"],
    [{ shape: "box", size: [1, 0, 1] }, "box size y"],
    [{ shape: "mesh" }, "asset id"],
    [{ shape: "box", dynamic: true, static: true }, "one of dynamic, static or kinematic"],
    [{ shape: "box", collider: "box", colliders: [{ type: "sphere" }] }, "collider or colliders"],
    [{ shape: "box", dynamic: true, collider: "trimesh" }, "convexHull"],
    [{ shape: "box", groups: { belongsTo: [32] } }, "groups"],
    [{ shape: "hexagon" }, "shape"],
  ];
  for (const [input, message] of cases) refused(await raw("scene.createEntity", input), "invalid_input", message);
  assertEquals([s.world.entities.size, s.physics.bodyCount(), s.scene.children.filter((o) => o.name.startsWith("ent_")).length], [0, 0, 0]);
  assertEquals(s.world.entities.nextIdNumber, 1, "no id was spent on a refused entity");
});

test("tags work the same over skills as in the module API: createEntity, setTags, queries by tag", async () => {
  const { s, call } = builderWorld();
  const { entity: a } = await call<{ entity: string }>("scene.createEntity", { tags: ["tree", "oak"] });
  await call("scene.createEntity", { tags: ["tree"], position: [5, 0, 0] });
  s.entities.create({ shape: "box", tags: ["tree", "oak"], position: [9, 0, 0] });
  const oaks = await call<{ entities: { entity: string; tags: string[] }[] }>("scene.queryEntities", { tags: ["tree", "oak"] });
  assertEquals(oaks.entities.map((e) => e.entity), [a, "ent_3"]);
  assertEquals(oaks.entities[0].tags, ["tree", "oak"]);
  assertEquals(await call("scene.setTags", { entity: a, tags: ["stump"] }), { tags: ["stump"] });
  assertEquals((await call<{ entities: unknown[] }>("scene.queryEntities", { tag: "tree" })).entities.length, 2);
  assertEquals((await call<{ entities: { entity: string }[] }>("scene.queryEntities", { tag: "stump" })).entities.map((e) => e.entity), [a]);
  // tag and tags together: every one named is required; neither: no filter.
  assertEquals((await call<{ entities: { entity: string }[] }>("scene.queryEntities", { tag: "oak", tags: ["tree"] })).entities.map((e) => e.entity), ["ent_3"]);
  assertEquals((await call<{ entities: { entity: string }[] }>("scene.queryEntities", { tag: "oak", tags: ["stump"] })).entities, []);
  assertEquals((await call<{ entities: { entity: string }[] }>("scene.queryEntities", { near: [0, 0, 0], radius: 100 })).entities.length, 3);
});
