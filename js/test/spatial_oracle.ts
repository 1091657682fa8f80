// The native batched CSR query against the JS oracle and the contract's
// brute force: byte-identical results.
import { assert, assertEquals, assertThrows, test } from "limina/testing";
import { createWorldSession, MAX_ENTITIES, NativeSpatialQuery, onFixedStep, onFrame, SpatialGrid, SpatialIndex, type SpatialResults, World } from "limina";

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

/** The contract itself, by brute force: every live entity passing the f64 test, by distance then insertion order. */
function bruteForce(world: World, live: Uint32Array, queries: Float64Array): SpatialResults {
  const P = world.Position;
  const offsets = new Uint32Array(queries.length / 5 + 1);
  const eids: number[] = [];
  const distances: number[] = [];
  for (let q = 0; q < queries.length / 5; q++) {
    const [x, y, z, radius, self] = queries.subarray(q * 5, q * 5 + 5);
    const hits: [number, number, number][] = [];
    live.forEach((e, i) => {
      const [dx, dy, dz] = [P.x[e] - x, P.y[e] - y, P.z[e] - z];
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= radius * radius && e !== self) hits.push([Math.sqrt(d2), i, e]);
    });
    hits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const h of hits) eids.push(h[2]), distances.push(h[0]);
    offsets[q + 1] = eids.length;
  }
  return { offsets, eids: Uint32Array.from(eids), distances: Float64Array.from(distances) };
}

test("both are the brute-force answer whatever the cell size, on edges and at distance ties", () => {
  for (let w = 0; w < 40; w++) {
    const r = rng(7000 + w);
    const world = new World();
    for (let i = 0; i < 200; i++) {
      // Coordinates on a 0.5 m lattice: many entities on cell edges, many ties.
      world.spawn({ position: [Math.round((r() - 0.5) * 40) / 2, Math.round(r() * 8) / 2, Math.round((r() - 0.5) * 40) / 2] });
    }
    const live = world.liveEids();
    const queries = new Float64Array(40 * 5);
    for (let k = 0; k < 40; k++) {
      const eid = live[Math.floor(r() * live.length)];
      queries.set([...world.position(eid), [0.5, 1, 2.5, r() * 12][k % 4], k % 3 ? eid : -1], k * 5);
    }
    const want = bruteForce(world, live, queries);
    for (const cell of [0.25, 0.5, 1, 2.5, 7, 60]) {
      assertSameBytes(new SpatialGrid(live, world.Position, cell).queryBatch(queries), want, `world ${w}, oracle, cell ${cell}`);
      assertSameBytes(native.queryBatch(world.Position, live, cell, queries), want, `world ${w}, native, cell ${cell}`);
    }
  }
});

test("the native grid follows entities moved in place, spawned and destroyed between calls", () => {
  const r = rng(4242);
  const world = new World();
  const ids = [];
  for (let i = 0; i < 400; i++) ids.push(world.spawn({ position: [(r() - 0.5) * 60, r() * 6, (r() - 0.5) * 60] }).id);
  for (let step = 0; step < 60; step++) {
    const live = world.liveEids();
    // Some steps move nothing (the grid is kept), some a few entities, some all of them.
    const moved = step % 3 === 0 ? 0 : step % 3 === 1 ? 3 : live.length;
    for (let k = 0; k < moved; k++) {
      const eid = live[moved === live.length ? k : Math.floor(r() * live.length)];
      world.Position.x[eid] += (r() - 0.5) * 4;
      world.Position.z[eid] += (r() - 0.5) * 4;
    }
    if (step % 10 === 5) world.destroy(ids[Math.floor(r() * ids.length)]);
    if (step % 10 === 9) ids.push(world.spawn({ position: [(r() - 0.5) * 60, r() * 6, (r() - 0.5) * 60] }).id);
    const now = world.liveEids();
    const queries = new Float64Array(30 * 5);
    for (let k = 0; k < 30; k++) {
      const eid = now[Math.floor(r() * now.length)];
      queries.set([...world.position(eid), 2 + r() * 10, eid], k * 5);
    }
    assertSameBytes(native.queryBatch(world.Position, now, 4, queries), bruteForce(world, now, queries), `step ${step}`);
  }
});

test("a session's index, re-indexed between frames, misses no move, spawn or removal made after that", async () => {
  const r = rng(5151);
  const session = createWorldSession();
  const { world, spatial } = session;
  const ids = [];
  for (let i = 0; i < 300; i++) ids.push(world.spawn({ position: [(r() - 0.5) * 60, r() * 6, (r() - 0.5) * 60] }).id);
  const query = (what: string) => {
    const live = world.liveEids();
    const queries = new Float64Array(20 * 5);
    for (let k = 0; k < 20; k++) queries.set([(r() - 0.5) * 60, r() * 6, (r() - 0.5) * 60, 2 + r() * 12, live[k]], k * 5);
    assertSameBytes(spatial.queryBatch(queries), bruteForce(world, live, queries), what);
  };
  // Everything moves every step; the session re-indexes after the steps, while queries come.
  const stopMoving = onFixedStep(() => {
    for (const eid of world.liveEids()) world.Position.x[eid] += (r() - 0.5) * 2;
  });
  let frames = 0;
  await new Promise<void>((done, fail) => {
    // Registered after the session's own frame system: runs once it has re-indexed.
    const stop = onFrame(() => {
      try {
        frame();
      } catch (e) {
        stop();
        fail(e);
      }
    });
    const frame = () => {
      frames++;
      query(`frame ${frames}, as stepped`);
      const live = world.liveEids();
      for (let k = 0; k < 5; k++) world.Position.z[live[Math.floor(r() * live.length)]] += 3;
      if (frames % 3 === 0) ids.push(world.spawn({ position: [(r() - 0.5) * 60, r() * 6, (r() - 0.5) * 60] }).id);
      if (frames % 3 === 1) world.destroy(ids.splice(Math.floor(r() * ids.length), 1)[0]);
      query(`frame ${frames}, moved after the re-index`);
      if (frames === 30) {
        stop();
        done();
      }
    };
  }).finally(() => {
    stopMoving();
    session.dispose();
  });
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

test("SpatialIndex.near reads one query's hits as the batch's views hold them, past the buffers' first growth", () => {
  for (let w = 0; w < 50; w++) {
    const r = rng(w + 7);
    const world = new World();
    // The last worlds hold more hits than the buffers' first 1024 entries.
    const n = w < 45 ? 1 + Math.floor(r() * 200) : 1500;
    for (let i = 0; i < n; i++) world.spawn({ position: [(r() - 0.5) * 20, r() * 4, (r() - 0.5) * 20] });
    const index = new SpatialIndex(world, [1, 4, 8][w % 3]);
    const live = world.liveEids();
    for (let k = 0; k < 8; k++) {
      const center: [number, number, number] = [(r() - 0.5) * 20, r() * 4, (r() - 0.5) * 20];
      const radius = k === 0 ? 100 : r() * 10;
      const self = k % 2 === 0 ? live[Math.floor(r() * live.length)] : -1;
      const batch = new NativeSpatialQuery().queryBatch(world.Position, live, index.cellSize, new Float64Array([...center, radius, self]));
      const expected = Array.from(batch.eids, (eid, i) => ({ eid, distance: batch.distances[i] }));
      assertEquals(index.near(center, radius, self), expected, `world ${w} query ${k}`);
    }
  }
});
