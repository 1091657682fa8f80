// The agent-native core: registry pipeline, permissions, policy, tracer, MCP, system and audit skills.
import { assert, assertEquals, assertThrows, test } from "../src/testing.ts";
import { z } from "../build/zod.bundle.mjs";
import { Tracer } from "../src/observability/tracer.ts";
import { readTrace, TraceIntegrityError, verifyJsonl } from "../src/observability/chain.ts";
import { type InvokeBase, type SkillDefinition, SkillRegistry } from "../src/skills/registry.ts";
import { createWorldContext, type WorldContext } from "../src/skills/context.ts";
import { registerCoreSkills } from "../src/skills/core.ts";
import { PERMISSIONS, PROFILES, resolveProfile } from "../src/skills/profiles.ts";
import { PolicyEngine } from "../src/policy/engine.ts";
import { Mcp } from "../src/mcp/mcp.ts";
import { mcpErrorToJsonRpc } from "../src/mcp/protocol.ts";

function setup() {
  const tracer = new Tracer();
  const world = createWorldContext();
  const registry = new SkillRegistry(tracer, world);
  registerCoreSkills(registry);
  return { tracer, world, registry };
}

function as(profile: string, agentId = "agent_a", sessionId = "sess_a"): InvokeBase {
  return { agentId, sessionId, permissions: resolveProfile(profile), profile };
}

/** A skill that changes the world: spawns an entity. */
function spawner(log: string[] = []): SkillDefinition {
  return {
    name: "test.spawn",
    version: "1.0.0",
    category: "scene",
    description: "Spawns an entity at a position.",
    input: z.strictObject({ position: z.tuple([z.number(), z.number(), z.number()]) }),
    output: z.object({ entity: z.string() }),
    permissions: ["scene.write"],
    hooks: {
      before: (input) => void log.push(`before ${input.position}`),
      after: (result) => void log.push(`after ${result.entity}`),
    },
    handler: ({ position }, ctx) => {
      log.push("handler");
      return { entity: ctx.world.world.spawn({ position }).id };
    },
  };
}

const digest = (w: WorldContext) => JSON.stringify([w.world.snapshot(), w.physics.bodyCount()]);
const types = (t: Tracer, from = 0) => t.history().slice(from).map((e) => e.type);

test("permission strings and profiles are exactly the specified ones", () => {
  assertEquals([...PERMISSIONS], ["scene.read", "scene.write", "ecs.read", "ecs.modify", "physics.read", "physics.write", "agent.read", "agent.write", "ui.write", "audio.play", "social.act"]);
  assertEquals(Object.keys(PROFILES), ["builder.readWrite", "player.limited", "social.actor", "system.readonly"]);
  assert(!resolveProfile("builder.readWrite").has("social.act"));
  assert(resolveProfile("social.actor").has("social.act"));
  assertEquals(resolveProfile("nope").size, 0);
  assertEquals(resolveProfile("__proto__").size, 0);
});

test("Zod rejection is invalid_input carrying the Zod message; nothing runs", async () => {
  const { registry, world, tracer } = setup();
  const log: string[] = [];
  registry.register(spawner(log));
  const before = digest(world);
  const r = await registry.invoke("test.spawn", { position: [1, "x", 3] }, as("builder.readWrite"));
  assertEquals(r.success, false);
  assertEquals(r.error?.code, "invalid_input");
  assert(r.error!.message.includes("position") && r.error!.message.includes("expected number"), r.error!.message);
  const extra = await registry.invoke("test.spawn", { position: [0, 0, 0], colour: 1 }, as("builder.readWrite"));
  assert(extra.error!.message.includes('Unrecognized key: "colour"'), extra.error!.message);
  assertEquals(log, []);
  assertEquals(digest(world), before);
  assertEquals(tracer.size, 0);
  const unknown = await registry.invoke("scene.nope", {}, as("builder.readWrite"));
  assertEquals(unknown.error, { code: "not_found", message: "unknown skill: scene.nope" });
});

