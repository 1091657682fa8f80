// limina: --deterministic
// The host-owned fixed-timestep loop on the virtual clock.
import { assert, assertEquals, test } from "limina/testing";
import { FIXED_DT, onFixedStep, onFrame, waitSteps } from "limina";

let inStep = false;
const alphas: number[] = [];
onFixedStep(() => {
  inStep = true;
  queueMicrotask(() => {
    inStep = false;
  });
});
onFrame((alpha) => alphas.push(alpha));

test("exactly 60 fixed steps per simulated second", async () => {
  const before = Limina.loop.stats();
  assertEquals(before.clock, "virtual");
  await waitSteps(60);
  const after = Limina.loop.stats();
  assertEquals(after.steps - before.steps, 60);
  assertEquals(after.frames - before.frames, 60, "one frame per step on the virtual clock");
  assertEquals(Math.round((after.simTime - before.simTime) * 1e9) / 1e9, 1);
  await waitSteps(600);
  const ten = Limina.loop.stats();
  assertEquals(ten.steps - after.steps, 600);
  assertEquals(ten.simTime, ten.steps * FIXED_DT);
});

test("the fixed-step callback gets dt = 1/60 and the frame callback alpha = 0", async () => {
  const dts: number[] = [];
  const off = onFixedStep((dt) => dts.push(dt));
  alphas.length = 0;
  await waitSteps(5);
  off();
  assertEquals(dts, [FIXED_DT, FIXED_DT, FIXED_DT, FIXED_DT, FIXED_DT]);
  assert(alphas.length >= 4, `frames seen: ${alphas.length}`);
  assert(alphas.every((a) => a === 0), `alphas ${alphas}`);
});

test("systems run in registration order, each step", async () => {
  const log: string[] = [];
  const offA = onFixedStep((_dt, step) => log.push(`a${step}`));
  const offB = onFixedStep((_dt, step) => log.push(`b${step}`));
  const start = await waitSteps(0);
  await waitSteps(2);
  offA();
  offB();
  const steps = log.map((s) => Number(s.slice(1)));
  assertEquals(log.length, 4);
  assertEquals(log, [`a${steps[0]}`, `b${steps[0]}`, `a${steps[0] + 1}`, `b${steps[0] + 1}`]);
  assert(steps[0] > start);
});

test("promise jobs queued in a step run before the next step", async () => {
  const log: string[] = [];
  const off = onFixedStep((_dt, step) => {
    log.push(`step ${step}`);
    Promise.resolve().then(() => log.push(`job ${step}`));
  });
  await waitSteps(3);
  off();
  for (let i = 0; i + 1 < log.length; i += 2) {
    const step = log[i].split(" ")[1];
    assertEquals(log[i + 1], `job ${step}`, log.join(", "));
  }
});

test("async work resolves between ticks while the loop keeps stepping", async () => {
  const startSteps = Limina.loop.stats().steps;
  const slow = new Promise<number>((resolve) => setTimeout(() => resolve(Limina.loop.stats().steps), 30));
  const resolvedAt = await slow;
  assert(!inStep, "the continuation must not run inside a fixed step");
  assert(resolvedAt > startSteps, `the loop kept stepping while waiting (${startSteps} → ${resolvedAt})`);
});
