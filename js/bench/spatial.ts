// The batched radius query: native (limina-ecs, rayon CSR grid) vs the JS
// oracle, in the same run, on identical worlds and queries.
// Run: limina js/bench/spatial.ts   (final line: JSON figures)
import { NativeSpatialQuery, SpatialGrid, World } from "limina";
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
  const time = (runs: number, fn: () => void) => {
    for (let i = 0; i < 5; i++) fn();
    const t: number[] = [];
    for (let i = 0; i < runs; i++) {
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
    oracleP50Ms: round(oracleMs.p50, 3),
    speedup: round(oracleMs.p50 / nativeMs.p50, 1),
  };
}

// 2000 entities over 200 m × 200 m (the density capstone's world), then the
// same density at the 16384-entity ceiling.
const small = scenario(2000, 200, 15, 200);
const full = scenario(16383, 200, 15, 200 * Math.sqrt(16383 / 2000));
for (const s of [small, full]) {
  console.log(
    `${s.entities} entities, ${s.queries} queries r=${s.radius} (${s.hitsPerQuery} hits/query): native p50 ${s.nativeP50Ms} ms (p95 ${s.nativeP95Ms}), oracle p50 ${s.oracleP50Ms} ms → ${s.speedup}×`,
  );
}
console.log(JSON.stringify({ bench: "spatial", threads: "rayon default", small, full }));