test("a static permission denial has zero effect and is traced", async () => {
  const { registry, world, tracer } = setup();
  const log: string[] = [];
  registry.register(spawner(log));
  const before = digest(world);
  const r = await registry.invoke("test.spawn", { position: [1, 2, 3] }, as("system.readonly", "agent_ro"));
  assertEquals(r.error, { code: "forbidden", message: "missing permission: scene.write" });
  assertEquals(digest(world), before);
  assertEquals(log, []);
  assertEquals(types(tracer), ["security.permission.denied"]);
  assertEquals(tracer.history()[0].payload, { skill: "test.spawn", missing: "scene.write", agentId: "agent_ro" });
  assertEquals(r.metadata?.eventsEmitted, ["security.permission.denied"]);
});

test("hooks run in order: before → handler → after → skill.executed", async () => {
  const { registry, tracer } = setup();
  const log: string[] = [];
  registry.register(spawner(log));
  tracer.subscribe((e) => log.push(`event ${e.type}`));
  const r = await registry.invoke("test.spawn", { position: [1, 2, 3] }, as("builder.readWrite"));
  assert(r.success);
  assertEquals(log, ["before 1,2,3", "handler", "after ent_1", "event skill.executed"]);
  const executed = tracer.history().at(-1)!;
  assertEquals(executed.payload, { skill: "test.spawn", version: "1.0.0", input: { position: [1, 2, 3] }, tick: Limina.loop.steps() });
  assertEquals(r.metadata?.eventIds, [executed.id]);
  assert(typeof r.metadata?.executionTimeMs === "number");
});

test("output validation turns a malformed result into handler_error", async () => {
  const { registry, tracer } = setup();
  registry.register({ ...spawner(), name: "test.broken", hooks: undefined, handler: () => ({ entity: 42 }) });
  const r = await registry.invoke("test.broken", { position: [0, 0, 0] }, as("builder.readWrite"));
  assertEquals(r.error?.code, "handler_error");
  assert(r.error!.message.includes("does not match its schema"), r.error!.message);
  assertEquals(types(tracer), ["skill.failed"]);
  registry.register({ ...spawner(), name: "test.throws", hooks: undefined, handler: () => { throw new Error("kaboom"); } });
  const t = await registry.invoke("test.throws", { position: [0, 0, 0] }, as("builder.readWrite"));
  assertEquals(t.error, { code: "handler_error", message: "kaboom" });
});

test("the tool list is memoized, draft-07, and invalidated on every change", () => {
  const { registry } = setup();
  const a = registry.listTools();
  assert(registry.listTools() === a, "memoized");
  const desc = a.find((t) => t.name === "skills.describe")!;
  assertEquals((desc.input_schema as Record<string, unknown>).$schema, "http://json-schema.org/draft-07/schema#");
  registry.register(spawner());
  const b = registry.listTools();
  assert(b !== a && b.some((t) => t.name === "test.spawn"));
  registry.replace({ ...spawner(), description: "new words" });
  const c = registry.listTools();
  assert(c !== b && c.find((t) => t.name === "test.spawn")!.description === "new words");
  registry.unregister("test.spawn");
  assert(!registry.listTools().some((t) => t.name === "test.spawn"));
});

