// What a world session costs to make and dispose: its World, physics world,
// scene graph, subsystems and a registry of every core skill. Tests and MCP
// servers make many. The skills' Zod contracts are built once per process
// (js/test/skill_contracts.ts), so after the first session each one builds
// only its definitions and handlers.
// Run: limina js/bench/world_session.ts   (final line: JSON figures)
import { createWorldSession } from "limina";
import { round } from "limina/bench";

let t0 = performance.now();
createWorldSession({ simulate: false }).dispose();
const firstMs = performance.now() - t0;

const BATCH = 50;
const batches: number[] = [];
for (let i = 0; i < 8; i++) {
  t0 = performance.now();
  for (let j = 0; j < BATCH; j++) createWorldSession({ simulate: false }).dispose();
  batches.push((performance.now() - t0) / BATCH);
}
batches.sort((a, b) => a - b);
const last = createWorldSession({ simulate: false });
const skills = last.registry.size;
last.dispose();
const figures = {
  bench: "world_session",
  skills,
  firstMs: round(firstMs, 2),
  sessionMsMedian: round(batches[batches.length >> 1], 3),
  sessionMsBest: round(batches[0], 3),
};
console.log(JSON.stringify(figures));
