// limina-sandbox: escape attempts from inside a QuickJS sandbox, each
// contained — the host's globals and ops, Function-constructor tricks,
// prototype pollution, a memory bomb, `while(true){}`, deep recursion, a
// promise flood — with the host running on and the world changed only
// through permitted `host.invoke` calls.
import { type Attribution, HostBridge, PolicyEngine, Sandbox, type SandboxOutcome, WorldSession } from "limina";
import { assert, assertEquals, assertThrows, test } from "limina/testing";

const LIMITS = { memoryBytes: 8 << 20, stackBytes: 256 << 10 };
const CPU_MS = 50;
/** Far above any budget here: a stopped entry must end well inside it even on a loaded machine. */
const WIDE_MS = 2_000;

function fresh(): Sandbox {
  return Sandbox.create(LIMITS);
}

/** Evaluates `source`, which defines `probe()`, and returns probe's result. */
function probe(source: string, sandbox = fresh()): unknown {
  const loaded = sandbox.eval(source, "probe.js", CPU_MS);
  assertEquals([loaded.status, loaded.error], ["ok", null]);
  const out = sandbox.call("probe", null, CPU_MS);
  assertEquals(out.call, "done", String(out.result));
  return JSON.parse(out.result!);
}

/** The host is fine: its own code runs, allocates and recurses as usual. */
function hostAlive(): void {
  const deep = (n: number): number => (n === 0 ? 0 : 1 + deep(n - 1));
  assertEquals(deep(5_000), 5_000);
  assertEquals(new Array(100_000).fill(1).length, 100_000);
  assertEquals(typeof Limina.loop.steps, "function");
}

test("the sandbox's global is standard ECMAScript plus host: no Deno, no Limina, no ops, no timers, no I/O", () => {
  const seen = probe(`function probe() {
    const names = Object.getOwnPropertyNames(globalThis);
    return {
      types: [typeof Deno, typeof Limina, typeof __bootstrap, typeof require, typeof process, typeof setTimeout, typeof setInterval,
              typeof queueMicrotask, typeof fetch, typeof console, typeof print, typeof std, typeof os, typeof performance],
      host: Object.getOwnPropertyNames(host).sort(),
      hostFrozen: Object.isFrozen(host),
      hasWeb: names.filter((n) => ["atob", "btoa", "DOMException", "navigator", "WebSocket", "XMLHttpRequest"].includes(n)),
      standard: ["Object", "Array", "Promise", "JSON", "Math", "Proxy", "Reflect", "Map", "WeakRef", "BigInt"].every((n) => names.includes(n)),
    };
  }`) as { types: string[]; host: string[]; hostFrozen: boolean; hasWeb: string[]; standard: boolean };
  assert(seen.types.every((t) => t === "undefined"), `host globals leaked: ${seen.types}`);
  assertEquals(seen.host, ["invoke", "onTick", "perception"]);
  assert(seen.hostFrozen, "host cannot be rewired");
  assertEquals(seen.hasWeb, []);
  assert(seen.standard);
});

test("host cannot be replaced or deleted, and redefining it changes nothing", () => {
  const seen = probe(`function probe() {
    const before = host;
    try { host = {}; } catch {}
    try { delete globalThis.host; } catch {}
    let threw = false;
    try { Object.defineProperty(globalThis, "host", { value: {} }); } catch { threw = true; }
    try { host.invoke = () => 1; } catch {}
    return [host === before, threw, typeof host.invoke];
  }`);
  assertEquals(seen, [true, true, "function"]);
});

test("Function-constructor tricks reach only the sandbox's own global", () => {
  const seen = probe(`function probe() {
    const tricks = [
      Function("return this")(),
      (0, eval)("this"),
      [].constructor.constructor("return globalThis")(),
      host.invoke.constructor("return this")(),
      Reflect.construct(Function, ["return this"])(),
      Object.getPrototypeOf(function* () {}).constructor("return this")().next().value,
      new Proxy({}, {}).constructor.constructor("return this")(),
    ];
    return tricks.map((g) => [g === globalThis, typeof g.Deno, typeof g.Limina, typeof g.__bootstrap]);
  }`) as [boolean, string, string, string][];
  assertEquals(seen.length, 7);
  for (const [same, ...types] of seen) {
    assert(same, "every trick yields the sandbox's own globalThis");
    assertEquals(types, ["undefined", "undefined", "undefined"]);
  }
});

