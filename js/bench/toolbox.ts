// The builder's toolbox, measured against peers in the same run:
// - shapes: a physics step with 200 bodies of each shape (capsules,
//   cylinders, cones, compound tori, convex hulls) dropped on a floor, each
//   against 200 cubes; cubes on a trimesh floor against a box floor;
// - joints: 200 motor-driven hinged doors, against the same bodies unjoined;
// - the kill plane: its per-step check with 5 000 dynamic bodies, on against off;
// - sensors: a step with 400 bodies streaming through 20 sensors (their
//   enter/exit events dispatched and logged), against no sensors;
// - looks: the world digest of 5 000 entities (their looks included) cold and
//   with nothing changed since the last one, and inspector.snapshot per entity.
// Run: limina js/bench/toolbox.ts   (final line: JSON figures)
import { type CreateEntityOptions, createWorldSession, resolveProfile, type WorldSession } from "limina";
import { round, summarize } from "limina/bench";

const DT = 1 / 60;
const STEPS = 300;

/** Median step time (ms) of `session` over `steps` steps after `warm` steps. */
function stepMs(s: WorldSession, warm = 60, steps = STEPS): number {
  for (let i = 0; i < warm; i++) s.step(DT);
  const times: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t = performance.now();
    s.step(DT);
    times.push(performance.now() - t);
  }
  return summarize(times).p50;
}

const SHAPES: [string, CreateEntityOptions][] = [
  ["box", { shape: "box", size: [0.8, 0.4, 0.6] }],
  ["sphere", { shape: "sphere", radius: 0.35 }],
  ["capsule", { shape: "capsule", radius: 0.25, height: 0.9 }],
  ["cylinder", { shape: "cylinder", radius: 0.3, height: 0.7 }],
  ["cone", { shape: "cone", radius: 0.35, height: 0.7 }],
  ["torus", { shape: "torus", radius: 0.35, tube: 0.1 }],
  ["convexHull", { shape: "box", size: 0.5, collider: "convexHull" }],
];

/** 200 bodies of one shape dropped in a 20 × 10 grid, two layers, onto a box floor or a trimesh one. */
function drop(spec: CreateEntityOptions, floor: "box" | "trimesh"): WorldSession {
  const s = createWorldSession({ simulate: false });
  if (floor === "box") s.entities.create({ shape: "box", size: [40, 1, 40], position: [0, -0.5, 0], static: true });
  else s.entities.create({ shape: "plane", size: [40, 0, 40], static: true, collider: "trimesh" });
  for (let i = 0; i < 200; i++) s.entities.create({ ...spec, position: [(i % 20) * 1.4 - 14, 1 + Math.floor(i / 100) * 1.2, (Math.floor(i / 20) % 5) * 1.4 - 3], dynamic: true });
  return s;
}

/** Each shape's step time while 200 of them fall and land (the first 150 steps), as a multiple of cubes', both in the same round; median of three rounds. */
function shapes() {
  const ratios: Record<string, number> = {};
  for (const [name, spec] of SHAPES) {
    const r: number[] = [];
    for (let round = 0; round < 3; round++) r.push(stepMs(drop(spec, "box"), 0, 150) / stepMs(drop({ shape: "box", size: 0.6 }, "box"), 0, 150));
    ratios[name] = summarize(r).p50;
  }
  const trimesh: number[] = [];
  for (let round = 0; round < 3; round++) trimesh.push(stepMs(drop({ shape: "box", size: 0.6 }, "trimesh"), 0, 150) / stepMs(drop({ shape: "box", size: 0.6 }, "box"), 0, 150));
  return { ratios, trimeshFloorVsBoxFloor: summarize(trimesh).p50, cubesStepMs: stepMs(drop({ shape: "box", size: 0.6 }, "box"), 0, 150) };
}

/** 200 hinged doors spun by their motors, against the same doors spun free (no joint, the same speed). */
function joints() {
  const build = (joined: boolean) => {
    const s = createWorldSession({ simulate: false });
    s.physics.setGravity([0, 0, 0]);
    for (let i = 0; i < 200; i++) {
      const x = (i % 20) * 3;
      const z = Math.floor(i / 20) * 3;
      const post = s.entities.create({ shape: "cylinder", radius: 0.05, height: 2, position: [x, 1, z], static: true });
      // 5 cm clear of its post, so the figure is the joints' and not a contact's.
      const door = s.entities.create({ shape: "box", size: [1, 2, 0.08], position: [x + 0.6, 1, z], dynamic: true });
      if (joined) s.physics.createJoint({ type: "revolute", bodyA: post.body!, bodyB: door.body!, anchor: [x, 1, z], motor: { targetVelocity: 1, maxForce: 50 } });
      else s.physics.setAngularVelocity(door.body!, [0, 1, 0]);
    }
    return s;
  };
  const r: number[] = [];
  let hinged = 0;
  for (let round = 0; round < 3; round++) {
    hinged = stepMs(build(true));
    r.push(hinged / stepMs(build(false)));
  }
  return { hingedDoorsStepMs: hinged, jointsVsFree: summarize(r).p50 };
}

