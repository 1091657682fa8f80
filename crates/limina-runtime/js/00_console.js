// console: log/info/debug to stdout, warn/error to stderr, values formatted
// the way a developer expects (nested objects, typed arrays, errors with stacks).

// Ops are looked up when called, never bound at evaluation: a start-up
// snapshot holds the slow form of a bound op, the live table the fast one.
const { ops } = Deno.core;
const print = (text, toStderr) => ops.op_limina_print(text, toStderr);

const MAX_DEPTH = 4;
const MAX_ITEMS = 100;

function className(value) {
  const proto = Object.getPrototypeOf(value);
  if (proto === null) return "[Object: null prototype]";
  const name = proto.constructor?.name;
  return name && name !== "Object" ? name : "";
}

function quote(s) {
  return JSON.stringify(s);
}

function formatKey(key) {
  return typeof key === "symbol" ? `[${key.toString()}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? key : quote(key);
}

function inspect(value, depth = 0, seen = new Set()) {
  switch (typeof value) {
    case "string":
      return depth === 0 ? value : quote(value);
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "boolean":
    case "undefined":
      return String(value);
    case "symbol":
      return value.toString();
    case "function":
      return `[Function: ${value.name || "(anonymous)"}]`;
  }
  if (value === null) return "null";
  if (value instanceof Error) {
    return value.stack ?? `${value.name}: ${value.message}`;
  }
  if (seen.has(value)) return "[Circular]";
  if (depth > MAX_DEPTH) return Array.isArray(value) ? "[Array]" : `[${className(value) || "Object"}]`;
  seen.add(value);
  try {
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const items = Array.from(value.subarray(0, MAX_ITEMS), (v) => inspect(v, depth + 1, seen));
      if (value.length > MAX_ITEMS) items.push(`... ${value.length - MAX_ITEMS} more items`);
      return `${className(value)}(${value.length}) [ ${items.join(", ")} ]`;
    }
    if (Array.isArray(value)) {
      const items = value.slice(0, MAX_ITEMS).map((v) => inspect(v, depth + 1, seen));
      if (value.length > MAX_ITEMS) items.push(`... ${value.length - MAX_ITEMS} more items`);
      return `[ ${items.join(", ")} ]`;
    }
    if (value instanceof Map) {
      const items = [...value].slice(0, MAX_ITEMS).map(([k, v]) => `${inspect(k, depth + 1, seen)} => ${inspect(v, depth + 1, seen)}`);
      return `Map(${value.size}) { ${items.join(", ")} }`;
    }
    if (value instanceof Set) {
      const items = [...value].slice(0, MAX_ITEMS).map((v) => inspect(v, depth + 1, seen));
      return `Set(${value.size}) { ${items.join(", ")} }`;
    }
    if (value instanceof Date) return value.toISOString();
    if (value instanceof RegExp) return String(value);
    if (value instanceof Promise) return "Promise { <opaque> }";
    if (value instanceof ArrayBuffer) return `ArrayBuffer { byteLength: ${value.byteLength} }`;
    const keys = Reflect.ownKeys(value).filter((k) => Object.getOwnPropertyDescriptor(value, k)?.enumerable);
    const items = keys.slice(0, MAX_ITEMS).map((k) => `${formatKey(k)}: ${inspect(value[k], depth + 1, seen)}`);
    if (keys.length > MAX_ITEMS) items.push(`... ${keys.length - MAX_ITEMS} more keys`);
    const name = className(value);
    const body = items.length ? `{ ${items.join(", ")} }` : "{}";
    return name ? `${name} ${body}` : body;
  } finally {
    seen.delete(value);
  }
}

function format(args) {
  return args.map((a) => inspect(a)).join(" ");
}

const counts = new Map();
const timers = new Map();

const console = {
  log: (...args) => print(format(args) + "\n", false),
  info: (...args) => print(format(args) + "\n", false),
  debug: (...args) => print(format(args) + "\n", false),
  warn: (...args) => print(format(args) + "\n", true),
  error: (...args) => print(format(args) + "\n", true),
  trace: (...args) => print(`Trace: ${format(args)}\n${new Error().stack.split("\n").slice(2).join("\n")}\n`, true),
  assert: (cond, ...args) => {
    if (!cond) print(`Assertion failed${args.length ? ": " + format(args) : ""}\n`, true);
  },
  count: (label = "default") => {
    const n = (counts.get(label) ?? 0) + 1;
    counts.set(label, n);
    print(`${label}: ${n}\n`, false);
  },
  time: (label = "default") => timers.set(label, performance.now()),
  timeEnd: (label = "default") => {
    const start = timers.get(label);
    timers.delete(label);
    if (start !== undefined) print(`${label}: ${(performance.now() - start).toFixed(3)}ms\n`, false);
  },
  table: (data) => print(format([data]) + "\n", false),
};

globalThis.console = console;
export { inspect };
