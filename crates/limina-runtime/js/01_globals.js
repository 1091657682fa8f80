// Web-style globals the engine's modules expect: timers, performance.now(),
// and UTF-8 TextEncoder/TextDecoder.

// Ops are looked up when called (see 00_console.js).
const { createTimer, cancelTimer, ops } = Deno.core;

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

// Computed on first use, in the process that asks (never baked into a snapshot).
let timeOrigin;
globalThis.performance = {
  now: () => ops.op_limina_now(),
  get timeOrigin() {
    return (timeOrigin ??= Date.now() - ops.op_limina_now());
  },
};

class TextEncoder {
  get encoding() {
    return "utf-8";
  }
  encode(input = "") {
    return Deno.core.encode(String(input));
  }
}

class TextDecoder {
  #fatal;
  constructor(label = "utf-8", options = {}) {
    const l = String(label).trim().toLowerCase();
    if (l !== "utf-8" && l !== "utf8" && l !== "unicode-1-1-utf-8") {
      throw new RangeError(`TextDecoder: only utf-8 is supported, not "${label}"`);
    }
    this.#fatal = Boolean(options.fatal);
  }
  get encoding() {
    return "utf-8";
  }
  decode(input = new Uint8Array()) {
    const bytes = ArrayBuffer.isView(input)
      ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
      : new Uint8Array(input);
    const text = Deno.core.decode(bytes);
    // Valid UTF-8 re-encodes to the same bytes; replaced sequences do not.
    if (this.#fatal && text.includes("\uFFFD")) {
      const again = Deno.core.encode(text);
      if (again.length !== bytes.length || again.some((b, i) => b !== bytes[i])) {
        throw new TypeError("TextDecoder: the input is not valid UTF-8");
      }
    }
    return text;
  }
}

globalThis.TextEncoder = TextEncoder;
globalThis.TextDecoder = TextDecoder;

// AbortController/AbortSignal: cancellation handles (three's loaders create them).
class AbortSignal {
  #aborted = false;
  #reason = undefined;
  #listeners = new Set();
  onabort = null;
  get aborted() {
    return this.#aborted;
  }
  get reason() {
    return this.#reason;
  }
  throwIfAborted() {
    if (this.#aborted) throw this.#reason;
  }
  addEventListener(type, listener) {
    if (type === "abort" && typeof listener === "function") this.#listeners.add(listener);
  }
  removeEventListener(type, listener) {
    if (type === "abort") this.#listeners.delete(listener);
  }
  static abort(reason) {
    const c = new AbortController();
    c.abort(reason);
    return c.signal;
  }
  static timeout(ms) {
    const c = new AbortController();
    setTimeout(() => c.abort(new DOMException(`signal timed out after ${ms} ms`, "TimeoutError")), ms);
    return c.signal;
  }
  // Called by AbortController only.
  _abort(reason) {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const event = { type: "abort", target: this };
    this.onabort?.(event);
    for (const l of this.#listeners) l(event);
  }
}

class AbortController {
  #signal = new AbortSignal();
  get signal() {
    return this.#signal;
  }
  abort(reason = new DOMException("the operation was aborted", "AbortError")) {
    this.#signal._abort(reason);
  }
}

class DOMException extends Error {
  constructor(message = "", name = "Error") {
    super(message);
    this.name = name;
  }
}

globalThis.AbortController = AbortController;
globalThis.AbortSignal = AbortSignal;
globalThis.DOMException ??= DOMException;

// requestAnimationFrame for libraries that expect one (three's animation
// loop): a frame-paced timer that does not keep the process alive. Limina's
// own rendering is driven by the host loop's frame callback instead.
let nextFrameId = 1;
const frames = new Map();
globalThis.requestAnimationFrame = (callback) => {
  const id = nextFrameId++;
  frames.set(id, createTimer(() => {
    frames.delete(id);
    callback(performance.now());
  }, 16, undefined, false, false));
  return id;
};
globalThis.cancelAnimationFrame = (id) => {
  const timer = frames.get(id);
  if (timer) {
    frames.delete(id);
    cancelTimer(timer);
  }
};
globalThis.self ??= globalThis;
