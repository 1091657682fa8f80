// The headless test harness: `test(name, fn)` registers a (possibly async)
// test; the suite runs once the module has registered them all, prints one
// line per test and a closing `N passed, N failed`, and exits non-zero on
// any failure.

/** How many MCP messages the server's transports have read so far, all
 * connections together: lets a test world hold a call until the ones sent
 * behind it have arrived, so what it checks does not depend on how fast they came. */
export { received as mcpMessagesReceived } from "../../crates/limina-mcp/js/hub.ts";

export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

type TestFn = () => void | Promise<void>;
interface TestCase {
  name: string;
  fn: TestFn;
  only: boolean;
}

const cases: TestCase[] = [];
let scheduled = false;

function register(name: string, fn: TestFn, only: boolean): void {
  if (typeof name !== "string" || typeof fn !== "function") {
    throw new TypeError("test(name, fn) needs a string name and a function");
  }
  cases.push({ name, fn, only });
  if (!scheduled) {
    scheduled = true;
    // Runs after the module's top-level code has registered every test.
    setTimeout(runAll, 0);
  }
}

export function test(name: string, fn: TestFn): void {
  register(name, fn, false);
}

/** Runs only the tests marked `only` (the summary says how many were skipped). */
test.only = (name: string, fn: TestFn): void => register(name, fn, true);

async function runAll(): Promise<void> {
  const focused = cases.some((c) => c.only);
  const selected = focused ? cases.filter((c) => c.only) : cases;
  let passed = 0;
  let failed = 0;
  for (const c of selected) {
    const start = performance.now();
    try {
      await c.fn();
      passed++;
      console.log(`ok   ${c.name} (${(performance.now() - start).toFixed(1)} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${c.name}`);
      console.error(indent(e instanceof Error ? e.stack ?? String(e) : inspectValue(e)));
    }
  }
  const skipped = cases.length - selected.length;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  Limina.exit(failed > 0 ? 1 : 0);
}

function indent(text: string): string {
  return text.split("\n").map((l) => "    " + l).join("\n");
}

function inspectValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

export function assert(cond: unknown, message = "assertion failed"): asserts cond {
  if (!cond) throw new AssertionError(message);
}

/** Deep structural equality: primitives by Object.is, arrays, typed arrays, plain objects, Maps and Sets. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  // Plain objects compare by content whether or not they have a prototype
  // (objects made natively by serde_v8 have none).
  const plain = (p: unknown) => p === Object.prototype || p === null;
  const pa = Object.getPrototypeOf(a);
  const pb = Object.getPrototypeOf(b);
  if (pa !== pb && !(plain(pa) && plain(pb))) return false;
  if (ArrayBuffer.isView(a)) {
    const x = a as unknown as ArrayLike<unknown>;
    const y = b as unknown as ArrayLike<unknown>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
    return true;
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !deepEqual(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  if (!deepEqual(actual, expected)) {
    throw new AssertionError(
      `${message ? message + ": " : ""}expected ${inspectValue(expected)}, got ${inspectValue(actual)}`,
    );
  }
}

export function assertNotEquals<T>(actual: T, unexpected: T, message?: string): void {
  if (deepEqual(actual, unexpected)) {
    throw new AssertionError(`${message ? message + ": " : ""}expected a value other than ${inspectValue(unexpected)}`);
  }
}

export function assertAlmostEquals(actual: number, expected: number, epsilon = 1e-9, message?: string): void {
  if (!(Math.abs(actual - expected) <= epsilon)) {
    throw new AssertionError(
      `${message ? message + ": " : ""}expected ${expected} ± ${epsilon}, got ${actual}`,
    );
  }
}

type ErrorMatch = { name?: string; code?: string; message?: string | RegExp };

function checkError(e: unknown, match: ErrorMatch | undefined, what: string): Error {
  if (!(e instanceof Error)) throw new AssertionError(`${what} a non-Error value: ${inspectValue(e)}`);
  if (match?.name !== undefined && e.name !== match.name) {
    throw new AssertionError(`expected error name ${match.name}, got ${e.name}: ${e.message}`);
  }
  const code = (e as Error & { code?: unknown }).code;
  if (match?.code !== undefined && code !== match.code) {
    throw new AssertionError(`expected error code ${match.code}, got ${inspectValue(code)}: ${e.message}`);
  }
  const m = match?.message;
  if (m !== undefined && !(typeof m === "string" ? e.message.includes(m) : m.test(e.message))) {
    throw new AssertionError(`expected error message matching ${String(m)}, got: ${e.message}`);
  }
  return e;
}

/** Asserts that `fn` throws, optionally matching name, `code` and message; returns the error. */
export function assertThrows(fn: () => unknown, match?: ErrorMatch): Error {
  try {
    fn();
  } catch (e) {
    return checkError(e, match, "threw");
  }
  throw new AssertionError("expected the function to throw");
}

/** Asserts that the promise (or async function) rejects; returns the error. */
export async function assertRejects(p: Promise<unknown> | (() => Promise<unknown>), match?: ErrorMatch): Promise<Error> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    return checkError(e, match, "rejected with");
  }
  throw new AssertionError("expected the promise to reject");
}
