// The gameplay families' costs in a busy world — 2000 entities, 200 players
// with health, 100 trigger zones, 200 poisoned entities (a status ticking
// damage), 50 NPCs walking routines, 20 timers, rules settling every step:
//  - the game's share of a fixed step, against a naive peer for its biggest
//    part (trigger zones): each zone testing every entity in JS, which the
//    batched native radius query replaces;
//  - a game call (interaction.pickup, with its rollback guard and
//    settling) against a plain skill call of the same registry
//    (scene.queryEntities of a small radius);
//  - a checkpoint's size, create and load, against a world-file snapshot
//    and restore into a new session (the peer).
// Run: limina js/bench/game.ts   (final line: JSON figures)
import { callSkill, createWorldSession, FIXED_DT, restoreBytes, snapshotBytes, type Vec3 } from "limina";
import { round, summarize } from "limina/bench";

const ENTITIES = 2000;
const PLAYERS = 200;
const ZONES = 100;
const POISONED = 200;
const NPCS = 50;
const STEPS = 300;

const session = createWorldSession({ simulate: false, checkpointEvery: 0 });
const call = (name: string, input: Record<string, unknown>, as?: string) => callSkill<Record<string, unknown>>(session, name, input, { as });
const at = (i: number): Vec3 => [(i % 50) - 25, 0.5, Math.floor(i / 50) - 20];
const ids: string[] = [];
for (let i = 0; i < ENTITIES; i++) ids.push(session.entities.create({ shape: "box", size: 0.5, color: 0x888888, position: at(i), dynamic: false, static: false, friction: 0.5, restitution: 0 }).id);
await call("status.define", { id: "poison", name: "Poison", ticks: 100_000, every: 30, effects: [{ damage: 0.01 }] });
for (let i = 0; i < PLAYERS; i++) {
  await call("game.addPlayer", { agentId: `agt_${i}`, entity: ids[i] });
  await call("stats.define", { entity: ids[i], stat: "health", max: 1e6, regen: 0.001 });
}
for (let i = 0; i < POISONED; i++) await call("status.apply", { entity: ids[i], status: "poison" });
for (let z = 0; z < ZONES; z++) {
  await call("trigger.create", { trigger: `zone${z}`, shape: z % 2 ? "sphere" : "box", position: [(z % 10) * 5 - 23, 0.5, Math.floor(z / 10) * 4 - 19], ...(z % 2 ? { radius: 1.5 } : { halfExtents: [1.5, 1, 1.5] }), onEnter: [{ addCounter: "entries" }], onStay: [{ addCounter: "stays" }], every: 10 });
}
for (let n = 0; n < NPCS; n++) {
  const npc = ids[PLAYERS + n];
  await call("npc.define", { entity: npc, name: `npc${n}` });
  const p = at(PLAYERS + n);
  await call("npc.setRoutine", { npc, waypoints: [{ position: [p[0] + 3, p[1], p[2]], wait: 20 }, { position: p, wait: 20 }] });
}
for (let t = 0; t < 20; t++) await call("game.startTimer", { timer: `t${t}`, ticks: 30 + t, repeat: true, effects: [{ addCounter: "ticks" }] });
await call("game.defineRule", { rule: "many", when: { counter: "entries", value: 1e9 }, effects: [{ win: "never" }] });
// Players wander, so zones see entries and exits.
const wander = (step: number) => {
  for (let i = 0; i < PLAYERS; i += 4) {
    const e = session.world.entities.get(ids[i])!;
    const p = at(i);
    session.entities.setTransform(e, { position: [p[0] + Math.sin((step + i) / 20) * 2, p[1], p[2] + Math.cos((step + i) / 25) * 2] });
  }
};

const total: number[] = [];
const game: number[] = [];
// The game's share, timed inside the session's own step.
const gameStep = session.game.step.bind(session.game);
session.game.step = () => {
  const b = performance.now();
  gameStep();
  game.push(performance.now() - b);
};
for (let s = 0; s < STEPS; s++) {
  wander(s);
  const a = performance.now();
  session.step(FIXED_DT);
  total.push(performance.now() - a);
}
session.game.step = gameStep;

