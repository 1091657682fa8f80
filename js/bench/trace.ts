// The world log at scale: 1,000,000 events emitted, exported twice (once
// timed with the fixed steps counted, once with the process's RSS sampled)
// and verified from the file; RSS before, after and during each.
// Run: limina js/bench/trace.ts [EVENTS]   (default 1000000; final line: JSON figures;
//   writes and then removes traces/bench-trace*.jsonl)
import { onFixedStep, Tracer, verifyTraceFile, waitSteps } from "limina";
import { round } from "limina/bench";

const EVENTS = Number(Limina.args[0] ?? 1_000_000);

/** This process's resident set size in MiB (read by a child from /proc/<its parent>). */
async function rssMiB(): Promise<number> {
  const r = await Limina.run({ cmd: "sh", args: ["-c", "grep VmRSS /proc/$PPID/status"] });
  return round(Number(/(\d+)/.exec(r.stdout)![1]) / 1024, 1);
}

/** The peak RSS seen while `work` runs, sampled every 100 ms. */
async function peakRssDuring<T>(work: Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let done = false;
  const finished = work.finally(() => (done = true));
  let peakMiB = 0;
  while (!done) {
    peakMiB = Math.max(peakMiB, await rssMiB());
    await Promise.race([finished, new Promise((r) => setTimeout(r, 100))]);
  }
  return { result: await finished, peakMiB };
}

const tracer = new Tracer();
for (let i = 0; i < 10_000; i++) tracer.emit("bench.warm", { i });
await waitSteps(2);
const rssStart = await rssMiB();
// RSS at each quarter of the emitting: flat means it stops growing, whatever the count.
const rssWhileEmitting: number[] = [];
let emitMs = 0;
for (let quarter = 1; quarter <= 4; quarter++) {
  const t = performance.now();
  for (let i = Math.max(10_000, ((quarter - 1) * EVENTS) / 4); i < (quarter * EVENTS) / 4; i++) {
    tracer.emit("agent.signal.ping", { i, at: [i, 0, 1] }, { actorId: "agent_bench" });
  }
  emitMs += performance.now() - t;
  rssWhileEmitting.push(await rssMiB());
}
const emitUs = (emitMs * 1000) / (EVENTS - 10_000);
// Emitting held the loop; let it settle so the steps counted below are not its catching up.
await new Promise((r) => setTimeout(r, 500));

// Export 1: timed, with the fixed steps it lets run.
const stamps: number[] = [];
const stop = onFixedStep(() => stamps.push(performance.now()));
let t0 = performance.now();
const exported = await tracer.exportTo("bench-trace");
const exportMs = performance.now() - t0;
stop();
if (exported.events !== EVENTS) throw new Error(`exported ${exported.events} of ${EVENTS}`);
const maxStepGapMs = Math.max(...stamps.slice(1).map((t, i) => t - stamps[i]));

// Export 2: the same history with RSS sampled (the sampling children cost some speed).
const second = await peakRssDuring(tracer.exportTo("bench-trace"));
const rssAfterExport = await rssMiB();

t0 = performance.now();
const verified = await verifyTraceFile(exported.path);
const verifyMs = performance.now() - t0;
if (verified.status !== "sealed" || verified.events !== EVENTS) throw new Error(`verified ${JSON.stringify(verified)}`);
const verifyPeak = await peakRssDuring(verifyTraceFile(second.result.path));

await Limina.run({ cmd: "rm", args: ["-f", exported.path, second.result.path] });
tracer.close();

const figures = {
  bench: "trace",
  events: EVENTS,
  emitUs: round(emitUs, 3),
  exportMs: round(exportMs, 1),
  exportEventsPerSec: Math.round(EVENTS / (exportMs / 1000)),
  exportMiB: round(exported.bytes / 2 ** 20, 1),
  ticksPerSecDuringExport: round(stamps.length / (exportMs / 1000), 1),
  maxStepGapMs: round(maxStepGapMs, 1),
  verifyMs: round(verifyMs, 1),
  verifyEventsPerSec: Math.round(EVENTS / (verifyMs / 1000)),
  rssMiB: {
    start: rssStart,
    afterEachQuarterOfEmitting: rssWhileEmitting,
    duringExportPeak: second.peakMiB,
    afterExport: rssAfterExport,
    duringVerifyPeak: verifyPeak.peakMiB,
  },
};
console.log(
  `${EVENTS} events: export ${figures.exportEventsPerSec} events/s (${figures.exportMiB} MiB, ${figures.ticksPerSecDuringExport} steps/s meanwhile), ` +
    `verify ${figures.verifyEventsPerSec} events/s; RSS ${rssStart} MiB, then ${rssWhileEmitting.join(" / ")} MiB emitting, ` +
    `peak ${second.peakMiB} MiB exporting, ${verifyPeak.peakMiB} MiB verifying`,
);
console.log(JSON.stringify(figures));
Limina.loop.stop();