test("prototype pollution stays inside: the host's prototypes and the values it passed in are untouched", () => {
  const sandbox = fresh();
  const given = { nested: { n: 1 }, list: [1, 2] };
  const out = sandbox.eval(
    `Object.prototype.polluted = "yes";
     Array.prototype.push = function () { return -1; };
     Object.defineProperty(Object.prototype, "then", { get() { return 1; }, configurable: true });
     JSON.parse = () => ({ polluted: true });
     JSON.stringify = () => "{}";
     Promise.prototype.then = function () { return "hijacked"; };
     function mutate(arg) { arg.nested.n = 99; arg.list.length = 0; arg.__proto__.polluted = "deep"; return arg; }`,
    "pollute.js",
    CPU_MS,
  );
  assertEquals(out.status, "ok");
  const r = sandbox.call("mutate", given, CPU_MS);
  assertEquals(r.call, "done");
  assertEquals(given, { nested: { n: 1 }, list: [1, 2] }, "the sandbox had a copy");
  assertEquals(({} as Record<string, unknown>).polluted, undefined);
  assertEquals(Object.hasOwn(Object.prototype, "then"), false);
  assertEquals(JSON.stringify({ a: [1] }), '{"a":[1]}');
  assertEquals([1].concat([2]).length, 2);
  // Its own door still works: the bridge captured what it uses before any code ran.
  const call = sandbox.eval(`host.invoke("skills.list", { x: [1, 2] });`, "after.js", CPU_MS);
  assertEquals(call.intents.map((i) => [i.skill, JSON.parse(i.input)]), [["skills.list", { x: [1, 2] }]]);
  sandbox.dispose();
});

test("a memory bomb fails inside its memory limit; the sandbox and the host live on", () => {
  const sandbox = fresh();
  // In function scope: what a bomb held is freed when it unwinds, so the sandbox can go on.
  const bombs = ["(() => { const a = []; for (;;) a.push(new Array(1e5).fill(1.5)); })();", "(() => { const m = new Map(); for (let i = 0; ; i++) m.set(i, { i, s: 'x' + i }); })();", "new ArrayBuffer(64 << 20);", "let s = 'x'; for (;;) s = [s, s].join('');"];
  for (const bomb of bombs) {
    const out = sandbox.eval(bomb, "bomb.js", WIDE_MS);
    assertEquals(out.status, "memory_budget", `${bomb}: ${out.error}`);
    assert(out.memBytes <= LIMITS.memoryBytes, `held ${out.memBytes} bytes, over the ${LIMITS.memoryBytes}-byte limit`);
  }
  assertEquals(probe("function probe() { return 6 * 7; }", sandbox), 42);
  sandbox.dispose();
  hostAlive();
});

test("while(true){} is stopped at its CPU budget, and catching or finally cannot keep it going", () => {
  for (const spin of ["while (true) {}", "for (;;) { try { while (true) {} } catch (e) {} }", "try { while (true) {} } finally { while (true) {} }", "function f() { try { for (;;) {} } catch { f(); } } f();"]) {
    const sandbox = fresh();
    const started = performance.now();
    const out = sandbox.eval(spin, "spin.js", CPU_MS);
    const wall = performance.now() - started;
    assertEquals([out.status, out.error], ["cpu_budget", "stopped at its CPU-time deadline"], spin);
    assert(out.cpuMs >= CPU_MS && out.cpuMs < WIDE_MS, `${spin}: ran ${out.cpuMs} ms of CPU on a ${CPU_MS} ms budget`);
    assert(wall < WIDE_MS * 2, `${spin}: took ${wall} ms`);
    // Stopped is not broken: the next entry gets a fresh budget.
    assertEquals(probe("function probe() { return 'again'; }", sandbox), "again");
    sandbox.dispose();
  }
  hostAlive();
});

test("deep recursion overflows the sandbox's stack limit, not the host's", () => {
  const sandbox = fresh();
  const out = sandbox.eval("function f(n) { return f(n + 1) + 1; } f(0);", "deep.js", WIDE_MS);
  assertEquals(out.status, "stack_overflow", String(out.error));
  const caught = sandbox.eval("let depth = 0; function g() { depth++; g(); } try { g(); } catch (e) { globalThis.err = e.name; }", "deep2.js", WIDE_MS);
  assertEquals(caught.status, "ok");
  const [depth, name] = probe("function probe() { return [depth, err]; }", sandbox) as [number, string];
  assert(depth > 100 && depth < 1e6, `depth ${depth}`);
  assertEquals(name, "RangeError");
  sandbox.dispose();
  hostAlive();
});