// The peer for the zones: every zone tests every entity's position in JS, one by one.
const zones = [...session.game.triggers.all.values()];
const naiveZones = (): number => {
  let inside = 0;
  const w = session.world;
  for (const t of zones) {
    const c = session.game.triggers.centre(t);
    for (const e of w.entities.entries()) {
      const p = w.position(e.eid);
      const hit = t.shape === "sphere" ? Math.hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]) <= t.radius! : Math.abs(p[0] - c[0]) <= t.halfExtents![0] && Math.abs(p[1] - c[1]) <= t.halfExtents![1] && Math.abs(p[2] - c[2]) <= t.halfExtents![2];
      if (hit) inside++;
    }
  }
  return inside;
};
const triggers: number[] = [];
const naive: number[] = [];
for (let s = 0; s < 100; s++) {
  const a = performance.now();
  session.game.triggers.step();
  triggers.push(performance.now() - a);
  const b = performance.now();
  naiveZones();
  naive.push(performance.now() - b);
}

// A game call against a plain one.
const CALLS = 400;
const pickups: number[] = [];
const plain: number[] = [];
await call("item.define", { id: "coin", name: "Coin", maxStack: 10_000 });
for (let i = 0; i < CALLS; i++) {
  const player = session.world.entities.get(ids[i % PLAYERS])!;
  const { entity } = await call("item.spawn", { item: "coin", position: session.world.position(player.eid) });
  const a = performance.now();
  await call("interaction.pickup", { target: entity }, `agt_${i % PLAYERS}`);
  pickups.push(performance.now() - a);
  const b = performance.now();
  await call("scene.queryEntities", { near: at(i % PLAYERS), radius: 1 });
  plain.push(performance.now() - b);
}

// Checkpoints against world files.
const creates: number[] = [];
const loads: number[] = [];
for (let i = 0; i < 5; i++) {
  const a = performance.now();
  await call("checkpoint.create", { name: "bench" });
  creates.push(performance.now() - a);
  const b = performance.now();
  await call("checkpoint.load", { name: "bench" });
  loads.push(performance.now() - b);
}
const checkpointBytes = session.game.checkpoints.list()[0].bytes;
await call("checkpoint.delete", { name: "bench" });
const snaps: number[] = [];
const restores: number[] = [];
let bytes = new Uint8Array();
for (let i = 0; i < 5; i++) {
  const a = performance.now();
  bytes = snapshotBytes(session);
  snaps.push(performance.now() - a);
  const fresh = createWorldSession({ simulate: false, checkpointEvery: 0 });
  const b = performance.now();
  await restoreBytes(fresh, bytes);
  restores.push(performance.now() - b);
  fresh.dispose();
}

const p50 = (x: number[]) => round(summarize(x).p50, 3);
const figures = {
  bench: "game",
  entities: ENTITIES,
  players: PLAYERS,
  zones: ZONES,
  poisoned: POISONED,
  npcs: NPCS,
  stepMsP50: p50(total),
  gameStepMsP50: p50(game),
  gameStepMsP95: round(summarize(game).p95, 3),
  triggersMsP50: p50(triggers),
  naiveZonesMsP50: p50(naive),
  triggersVsNaive: round(summarize(naive).p50 / summarize(triggers).p50, 2),
  pickupUsP50: round(summarize(pickups).p50 * 1000, 1),
  plainCallUsP50: round(summarize(plain).p50 * 1000, 1),
  pickupVsPlain: round(summarize(pickups).p50 / summarize(plain).p50, 2),
  checkpointBytes,
  checkpointCreateMsP50: p50(creates),
  checkpointLoadMsP50: p50(loads),
  snapshotMsP50: p50(snaps),
  restoreNewSessionMsP50: p50(restores),
  entries: session.game.state.counter("entries"),
};
console.log(JSON.stringify(figures));
session.dispose();
Limina.exit(0);
