// The host: TS features, module resolution (relative paths and the public
// specifiers), timers, globals.
import { assert, assertEquals, assertRejects, test } from "limina/testing";
import { FIXED_DT } from "limina";
import { partlyCoveredPixels } from "./support/edges.ts";
import config from "../../tests/fixtures/config.json" with { type: "json" };

enum Shape {
  Box = "box",
  Sphere = "sphere",
}

class Body {
  constructor(private readonly radius: number, public shape: Shape) {}
  area(): number {
    return 4 * Math.PI * this.radius ** 2;
  }
}

test("TypeScript enums, parameter properties and type-only syntax transpile", () => {
  const b = new Body(1, Shape.Sphere);
  assertEquals(b.shape, "sphere");
  assertEquals(b.area(), 4 * Math.PI);
  const n = 3 satisfies number;
  assertEquals(n as number, 3);
});

test("public specifiers, relative TS and JSON imports resolve", () => {
  assertEquals(FIXED_DT, 1 / 60);
  assertEquals(typeof partlyCoveredPixels, "function");
  assertEquals(config.name, "limina-fixture");
});

test("timers fire in order and can be cleared", async () => {
  const order: string[] = [];
  const cleared = setTimeout(() => order.push("never"), 1);
  clearTimeout(cleared);
  await new Promise<void>((resolve) => {
    setTimeout(() => order.push("b"), 5);
    setTimeout(() => order.push("a"), 1);
    setTimeout(resolve, 10);
  });
  assertEquals(order, ["a", "b"]);
  let ticks = 0;
  await new Promise<void>((resolve) => {
    const id = setInterval(() => {
      if (++ticks === 3) {
        clearInterval(id);
        resolve();
      }
    }, 1);
  });
  assertEquals(ticks, 3);
});

test("performance.now is monotonic and high resolution", () => {
  const a = performance.now();
  let b = a;
  while (b === a) b = performance.now();
  assert(b > a && b - a < 5, `step ${b - a} ms`);
});

test("dynamic import and rejected promises", async () => {
  const mod = await import("limina");
  assertEquals(typeof mod.waitSteps, "function");
  const again = await import("limina");
  assert(again === mod, "a specifier names one module instance");
  const support = await import("./support/edges.ts");
  assert(support.partlyCoveredPixels === partlyCoveredPixels, "a relative import is the same module instance");
  await assertRejects(import("./does-not-exist.ts"), { message: "does-not-exist.ts" });
  const three = await import("three");
  assertEquals(typeof three.Scene, "function");
  // Any other bare specifier fails, naming the ones that exist.
  const e = await assertRejects(import("left-pad"), { message: '"left-pad"' });
  for (const name of ["limina", "limina/testing", "limina/bench", "three", "three/webgpu", "zod", "bitecs"]) {
    assert(e.message.includes(name), `the error names ${name}: ${e.message}`);
  }
});

test("Limina global: version, args, loop stats", () => {
  assert(/^\d+\.\d+\.\d+/.test(Limina.version), Limina.version);
  assert(Array.isArray(Limina.args));
  const s = Limina.loop.stats();
  assertEquals(s.fixedDt, 1 / 60);
});

test("console formats nested values without throwing", () => {
  const cyclic: Record<string, unknown> = { a: 1, list: [1, "two", { three: 3 }], typed: new Float32Array(3) };
  cyclic.self = cyclic;
  console.log("console check:", cyclic, new Map([["k", 1]]), new Set([1]), 10n, Symbol("s"));
});

test("Limina.run drives a child process, limina itself included", async () => {
  const out = await Limina.run({ cmd: Limina.execPath, args: ["tests/fixtures/hello.ts"] });
  assertEquals(out.code, 0);
  assertEquals(out.stdout, "hello from limina\n");
  assert(out.wallMs > 0);
  const echoed = await Limina.run({ cmd: "cat", stdin: "piped in" });
  assertEquals(echoed.stdout, "piped in");
  await assertRejects(Limina.run({ cmd: "/no/such/program" }), { code: "not_found", message: "cannot run /no/such/program" });
  await assertRejects(Limina.run({ cmd: "true", bogus: 1 } as never), { name: "TypeError", message: "unknown option \"bogus\"" });
});

test("TextEncoder/TextDecoder round-trip UTF-8; fatal mode rejects bad bytes", () => {
  const bytes = new TextEncoder().encode("héllo ☃ 😀");
  assertEquals(bytes.length, 15);
  assertEquals(new TextDecoder().decode(bytes), "héllo ☃ 😀");
  assertEquals(new TextDecoder().decode(bytes.subarray(0, 1)), "h");
  const bad = Uint8Array.of(0x68, 0xff, 0x69);
  assertEquals(new TextDecoder().decode(bad), "h\uFFFDi");
  let threw = false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bad);
  } catch (e) {
    threw = e instanceof TypeError;
  }
  assert(threw, "fatal decoding throws a TypeError");
  assertEquals(new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode("ok \uFFFD")), "ok \uFFFD");
});

test("AbortController signals its listeners once, with a reason", () => {
  const c = new AbortController();
  const seen: unknown[] = [];
  c.signal.addEventListener("abort", () => seen.push(c.signal.reason));
  assert(!c.signal.aborted);
  c.abort("stop");
  c.abort("again");
  assert(c.signal.aborted);
  assertEquals(seen, ["stop"]);
  let thrown: unknown;
  try {
    c.signal.throwIfAborted();
  } catch (e) {
    thrown = e;
  }
  assertEquals(thrown, "stop");
});