test("a promise flood is cut off at its deadline or its memory limit", () => {
  for (const flood of ["function f() { Promise.resolve().then(f); Promise.resolve().then(f); } f();", "(async function f() { for (;;) await null; })();", "const p = []; for (;;) p.push(new Promise(() => {}));"]) {
    const sandbox = fresh();
    const out = sandbox.eval(flood, "flood.js", CPU_MS);
    assert(out.status === "cpu_budget" || out.status === "memory_budget", `${flood}: ${out.status} ${out.error}`);
    assert(out.cpuMs < WIDE_MS, `${flood}: ran ${out.cpuMs} ms`);
    sandbox.dispose();
  }
  hostAlive();
});

test("sandboxes are isolated from each other", () => {
  const a = fresh();
  const b = fresh();
  a.eval("globalThis.secret = 'a'; Object.prototype.fromA = 1;", "a.js", CPU_MS);
  assertEquals(probe("function probe() { return [typeof secret, ({}).fromA === undefined]; }", b), ["undefined", true]);
  a.dispose();
  b.dispose();
});

test("a disposed sandbox refuses work; bad budgets are refused before any sandbox exists", () => {
  const s = fresh();
  s.dispose();
  assertThrows(() => s.eval("1", "x.js", CPU_MS), { code: "unavailable" });
  assertThrows(() => Sandbox.create({ memoryBytes: 10, stackBytes: 1 << 16 }), { code: "invalid_input" });
  assertThrows(() => Sandbox.create({ memoryBytes: 1 << 24, stackBytes: 64 << 20 }), { code: "invalid_input" });
  const t = fresh();
  assertThrows(() => t.eval("1", "x.js", Number.NaN), { code: "invalid_input" });
  t.dispose();
});

/** A world, a bridge over its registry, and a package identity granted `permissions`. */
function world(permissions: string[]) {
  const session = new WorldSession({ simulate: false });
  const policy = new PolicyEngine(session.tracer);
  const bridge = new HostBridge(session.registry, policy);
  const who: Attribution = { agentId: "agt_pkg", sessionId: "sess_pkg", profile: "builder.readWrite", permissions: new Set(permissions), pkg: "test@1.0.0", causedBy: [] };
  const digest = () => JSON.stringify([session.world.snapshot(), session.physics.bodyCount()]);
  return { session, policy, bridge, who, digest };
}

const budget = { cpuMs: CPU_MS, maxIntents: 16 };

test("host.invoke is the only door: a permitted call changes the world under the package's name, a denied one changes nothing", async () => {
  const { session, bridge, who, digest } = world(["scene.write"]);
  const sandbox = fresh();
  const run = await bridge.run(
    sandbox,
    (cpu) =>
      sandbox.eval(
        `globalThis.log = [];
         host.invoke("scene.createEntity", { shape: "sphere", position: [0, 1, 0] })
           .then((r) => { log.push(r.entity); return host.invoke("physics.applyImpulse", { entity: r.entity, impulse: [1, 0, 0] }); })
           .catch((e) => { log.push(e.message); });`,
        "door.js",
        cpu,
      ),
    who,
    budget,
  );
  assertEquals([run.status, run.invoked], ["ok", 2]);
  const log = probe("function probe() { return log; }", sandbox) as string[];
  assertEquals(log[0], "ent_1");
  assert(log[1].startsWith("forbidden:") && log[1].includes("physics.write"), log[1]);
  assertEquals(session.world.entities.size, 1);
  const created = session.tracer.history().find((e) => e.type === "skill.executed");
  assertEquals([created?.actorId, created?.threadId, (created?.payload as { pkg?: string }).pkg], ["agt_pkg", "sess_pkg", "test@1.0.0"]);
  const denied = session.tracer.history().find((e) => e.type === "policy.denied")!;
  assertEquals((denied.payload as { boundary: string; context: { package: string } }).boundary, "sandbox");
  assertEquals((denied.payload as { context: { package: string } }).context.package, "test@1.0.0");
  const before = digest();
  // Unknown skills and bad input are answered as errors, never performed.
  const more = await bridge.run(sandbox, (cpu) => sandbox.eval(`host.invoke("no.suchSkill", {}).catch(() => host.invoke("scene.createEntity", { size: -1 }))`, "bad.js", cpu), who, budget);
  assertEquals([more.status, more.invoked], ["ok", 2]);
  assertEquals(digest(), before);
  sandbox.dispose();
  session.dispose();
});

