// The host-owned loop on the wall clock: steps track real time at 60 per second.
import { assert, assertAlmostEquals, assertEquals, test } from "limina/testing";
import { FIXED_DT, onFrame, stepsRun, waitSteps } from "limina";

const alphas: number[] = [];
onFrame((alpha) => alphas.push(alpha));

test("fixed steps follow wall-clock time at 60 per second", async () => {
  await waitSteps(1);
  const s0 = Limina.loop.stats();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 500));
  const s1 = Limina.loop.stats();
  const elapsed = (performance.now() - t0) / 1000;
  assertEquals(s1.clock, "realtime");
  const steps = s1.steps - s0.steps;
  // The accumulator turns elapsed time into whole steps: never more than
  // elapsed time allows (plus the partial steps at either end); fewer only
  // when a busy machine stalls the process past the catch-up limit, so the
  // lower bound is wide.
  const expected = elapsed / FIXED_DT;
  assert(steps <= expected + 3 && steps >= expected / 2, `${steps} steps in ${elapsed.toFixed(3)} s (expected ≈ ${expected.toFixed(1)})`);
  assertAlmostEquals(s1.simTime - s0.simTime, steps * FIXED_DT, 1e-9);
  assert(stepsRun() >= steps);
});

test("frames are paced at 60 per second at most", async () => {
  const s0 = Limina.loop.stats();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 300));
  const s1 = Limina.loop.stats();
  const elapsed = (performance.now() - t0) / 1000;
  // One frame a frame interval, each timed from the last one's deadline (by
  // two timers taking turns); a busy machine only makes fewer.
  const frames = s1.frames - s0.frames;
  assert(frames <= elapsed / FIXED_DT + 3, `${frames} frames in ${elapsed.toFixed(3)} s`);
});

test("frame alpha stays in [0, 1)", () => {
  assert(alphas.length > 10, `frames seen: ${alphas.length}`);
  assert(alphas.every((a) => a >= 0 && a < 1), `alphas out of range: ${alphas.filter((a) => a < 0 || a >= 1)}`);
});
