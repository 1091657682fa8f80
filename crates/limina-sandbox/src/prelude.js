// Runs first in every sandbox. It installs the one door, `host`, and hands
// the host (Rust) a control object that sandboxed code never sees. Every
// intrinsic the control path uses is captured here, before untrusted code
// runs, so patching globals or prototypes can only break the code's own
// calls, never reach the host.
(() => {
  "use strict";
  const { parse, stringify } = JSON;
  const { apply, ownKeys } = Reflect;
  const { freeze, defineProperty } = Object;
  const PromiseCtor = Promise;
  const promiseResolve = Promise.resolve;
  const promiseThen = Promise.prototype.then;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const globals = globalThis;

  // Standard ECMAScript only: QuickJS's few web extras go.
  for (const name of ["queueMicrotask", "performance", "DOMException", "btoa", "atob"]) delete globals[name];

  const settlers = new MapCtor();
  let queue = [];
  let nextIntent = 1;
  let tick = null;
  // What the code reads of the world: the perception snapshot the host
  // injected before this entry, deeply frozen (null when the host has none).
  let perception = null;
  const deepFreeze = (v) => {
    if (v !== null && typeof v === "object") {
      for (const k of ownKeys(v)) deepFreeze(v[k]);
      freeze(v);
    }
    return v;
  };
  // The host's current call into the sandbox: [state, text], state 0 pending,
  // 1 done (text: the result's JSON), 2 failed (text: why).
  let task = [1, "null"];

  const describe = (e) => {
    try {
      if (e instanceof ErrorCtor) return StringCtor(e.name) + ": " + StringCtor(e.message);
      return "uncaught " + StringCtor(e);
    } catch {
      return "a thrown value that cannot be shown";
    }
  };
  const done = (t, value) => {
    try {
      const json = stringify(value === undefined ? null : value);
      t[0] = 1;
      t[1] = json === undefined ? "null" : json;
    } catch (e) {
      t[0] = 2;
      t[1] = "the result is not JSON: " + describe(e);
    }
  };
  const failed = (t, e) => {
    t[0] = 2;
    t[1] = describe(e);
  };

  const host = freeze({
    get perception() {
      return perception;
    },
    invoke(skill, input) {
      if (typeof skill !== "string") throw new TypeErrorCtor("host.invoke(skill, input): skill must be a string");
      const json = stringify(input === undefined ? {} : input);
      if (typeof json !== "string") throw new TypeErrorCtor("host.invoke(skill, input): input must be JSON");
      const id = nextIntent++;
      let settle;
      const promise = new PromiseCtor((resolve, reject) => {
        settle = [resolve, reject];
      });
      apply(mapSet, settlers, [id, settle]);
      queue[queue.length] = [id, skill, json];
      return promise;
    },
    onTick(fn) {
      if (typeof fn !== "function") throw new TypeErrorCtor("host.onTick(fn): fn must be a function");
      tick = fn;
    },
  });
  defineProperty(globals, "host", { value: host, writable: false, enumerable: false, configurable: false });

  return freeze({
    /** The intents recorded since the last take: [id, skill, inputJson][]. */
    take() {
      const q = queue;
      queue = [];
      return q;
    },
    /** Settles one host.invoke promise with the host's answer. */
    settle(id, ok, json) {
      const s = apply(mapGet, settlers, [id]);
      if (s === undefined) return;
      apply(mapDelete, settlers, [id]);
      if (ok) s[0](parse(json));
      else s[1](new ErrorCtor(json));
    },
    /** Injects the perception snapshot the next entries read (JSON). */
    perceive(json) {
      perception = deepFreeze(parse(json));
    },
    /** Forgets the last call's result (before top-level code runs). */
    reset() {
      task = [1, "null"];
    },
    /** Calls the tick handler (name null) or a global function with one JSON argument. */
    start(name, argJson) {
      const t = [0, null];
      task = t;
      const fn = name === null ? tick : globals[name];
      if (typeof fn !== "function") {
        failed(t, new TypeErrorCtor(name === null ? "no host.onTick handler" : "no function named " + name));
        return;
      }
      let r;
      try {
        r = fn(parse(argJson));
      } catch (e) {
        failed(t, e);
        return;
      }
      let then;
      try {
        then = r !== null && (typeof r === "object" || typeof r === "function") ? r.then : undefined;
      } catch (e) {
        failed(t, e);
        return;
      }
      if (typeof then !== "function") return done(t, r);
      apply(promiseThen, apply(promiseResolve, PromiseCtor, [r]), [(v) => done(t, v), (e) => failed(t, e)]);
    },
    result() {
      return task;
    },
    hasTick() {
      return tick !== null;
    },
  });
})()
