// Terrain generation, native against TypeScript: a 257×257 tile (the
// island preset) eroded by 50,000 droplets and 4 thermal iterations, made by
// limina-terrain (on one thread and on the rayon pool) and by the
// straightforward TypeScript implementation in terrain_oracle.ts, checked
// byte-identical; and a larger region (4×4 tiles of 257) on 1 and N threads.
// The latest algorithm version is the one measured against TypeScript; the
// previous version's native times are taken alternately with it (`previous`).
// Run: limina js/bench/terrain.ts   (final line: JSON figures)
import { generateHeightsNow, heightsDigest, type RegionParams, TERRAIN_ALGORITHM_VERSION } from "limina";
import { round } from "limina/bench";
import { oracleHeights, ORACLE_PARAMS } from "./terrain_oracle.ts";

const time = <T>(fn: () => T): [T, number] => {
  const t = performance.now();
  const out = fn();
  return [out, performance.now() - t];
};
const best = (runs: number, fn: () => unknown) => Math.min(...Array.from({ length: runs }, () => time(fn)[1]));

// Warm both paths (V8 optimises the oracle on its first pass).
oracleHeights({ ...ORACLE_PARAMS, size: 64, resolution: 65, tileSize: 64, erosion: { droplets: 5000, thermal: 1 } });
generateHeightsNow(ORACLE_PARAMS, 1);

const [oracle, tsMs] = time(() => oracleHeights(ORACLE_PARAMS));
const tsBest = Math.min(tsMs, time(() => oracleHeights(ORACLE_PARAMS))[1]);
const native1 = generateHeightsNow(ORACLE_PARAMS, 1);
const nativeN = generateHeightsNow(ORACLE_PARAMS, 0);
const identical = heightsDigest(oracle) === heightsDigest(native1) && heightsDigest(native1) === heightsDigest(nativeN);
if (!identical) {
  const i = native1.findIndex((v, k) => !Object.is(v, oracle[k]));
  throw new Error(`native and TypeScript heights differ first at sample ${i}: ${native1[i]} vs ${oracle[i]}`);
}
// The latest and the previous version alternately, each run's best of 5.
const PREVIOUS: RegionParams = { ...ORACLE_PARAMS, algorithm: TERRAIN_ALGORITHM_VERSION - 1 };
const times = { latest1: Infinity, latestN: Infinity, previous1: Infinity, previousN: Infinity };
for (let i = 0; i < 5; i++) {
  times.latest1 = Math.min(times.latest1, time(() => generateHeightsNow(ORACLE_PARAMS, 1))[1]);
  times.previous1 = Math.min(times.previous1, time(() => generateHeightsNow(PREVIOUS, 1))[1]);
  times.latestN = Math.min(times.latestN, time(() => generateHeightsNow(ORACLE_PARAMS, 0))[1]);
  times.previousN = Math.min(times.previousN, time(() => generateHeightsNow(PREVIOUS, 0))[1]);
}
const native1Ms = times.latest1;
const nativeNMs = times.latestN;

const LARGE: RegionParams = { ...ORACLE_PARAMS, size: 1024, tileSize: 256, erosion: { droplets: 800_000, thermal: 4 } };
const large1 = best(2, () => generateHeightsNow(LARGE, 1));
const largeN = best(2, () => generateHeightsNow(LARGE, 0));
const threads = Number((await Limina.run({ cmd: "nproc" })).stdout.trim());

const out = {
  bench: "terrain",
  tile: "257x257, island, 50000 droplets + 4 thermal iterations",
  algorithm: TERRAIN_ALGORITHM_VERSION,
  identical,
  digest: heightsDigest(native1),
  typescriptMs: round(tsBest, 1),
  native1ThreadMs: round(native1Ms, 2),
  nativePoolMs: round(nativeNMs, 2),
  speedup1Thread: round(tsBest / native1Ms, 1),
  speedupPool: round(tsBest / nativeNMs, 1),
  previous: { algorithm: PREVIOUS.algorithm, native1ThreadMs: round(times.previous1, 2), nativePoolMs: round(times.previousN, 2) },
  region1025: { droplets: 800_000, oneThreadMs: round(large1, 1), poolMs: round(largeN, 1), poolSpeedup: round(large1 / largeN, 2) },
  cores: threads,
};
console.log(`257² tile: TypeScript ${out.typescriptMs} ms, native ${out.native1ThreadMs} ms (1 thread, ${out.speedup1Thread}×), ${out.nativePoolMs} ms (pool, ${out.speedupPool}×); identical: ${identical}`);
console.log(JSON.stringify(out));
