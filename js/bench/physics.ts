// Native Rapier: one step with 256 dynamic bodies, and the per-tick
// zero-copy SoA write-back of their transforms.
// Run: limina js/bench/physics.ts   (final line: JSON figures)
import { PhysicsWorld, World } from "limina";
import { round, summarize } from "limina/bench";

const DT = 1 / 60;
const BODIES = 256;

const physics = new PhysicsWorld();

function setup(): World {
  const world = new World();
  physics.setGravity([0, -9.81, 0]);
  const floor = world.spawn();
  physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [30, 0.5, 30] }, position: [0, -0.5, 0], eid: floor.eid });
  for (const [x, z, hx, hz] of [[0, 12, 12, 0.5], [0, -12, 12, 0.5], [12, 0, 0.5, 12], [-12, 0, 0.5, 12]]) {
    physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [hx, 3, hz] }, position: [x, 3, z] });
  }
  for (let i = 0; i < BODIES; i++) {
    const p: [number, number, number] = [(i % 16) * 1.2 - 9, 1 + Math.floor(i / 64) * 1.5, (Math.floor(i / 16) % 4) * 1.2 - 2];
    const e = world.spawn({ position: p });
    const shape = i % 2 ? { type: "sphere" as const, radius: 0.45 } : { type: "box" as const, halfExtents: [0.4, 0.4, 0.4] as [number, number, number] };
    const h = physics.createBody({ kind: "dynamic", shape, position: p, restitution: 0.3, eid: e.eid });
    physics.applyImpulse(h, [Math.sin(i) * 2, 1, Math.cos(i) * 2]);
  }
  return world;
}

const world = setup();
const step: number[] = [];
const writeBack: number[] = [];
for (let s = 0; s < 600; s++) {
  const a = performance.now();
  physics.step(DT);
  const b = performance.now();
  physics.writeTransforms(world.Position, world.Rotation);
  const c = performance.now();
  step.push(b - a);
  writeBack.push(c - b);
}
const active = summarize(step.slice(0, 120)); // the first two seconds: everything moving and colliding
const all = summarize(step);
const wb = summarize(writeBack);
const figures = {
  bench: "physics",
  dynamicBodies: BODIES,
  steps: step.length,
  stepActiveP50Ms: round(active.p50, 4),
  stepActiveP95Ms: round(active.p95, 4),
  stepP50Ms: round(all.p50, 4),
  stepP95Ms: round(all.p95, 4),
  stepMaxMs: round(all.max, 4),
  writeBackP50Us: round(wb.p50 * 1000, 2),
  writeBackP95Us: round(wb.p95 * 1000, 2),
};
console.log(
  `Rapier step, ${BODIES} dynamic bodies: p50 ${figures.stepP50Ms} ms, p95 ${figures.stepP95Ms} ms (first 2 s: p50 ${figures.stepActiveP50Ms}, p95 ${figures.stepActiveP95Ms}); SoA write-back p50 ${figures.writeBackP50Us} µs`,
);
console.log(JSON.stringify(figures));