test("hot reload loads the skill module from disk again; a later call runs the new handler", async () => {
  const dir = "tests/fixtures/reload/live";
  await Limina.run({ cmd: "mkdir", args: ["-p", dir] });
  await Limina.run({ cmd: "cp", args: ["tests/fixtures/reload/greeter_v1.ts", `${dir}/greeter.ts`] });
  const { registry, tracer } = setup();
  const mod = await import(`../../${dir}/greeter.ts`);
  for (const s of mod.greeterSkills()) registry.register(s);
  const base = as("builder.readWrite");
  assertEquals((await registry.invoke("test.greet", { who: "ada" }, base)).result, { text: "hello ada" });
  await Limina.run({ cmd: "cp", args: ["tests/fixtures/reload/greeter_v2.ts", `${dir}/greeter.ts`] });
  const r = await registry.invoke("dev.reload", { target: "skill", name: "test.greet", reason: "edited" }, base);
  assertEquals(r.result, { ok: true, target: "skill", invalidated: ["skill:test.greet", "tools/list"], reason: "edited" });
  assertEquals((await registry.invoke("test.greet", { who: "ada" }, base)).result, { text: "HELLO ADA, v2" });
  assertEquals(registry.get("test.greet")!.version, "1.1.0");
  assert(types(tracer).includes("dev.skill.reload.completed"));
  // Honest failures: no source, unknown skill, data, unknown scene builder.
  registry.register(spawner());
  for (const [input, why] of [
    [{ target: "skill", name: "test.spawn" }, "without a source module"],
    [{ target: "skill", name: "nope.nope" }, "unknown skill"],
    [{ target: "data" }, "not supported"],
    [{ target: "scene", name: "arena" }, "no scene builder named arena"],
  ] as const) {
    const f = await registry.invoke("dev.reload", input, base);
    assertEquals(f.success, true);
    assertEquals((f.result as { ok: boolean }).ok, false);
    assert((f.result as { reason: string }).reason.includes(why), (f.result as { reason: string }).reason);
  }
  assertEquals(types(tracer).filter((t) => t.endsWith(".reload.failed")).length, 4);
});

test("dev.reload re-runs a registered scene builder", async () => {
  const { registry, world } = setup();
  let runs = 0;
  world.sceneBuilders.set("arena", (w) => {
    runs++;
    w.world.spawn({ tags: ["arena"] });
  });
  const r = await registry.invoke("dev.reload", { target: "scene", name: "arena" }, as("system.readonly"));
  assertEquals(r.result, { ok: true, target: "scene", invalidated: ["scene:arena"] });
  assertEquals(runs, 1);
  assertEquals(world.world.entities.size, 1);
});

function withPolicy() {
  const s = setup();
  let now = 0;
  const policy = new PolicyEngine(s.tracer, { now: () => now });
  s.registry.attachPolicy(policy);
  s.registry.register(spawner());
  return { ...s, policy, advance: (ms: number) => (now += ms) };
}

test("policy: a profile denial is recorded with rule, reason, context and has zero effect", async () => {
  const { registry, world, tracer } = withPolicy();
  const before = digest(world);
  const r = await registry.invoke("test.spawn", { position: [0, 0, 0] }, as("player.limited", "agent_p", "sess_p"));
  assertEquals(r.error?.code, "forbidden");
  assert(r.error!.message.startsWith("missing permission: scene.write"), r.error!.message);
  assertEquals(digest(world), before);
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
  for (let i = 0; i < 3; i++) assert((await registry.invoke("test.spawn", { position: [i, 0, 0] }, base)).success);
  const denied = await registry.invoke("test.spawn", { position: [9, 0, 0] }, base);
  assertEquals(denied.error?.code, "forbidden");
  assert(denied.error!.message.includes("quota for test.spawn exhausted"), denied.error!.message);
  // Other sessions have their own window; other skills are not limited.
  assert((await registry.invoke("test.spawn", { position: [0, 0, 0] }, as("builder.readWrite", "agent_b", "sess_b"))).success);
  assert((await registry.invoke("skills.list", {}, base)).success);
  advance(1001);
  assert((await registry.invoke("test.spawn", { position: [5, 0, 0] }, base)).success, "the window slid");
});

test("policy: revocation mid-session takes effect on the next call", async () => {
  const { registry, policy, world } = withPolicy();
  const base = as("builder.readWrite", "agent_r", "sess_r");
  assert((await registry.invoke("test.spawn", { position: [0, 0, 0] }, base)).success);
  policy.revoke({ sessionId: "sess_r", cap: "test.spawn" }, "operator pulled it");
  const before = digest(world);
  const r = await registry.invoke("test.spawn", { position: [1, 0, 0] }, base);
  assert(r.error!.message.includes("operator pulled it"), r.error!.message);
  assertEquals(digest(world), before);
  assert((await registry.invoke("skills.list", {}, base)).success, "only that cap is revoked");
  policy.revoke({ agentId: "agent_r" }, "banned");
  assert((await registry.invoke("skills.list", {}, base)).error!.message.includes("agent agent_r is revoked: banned"));
  policy.revokeSession("sess_x");
  const s = await registry.invoke("skills.list", {}, as("builder.readWrite", "agent_x", "sess_x"));
  assert(s.error!.message.includes("session sess_x is revoked"));
});