/** 5 000 resting bodies stepped with the kill plane on and off, alternately. */
function killPlane() {
  const build = (on: boolean) => {
    const s = createWorldSession({ simulate: false });
    s.physics.setGravity([0, 0, 0]);
    if (!on) s.physics.setKillPlane(null);
    for (let i = 0; i < 5000; i++) s.entities.create({ shape: "sphere", radius: 0.2, position: [(i % 100) * 0.6, Math.floor(i / 100) * 0.6, 0], dynamic: true });
    return s;
  };
  const [on, off] = [build(true), build(false)];
  const r: number[] = [];
  for (let round = 0; round < 5; round++) r.push(stepMs(on, 5) / stepMs(off, 5));
  return { killPlaneOverhead: summarize(r).p50 };
}

function sensors() {
  const build = (withSensors: boolean) => {
    const s = createWorldSession({ simulate: false });
    s.physics.setGravity([0, 0, 0]);
    if (withSensors) for (let k = 0; k < 20; k++) s.entities.create({ shape: "box", size: [1, 20, 20], position: [k * 3, 0, 0], sensor: true });
    for (let i = 0; i < 400; i++) {
      const e = s.entities.create({ shape: "sphere", radius: 0.2, position: [-2, (i % 20) - 9.5, Math.floor(i / 20) - 9.5], dynamic: true });
      s.physics.setLinearVelocity(e.body!, [6, 0, 0]);
    }
    return s;
  };
  const s = build(true);
  const before = s.tracer.size;
  const withSensors = stepMs(s, 0);
  const events = s.tracer.size - before;
  return { sensorsStepMs: withSensors, noSensorsStepMs: stepMs(build(false), 0), sensorEventsPerStep: round(events / STEPS, 1) };
}

async function looks() {
  const s = createWorldSession({ simulate: false });
  for (let i = 0; i < 5000; i++) s.entities.create({ ...SHAPES[i % 6][1], position: [i % 100, 0, Math.floor(i / 100)], color: i * 97, tags: ["thing"] });
  const cold: number[] = [];
  const warm: number[] = [];
  for (let r = 0; r < 5; r++) {
    s.entities.touch(s.world.entities.get("ent_1")!);
    let t = performance.now();
    s.digest();
    cold.push(performance.now() - t);
    t = performance.now();
    s.digest();
    warm.push(performance.now() - t);
  }
  const who = { agentId: "bench", sessionId: "bench", permissions: resolveProfile("builder.readWrite") };
  const t = performance.now();
  const r = await s.registry.invoke("inspector.snapshot", { limit: 500 }, who);
  const snapshot500 = performance.now() - t;
  if (!r.ok) throw new Error(r.error.message);
  return { digest5kColdMs: summarize(cold).p50, digest5kUnchangedMs: summarize(warm).p50, inspectorSnapshotUsPerEntity: round((snapshot500 * 1000) / 500, 1) };
}

const a = shapes();
const b = joints();
const c = killPlane();
const d = sensors();
const e = await looks();
const ratio = (x: number) => round(x, 2);
const figures = {
  cubesStepMs: round(a.cubesStepMs),
  shapeVsCube: Object.fromEntries(Object.entries(a.ratios).map(([k, v]) => [k, ratio(v)])),
  trimeshFloorVsBoxFloor: ratio(a.trimeshFloorVsBoxFloor),
  hingedDoorsStepMs: round(b.hingedDoorsStepMs),
  jointsVsFree: ratio(b.jointsVsFree),
  killPlaneOverhead: round(c.killPlaneOverhead, 3),
  sensorsStepMs: round(d.sensorsStepMs),
  noSensorsStepMs: round(d.noSensorsStepMs),
  sensorEventsPerStep: d.sensorEventsPerStep,
  digest5kColdMs: round(e.digest5kColdMs),
  digest5kUnchangedMs: round(e.digest5kUnchangedMs),
  inspectorSnapshotUsPerEntity: e.inspectorSnapshotUsPerEntity,
};
console.log(`toolbox: step time per shape against cubes ${JSON.stringify(figures.shapeVsCube)}; trimesh floor ×${figures.trimeshFloorVsBoxFloor}; 200 motor hinges ×${figures.jointsVsFree} of free spinning; kill plane over 5 000 bodies ×${figures.killPlaneOverhead}; 20 sensors, ${figures.sensorEventsPerStep} events/step: ${figures.sensorsStepMs} vs ${figures.noSensorsStepMs} ms; digest of 5 000 looks ${figures.digest5kColdMs} ms cold, ${figures.digest5kUnchangedMs} ms unchanged`);
console.log(JSON.stringify(figures));
