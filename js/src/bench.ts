// "limina/bench": what a benchmark needs — percentile statistics, and the
// reference ops of the native conventions (with `limina --bench-ops`).

export { type BenchOps, benchOps } from "../../crates/limina-ops/js/bench.ts";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(samples: number[]): { p50: number; p95: number; p99: number; min: number; max: number; mean: number } {
  const s = samples.slice().sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), min: s[0], max: s[s.length - 1], mean };
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Median of `runs` timings of `fn`, in ms. */
export function medianMs(runs: number, fn: () => void): number {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = performance.now();
    fn();
    t.push(performance.now() - a);
  }
  return summarize(t).p50;
}