test("policy: call and CPU budgets run out", async () => {
  const { registry, policy, tracer } = withPolicy();
  policy.setBudget("sess_b", { calls: 2 });
  const base = as("builder.readWrite", "agent_b", "sess_b");
  assert((await registry.invoke("skills.list", {}, base)).success);
  assert((await registry.invoke("skills.list", {}, base)).success);
  const r = await registry.invoke("skills.list", {}, base);
  assert(r.error!.message.includes("call budget exhausted: 2 of 2"), r.error!.message);
  assertEquals((tracer.history().at(-1)!.payload as { rule: string }).rule, "budget.calls");
  registry.register({ ...spawner(), name: "test.slow", hooks: undefined, handler: () => {
    const t = performance.now();
    while (performance.now() - t < 3);
    return { entity: "x" };
  } });
  policy.setBudget("sess_c", { cpuMs: 2 });
  const c = as("builder.readWrite", "agent_c", "sess_c");
  assert((await registry.invoke("test.slow", { position: [0, 0, 0] }, c)).success);
  const cpu = await registry.invoke("test.slow", { position: [0, 0, 0] }, c);
  assert(cpu.error!.message.includes("CPU budget exhausted"), cpu.error!.message);
  policy.setBudget("sess_m", { memBytes: 100 });
  policy.charge("sess_m", { memBytes: 150 });
  const m = await registry.invoke("skills.list", {}, as("builder.readWrite", "agent_m", "sess_m"));
  assert(m.error!.message.includes("memory budget exhausted"), m.error!.message);
});

test("skill.executed links the policy decision that allowed it", async () => {
  const { registry, tracer } = withPolicy();
  const r = await registry.invoke("test.spawn", { position: [0, 0, 0] }, as("builder.readWrite"));
  assertEquals(r.metadata?.eventsEmitted, ["policy.decision", "skill.executed"]);
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
  assert(ok.success && !quota.success && !perm.success);

  const executedId = ok.metadata!.eventIds.at(-1)!;
  const explain = (await registry.invoke("audit.explain", { eventId: executedId }, player)).result as Record<string, any>;
  assertEquals(explain.found, true);
  assertEquals(explain.eventType, "skill.executed");
  assertEquals(explain.decision.allow, true);
  assertEquals(explain.decision.rule, "profile.grant");
  assertEquals(explain.provenance, { agentId: "agent_b", sessionId: "sess_b", profile: "builder.readWrite", package: null });
  assertEquals(explain.causalTrace.parents.map((p: { id: string }) => p.id), [ok.metadata!.eventIds[0]]);
  assertEquals(explain.decision.quota, { cap: "test.spawn", max: 1, windowMs: 10_000, used: 1, remaining: 0 });

  const deniedId = perm.metadata!.eventIds.at(-1)!; // security.permission.denied
  const why = (await registry.invoke("audit.explain", { eventId: deniedId }, player)).result as Record<string, any>;
  assertEquals([why.decision.allow, why.decision.rule], [false, "profile.denied"]);
  const missing = (await registry.invoke("audit.explain", { eventId: "evt_nope" }, player)).result as Record<string, any>;
  assertEquals(missing.found, false);

  const q = (await registry.invoke("audit.query", { decision: "deny" }, player)).result as Record<string, any>;
  assertEquals(q.summary.total, 2);
  assertEquals(q.summary.byRule, { "quota.exceeded": 1, "profile.denied": 1 });
  assertEquals(q.decisions.map((d: { agentId: string }) => d.agentId), ["agent_b", "agent_p"]);
  const bySession = (await registry.invoke("audit.query", { sessionId: "sess_b", limit: 1 }, player)).result as Record<string, any>;
  assertEquals(bySession.summary, { total: 2, allowed: 1, denied: 1, byRule: { "profile.grant": 1, "quota.exceeded": 1 }, byCap: { "test.spawn": 2 }, packages: [] });
  assertEquals(bySession.decisions.length, 1);

  const usage = (await registry.invoke("audit.usage", {}, player)).result as Record<string, any>;
  const row = (s: string, cap: string) => usage.perSessionCap.find((r: any) => r.sessionId === s && r.cap === cap);
  assertEquals(row("sess_b", "test.spawn"), { sessionId: "sess_b", cap: "test.spawn", allowed: 1, denied: 1 });
  assertEquals(row("sess_p", "test.spawn"), { sessionId: "sess_p", cap: "test.spawn", allowed: 0, denied: 1 });
  assert(usage.quotas.some((q: any) => q.sessionId === "sess_b" && q.quota.used === 1));
  assert(tracer.size > 0);
});

