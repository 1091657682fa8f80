// Prefabs: a house (walls, a roof, a hinged door with its motor) defined
// once and placed three times — moved, turned and scaled, each instance's
// entities tagged and its joints made — definitions refused precisely, a
// failed placement leaving nothing behind, and definitions and the instance
// counter kept as world state (snapshots, the digest).
import { createWorldSession, restoreBytes, snapshotBytes, type WorldSession } from "limina";
import { assert, assertAlmostEquals, assertEquals, assertNotEquals, test } from "limina/testing";
import { refused, value } from "./support/results.ts";
import { builder, builderWorld, pos, steps } from "./support/toolbox.ts";

/** A 4 × 3 × 4 m hut: a floor, three walls, a wall with a doorway, a cone roof and a door on a hinge, in its own frame. */
export const HOUSE = {
  name: "house",
  entities: [
    { shape: "box", size: [4, 0.2, 4], position: [0, 0.1, 0], static: true, color: 0x8b6b4a, tags: ["floor"] },
    { shape: "box", size: [4, 3, 0.2], position: [0, 1.5, -2], static: true, color: 0xd8cfc0 },
    { shape: "box", size: [0.2, 3, 4], position: [-2, 1.5, 0], static: true, color: 0xd8cfc0 },
    { shape: "box", size: [0.2, 3, 4], position: [2, 1.5, 0], static: true, color: 0xd8cfc0 },
    { shape: "box", size: [2.8, 3, 0.2], position: [-0.6, 1.5, 2], static: true, color: 0xd8cfc0 },
    { shape: "cone", radius: 3.2, height: 1.8, position: [0, 3.9, 0], static: true, color: 0x9a3b2e, tags: ["roof"] },
    { shape: "box", size: [1, 2.2, 0.08], position: [1.3, 1.35, 2], dynamic: true, color: 0x5a3a1a, tags: ["door"] },
  ],
  joints: [{ type: "revolute", a: 4, b: 6, anchor: [0.8, 1.35, 2], axis: [0, 1, 0], limits: [-1.6, 0], motor: { targetPosition: 0, stiffness: 40, damping: 8 } }],
};

test("a house defined once and placed three times: moved, turned, scaled, tagged, with its hinged door", async () => {
  const w = builderWorld();
  assertEquals(await w.call("scene.definePrefab", HOUSE), { prefab: "house", entities: 7, joints: 1 });
  const placements = [
    { position: [0, 0, 0] },
    { position: [20, 0, 0], rotationEuler: [0, Math.PI / 2, 0] },
    { position: [0, 0, 30], scale: 2 },
  ];
  const instances = [];
  for (const p of placements) instances.push(await w.call<{ instance: string; entities: string[]; joints: string[] }>("scene.instantiate", { prefab: "house", ...p }));
  assertEquals(instances.map((i) => i.instance), ["ins_1", "ins_2", "ins_3"]);
  assertEquals(instances.map((i) => [i.entities.length, i.joints.length]), [[7, 1], [7, 1], [7, 1]]);
  assertEquals(w.s.world.entities.size, 21);
  // Each instance's entities are tagged with the prefab and the instance.
  const second = await w.call<{ entities: { entity: string; tags: string[] }[] }>("scene.queryEntities", { tag: "instance:ins_2" });
  assertEquals(second.entities.map((e) => e.entity).sort(), [...instances[1].entities].sort());
  const roof = await w.call<{ entities: { entity: string }[] }>("scene.queryEntities", { tags: ["prefab:house", "roof"] });
  assertEquals(roof.entities.length, 3);
  // Turned a quarter: the door side (local +z) faces +x.
  assertEquals(pos(w.s, instances[1].entities[4]).map((v) => Math.round(v * 100) / 100), [22, 1.5, 0.6]);
  // Scaled twice: positions and sizes double; the roof's apex is twice as high, and its collider says so.
  const big = instances[2].entities;
  assertEquals(pos(w.s, big[5]), [0, Math.fround(7.8), 30]);
  steps(w.s, 1);
  const apex = w.s.physics.raycast([0, 50, 30], [0, -1, 0], 100)!;
  assertAlmostEquals(apex.point[1], 2 * (3.9 + 0.9), 1e-3);
  const look = await w.call<{ look: Record<string, unknown>; transform: { scale: number[] } }>("scene.describe", { entity: big[5] });
  assertEquals([look.look.shape, look.look.radius, look.look.height, look.transform.scale], ["cone", 3.2, 1.8, [2, 2, 2]]);
  // Every door is held shut by its own motor, and swings on its own hinge when pushed.
  steps(w.s, 60);
  for (const i of instances) assertAlmostEquals(value<{ position: number }>(await w.raw("physics.getJoint", { joint: i.joints[0] })).position, 0, 0.02);
  await w.call("physics.setMotor", { joint: instances[0].joints[0], targetPosition: -1.5, stiffness: 40, damping: 8 });
  steps(w.s, 180);
  assertAlmostEquals(value<{ position: number }>(await w.raw("physics.getJoint", { joint: instances[0].joints[0] })).position, -1.5, 0.05);
  assertAlmostEquals(value<{ position: number }>(await w.raw("physics.getJoint", { joint: instances[1].joints[0] })).position, 0, 0.02, "the others stay shut");
  const listed = await w.call<{ prefabs: { name: string; entities: unknown[] }[] }>("scene.listPrefabs", {});
  assertEquals(listed.prefabs.map((p) => [p.name, p.entities.length]), [["house", 7]]);
});

