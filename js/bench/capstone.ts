// The density capstone timed, per scenario of js/bench/worlds/capstone.ts
// (standard: 200 ScriptedProvider agents + 256 dynamic bodies + 2000
// entities over 200 m; packed: the same in 48 m; agents1000), 3000 fixed
// steps each after a 60-step warm-up. Sim-step time is one tick's whole
// work: physics, SoA write-back, scene sync, actions (through the registry,
// traced), perception (one native batched query) and decisions.
// Run: limina --deterministic js/bench/capstone.ts [standard] [packed] [agents1000] [steps]
//   (no names: all three; final line: JSON figures of the scenarios run; with `steps`, each
//   scenario's measured steps first, one `steps <name> {…}` line each: CPU ms and checkpoint ms
//   per step, for js/bench/capstone_steps.mjs to compare runs step by step)
import { type AgentSystems, onFixedStep, pursueNearest, waitSteps, type WorldSession } from "limina";
import { round, summarize } from "limina/bench";
import { type CapstoneScenario, createCapstone, SCENARIOS } from "./worlds/capstone.ts";

const WARMUP = 60; // one full decision cycle
const TICKS = 3000;

// sync: the SoA write-back and scene sync; checkpoint: the world digest the
// world log records every 60 steps; decisions: their bookkeeping (who is
// due, starting each, accepting its result); provider: the scripted policy
// itself; tracing: the world log's emit; worldLog: handing a batch of events
// to the world log's thread (inside an emit, about every 512 events).
const PHASES = ["physics", "sync", "checkpoint", "actions", "perception", "decisions", "provider", "tracing", "worldLog"] as const;
type Phase = (typeof PHASES)[number] | "idle";

const zeros = () => Object.fromEntries([...PHASES, "idle"].map((p) => [p, 0])) as Record<Phase, number>;

/**
 * Exclusive time per phase: a timed call charges its phase with its own
 * time less that of the timed calls inside it, so a tick's phases add up to
 * its work; time outside every phase (the loop's own) goes to `idle`.
 */
class PhaseClock {
  private phase: Phase = "idle";
  private since = performance.now();
  private ms = zeros();

  /** Switches to `phase`; returns the phase to switch back to. */
  enter(phase: Phase): Phase {
    const now = performance.now();
    this.ms[this.phase] += now - this.since;
    this.since = now;
    const prev = this.phase;
    this.phase = phase;
    return prev;
  }

  timed<A extends unknown[], R>(phase: Phase, fn: (...args: A) => R): (...args: A) => R {
    return (...args) => {
      const prev = this.enter(phase);
      try {
        return fn(...args);
      } finally {
        this.enter(prev);
      }
    };
  }

  /** Times the method `key` of `obj` (a private one too: the benchmark may look inside). */
  wrap(obj: object, key: string, phase: Phase): void {
    const o = obj as Record<string, (...args: unknown[]) => unknown>;
    if (typeof o[key] !== "function") throw new Error(`no method ${key} to time`);
    o[key] = this.timed(phase, o[key].bind(obj));
  }

  /** The time charged to each phase since the last lap. */
  lap(): Record<Phase, number> {
    this.enter(this.phase);
    const out = this.ms;
    this.ms = zeros();
    return out;
  }
}

/**
 * Times the tick's phases from outside. Physics and the checkpoint are
 * nested in `session.step` (what is left of it is the write-back and scene
 * sync); the world log's `emit` (with its subscribers) is nested in
 * perception, decisions and actions, and its flush in `emit`. A decision's result is accepted (validated, queued) in the
 * microtask after its provider answers, in the private `accept`. Actions
 * run as a promise chain after the tick's synchronous part, so the action
 * phase lasts from `action.run` until that chain settles, less what the
 * other phases take meanwhile.
 */
function instrument(clock: PhaseClock, session: WorldSession, systems: AgentSystems): void {
  clock.wrap(session, "step", "sync");
  clock.wrap(session.physics, "step", "physics");
  clock.wrap(session, "checkpoint", "checkpoint");
  clock.wrap(session.tracer, "emit", "tracing");
  clock.wrap(session.tracer, "flush", "worldLog");
  clock.wrap(systems.perception, "build", "perception");
  clock.wrap(systems.scheduler, "dueForDecision", "decisions");
  clock.wrap(systems.decision, "start", "decisions");
  clock.wrap(systems.decision, "accept", "decisions");
  const run = systems.action.run.bind(systems.action);
  systems.action.run = (agents) => {
    const prev = clock.enter("actions");
    const done = run(agents);
    void done.then(() => clock.enter(prev));
    return done;
  };
}