test("the Mcp class: session required, tools listed, calls routed, internal attribution", async () => {
  const { registry, tracer } = setup();
  registry.register(spawner());
  const mcp = new Mcp(registry);
  const early = await mcp.callTool({ tool: "skills.list", input: {} });
  assertEquals(early.error, { code: "forbidden", message: "MCP session is not initialized" });
  assertThrows(() => mcp.initialize({ agentId: "", sessionId: "s", profile: "p" }), { name: "TypeError" });
  const init = mcp.initialize({ agentId: "builder_1", sessionId: "sess_1", profile: "builder.readWrite" });
  assertEquals(init.session.permissions, [...PROFILES["builder.readWrite"]]);
  assert(mcp.listTools().length >= 12);
  const r = await mcp.callTool({ tool: "test.spawn", input: { position: [1, 1, 1] } });
  assertEquals(r.result, { entity: "ent_1" });
  const internal = await mcp.callToolInternal({ tool: "test.spawn", input: { position: [2, 2, 2] }, context: { agentId: "player_7", sessionId: "sess_p7", decisionId: "dec_1", causedBy: ["evt_x"] } });
  assert(internal.success);
  const last = tracer.history().at(-1)!;
  assertEquals([last.actorId, last.threadId, last.causedBy], ["player_7", "sess_p7", ["evt_x"]]);
  assertEquals((last.payload as { decisionId: string }).decisionId, "dec_1");
  mcp.shutdown();
  assertEquals((await mcp.callTool({ tool: "skills.list" })).error?.code, "forbidden");
  assertEquals(
    (["not_found", "invalid_input", "forbidden", "capacity_exceeded", "handler_error"] as const).map(mcpErrorToJsonRpc),
    [-32601, -32602, -32001, -32002, -32603],
  );
});

test("skills.list, skills.describe and skills.search", async () => {
  const { registry } = setup();
  const base = as("system.readonly");
  const list = (await registry.invoke("skills.list", {}, base)).result as { tools: { name: string }[] };
  assertEquals(list.tools.map((t) => t.name), registry.all().map((s) => s.name));
  const d = (await registry.invoke("skills.describe", { name: "trace.tail" }, base)).result as Record<string, any>;
  assertEquals([d.name, d.version, d.category], ["trace.tail", "1.0.0", "system"]);
  assertEquals(Object.keys(d.input_schema.properties), ["afterSeq", "limit", "actorId", "type"]);
  const bad = await registry.invoke("skills.describe", { name: "nope.nope" }, base);
  assertEquals(bad.error, { code: "handler_error", message: "unknown skill: nope.nope" });
  const s = (await registry.invoke("skills.search", { query: "trace export file" }, base)).result as { results: { name: string }[] };
  assertEquals(s.results[0].name, "trace.export");
  const audit = (await registry.invoke("skills.search", { query: "policy decision", limit: 2 }, base)).result as { results: { name: string }[] };
  assertEquals(audit.results.length, 2);
  assert(audit.results.every((r) => r.name.startsWith("audit.")), JSON.stringify(audit.results));
  const none = (await registry.invoke("skills.search", { query: "zzzz" }, base)).result as { results: unknown[] };
  assertEquals(none.results, []);
});

