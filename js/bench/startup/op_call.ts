// Per-call cost of a fast op reached through the engine, printed in ns: run
// from a start-up snapshot and without one, the two must match.
import { WorldSession } from "limina";
new WorldSession({ simulate: false });
const CALLS = 10_000_000;
let sink = 0;
const loop = () => {
  for (let i = 0; i < CALLS; i++) sink += Limina.loop.steps();
};
loop(); // warm up to the optimized, fast-call path
const t0 = performance.now();
loop();
console.log(((performance.now() - t0) * 1e6 / CALLS).toFixed(2), sink);
