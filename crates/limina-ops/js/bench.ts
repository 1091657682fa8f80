// The benchmark-only reference ops (limina-ops' `limina_bench` extension),
// registered only when limina runs with `--bench-ops`.

import { engineError } from "./errors.ts";

export interface BenchOps {
  /** An empty fast op: the floor cost of crossing into Rust. */
  op_limina_noop(): void;
  op_limina_add(a: number, b: number): number;
  /** Scales a Float32Array in place (no copy either way). */
  op_limina_scale_f32(data: Float32Array, factor: number): void;
  op_limina_sum_f32(data: Float32Array): number;
  op_limina_echo_json<T>(value: T): T;
}

/** The bench ops; throws `unavailable` unless limina runs with `--bench-ops`. */
export function benchOps(): BenchOps {
  const ops = Limina.ops as unknown as Partial<BenchOps>;
  if (typeof ops.op_limina_noop !== "function") {
    throw engineError("unavailable", "the benchmark ops are registered only by `limina --bench-ops`");
  }
  return ops as BenchOps;
}
