// The density capstone timed: 200 ScriptedProvider agents + 256 dynamic
// bodies + 2000 entities, 600 fixed steps. Sim-step time is one tick's
// whole work: physics, SoA write-back, scene sync, actions (through the
// registry, traced), perception (one native batched query) and decisions.
// Run: limina --deterministic js/bench/capstone.ts   (final line: JSON figures)
import { onFixedStep, waitSteps } from "limina";
import { round, summarize } from "limina/bench";
import { AGENTS, createCapstone, DYNAMIC_BODIES, ENTITIES } from "./worlds/capstone.ts";

const TICKS = 600;
const { session, systems } = createCapstone();
const samples: number[] = [];
let measuring = false;
const off = onFixedStep((dt, step) => {
  const t0 = performance.now();
  session.step(dt);
  systems.tick(step).then(() => {
    if (measuring) samples.push(performance.now() - t0);
  });
});
await waitSteps(60); // warm-up: one full decision cycle
measuring = true;
await waitSteps(TICKS);
measuring = false;
off();
const s = summarize(samples);
let actions = 0;
for (const e of session.tracer.history()) if (e.type === "skill.executed") actions++;
const figures = {
  bench: "capstone",
  agents: AGENTS,
  dynamicBodies: DYNAMIC_BODIES,
  entities: ENTITIES,
  ticks: samples.length,
  stepP50Ms: round(s.p50),
  stepP95Ms: round(s.p95),
  stepP99Ms: round(s.p99),
  stepMaxMs: round(s.max),
  actionsTraced: actions,
  events: session.tracer.size,
};
console.log(`capstone: ${figures.ticks} ticks, sim-step p50 ${figures.stepP50Ms} ms, p95 ${figures.stepP95Ms} ms, p99 ${figures.stepP99Ms} ms, max ${figures.stepMaxMs} ms; ${actions} actions traced`);
console.log(JSON.stringify(figures));
Limina.loop.stop();
