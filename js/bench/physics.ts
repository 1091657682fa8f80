// Native Rapier: one step with 256 dynamic bodies — scattered and colliding
// in an arena, then all in contact in a settled pile — and the per-tick
// zero-copy SoA write-back of their transforms.
// Run: limina js/bench/physics.ts   (final line: JSON figures)
import { PhysicsWorld, World } from "limina";
import { round, summarize } from "limina/bench";

const DT = 1 / 60;
const BODIES = 256;
const STEPS = 600;

type Vec3 = [number, number, number];

/** Body `i` of either scene: boxes and spheres alternating, under 1 m. */
function createBody(physics: PhysicsWorld, world: World, i: number, p: Vec3): number {
  const e = world.spawn({ position: p });
  const shape = i % 2 ? { type: "sphere" as const, radius: 0.45 } : { type: "box" as const, halfExtents: [0.4, 0.4, 0.4] as Vec3 };
  return physics.createBody({ kind: "dynamic", shape, position: p, restitution: 0.3, eid: e.eid });
}

/** A new physics world with a floor and four walls `half` metres out from the centre, `height` tall. */
function createBin(half: number, height: number): { physics: PhysicsWorld; world: World } {
  const physics = new PhysicsWorld();
  physics.setGravity([0, -9.81, 0]);
  physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [half + 1, 0.5, half + 1] }, position: [0, -0.5, 0] });
  for (const [x, z, hx, hz] of [[0, half, half, 0.5], [0, -half, half, 0.5], [half, 0, 0.5, half], [-half, 0, 0.5, half]]) {
    physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [hx, height / 2, hz] }, position: [x, height / 2, z] });
  }
  return { physics, world: new World() };
}

function arena() {
  const { physics, world } = createBin(12, 6);
  for (let i = 0; i < BODIES; i++) {
    const h = createBody(physics, world, i, [(i % 16) * 1.2 - 9, 1 + Math.floor(i / 64) * 1.5, (Math.floor(i / 16) % 4) * 1.2 - 2]);
    physics.applyImpulse(h, [Math.sin(i) * 2, 1, Math.cos(i) * 2]);
  }
  const step: number[] = [];
  const writeBack: number[] = [];
  for (let s = 0; s < STEPS; s++) {
    const a = performance.now();
    physics.step(DT);
    const b = performance.now();
    physics.writeTransforms(world.Position, world.Rotation);
    const c = performance.now();
    step.push(b - a);
    writeBack.push(c - b);
  }
  physics.dispose();
  return { step, writeBack };
}

const SETTLE_STEPS = 300;

/**
 * The same bodies dropped as four 8 × 8 layers into an 8 m × 8 m bin, where
 * they settle into a pile in which every one rests on another or on the bin.
 * A settled pile would fall asleep (and its step cost next to nothing), so
 * each step one body gets a nudge — 1e-4 N·s up, a thousandth of what
 * gravity gives it in a step — which keeps the whole contact island awake.
 * Contacts are counted from Rapier's collision events (start/stop per pair).
 */
function pile() {
  const { physics, world } = createBin(4.5, 8);
  const handles: number[] = [];
  for (let i = 0; i < BODIES; i++) {
    // Slightly off the 1 m grid, so the layers shift and mesh as they land.
    handles.push(createBody(physics, world, i, [(i % 8) - 3.5 + 0.05 * Math.sin(i), 0.55 + Math.floor(i / 64), (Math.floor(i / 8) % 8) - 3.5 + 0.05 * Math.cos(i)]));
  }
  const dynamic = new Set(handles);
  const contacts = new Map<number, number>(); // body handle → colliders it touches
  const pairs = new Set<number>();
  let bodyPairs = 0;
  const drain = () => {
    for (const c of physics.drainCollisions()) {
      const key = Math.min(c.a, c.b) * 65536 + Math.max(c.a, c.b);
      if (c.started) pairs.add(key);
      else pairs.delete(key);
      if (dynamic.has(c.a) && dynamic.has(c.b)) bodyPairs += c.started ? 1 : -1;
      for (const h of [c.a, c.b]) if (dynamic.has(h)) contacts.set(h, (contacts.get(h) ?? 0) + (c.started ? 1 : -1));
    }
  };
  const inContact = () => handles.filter((h) => (contacts.get(h) ?? 0) > 0).length;
  const step: number[] = [];
  let leastInContact = BODIES;
  for (let s = 0; s < SETTLE_STEPS + STEPS; s++) {
    physics.applyImpulse(handles[s % BODIES], [0, 1e-4, 0]);
    const a = performance.now();
    physics.step(DT);
    const b = performance.now();
    drain();
    if (s >= SETTLE_STEPS) {
      step.push(b - a);
      leastInContact = Math.min(leastInContact, inContact());
    }
  }
  const sleeping = handles.filter((h) => physics.bodyState(h).sleeping).length;
  physics.dispose();
  return { step, contactPairs: pairs.size, bodyPairs, leastInContact, sleeping };
}

const a = arena();
const active = summarize(a.step.slice(0, 120)); // the first two seconds: everything moving and colliding
const all = summarize(a.step);
const wb = summarize(a.writeBack);
const p = pile();
const ps = summarize(p.step);
const figures = {
  bench: "physics",
  dynamicBodies: BODIES,
  steps: a.step.length,
  stepActiveP50Ms: round(active.p50, 4),
  stepActiveP95Ms: round(active.p95, 4),
  stepP50Ms: round(all.p50, 4),
  stepP95Ms: round(all.p95, 4),
  stepMaxMs: round(all.max, 4),
  writeBackP50Us: round(wb.p50 * 1000, 2),
  writeBackP95Us: round(wb.p95 * 1000, 2),
  pile: {
    settleSteps: SETTLE_STEPS,
    steps: p.step.length,
    stepP50Ms: round(ps.p50, 4),
    stepP95Ms: round(ps.p95, 4),
    stepMaxMs: round(ps.max, 4),
    // Pairs touching at the end (bodies with bodies and with the bin), the
    // fewest bodies touching anything at any measured step, and how many slept.
    contactPairs: p.contactPairs,
    bodyPairs: p.bodyPairs,
    bodiesInContactMin: p.leastInContact,
    sleepingBodies: p.sleeping,
  },
};
console.log(
  `Rapier step, ${BODIES} dynamic bodies: p50 ${figures.stepP50Ms} ms, p95 ${figures.stepP95Ms} ms (first 2 s: p50 ${figures.stepActiveP50Ms}, p95 ${figures.stepActiveP95Ms}); SoA write-back p50 ${figures.writeBackP50Us} µs`,
);
console.log(
  `  all in contact (settled pile, ${p.contactPairs} contact pairs, ≥ ${p.leastInContact}/${BODIES} bodies touching every step, ${p.sleeping} asleep): p50 ${figures.pile.stepP50Ms} ms, p95 ${figures.pile.stepP95Ms} ms`,
);
console.log(JSON.stringify(figures));