test("trace.tail pages with a cursor and filters; trace.explainEvent resolves parents and children", async () => {
  const { registry, tracer } = setup();
  const root = tracer.emit("test.root", { n: 0 }, { actorId: "a1" });
  const kid = tracer.emit("test.kid", { n: 1 }, { actorId: "a2", causedBy: [root] });
  for (let i = 0; i < 5; i++) tracer.emit("test.noise", { i }, { actorId: "a1" });
  const base = as("system.readonly");
  const p1 = (await registry.invoke("trace.tail", { afterSeq: -1, limit: 3 }, base)).result as { events: { id: string }[]; nextAfterSeq: number };
  assertEquals(p1.events.map((e) => e.id).slice(0, 2), [root, kid]);
  assertEquals(p1.nextAfterSeq, 2);
  const p2 = (await registry.invoke("trace.tail", { afterSeq: p1.nextAfterSeq, limit: 100, actorId: "a1" }, base)).result as { events: { type: string }[] };
  assertEquals(p2.events.map((e) => e.type), ["test.noise", "test.noise", "test.noise", "test.noise"]);
  const typed = (await registry.invoke("trace.tail", { type: "test.kid" }, base)).result as { events: { id: string }[] };
  assertEquals(typed.events.map((e) => e.id), [kid]);
  const x = (await registry.invoke("trace.explainEvent", { eventId: kid }, base)).result as Record<string, any>;
  assertEquals(x.parents.map((e: { id: string }) => e.id), [root]);
  const y = (await registry.invoke("trace.explainEvent", { eventId: root }, base)).result as Record<string, any>;
  assertEquals(y.children.map((e: { id: string }) => e.id), [kid]);
  assert(/^evt_a1_000000000000_[0-9a-f]{4}$/.test(root), root);
});

test("inspector.snapshot pages entities and reports skills, permissions, trace", async () => {
  const { registry, world } = setup();
  for (let i = 0; i < 5; i++) world.world.spawn({ position: [i, 0, 0], tags: i === 2 ? ["target"] : [] });
  const base = as("system.readonly");
  const a = (await registry.invoke("inspector.snapshot", { limit: 2 }, base)).result as Record<string, any>;
  assertEquals(a.page, { limit: 2, totalEntities: 5, nextAfterEntity: "ent_2" });
  assertEquals(a.entities.map((e: { entity: string }) => e.entity), ["ent_1", "ent_2"]);
  const b = (await registry.invoke("inspector.snapshot", { limit: 2, afterEntity: a.page.nextAfterEntity }, base)).result as Record<string, any>;
  assertEquals(b.entities[0].entity, "ent_3");
  assertEquals(b.entities[0].tags, ["target"]);
  assertEquals(b.entities[0].transform.position, [2, 0, 0]);
  assertEquals(b.permissions.caller, [...PROFILES["system.readonly"]]);
  assert(b.skills.some((s: { name: string }) => s.name === "inspector.snapshot"));
  const denied = await registry.invoke("inspector.snapshot", {}, as("nobody"));
  assertEquals(denied.error?.code, "forbidden");
  const bad = await registry.invoke("inspector.snapshot", { limit: 501 }, base);
  assertEquals(bad.error?.code, "invalid_input");
});

test("trace export → verify passes; an independent chain matches; the CLI agrees", async () => {
  const { registry, tracer } = withPolicy();
  const base = as("builder.readWrite");
  await registry.invoke("test.spawn", { position: [1, 2, 3] }, base);
  await registry.invoke("test.spawn", { position: [1, 2] }, base);
  tracer.emit("test.unicode", { text: "héllo \u2603 \n\t\"quoted\"", n: [0.1, -2.5, 1e21, 3] });
  const r = await registry.invoke("trace.export", { name: "m1-export" }, base);
  assert(r.success, JSON.stringify(r.error));
  const out = r.result as { name: string; events: number; bytes: number };
  assertEquals(out.name, "m1-export.jsonl");
  // Everything recorded before the export ran; only its own skill.executed came after.
  assertEquals(out.events, tracer.size - 1);
  const events = readTrace("traces/m1-export.jsonl");
  assertEquals(events.length, out.events);
  assertEquals(events.map((e) => e.id), tracer.history().slice(0, out.events).map((e) => e.id));
  assertEquals(events[0].integrity!.previousHash, null);
  const py = await Limina.run({ cmd: "python3", args: ["tests/chain_check.py", "traces/m1-export.jsonl"] });
  assertEquals(py.code, 0, py.stderr);
  assertEquals(py.stdout.trim().split("\n"), events.map((e) => e.integrity!.hash));
  const cli = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", "traces/m1-export.jsonl"] });
  assertEquals(cli.code, 0, cli.stderr);
  assert(cli.stdout.startsWith(`ok: ${out.events} events`), cli.stdout);
});

