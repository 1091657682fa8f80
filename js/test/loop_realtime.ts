// The host-owned loop on the wall clock: steps track real time at 60 per second.
import { assert, assertAlmostEquals, assertEquals, test } from "limina/testing";
import { FIXED_DT, onFrame, stepsRun, waitSteps } from "limina";

const alphas: number[] = [];
onFrame((alpha) => alphas.push(alpha));

test("fixed steps follow wall-clock time at 60 per second", async () => {
  await waitSteps(1);
  // Read between frames (a timer), not inside the frame whose step resolved the wait.
  await new Promise((r) => setTimeout(r, 0));
  const s0 = Limina.loop.stats();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 500));
  const s1 = Limina.loop.stats();
  const elapsed = (performance.now() - t0) / 1000;
  assertEquals(s1.clock, "realtime");
  const steps = s1.steps - s0.steps;
  // Never more steps than elapsed time allows (plus the partial steps at
  // either end); a busy machine only makes fewer.
  const expected = elapsed / FIXED_DT;
  assert(steps <= expected + 3, `${steps} steps in ${elapsed.toFixed(3)} s (expected ≤ ${expected.toFixed(1)} + 3)`);
  // And exactly as many as the frames' clock allows: all of its time is
  // stepped but what the catch-up clamp dropped after a stall and what is
  // carried into the next frame, however busy the machine.
  const stepped = s1.frameClockMs - s0.frameClockMs - (s1.droppedMs - s0.droppedMs) - (s1.carriedMs - s0.carriedMs);
  assertAlmostEquals(steps * FIXED_DT * 1000, stepped, 1e-6, `${steps} steps for ${stepped.toFixed(3)} ms of the frames' clock (${(s1.droppedMs - s0.droppedMs).toFixed(1)} ms dropped)`);
  assertAlmostEquals(s1.simTime - s0.simTime, steps * FIXED_DT, 1e-9);
  assert(stepsRun() >= steps);
});

test("a stall's time past the 250 ms catch-up limit is dropped, counted, and the rest stepped", async () => {
  const s0 = Limina.loop.stats();
  // The loop thread busy for 400 ms (at least: a busy machine only stretches it): the next frame's elapsed time is
  // clamped to 250 ms.
  for (const end = performance.now() + 400; performance.now() < end; );
  await waitSteps(2);
  // Read between frames (a timer), not inside the frame whose step resolved the wait.
  await new Promise((r) => setTimeout(r, 0));
  const s1 = Limina.loop.stats();
  const dropped = s1.droppedMs - s0.droppedMs;
  assert(dropped >= 150, `the stall's time past 250 ms was dropped (${dropped.toFixed(1)} ms)`);
  const stepped = s1.frameClockMs - s0.frameClockMs - dropped - (s1.carriedMs - s0.carriedMs);
  assertAlmostEquals((s1.steps - s0.steps) * FIXED_DT * 1000, stepped, 1e-6, `${s1.steps - s0.steps} steps for ${stepped.toFixed(3)} ms of the frames' clock`);
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