test("reads are answered from the injected perception snapshot: no crossing, frozen, replaced only by the host", async () => {
  const { session, policy, who } = world(["scene.read"]);
  let latest: unknown = { selfId: "agt_pkg", nearby: [{ id: "ent_7", position: [1, 2, 3] }] };
  const bridge = new HostBridge(session.registry, policy, (id) => (id === "agt_pkg" ? latest : null));
  const sandbox = fresh();
  const read = () =>
    bridge.run(
      sandbox,
      (cpu) =>
        sandbox.eval(
          `(() => {
             const p = host.perception;
             let mutated = true;
             try { p.nearby[0].position[0] = 99; p.nearby.push({}); p.selfId = "agt_other"; } catch { mutated = false; }
             try { host.perception = null; } catch {}
             globalThis.seen = { self: p.selfId, x: p.nearby.length > 0 ? p.nearby[0].position[0] : null, count: p.nearby.length, frozen: Object.isFrozen(p) && p.nearby.every((n) => Object.isFrozen(n.position)), mutated };
           })();`,
          "read.js",
          cpu,
        ),
      who,
      budget,
    );
  const first = await read();
  assertEquals([first.status, first.invoked], ["ok", 0], "a read is no crossing");
  assertEquals(probe("function probe() { return seen; }", sandbox), { self: "agt_pkg", x: 1, count: 1, frozen: true, mutated: false });
  // The host's next snapshot replaces it; the code's attempts above changed neither the host's object nor what it reads.
  assertEquals((latest as { nearby: { position: number[] }[] }).nearby[0].position, [1, 2, 3]);
  latest = { selfId: "agt_pkg", nearby: [] };
  await read();
  assertEquals((probe("function probe() { return seen; }", sandbox) as { count: number }).count, 0);
  // An entry given its own perception (an agent's decision) reads that one.
  const decision = { selfId: "agt_pkg", nearby: [{ id: "ent_9", position: [5, 0, 0] }, { id: "ent_10", position: [6, 0, 0] }] };
  await bridge.run(sandbox, (cpu) => sandbox.eval("globalThis.seen = host.perception.nearby.length;", "decide.js", cpu), who, budget, decision);
  assertEquals(probe("function probe() { return seen; }", sandbox), 2);
  // An owner with no perception (a builder's session) reads null.
  await bridge.run(sandbox, (cpu) => sandbox.eval("globalThis.seen = host.perception;", "none.js", cpu), { ...who, agentId: "agt_builder" }, budget);
  assertEquals(probe("function probe() { return seen; }", sandbox), null);
  sandbox.dispose();
  session.dispose();
});

test("a stopped entry's intents are never performed: the world is unchanged", async () => {
  const { session, bridge, who, digest } = world(["scene.write"]);
  const before = digest();
  for (const entry of [
    `for (;;) host.invoke("scene.createEntity", {});`,
    `for (let i = 0; i < 100; i++) host.invoke("scene.createEntity", {});`,
    `host.invoke("scene.createEntity", {}); const a = []; for (;;) a.push(new Array(1e5).fill(0));`,
    `host.invoke("scene.createEntity", {}); function f() { return f(); } f();`,
  ]) {
    const sandbox = fresh();
    const run = await bridge.run(sandbox, (cpu) => sandbox.eval(entry, "stop.js", cpu), who, budget);
    assert(run.status !== "ok", `${entry} was not stopped`);
    assertEquals(run.invoked, 0, entry);
    sandbox.dispose();
  }
  assertEquals(digest(), before);
  assertEquals(session.world.entities.size, 0);
  session.dispose();
});

test("a sandbox's CPU time and memory are charged to its session's budget, which then stops its crossings", async () => {
  const { session, policy, bridge, who, digest } = world(["scene.write"]);
  const sandbox = fresh();
  const spin: (cpu: number) => SandboxOutcome = (cpu) => sandbox.eval("const t = Date.now(); while (Date.now() - t < 1e9) {}", "burn.js", cpu);
  policy.setBudget("sess_pkg", { cpuMs: 30 });
  const burnt = await bridge.run(sandbox, spin, who, { cpuMs: 40, maxIntents: 4 });
  assertEquals(burnt.status, "cpu_budget");
  const before = digest();
  const after = await bridge.run(sandbox, (cpu) => sandbox.eval(`host.invoke("scene.createEntity", {}).catch((e) => { globalThis.why = e.message; })`, "late.js", cpu), who, budget);
  assertEquals(after.invoked, 1);
  const why = probe("function probe() { return why; }", sandbox) as string;
  assert(why.includes("CPU budget exhausted"), why);
  assertEquals(digest(), before);
  const denied = session.tracer.history().filter((e) => e.type === "policy.denied").at(-1)!;
  assertEquals((denied.payload as { rule: string }).rule, "budget.cpu");
  const used = (denied.payload as { budget: { used: { cpuMs: number; memBytes: number } } }).budget.used;
  assert(used.cpuMs >= 40 && used.memBytes > 0, JSON.stringify(used));
  sandbox.dispose();
  session.dispose();
});