test("definitions are checked whole: bad ones are refused precisely and change nothing", async () => {
  const w = builderWorld();
  await w.call("scene.definePrefab", { name: "post", entities: [{ shape: "cylinder", radius: 0.1, height: 2, static: true }] });
  const cases: [Record<string, unknown>, string][] = [
    [{ name: "post", entities: [{}] }, "exists"],
    [{ name: "bad name!", entities: [{}] }, "prefab name"],
    [{ name: "empty", entities: [] }, "entities"],
    [{ name: "shape", entities: [{}, { shape: "capsule", radius: 1, height: 1 }] }, "entities[1]: a capsule's height"],
    [{ name: "dangling", entities: [{ static: true }], joints: [{ type: "fixed", a: 0, b: 3 }] }, "joins entity 3"],
    [{ name: "bodiless", entities: [{ static: true }, {}], joints: [{ type: "fixed", a: 0, b: 1 }] }, "has no body"],
  ];
  for (const [input, message] of cases) refused(await w.raw("scene.definePrefab", input), "invalid_input", message);
  assertEquals((await w.call<{ prefabs: { name: string }[] }>("scene.listPrefabs", {})).prefabs.map((p) => p.name), ["post"]);
  // Redefined on purpose: instances placed later use the new definition.
  await w.call("scene.definePrefab", { name: "post", entities: [{ shape: "cylinder", radius: 0.2, height: 3, static: true }], replace: true });
  const { entities } = await w.call<{ entities: string[] }>("scene.instantiate", { prefab: "post" });
  assertEquals((await w.call<{ look: { radius: number } }>("scene.describe", { entity: entities[0] })).look.radius, 0.2);
  refused(await w.raw("scene.instantiate", { prefab: "nothing" }), "not_found", "nothing");
});

test("a placement that fails part-way leaves nothing behind and spends no instance id", async () => {
  const w = builderWorld();
  await w.call("scene.definePrefab", { name: "shrine", entities: [{ shape: "box", static: true }, { shape: "mesh", asset: "no_such_statue", static: true, position: [0, 1, 0] }] });
  const before = { entities: w.s.world.entities.size, bodies: w.s.physics.bodyCount() };
  refused(await w.raw("scene.instantiate", { prefab: "shrine" }), "not_found", "no_such_statue");
  assertEquals({ entities: w.s.world.entities.size, bodies: w.s.physics.bodyCount() }, before);
  await w.call("scene.definePrefab", { name: "shrine", entities: [{ shape: "box", static: true }], replace: true });
  assertEquals((await w.call<{ instance: string }>("scene.instantiate", { prefab: "shrine" })).instance, "ins_1");
});

test("prefabs are world state: a snapshot keeps the definitions and the instance counter; the digest covers them", async () => {
  const w = builderWorld();
  const empty = w.s.digest();
  await w.call("scene.definePrefab", HOUSE);
  assertNotEquals(w.s.digest(), empty, "a definition changes the digest");
  await w.call("scene.instantiate", { prefab: "house", position: [5, 0, 5] });
  steps(w.s, 20);
  const restored = createWorldSession({ simulate: false });
  await restoreBytes(restored, snapshotBytes(w.s));
  assertEquals(restored.digest(), w.s.digest());
  const again = async (s: WorldSession) => value<{ instance: string; entities: string[]; joints: string[] }>(await s.registry.invoke("scene.instantiate", { prefab: "house", position: [-10, 0, 0], scale: 0.5 }, builder));
  assertEquals(await again(restored), await again(w.s));
  steps(w.s, 30);
  steps(restored, 30);
  assertEquals(restored.digest(), w.s.digest());
  assert(restored.prefabs.get("house") !== undefined);
});
