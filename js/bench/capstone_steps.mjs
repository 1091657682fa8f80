// Which of the capstone's steps set its CPU p95: the checkpoint steps (the world digest, every 60th
// step) or the others, and whether the others are slow because of their work or because of the
// machine. The run is deterministic, so every run does the same work in the same step: a step slow
// in one run only was slowed by something else (other processes, caches, the GC's timing). Reads
// the `steps` lines of several runs of `limina --deterministic js/bench/capstone.ts <names> steps`
// and prints, per scenario, each run's p95 with and without its checkpoint phase, how many of the
// slowest 5 % are checkpoint steps, how many of each pair of runs' 100 slowest other steps are the
// same steps (by chance: ~100²/n), and the percentiles of each step's least CPU over the runs.
// Run: node js/bench/capstone_steps.mjs run1.txt run2.txt …   (two runs or more)
import { readFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length < 2) throw new Error("usage: node js/bench/capstone_steps.mjs RUN_OUTPUT RUN_OUTPUT…");

/** scenario name → one `{ cpu, checkpoint }` per run. */
const scenarios = new Map();
for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.startsWith("steps "));
  if (lines.length === 0) throw new Error(`${file}: no "steps" lines (run the bench with the word steps)`);
  for (const line of lines) {
    const at = line.indexOf(" ", 6);
    const name = line.slice(6, at);
    if (!scenarios.has(name)) scenarios.set(name, []);
    scenarios.get(name).push(JSON.parse(line.slice(at + 1)));
  }
}

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const ms = (x) => x.toFixed(2);

for (const [name, runs] of scenarios) {
  const n = Math.min(...runs.map((r) => r.cpu.length));
  console.log(`${name}: ${runs.length} runs, ${n} steps`);
  const slowest = runs.map((r, i) => {
    const p95 = quantile(r.cpu, 0.95);
    const top = r.cpu.filter((c) => c >= p95).length;
    const topCheckpoints = r.cpu.filter((c, s) => c >= p95 && r.checkpoint[s] > 0).length;
    const less = quantile(r.cpu.map((c, s) => c - r.checkpoint[s]), 0.95);
    console.log(`  run ${i + 1}: p50 ${ms(quantile(r.cpu, 0.5))} p95 ${ms(p95)} ms; checkpoint steps in the slowest 5 %: ${topCheckpoints} of ${top}; p95 less the checkpoint phase ${ms(less)} ms`);
    const others = [];
    for (let s = 0; s < n; s++) if (r.checkpoint[s] === 0) others.push(s);
    return new Set(others.sort((a, b) => r.cpu[b] - r.cpu[a]).slice(0, 100));
  });
  const shared = [];
  for (let i = 0; i < runs.length; i++) for (let j = i + 1; j < runs.length; j++) shared.push([...slowest[i]].filter((s) => slowest[j].has(s)).length);
  console.log(`  the 100 slowest non-checkpoint steps shared by two runs: ${shared.join(", ")} (by chance ~${ms(10000 / n)})`);
  const least = [];
  for (let s = 0; s < n; s++) least.push(Math.min(...runs.map((r) => r.cpu[s])));
  const checkpoint = least.filter((_, s) => runs[0].checkpoint[s] > 0);
  const other = least.filter((_, s) => runs[0].checkpoint[s] === 0);
  console.log(`  each step's least CPU over the runs: p50 ${ms(quantile(least, 0.5))} p95 ${ms(quantile(least, 0.95))} p99 ${ms(quantile(least, 0.99))} ms; non-checkpoint steps p95 ${ms(quantile(other, 0.95))}, max ${ms(Math.max(...other))}; checkpoint steps min ${ms(Math.min(...checkpoint))}, median ${ms(quantile(checkpoint, 0.5))}`);
}