async function measure(name: string, scenario: CapstoneScenario) {
  const clock = new PhaseClock();
  // The provider's own work (an LLM's, elsewhere) is kept apart from the decision bookkeeping.
  const { session, systems } = createCapstone(scenario, clock.timed("provider", pursueNearest(0.8)));
  instrument(clock, session, systems);
  const samples: number[] = [];
  // The loop thread's CPU time over each sampled tick: what other processes' load does not add to
  // (preemption is not counted; a GC pause on this thread is).
  const cpuSamples: number[] = [];
  const phases: Record<Phase, number>[] = [];
  let measuring = false;
  let lastMeasured = false;
  const off = onFixedStep((dt, step) => {
    // The previous tick's phases: its microtasks have all run by now.
    const lap = clock.lap();
    if (lastMeasured) phases.push(lap);
    const measured = (lastMeasured = measuring);
    const t0 = performance.now();
    const cpu0 = Limina.loop.stats().cpuMs;
    session.step(dt);
    systems.tick(step).then(() => {
      if (!measured) return;
      samples.push(performance.now() - t0);
      cpuSamples.push(Limina.loop.stats().cpuMs - cpu0);
    });
  });
  await waitSteps(WARMUP);
  measuring = true;
  await waitSteps(TICKS);
  measuring = false;
  await waitSteps(1); // laps the last measured tick
  off();
  await systems.action.settled();
  const s = summarize(samples);
  const cpu = summarize(cpuSamples);
  let actions = 0;
  for (const e of session.tracer.history()) if (e.type === "skill.executed") actions++;
  const figures = {
    ...scenario,
    ticks: samples.length,
    stepP50Ms: round(s.p50),
    stepP95Ms: round(s.p95),
    stepP99Ms: round(s.p99),
    stepMaxMs: round(s.max),
    stepMeanMs: round(s.mean),
    stepCpuP50Ms: round(cpu.p50),
    stepCpuP95Ms: round(cpu.p95),
    stepCpuP99Ms: round(cpu.p99),
    stepCpuMeanMs: round(cpu.mean),
    // Exclusive per phase; the means add up to about the step's.
    phases: Object.fromEntries(PHASES.map((p) => {
      const t = summarize(phases.map((lap) => lap[p]));
      return [p, { p50Ms: round(t.p50), p95Ms: round(t.p95), meanMs: round(t.mean) }];
    })),
    actionsTraced: actions,
    events: session.tracer.size,
  };
  if (printSteps) console.log(`steps ${name} ${JSON.stringify({ cpu: cpuSamples.map((ms) => round(ms)), checkpoint: phases.map((lap) => round(lap.checkpoint)) })}`);
  systems.dispose();
  session.dispose();
  return figures;
}

const printSteps = Limina.args.includes("steps");
const named = Limina.args.filter((a) => a !== "steps");
const names = named.length > 0 ? named : Object.keys(SCENARIOS);
for (const n of names) if (!(n in SCENARIOS)) throw new Error(`no scenario ${n}: ${Object.keys(SCENARIOS).join(", ")}`);
const scenarios: Record<string, Awaited<ReturnType<typeof measure>>> = {};
for (const n of names) {
  const f = (scenarios[n] = await measure(n, SCENARIOS[n as keyof typeof SCENARIOS]));
  const split = PHASES.map((p) => `${p} ${f.phases[p].p50Ms}/${f.phases[p].p95Ms}`).join(", ");
  console.log(
    `capstone ${n} (${f.agents} agents, ${f.dynamicBodies} bodies, ${f.entities} entities, ${f.extent} m): ${f.ticks} ticks, sim-step p50 ${f.stepP50Ms} ms, p95 ${f.stepP95Ms} ms, p99 ${f.stepP99Ms} ms, max ${f.stepMaxMs} ms; loop-thread CPU a step p50 ${f.stepCpuP50Ms} ms, p95 ${f.stepCpuP95Ms} ms, p99 ${f.stepCpuP99Ms} ms; ${f.actionsTraced} actions traced`,
  );
  console.log(`  p50/p95 ms: ${split}`);
}
console.log(JSON.stringify({ bench: "capstone", warmupTicks: WARMUP, scenarios }));
Limina.loop.stop();
