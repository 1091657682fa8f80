// The JS side of the host loop. The host has one fixed-step slot and one
// frame slot; this module owns them and fans each tick out to any number
// of systems, in registration order.

type StepFn = (dt: number, step: number) => void;
type FrameFn = (alpha: number) => void;

const stepSystems: StepFn[] = [];
const frameSystems: FrameFn[] = [];
let stepCount = 0;
let stepInstalled = false;
let frameInstalled = false;

function runSteps(dt: number): void {
  stepCount++;
  // Snapshot: a system may add or remove systems while running.
  for (const fn of stepSystems.slice()) fn(dt, stepCount);
}

function runFrame(alpha: number): void {
  for (const fn of frameSystems.slice()) fn(alpha);
}

function remover<T>(list: T[], fn: T): () => void {
  return () => {
    const i = list.indexOf(fn);
    if (i >= 0) list.splice(i, 1);
    if (stepSystems.length === 0 && frameSystems.length === 0) Limina.loop.idle(true);
  };
}

/** With no systems the host stays idle: a `--deterministic` run waiting on something else does not spin stepping nothing. */
function added(): void {
  if (stepSystems.length + frameSystems.length === 1) Limina.loop.idle(false);
}

/** Runs `fn(dt, step)` on every fixed step; returns a function that removes it. */
export function onFixedStep(fn: StepFn): () => void {
  stepSystems.push(fn);
  added();
  if (!stepInstalled) {
    stepInstalled = true;
    Limina.loop.onFixedStep(runSteps);
  }
  return remover(stepSystems, fn);
}

/** Runs `fn(alpha)` once per frame; returns a function that removes it. */
export function onFrame(fn: FrameFn): () => void {
  frameSystems.push(fn);
  added();
  if (!frameInstalled) {
    frameInstalled = true;
    Limina.loop.onFrame(runFrame);
  }
  return remover(frameSystems, fn);
}

/**
 * Installs the host's arrivals handler: `fn(budgetMs)` runs between frames
 * as soon as transport input arrives. It applies input for at most
 * `budgetMs` of the loop thread's CPU time (`Limina.loop.cpuMs()`), and
 * calls `wakeArrivals()` if it left work over.
 */
export function onArrivals(fn: (budgetMs: number) => void): void {
  Limina.loop.onArrivals(fn);
}

/** Asks the host for another arrivals call after any due frame. */
export function wakeArrivals(): void {
  Limina.loop.wake();
}

/** Resolves after `n` more fixed steps, with the step count reached. */
export function waitSteps(n: number): Promise<number> {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`waitSteps: n must be a whole number ≥ 0, got ${n}`);
  const target = stepCount + n;
  if (n === 0) return Promise.resolve(stepCount);
  return new Promise((resolve) => {
    const off = onFixedStep((_dt, step) => {
      if (step >= target) {
        off();
        resolve(step);
      }
    });
  });
}

/** Fixed steps this module has dispatched so far. */
export function stepsRun(): number {
  return stepCount;
}

export const FIXED_DT = 1 / 60;
