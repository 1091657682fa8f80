// The batched radius query: native (limina-ecs, CSR grid) vs the JS oracle,
// in the same run, on identical worlds and queries — their results checked
// byte for byte at every point. "native" asks again about an unchanged
// world (the op keeps its grid); "moved" moves every entity before each
// call (untimed), so each call re-indexes the world first.
// Run: limina js/bench/spatial.ts   (final line: JSON figures)
import { NativeSpatialQuery, SpatialGrid, type SpatialResults, World } from "limina";
import { round, summarize } from "limina/bench";

function rng(seed: number) {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

function sameBytes(a: SpatialResults, b: SpatialResults): boolean {
  const bytes = (r: SpatialResults) => [r.offsets, r.eids, r.distances].map((x) => new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  const [x, y] = [bytes(a), bytes(b)];
  return x.every((s, k) => s.length === y[k].length && s.every((v, i) => v === y[k][i]));
}

function scenario(entities: number, queries: number, radius: number, extent: number) {
  const r = rng(42);
  const world = new World();
  for (let i = 0; i < entities; i++) world.spawn({ position: [(r() - 0.5) * extent, r() * 10, (r() - 0.5) * extent] });
  const live = world.liveEids();
  const q = new Float64Array(queries * 5);
  for (let k = 0; k < queries; k++) {
    const eid = live[Math.floor(r() * live.length)];
    q.set([...world.position(eid), radius, eid], k * 5);
  }
  const native = new NativeSpatialQuery();
  if (!sameBytes(native.queryBatch(world.Position, live, radius, q), new SpatialGrid(live, world.Position, radius).queryBatch(q))) {
    throw new Error(`${entities} entities × ${queries} queries: native and oracle results differ`);
  }
  const time = (runs: number, fn: () => void, prepare = () => {}) => {
    for (let i = 0; i < 5; i++) fn();
    const t: number[] = [];
    for (let i = 0; i < runs; i++) {
      prepare();
      const a = performance.now();
      fn();
      t.push(performance.now() - a);
    }
    return summarize(t);
  };
  let hits = 0;
  const nativeMs = time(400, () => {
    hits = native.queryBatch(world.Position, live, radius, q).eids.length;
  });
  let step = 1e-3;
  const movedMs = time(200, () => native.queryBatch(world.Position, live, radius, q), () => {
    step = -step;
    for (const eid of live) world.Position.x[eid] += step;
  });
  const oracleMs = time(60, () => {
    new SpatialGrid(live, world.Position, radius).queryBatch(q);
  });
  return {
    entities,
    queries,
    radius,
    hitsPerQuery: round(hits / queries, 1),
    nativeP50Ms: round(nativeMs.p50, 4),
    nativeP95Ms: round(nativeMs.p95, 4),
    movedP50Ms: round(movedMs.p50, 4),
    oracleP50Ms: round(oracleMs.p50, 3),
    speedup: round(oracleMs.p50 / nativeMs.p50, 1),
  };
}

// The density capstone's world (2000 entities over 200 m × 200 m, r = 15 m:
// ~30 hits a query), then the same density up to the 16383-entity ceiling,
// each with 200 queries (every capstone agent at once) and with 2000.
const curve = [];
for (const entities of [2000, 4000, 8000, 16383]) {
  for (const queries of [200, 2000]) curve.push(scenario(entities, queries, 15, 200 * Math.sqrt(entities / 2000)));
}
for (const s of curve) {
  console.log(
    `${s.entities} entities, ${s.queries} queries r=${s.radius} (${s.hitsPerQuery} hits/query): native p50 ${s.nativeP50Ms} ms (p95 ${s.nativeP95Ms}), moved p50 ${s.movedP50Ms} ms, oracle p50 ${s.oracleP50Ms} ms → ${s.speedup}×`,
  );
}
console.log(JSON.stringify({ bench: "spatial", byteIdentical: true, small: curve[0], curve }));
