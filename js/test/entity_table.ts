// EntityTable and World identity: ids never reused, snapshot/restore, capacity.
import { assert, assertEquals, assertThrows, test } from "limina/testing";
import { EntityTable, MAX_ENTITIES, World } from "limina";

test("ids are monotonic and never reused, even when bitECS recycles the eid", () => {
  const world = new World();
  const a = world.spawn({ position: [1, 2, 3] });
  const b = world.spawn();
  assertEquals([a.id, b.id], ["ent_1", "ent_2"]);
  assert(world.destroy(a.id));
  const c = world.spawn({ position: [9, 9, 9] });
  assertEquals(c.eid, a.eid, "bitECS recycled the eid");
  assertEquals(c.id, "ent_3");
  assertEquals(c.generation, 2);
  assertEquals(world.entities.get(a.id), undefined, "the stale id resolves to nothing");
  assertEquals(world.entities.get(c.id)?.eid, a.eid);
  assert(!world.destroy(a.id), "destroying twice is a no-op that says so");
  assertEquals(world.position(c.eid), [9, 9, 9]);
  assertThrows(() => world.require(a.id), { code: "not_found", message: "ent_1" });
});

test("the table version moves on every create and destroy", () => {
  const t = new EntityTable();
  const v0 = t.version;
  const e = t.create(5);
  assertEquals(t.version, v0 + 1);
  t.destroy(e.id);
  assertEquals(t.version, v0 + 2);
  t.destroy(e.id);
  assertEquals(t.version, v0 + 2, "a no-op destroy does not bump the version");
});

test("snapshot/restore keeps ids, creation order, tags and issues the same next ids", () => {
  const world = new World();
  const ids = [];
  for (let i = 0; i < 10; i++) ids.push(world.spawn({ position: [i, 0, -i], tags: i % 2 ? ["odd"] : [] }).id);
  world.destroy(ids[3]);
  world.destroy(ids[7]);
  const snap = JSON.parse(JSON.stringify(world.snapshot()));
  const restored = World.restore(snap);
  assertEquals([...restored.entities.entries()].map((e) => e.id), [...world.entities.entries()].map((e) => e.id));
  assertEquals(restored.entities.version, world.entities.version);
  const e5 = restored.entities.get("ent_6")!;
  assertEquals(restored.position(e5.eid), [5, 0, -5]);
  assertEquals([...e5.tags], ["odd"]);
  assertEquals(restored.entities.get(ids[3]), undefined);
  // Both worlds continue identically.
  const next = [world.spawn().id, world.spawn().id];
  assertEquals([restored.spawn().id, restored.spawn().id], next);
  assertEquals(restored.entities.version, world.entities.version);
});

test("a malformed snapshot is rejected", () => {
  const t = new EntityTable();
  assertThrows(() => t.restore({ entries: [{ id: "ent_5", eid: 1, generation: 1, tags: [] }], nextId: 3, version: 1 }), {
    code: "invalid_input",
    message: "below nextId",
  });
  assertThrows(() => t.restore({ entries: [], nextId: 1.5, version: 0 } as never), { code: "invalid_input" });
  assertEquals(t.size, 0);
});

test("spawning past capacity fails with capacity_exceeded and changes nothing", () => {
  const world = new World();
  for (let i = 0; i < World.capacity; i++) world.spawn({ position: [i, 0, 0] });
  assertEquals(world.entities.size, MAX_ENTITIES - 1);
  const before = { size: world.entities.size, version: world.entities.version, snap: JSON.stringify(world.snapshot()) };
  assertThrows(() => world.spawn({ position: [1, 1, 1] }), { code: "capacity_exceeded", message: "MAX_ENTITIES" });
  assertEquals(world.entities.size, before.size);
  assertEquals(world.entities.version, before.version);
  assertEquals(JSON.stringify(world.snapshot()), before.snap);
  // Room again after a destroy; the id sequence was not consumed by the failure.
  world.destroy("ent_1");
  assertEquals(world.spawn().id, `ent_${MAX_ENTITIES}`);
});

test("bad transforms are rejected before anything is created", () => {
  const world = new World();
  assertThrows(() => world.spawn({ position: [0, NaN, 0] }), { code: "invalid_input", message: "position" });
  assertThrows(() => world.spawn({ rotation: [0, 0, 1] as never }), { code: "invalid_input", message: "rotation" });
  assertEquals(world.entities.size, 0);
  assertEquals(world.spawn().id, "ent_1");
});
