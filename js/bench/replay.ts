// The durable world's costs at the capstone's size — 2000 entities, 256 of
// them dynamic bodies — built through skill calls, so its world log holds
// everything: how long a snapshot takes (and its size), how long a restore
// into a new session takes (glTF-free, so it is ECS + Rapier + meshes), the
// world digest, and replay speed in fixed steps per second (re-applying the
// log's calls and checking a digest every 60 ticks).
// Run: limina js/bench/replay.ts   (final line: JSON figures)
import { FIXED_DT, parseTrace, replay, resolveProfile, restoreBytes, snapshotBytes, WorldSession } from "limina";
import { round, summarize } from "limina/bench";

const ENTITIES = 2000;
const BODIES = 256;
const TICKS = 600;
const RUNS = 5;
const builder = { agentId: "build", sessionId: "build", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

const session = new WorldSession({ simulate: false, checkpointEvery: 60 });
const call = async (tool: string, input: unknown) => {
  const r = await session.registry.invoke(tool, input, builder);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code}: ${r.error.message}`);
  return r.value as { entity: string };
};
await call("scene.createEntity", { shape: "box", size: 50, position: [0, -25, 0], static: true });
const bodies: string[] = [];
for (let i = 0; i < BODIES; i++) {
  bodies.push((await call("scene.createEntity", { shape: i % 2 ? "box" : "sphere", size: 0.8, position: [(i % 16) * 2 - 15, 1 + Math.floor(i / 64), Math.floor((i % 64) / 16) * 2 - 3], dynamic: true, restitution: 0.3 })).entity);
}
for (let i = BODIES + 1; i < ENTITIES; i++) {
  await call("scene.createEntity", { shape: "box", size: 0.5, position: [(i % 45) - 22, 0.25, Math.floor(i / 45) - 22] });
}
for (let t = 0; t < TICKS; t++) {
  if (t % 30 === 0) await call("physics.applyImpulse", { entity: bodies[(t / 30) % BODIES], impulse: [0.8, 0.6, -0.4] });
  session.step(FIXED_DT);
}

const digestMs = summarize(Array.from({ length: 20 }, () => {
  const a = performance.now();
  session.digest();
  return performance.now() - a;
}));
let bytes = new Uint8Array();
const snapshotMs = summarize(Array.from({ length: RUNS }, () => {
  const a = performance.now();
  bytes = snapshotBytes(session);
  return performance.now() - a;
}));
const restoreTimes: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const fresh = new WorldSession({ simulate: false, checkpointEvery: 0 });
  const a = performance.now();
  await restoreBytes(fresh, bytes);
  restoreTimes.push(performance.now() - a);
  if (fresh.digest() !== session.digest()) throw new Error("a restored world differs from the saved one");
  fresh.dispose();
}
const restoreMs = summarize(restoreTimes);

const events = parseTrace(session.tracer.exportJsonl());
const target = new WorldSession({ simulate: false, checkpointEvery: 0 });
const a = performance.now();
const result = await replay(target, events);
const replayMs = performance.now() - a;
if (!result.ok) throw new Error(`replay diverged at tick ${result.tick}: ${result.reason}`);
// Stepping alone, for comparison: the same world and ticks without the log.
const plain = new WorldSession({ simulate: false, checkpointEvery: 0 });
await restoreBytes(plain, bytes);
const b = performance.now();
for (let t = 0; t < TICKS; t++) plain.step(FIXED_DT);
const stepOnlyMs = performance.now() - b;

const figures = {
  bench: "replay",
  entities: session.world.entities.size,
  dynamicBodies: BODIES,
  snapshot: { p50Ms: round(snapshotMs.p50, 1), maxMs: round(snapshotMs.max, 1), bytes: bytes.length },
  restore: { p50Ms: round(restoreMs.p50, 1), maxMs: round(restoreMs.max, 1) },
  digest: { p50Ms: round(digestMs.p50, 2) },
  replay: { ticks: result.tick, calls: result.calls, checkpoints: result.checkpoints, seconds: round(replayMs / 1000, 2), ticksPerSecond: Math.round(result.tick / (replayMs / 1000)) },
  steppingOnly: { ticksPerSecond: Math.round(TICKS / (stepOnlyMs / 1000)) },
};
console.log(`${figures.entities} entities, ${BODIES} bodies: snapshot p50 ${figures.snapshot.p50Ms} ms (${bytes.length} bytes), restore p50 ${figures.restore.p50Ms} ms, digest p50 ${figures.digest.p50Ms} ms; replay ${figures.replay.ticksPerSecond} ticks/s (${result.calls} calls, ${result.checkpoints} checkpoints)`);
console.log(JSON.stringify(figures));
Limina.exit(0);
