// The dynamic policy engine at the registry boundary: profile denials,
// quotas, revocation, budgets, every decision recorded and linked, and the
// audit skills that answer from those records.
import { type InvokeResult, PolicyEngine, type Tracer, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { z } from "zod";
import { as, spawner } from "./support/skills.ts";

/** A session whose registry runs under a policy engine with a hand-driven clock. */
function withPolicy() {
  const session = new WorldSession({ simulate: false });
  let now = 0;
  const policy = new PolicyEngine(session.tracer, { now: () => now });
  session.registry.attachPolicy(policy);
  session.registry.register(spawner(session.world));
  return { session, registry: session.registry, tracer: session.tracer, policy, advance: (ms: number) => (now += ms) };
}

const digest = (s: WorldSession) => JSON.stringify([s.world.snapshot(), s.physics.bodyCount()]);
const types = (t: Tracer, from = 0) => t.history().slice(from).map((e) => e.type);
const errorOf = (r: InvokeResult) => (r.ok ? undefined : r.error);
const messageOf = (r: InvokeResult) => errorOf(r)?.message ?? "";
function value(r: InvokeResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

test("a session made with policy: true runs every call through the engine", async () => {
  const session = new WorldSession({ simulate: false, policy: true });
  assert(session.policy !== null && session.registry.policyEngine === session.policy);
  const r = await session.registry.invoke("scene.createEntity", {}, as("builder.readWrite"));
  assertEquals(r.metadata.eventsEmitted, ["policy.decision", "scene.entity.created", "skill.executed"]);
  const plain = new WorldSession({ simulate: false });
  assertEquals([plain.policy, plain.registry.policyEngine], [null, null]);
  session.dispose();
  plain.dispose();
});

test("policy: a profile denial is recorded with rule, reason, context and has zero effect", async () => {
  const { session, registry, tracer } = withPolicy();
  const before = digest(session);
  const r = await registry.invoke("test.spawn", { position: [0, 0, 0] }, as("player.limited", "agent_p", "sess_p"));
  assertEquals(errorOf(r)?.code, "forbidden");
  assert(messageOf(r).startsWith("missing permission: scene.write"), messageOf(r));
  assertEquals(digest(session), before);
  assertEquals(types(tracer), ["policy.denied", "security.permission.denied"]);
  const p = tracer.history()[0].payload as Record<string, unknown>;
  assertEquals(p.rule, "profile.denied");
  assertEquals((p.context as Record<string, unknown>).profile, "player.limited");
  assertEquals(tracer.history()[1].causedBy, [tracer.history()[0].id]);
});

test("policy: the N+1th call in a quota window is denied, and the window slides", async () => {
  const { registry, policy, advance } = withPolicy();
  policy.setQuota("test.spawn", 3, 1000);
  const base = as("builder.readWrite");
  for (let i = 0; i < 3; i++) assert((await registry.invoke("test.spawn", { position: [i, 0, 0] }, base)).ok);
  const denied = await registry.invoke("test.spawn", { position: [9, 0, 0] }, base);
  assertEquals(errorOf(denied)?.code, "forbidden");
  assert(messageOf(denied).includes("quota for test.spawn exhausted"), messageOf(denied));
  // Other sessions have their own window; other skills are not limited.
  assert((await registry.invoke("test.spawn", { position: [0, 0, 0] }, as("builder.readWrite", "agent_b", "sess_b"))).ok);
  assert((await registry.invoke("skills.list", {}, base)).ok);
  advance(1001);
  assert((await registry.invoke("test.spawn", { position: [5, 0, 0] }, base)).ok, "the window slid");
});

test("policy: revocation mid-session takes effect on the next call", async () => {
  const { session, registry, policy } = withPolicy();
  const base = as("builder.readWrite", "agent_r", "sess_r");
  assert((await registry.invoke("test.spawn", { position: [0, 0, 0] }, base)).ok);
  policy.revoke({ sessionId: "sess_r", cap: "test.spawn" }, "operator pulled it");
  const before = digest(session);
  const r = await registry.invoke("test.spawn", { position: [1, 0, 0] }, base);
  assert(messageOf(r).includes("operator pulled it"), messageOf(r));
  assertEquals(digest(session), before);
  assert((await registry.invoke("skills.list", {}, base)).ok, "only that cap is revoked");
  policy.revoke({ agentId: "agent_r" }, "banned");
  assert(messageOf(await registry.invoke("skills.list", {}, base)).includes("agent agent_r is revoked: banned"));
  policy.revokeSession("sess_x");
  const s = await registry.invoke("skills.list", {}, as("builder.readWrite", "agent_x", "sess_x"));
  assert(messageOf(s).includes("session sess_x is revoked"));
});

test("policy: call and CPU budgets run out", async () => {
  const { registry, policy, tracer } = withPolicy();
  policy.setBudget("sess_b", { calls: 2 });
  const base = as("builder.readWrite", "agent_b", "sess_b");
  assert((await registry.invoke("skills.list", {}, base)).ok);
  assert((await registry.invoke("skills.list", {}, base)).ok);
  const r = await registry.invoke("skills.list", {}, base);
  assert(messageOf(r).includes("call budget exhausted: 2 of 2"), messageOf(r));
  assertEquals((tracer.history().at(-1)!.payload as { rule: string }).rule, "budget.calls");
  registry.register({
    name: "test.slow",
    version: "1.0.0",
    category: "system",
    description: "Burns 3 ms of CPU.",
    input: z.strictObject({}),
    output: z.object({ entity: z.string() }),
    permissions: [],
    handler: () => {
      const t = performance.now();
      while (performance.now() - t < 3);
      return { entity: "x" };
    },
  });
  policy.setBudget("sess_c", { cpuMs: 2 });
  const c = as("builder.readWrite", "agent_c", "sess_c");
  assert((await registry.invoke("test.slow", {}, c)).ok);
  const cpu = await registry.invoke("test.slow", {}, c);
  assert(messageOf(cpu).includes("CPU budget exhausted"), messageOf(cpu));
  policy.setBudget("sess_m", { memBytes: 100 });
  policy.charge("sess_m", { memBytes: 150 });
  const m = await registry.invoke("skills.list", {}, as("builder.readWrite", "agent_m", "sess_m"));
  assert(messageOf(m).includes("memory budget exhausted"), messageOf(m));
});

test("skill.executed links the policy decision that allowed it", async () => {
  const { registry, tracer } = withPolicy();
  const r = await registry.invoke("test.spawn", { position: [0, 0, 0] }, as("builder.readWrite"));
  assertEquals(r.metadata.eventsEmitted, ["policy.decision", "skill.executed"]);
  const [decision, executed] = tracer.history();
  assertEquals(executed.causedBy, [decision.id]);
  assertEquals((decision.payload as { rule: string }).rule, "profile.grant");
});

test("every audit skill answers from the recorded decisions", async () => {
  const { registry, policy, tracer } = withPolicy();
  policy.setQuota("test.spawn", 1, 10_000);
  const builder = as("builder.readWrite", "agent_b", "sess_b");
  const player = as("player.limited", "agent_p", "sess_p");
  const ok = await registry.invoke("test.spawn", { position: [0, 0, 0] }, builder);
  const quota = await registry.invoke("test.spawn", { position: [1, 0, 0] }, builder);
  const perm = await registry.invoke("test.spawn", { position: [2, 0, 0] }, player);
  assert(ok.ok && !quota.ok && !perm.ok);

  const executedId = ok.metadata.eventIds.at(-1)!;
  // deno-lint-ignore no-explicit-any
  const explain = value(await registry.invoke("audit.explain", { eventId: executedId }, player)) as Record<string, any>;
  assertEquals(explain.found, true);
  assertEquals(explain.eventType, "skill.executed");
  assertEquals(explain.decision.allow, true);
  assertEquals(explain.decision.rule, "profile.grant");
  assertEquals(explain.provenance, { agentId: "agent_b", sessionId: "sess_b", profile: "builder.readWrite", package: null });
  assertEquals(explain.causalTrace.parents.map((p: { id: string }) => p.id), [ok.metadata.eventIds[0]]);
  assertEquals(explain.decision.quota, { cap: "test.spawn", max: 1, windowMs: 10_000, used: 1, remaining: 0 });

  const deniedId = perm.metadata.eventIds.at(-1)!; // security.permission.denied
  // deno-lint-ignore no-explicit-any
  const why = value(await registry.invoke("audit.explain", { eventId: deniedId }, player)) as Record<string, any>;
  assertEquals([why.decision.allow, why.decision.rule], [false, "profile.denied"]);
  // deno-lint-ignore no-explicit-any
  const missing = value(await registry.invoke("audit.explain", { eventId: "evt_nope" }, player)) as Record<string, any>;
  assertEquals(missing.found, false);

  // deno-lint-ignore no-explicit-any
  const q = value(await registry.invoke("audit.query", { decision: "deny" }, player)) as Record<string, any>;
  assertEquals(q.summary.total, 2);
  assertEquals(q.summary.byRule, { "quota.exceeded": 1, "profile.denied": 1 });
  assertEquals(q.decisions.map((d: { agentId: string }) => d.agentId), ["agent_b", "agent_p"]);
  // deno-lint-ignore no-explicit-any
  const bySession = value(await registry.invoke("audit.query", { sessionId: "sess_b", limit: 1 }, player)) as Record<string, any>;
  assertEquals(bySession.summary, { total: 2, allowed: 1, denied: 1, byRule: { "profile.grant": 1, "quota.exceeded": 1 }, byCap: { "test.spawn": 2 }, packages: [] });
  assertEquals(bySession.decisions.length, 1);

  // deno-lint-ignore no-explicit-any
  const usage = value(await registry.invoke("audit.usage", {}, player)) as Record<string, any>;
  // deno-lint-ignore no-explicit-any
  const row = (s: string, cap: string) => usage.perSessionCap.find((r: any) => r.sessionId === s && r.cap === cap);
  assertEquals(row("sess_b", "test.spawn"), { sessionId: "sess_b", cap: "test.spawn", allowed: 1, denied: 1 });
  assertEquals(row("sess_p", "test.spawn"), { sessionId: "sess_p", cap: "test.spawn", allowed: 0, denied: 1 });
  // deno-lint-ignore no-explicit-any
  assert(usage.quotas.some((q: any) => q.sessionId === "sess_b" && q.quota.used === 1));
  assert(tracer.size > 0);
});

test("audit.query reads decisions older than the in-memory ring from the world log", async () => {
  const session = new WorldSession({ simulate: false, trace: { tailSize: 4 } });
  const policy = new PolicyEngine(session.tracer);
  session.registry.attachPolicy(policy);
  session.registry.register(spawner(session.world));
  const player = as("player.limited", "agent_p", "sess_p");
  for (let i = 0; i < 5; i++) await session.registry.invoke("test.spawn", { position: [i, 0, 0] }, player);
  for (let i = 0; i < 5; i++) await session.registry.invoke("skills.list", {}, player);
  assertEquals(session.tracer.tail().length, 4, "the ring holds only the last 4 events");
  // deno-lint-ignore no-explicit-any
  const denied = value(await session.registry.invoke("audit.query", { decision: "deny" }, player)) as Record<string, any>;
  assertEquals([denied.summary.total, denied.summary.denied], [5, 5], "every denial, evicted from memory or not");
  // deno-lint-ignore no-explicit-any
  const listed = value(await session.registry.invoke("audit.query", { cap: "skills.list" }, player)) as Record<string, any>;
  assertEquals([listed.summary.total, listed.summary.allowed], [5, 5]);
  session.dispose();
});

test("a decision's recorded text is its payload's JSON, whoever calls which skill under what, and a revoked skill is denied at once", async () => {
  const { session, registry, tracer, policy, advance } = withPolicy();
  const seen = new Map<string, unknown>();
  tracer.subscribe((e) => seen.set(e.id, e));
  const exact = (eventId: string) => assertEquals(JSON.stringify(tracer.get(eventId)), JSON.stringify(seen.get(eventId)), `the text of ${eventId}`);
  const a = as("builder.readWrite", "agent_a", "sess_a");
  const b = as("builder.readWrite", 'agent "b" ÿ', "sess_b");
  const decisions: string[] = [];
  const run = async (who: typeof a, input: unknown = { position: [0, 0, 0] }) => {
    const r = await registry.invoke("test.spawn", input, who);
    decisions.push(r.metadata.eventIds[0]);
    return r;
  };
  // One skill, callers and sessions by turns: each decision names its own caller.
  for (let i = 0; i < 4; i++) assert((await run(i % 2 ? b : a)).ok);
  assertEquals(decisions.map((id) => (tracer.get(id)?.payload as { context: { agentId: string } }).context.agentId), ["agent_a", 'agent "b" ÿ', "agent_a", 'agent "b" ÿ']);
  // Straight through the engine: a null profile, a package, another boundary, ticks that are not whole.
  const input = { boundary: "registry" as const, agentId: "agent_a", sessionId: "sess_a", cap: "test.spawn", requiredPermissions: ["scene.write"], granted: a.permissions as ReadonlySet<string>, profile: "builder.readWrite", package: null, tick: 3 };
  for (const change of [{}, { profile: null }, { package: "pkg.one" }, { boundary: "sandbox" as const }, { tick: null }, { tick: 2.5 }, { tick: NaN }, { requiredPermissions: ["scene.write", "scene.read"] }, {}]) {
    decisions.push(policy.evaluate({ ...input, ...change }).eventId);
  }
  // A quota and a budget are recorded as they stand on each decision.
  policy.setQuota("test.spawn", 10, 1000);
  assert((await run(a)).ok);
  advance(5);
  policy.setBudget("sess_a", { calls: 100 });
  assert((await run(a)).ok);
  // Revoked: denied on the very next call, recorded as a denial, and the world is untouched.
  policy.revoke({ agentId: b.agentId, cap: "test.spawn" }, "pulled");
  const before = digest(session);
  const denied = await run(b, { position: [9, 9, 9] });
  assertEquals(errorOf(denied)?.code, "forbidden");
  assertEquals(tracer.get(decisions.at(-1)!)?.type, "policy.denied");
  assertEquals(digest(session), before, "a denied call has no effect");
  assert((await run(a)).ok, "another agent keeps the skill");
  for (const id of decisions) exact(id);
  for (const id of seen.keys()) exact(id);
});

test("a grant's payload template in the world log: engines sharing a log keep their own, ticks of every kind are written as JSON writes them, and slots given back past 4,096 capabilities are reused", () => {
  const { tracer, policy } = withPolicy();
  const other = new PolicyEngine(tracer);
  const seen = new Map<string, unknown>();
  tracer.subscribe((e) => seen.set(e.id, e));
  const ids: string[] = [];
  const granted = new Set(["scene.write"]);
  const input = (cap: string, tick: number | null, agentId = "agent_a") =>
    ({ boundary: "registry" as const, agentId, sessionId: "sess_a", cap, requiredPermissions: ["scene.write"], granted, profile: "builder.readWrite", package: null, tick });
  // Two engines on one log, the same capability by turns, each its own caller: each keeps its own template.
  const ticks = [0, -0, 7, -3, 2.5, 2 ** 53 + 2, 1e21, 1.5e-7, null, NaN, Infinity, -Infinity];
  for (const [i, tick] of ticks.entries()) {
    ids.push(policy.evaluate(input("test.spawn", tick)).eventId);
    ids.push(other.evaluate(input("test.spawn", tick, `other "${i % 2}"`)).eventId);
  }
  // Past 4,096 capabilities the engine gives its slots back and takes them again; the other engine's stays its own.
  for (let i = 0; i < 4200; i++) {
    const id = policy.evaluate(input(`cap.n${i}`, i)).eventId;
    if (i % 97 === 0 || i >= 4090) ids.push(id);
    if (i % 500 === 0) ids.push(other.evaluate(input("test.spawn", i, "other")).eventId);
  }
  ids.push(policy.evaluate(input("cap.n0", 1)).eventId, policy.evaluate(input("test.spawn", 2)).eventId, other.evaluate(input("test.spawn", 3, "other")).eventId);
  for (const id of ids) assertEquals(JSON.stringify(tracer.get(id)), JSON.stringify(seen.get(id)), `the text of ${id}`);
  assertEquals(ids.map((id) => (tracer.get(id)?.payload as { context: { tick: unknown } }).context.tick).slice(0, 24), ticks.flatMap((t) => [t, t]).map((t) => JSON.parse(JSON.stringify(t))));
});
