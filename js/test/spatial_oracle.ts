// The native batched CSR query against the JS oracle: byte-identical results.
import { assert, assertEquals, assertThrows, test } from "limina/testing";
import { MAX_ENTITIES, NativeSpatialQuery, SpatialGrid, type SpatialResults, World } from "limina";

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

function bytes(r: SpatialResults): Uint8Array[] {
  return [r.offsets, r.eids, r.distances].map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}

function assertSameBytes(a: SpatialResults, b: SpatialResults, what: string): void {
  const [x, y] = [bytes(a), bytes(b)];
  for (let k = 0; k < 3; k++) {
    assertEquals(x[k].length, y[k].length, `${what}: section ${k} length`);
    for (let i = 0; i < x[k].length; i++) {
      if (x[k][i] !== y[k][i]) throw new Error(`${what}: section ${k} differs at byte ${i}`);
    }
  }
}

const native = new NativeSpatialQuery();

test("native == oracle, byte for byte, on 3000 randomized worlds", () => {
  let totalHits = 0;
  let ties = 0;
  for (let w = 0; w < 3000; w++) {
    const r = rng(w + 1);
    const world = new World();
    const n = 1 + Math.floor(r() * 120);
    const cell = [0.5, 1, 2.5, 4, 15][w % 5];
    const ids = [];
    for (let i = 0; i < n; i++) {
      const pick = r();
      // Mix of scattered points, points exactly on cell edges, and duplicates (distance ties).
      const p: [number, number, number] = pick < 0.2
        ? [Math.round(r() * 8) * cell, Math.round(r() * 3) * cell, Math.round(r() * 8) * cell]
        : pick < 0.3 && i > 0
        ? world.position(world.entities.get(ids[Math.floor(r() * ids.length)])!.eid)
        : [(r() - 0.5) * 40, r() * 6, (r() - 0.5) * 40];
      ids.push(world.spawn({ position: p }).id);
    }
    // Destroy some: their stale positions stay in the SoA but must never be returned.
    for (let i = 0; i < n / 5; i++) world.destroy(ids[Math.floor(r() * ids.length)]);
    const live = world.liveEids();
    const q = 1 + Math.floor(r() * 12);
    const queries = new Float64Array(q * 5);
    for (let k = 0; k < q; k++) {
      const useEntity = live.length > 0 && r() < 0.6;
      const eid = useEntity ? live[Math.floor(r() * live.length)] : -1;
      const c = eid >= 0 ? world.position(eid) : [(r() - 0.5) * 40, r() * 6, (r() - 0.5) * 40];
      const radius = k % 4 === 0 ? 0 : k % 4 === 1 ? cell : r() * 20;
      queries.set([c[0], c[1], c[2], radius, r() < 0.8 ? eid : -1], k * 5);
    }
    const oracle = new SpatialGrid(live, world.Position, cell).queryBatch(queries);
    const fast = native.queryBatch(world.Position, live, cell, queries);
    assertSameBytes(fast, oracle, `world ${w}`);
    totalHits += oracle.eids.length;
    for (let i = 1; i < oracle.distances.length; i++) if (oracle.distances[i] === oracle.distances[i - 1]) ties++;
    const liveSet = new Set(live);
    for (const e of oracle.eids) assert(liveSet.has(e), `world ${w}: destroyed eid ${e} returned`);
  }
  assert(totalHits > 10_000, `the worlds must exercise real results (${totalHits})`);
  assert(ties > 100, `ties must be exercised (${ties})`);
});

test("the querying entity is excluded, radius 0 finds coincident entities, ties go by insertion order", () => {
  const world = new World();
  const a = world.spawn({ position: [0, 0, 0] });
  const b = world.spawn({ position: [0, 0, 0] });
  const c = world.spawn({ position: [1, 0, 0] });
  const d = world.spawn({ position: [-1, 0, 0] });
  const live = world.liveEids();
  const grid = new SpatialGrid(live, world.Position, 1);
  assertEquals(grid.query(0, 0, 0, 0, a.eid), [{ eid: b.eid, distance: 0 }]);
  assertEquals(grid.query(0, 0, 0, 1, -1).map((h) => h.eid), [a.eid, b.eid, c.eid, d.eid]);
  const q = Float64Array.of(0, 0, 0, 1, b.eid, 0, 0, 0, 0, -1);
  const res = native.queryBatch(world.Position, live, 1, q);
  assertEquals(Array.from(res.offsets), [0, 3, 5]);
  assertEquals(Array.from(res.eids), [a.eid, c.eid, d.eid, a.eid, b.eid]);
});

test("16384-entity world, large radii and far queries still match", () => {
  const world = new World();
  const r = rng(99);
  for (let i = 0; i < World.capacity; i++) world.spawn({ position: [(r() - 0.5) * 500, r() * 20, (r() - 0.5) * 500] });
  const live = world.liveEids();
  assertEquals(live.length, MAX_ENTITIES - 1);
  const q = Float64Array.of(0, 10, 0, 15, live[0], 10, 0, 10, 1e6, -1, 1e5, 0, 0, 10, -1);
  assertSameBytes(native.queryBatch(world.Position, live, 15, q), new SpatialGrid(live, world.Position, 15).queryBatch(q), "big");
  assertEquals(native.queryBatch(world.Position, live, 15, q).offsets[2] - native.queryBatch(world.Position, live, 15, q).offsets[1], live.length);
});

test("malformed queries get precise errors from both paths", () => {
  const world = new World();
  world.spawn();
  const live = world.liveEids();
  for (const [q, msg] of [
    [new Float64Array(4), "× N"],
    [Float64Array.of(0, 0, 0, -1, -1), "radius"],
    [Float64Array.of(NaN, 0, 0, 1, -1), "center"],
    [Float64Array.of(0, 0, 0, 1, 0.5), "selfEid"],
  ] as const) {
    assertThrows(() => native.queryBatch(world.Position, live, 1, q), { code: "invalid_input", message: msg });
    assertThrows(() => new SpatialGrid(live, world.Position, 1).queryBatch(q), { code: "invalid_input", message: msg });
  }
  assertThrows(() => native.queryBatch(world.Position, Uint32Array.of(MAX_ENTITIES + 5), 1, new Float64Array(0)), {
    code: "invalid_input",
    message: "outside",
  });
  assertThrows(() => native.queryBatch(world.Position, live, 0, new Float64Array(0)), { code: "invalid_input", message: "cell size" });
});