test("each of the five integrity failures is named with its line, by the reader and the CLI", async () => {
  const tracer = new Tracer();
  for (let i = 0; i < 4; i++) tracer.emit("test.e", { i });
  const good = tracer.exportJsonl();
  const lines = good.trimEnd().split("\n");
  const crafted: [string, string, number][] = [
    [`${lines[0]}\n{not json\n${lines.slice(2).join("\n")}\n`, "invalid_json", 2],
    [good.slice(0, good.length - 20), "partial_final_line", 4],
    [`${lines[0]}\n${JSON.stringify({ ...JSON.parse(lines[1]), integrity: undefined })}\n`, "missing_integrity", 2],
    [`${lines[0]}\n${lines[2]}\n${lines[3]}\n`, "previous_hash_mismatch", 2],
    [good.replace('"i":2', '"i":20'), "hash_mismatch", 3],
  ];
  for (const [text, reason, line] of crafted) {
    const e = assertThrows(() => verifyJsonl(text), { name: "TraceIntegrityError" }) as TraceIntegrityError;
    assertEquals([e.reason, e.line], [reason, line]);
    const name = `m1-bad-${reason}`;
    Limina.ops.op_trace_write(name, text, false);
    const cli = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", `traces/${name}.jsonl`] });
    assertEquals(cli.code, 1);
    assert(cli.stderr.includes(`${reason} at line ${line}`), cli.stderr);
  }
  assertEquals(verifyJsonl(good).events, 4);
  assertEquals(verifyJsonl("").events, 0);
});

test("trace.export names are confined to the trace directory", async () => {
  const { registry } = setup();
  const base = as("builder.readWrite");
  for (const name of ["../escape", "/tmp/x", "a/b", ".hidden", "..", "a..b"]) {
    const r = await registry.invoke("trace.export", { name }, base);
    assertEquals(r.error?.code, "invalid_input", name);
  }
  const missing = await Limina.run({ cmd: "test", args: ["-e", "escape.jsonl"] });
  assertEquals(missing.code, 1, "nothing was written outside traces/");
  assertThrows(() => readTrace("traces/does-not-exist.jsonl"), { code: "not_found" });
});

test("append-on-emit chains each event as it happens", async () => {
  const name = "m1-append";
  Limina.ops.op_trace_write(name, "", false);
  const tracer = new Tracer({ appendTo: name });
  for (let i = 0; i < 3; i++) tracer.emit("test.live", { i });
  const events = readTrace(`traces/${name}.jsonl`);
  assertEquals(events.length, 3);
  assertEquals(tracer.exportJsonl().trimEnd().split("\n").map((l) => JSON.parse(l).integrity.hash), events.map((e) => e.integrity!.hash));
});

test("trace(actorId, sinceTick) and inspect()", () => {
  let tick = 0;
  const tracer = new Tracer({ tick: () => tick, tailSize: 2 });
  tracer.emit("a", {}, { actorId: "x" });
  tick = 5;
  tracer.emit("b", {}, { actorId: "x" });
  tracer.emit("c", {}, { actorId: "y" });
  assertEquals(tracer.trace("x").map((e) => e.type), ["a", "b"]);
  assertEquals(tracer.trace("x", 5).map((e) => e.type), ["b"]);
  assertEquals(tracer.tail().map((e) => e.type), ["b", "c"], "the tail is bounded");
  assertEquals(tracer.history().length, 3, "the durable history is complete");
  const i = tracer.inspect();
  assertEquals([i.eventCount, i.actors], [3, ["x", "y"]]);
});
