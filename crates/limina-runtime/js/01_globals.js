// Web-style globals the engine's modules expect: timers and performance.now().

import { op_limina_now } from "ext:core/ops";

const { createTimer, cancelTimer } = Deno.core;

const active = new Map();
let nextId = 1;

function schedule(callback, delay, args, repeat) {
  if (typeof callback !== "function") {
    throw new TypeError("timer callback must be a function");
  }
  const id = nextId++;
  const run = repeat ? (...a) => callback(...a) : (...a) => {
    active.delete(id);
    callback(...a);
  };
  active.set(id, createTimer(run, delay, args, repeat, true));
  return id;
}

function clear(id) {
  const timer = active.get(id);
  if (timer) {
    active.delete(id);
    cancelTimer(timer);
  }
}

globalThis.setTimeout = (cb, delay = 0, ...args) => schedule(cb, delay, args, false);
globalThis.setInterval = (cb, delay = 0, ...args) => schedule(cb, delay, args, true);
globalThis.clearTimeout = clear;
globalThis.clearInterval = clear;

const timeOrigin = Date.now() - op_limina_now();
globalThis.performance = {
  now: op_limina_now,
  timeOrigin,
};
