// The skill registry: the invoke pipeline (resolve → validate → permission →
// hooks → output validation → skill.executed), its result shape, the tool
// list, live reload, the system skills over it, and the in-process MCP
// surface (`Mcp`) that wraps it.
import {
  type InvokeResult,
  Mcp,
  PERMISSIONS,
  PolicyEngine,
  PROFILES,
  resolveProfile,
  type SkillDefinition,
  SkillRegistry,
  Tracer,
  WorldSession,
} from "limina";
import { assert, assertEquals, assertThrows, test } from "limina/testing";
import { z } from "zod";
import { as, spawner } from "./support/skills.ts";

function setup() {
  const session = new WorldSession({ simulate: false });
  return { session, tracer: session.tracer, registry: session.registry, world: session.world };
}

const digest = (s: WorldSession) => JSON.stringify([s.world.snapshot(), s.physics.bodyCount()]);
const types = (t: Tracer, from = 0) => t.history().slice(from).map((e) => e.type);
/** The value of a call that must succeed. */
function value(r: InvokeResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}
const errorOf = (r: InvokeResult) => (r.ok ? undefined : r.error);

test("permission strings and profiles are the specified ones (each profile's whole grant: permission_matrix.ts)", () => {
  const seed = ["scene.read", "scene.write", "ecs.read", "ecs.modify", "physics.read", "physics.write", "agent.read", "agent.write", "ui.write", "audio.play", "social.act"];
  assertEquals([...PERMISSIONS].slice(0, seed.length), seed);
  assertEquals(new Set(PERMISSIONS).size, PERMISSIONS.length, "no permission twice");
  // The four specified profiles, and the browser page's spectator, which watches the state stream and calls no skill.
  assertEquals(Object.keys(PROFILES), ["builder.readWrite", "player.limited", "social.actor", "system.readonly", "spectator"]);
  assert(!resolveProfile("builder.readWrite").has("social.act"));
  assert(resolveProfile("social.actor").has("social.act"));
  for (const profile of Object.keys(PROFILES).filter((p) => p !== "spectator")) assert(resolveProfile(profile).has("scene.read"), `${profile} grants scene.read`);
  assertEquals(resolveProfile("spectator").size, 0);
  assertEquals(resolveProfile("nope").size, 0);
  assertEquals(resolveProfile("__proto__").size, 0);
});

test("invoke answers with the registry's own result: ok + value, or ok: false + error, with metadata", async () => {
  const { registry, world } = setup();
  registry.register(spawner(world));
  const good = await registry.invoke("test.spawn", { position: [1, 2, 3] }, as("builder.readWrite"));
  assert(good.ok);
  assertEquals(Object.keys(good).sort(), ["metadata", "ok", "value"]);
  assertEquals(good.value, { entity: "ent_1" });
  assertEquals(Object.keys(good.metadata).sort(), ["eventIds", "eventsEmitted", "executionTimeMs"]);
  const bad = await registry.invoke("test.spawn", {}, as("builder.readWrite"));
  assert(!bad.ok);
  assertEquals(Object.keys(bad).sort(), ["error", "metadata", "ok"]);
  assertEquals(bad.error.code, "invalid_input");
  assert(!("success" in good) && !("result" in good), "not the MCP wire shape");
});

test("Zod rejection is invalid_input carrying the Zod message; nothing runs", async () => {
  const { session, registry, world, tracer } = setup();
  const log: string[] = [];
  registry.register(spawner(world, log));
  const before = digest(session);
  const r = await registry.invoke("test.spawn", { position: [1, "x", 3] }, as("builder.readWrite"));
  assertEquals(r.ok, false);
  assertEquals(errorOf(r)?.code, "invalid_input");
  assert(errorOf(r)!.message.includes("position") && errorOf(r)!.message.includes("expected number"), errorOf(r)!.message);
  const extra = await registry.invoke("test.spawn", { position: [0, 0, 0], colour: 1 }, as("builder.readWrite"));
  assert(errorOf(extra)!.message.includes('Unrecognized key: "colour"'), errorOf(extra)!.message);
  assertEquals(log, []);
  assertEquals(digest(session), before);
  assertEquals(tracer.size, 0);
  const unknown = await registry.invoke("scene.nope", {}, as("builder.readWrite"));
  assertEquals(errorOf(unknown), { code: "not_found", message: "unknown skill: scene.nope" });
  assertEquals(registry.validate("scene.nope", {}), { ok: false, code: "not_found", message: "unknown skill: scene.nope" });
  const v = registry.validate("test.spawn", { position: [1, 2, 3] });
  assertEquals(v, { ok: true, value: { position: [1, 2, 3] } });
  const invalid = registry.validate("test.spawn", { position: [1] });
  assert(!invalid.ok && invalid.code === "invalid_input" && invalid.message.startsWith("test.spawn: "), JSON.stringify(invalid));
  assertEquals(log, [], "validate runs nothing");
});

test("a static permission denial has zero effect and is traced", async () => {
  const { session, registry, world, tracer } = setup();
  const log: string[] = [];
  registry.register(spawner(world, log));
  const before = digest(session);
  const r = await registry.invoke("test.spawn", { position: [1, 2, 3] }, as("system.readonly", "agent_ro"));
  assertEquals(errorOf(r), { code: "forbidden", message: "missing permission: scene.write" });
  assertEquals(digest(session), before);
  assertEquals(log, []);
  assertEquals(types(tracer), ["security.permission.denied"]);
  assertEquals(tracer.history()[0].payload, { skill: "test.spawn", missing: "scene.write", agentId: "agent_ro" });
  assertEquals(r.metadata.eventsEmitted, ["security.permission.denied"]);
});

test("hooks run in order: before → handler → after → skill.executed", async () => {
  const { registry, tracer, world } = setup();
  const log: string[] = [];
  registry.register(spawner(world, log));
  tracer.subscribe((e) => log.push(`event ${e.type}`));
  const r = await registry.invoke("test.spawn", { position: [1, 2, 3] }, as("builder.readWrite"));
  assert(r.ok);
  assertEquals(log, ["before 1,2,3", "handler", "after ent_1", "event skill.executed"]);
  const executed = tracer.history().at(-1)!;
  assertEquals(executed.payload, { skill: "test.spawn", version: "1.0.0", input: { position: [1, 2, 3] }, tick: Limina.loop.steps() });
  assertEquals(r.metadata.eventIds, [executed.id]);
  assert(typeof r.metadata.executionTimeMs === "number");
});

test("executionTimeMs runs from the call's arrival to its handler's end, the reading that charges the handler's CPU", async () => {
  const { registry, tracer, world } = setup();
  const policy = new PolicyEngine(tracer);
  const charged: (number | undefined)[] = [];
  const charge = policy.charge.bind(policy);
  policy.charge = (sessionId, usage) => (charged.push(usage.cpuMs), charge(sessionId, usage));
  registry.attachPolicy(policy);
  // A clock only the hooks and handlers move: the before hook takes 2 ms, the handler 5, the after hook 100.
  let clock = 1000;
  const now = performance.now;
  performance.now = () => clock;
  try {
    const hooks = { before: () => void (clock += 2), after: () => void (clock += 100) };
    registry.register({ ...spawner(world), hooks, handler: ({ position }) => ((clock += 5), { entity: world.spawn({ position }).id }) });
    registry.register({ ...spawner(world), name: "test.throws", hooks, handler: () => { clock += 3; throw new Error("kaboom"); } });
    const ok = await registry.invoke("test.spawn", { position: [1, 2, 3] }, as("builder.readWrite"));
    assert(ok.ok);
    assertEquals(ok.metadata.executionTimeMs, 7);
    const failed = await registry.invoke("test.throws", { position: [1, 2, 3] }, as("builder.readWrite"));
    assert(!failed.ok);
    assertEquals(failed.metadata.executionTimeMs, 5);
    assertEquals(charged, [7, 5]);
  } finally {
    performance.now = now;
  }
});

test("the execution context carries the caller, not the world", async () => {
  const tick = 41;
  const tracer = new Tracer({ tick: () => tick });
  const registry = new SkillRegistry(tracer, () => tick);
  let seen: Record<string, unknown> = {};
  registry.register({
    name: "test.context",
    version: "1.0.0",
    category: "system",
    description: "Reports its context.",
    input: z.strictObject({}),
    output: z.object({}),
    permissions: [],
    handler: (_input, ctx) => {
      seen = { ...ctx, permissions: [...ctx.permissions].sort(), emit: typeof ctx.emit };
      return {};
    },
  });
  const r = await registry.invoke("test.context", {}, { agentId: "a1", sessionId: "s1", permissions: ["x.y"], profile: "p", pkg: "pkg@1" });
  assert(r.ok);
  assertEquals(seen, { agentId: "a1", sessionId: "s1", permissions: ["x.y"], profile: "p", pkg: "pkg@1", tick: 41, emit: "function" });
  assert(!("world" in seen), "no world in the context");
  assertEquals((tracer.history().at(-1)!.payload as { tick: number }).tick, 41, "the registry's own tick source");
  tracer.close();
});

test("output validation turns a malformed result into handler_error; a thrown code is kept", async () => {
  const { registry, tracer, world } = setup();
  registry.register({ ...spawner(world), name: "test.broken", hooks: undefined, handler: () => ({ entity: 42 }) });
  const r = await registry.invoke("test.broken", { position: [0, 0, 0] }, as("builder.readWrite"));
  assertEquals(errorOf(r)?.code, "handler_error");
  assert(errorOf(r)!.message.includes("does not match its schema"), errorOf(r)!.message);
  assertEquals(types(tracer), ["skill.failed"]);
  registry.register({ ...spawner(world), name: "test.throws", hooks: undefined, handler: () => { throw new Error("kaboom"); } });
  const t = await registry.invoke("test.throws", { position: [0, 0, 0] }, as("builder.readWrite"));
  assertEquals(errorOf(t), { code: "handler_error", message: "kaboom" });
  assertEquals((tracer.history().at(-1)!.payload as { code: string }).code, "handler_error");
});

test("registerAll builds a module's skills over its services; servicesOf hands them back", () => {
  const { registry } = setup();
  const services = { greeting: "hi" };
  const seen: unknown[] = [];
  registry.registerAll((s: typeof services) => {
    seen.push(s);
    return [
      { name: "test.one", version: "1.0.0", category: "system", description: "1", input: z.strictObject({}), output: z.object({}), permissions: [], handler: () => ({}) },
      { name: "test.two", version: "1.0.0", category: "system", description: "2", input: z.strictObject({}), output: z.object({}), permissions: [], handler: () => ({}) },
    ] as SkillDefinition[];
  }, services);
  assertEquals(seen.length, 1);
  assert(seen[0] === services);
  assert(registry.servicesOf("test.one") === services && registry.servicesOf("test.two") === services);
  assertEquals(registry.servicesOf("nope.nope"), undefined);
  assertThrows(() => registry.register({ ...registry.get("test.one")! }), { message: "already registered" });
  assertThrows(() => registry.register({ ...registry.get("test.one")!, name: "Bad Name" }), { message: "bad skill name" });
  assert(registry.unregister("test.one") && !registry.unregister("test.one"));
  assertEquals(registry.servicesOf("test.one"), undefined);
});

test("the tool list is memoized, draft-07, and invalidated on every change; onChange tells", () => {
  const { registry, world } = setup();
  let changes = 0;
  const off = registry.onChange(() => changes++);
  const a = registry.listTools();
  assert(registry.listTools() === a, "memoized");
  const desc = a.find((t) => t.name === "skills.describe")!;
  assertEquals(Object.keys(desc).sort(), ["description", "inputSchema", "name"]);
  assertEquals((desc.inputSchema as Record<string, unknown>).$schema, "http://json-schema.org/draft-07/schema#");
  registry.register(spawner(world));
  const b = registry.listTools();
  assert(b !== a && b.some((t) => t.name === "test.spawn"));
  registry.replace({ ...spawner(world), description: "new words" });
  const c = registry.listTools();
  assert(c !== b && c.find((t) => t.name === "test.spawn")!.description === "new words");
  registry.unregister("test.spawn");
  assert(!registry.listTools().some((t) => t.name === "test.spawn"));
  assertEquals(changes, 3);
  off();
  registry.register(spawner(world));
  assertEquals(changes, 3, "unsubscribed");
});

test("hot reload loads the skill module from disk again, over the same services; a later call runs the new handler", async () => {
  const dir = "tests/fixtures/reload/live";
  await Limina.run({ cmd: "mkdir", args: ["-p", dir] });
  await Limina.run({ cmd: "cp", args: ["tests/fixtures/reload/greeter_v1.ts", `${dir}/greeter.ts`] });
  const { registry, tracer, world } = setup();
  const mod = await import(`../../${dir}/greeter.ts`);
  const services = { greeting: "hello" };
  registry.registerAll(mod.greeterSkills, services);
  const base = as("builder.readWrite");
  assertEquals(value(await registry.invoke("test.greet", { who: "ada" }, base)), { text: "hello ada" });
  let changes = 0;
  registry.onChange(() => changes++);
  const toolsBefore = registry.listTools();
  await Limina.run({ cmd: "cp", args: ["tests/fixtures/reload/greeter_v2.ts", `${dir}/greeter.ts`] });
  const r = await registry.invoke("dev.reload", { target: "skill", name: "test.greet", reason: "edited" }, base);
  assertEquals(value(r), { ok: true, target: "skill", invalidated: ["skill:test.greet", "tools/list"], reason: "edited" });
  assertEquals(value(await registry.invoke("test.greet", { who: "ada" }, base)), { text: "HELLO ADA, v2" });
  assertEquals(registry.get("test.greet")!.version, "1.1.0");
  assert(registry.servicesOf("test.greet") === services, "the reloaded skill keeps its services");
  assertEquals(changes, 1);
  assert(registry.listTools() !== toolsBefore, "tools/list was invalidated");
  assert(types(tracer).includes("dev.skill.reload.completed"));
  // Honest failures: no source, unknown skill, data, unknown scene builder.
  registry.register(spawner(world));
  for (const [input, why] of [
    [{ target: "skill", name: "test.spawn" }, "without a source module"],
    [{ target: "skill", name: "nope.nope" }, "unknown skill"],
    [{ target: "data" }, "not supported"],
    [{ target: "scene", name: "arena" }, "no scene builder named arena"],
  ] as const) {
    const f = value(await registry.invoke("dev.reload", input, base)) as { ok: boolean; reason: string };
    assertEquals(f.ok, false);
    assert(f.reason.includes(why), f.reason);
  }
  assertEquals(types(tracer).filter((t) => t.endsWith(".reload.failed")).length, 4);
});

test("dev.reload reloads a core skill from its module over its services", async () => {
  const { registry, world } = setup();
  const before = registry.get("scene.createEntity")!;
  const refused = await registry.invoke("dev.reload", { target: "skill", name: "scene.createEntity" }, as("system.readonly"));
  assertEquals(refused.ok ? null : refused.error, { code: "forbidden", message: "reloading scene.createEntity needs scene.write" });
  assert(registry.get("scene.createEntity") === before, "a refused reload changes nothing");
  const r = await registry.invoke("dev.reload", { target: "skill", name: "scene.createEntity" }, as("builder.readWrite"));
  assertEquals(value(r), { ok: true, target: "skill", invalidated: ["skill:scene.createEntity", "tools/list"] });
  assert(registry.get("scene.createEntity") !== before, "a fresh definition");
  const made = await registry.invoke("scene.createEntity", { position: [1, 2, 3] }, as("builder.readWrite"));
  assertEquals(value(made), { entity: "ent_1" });
  assertEquals(world.position(world.entities.get("ent_1")!.eid), [1, 2, 3], "it acts on the same session's world");
});

test("dev.reload re-runs a registered scene builder", async () => {
  const { session, registry, world } = setup();
  let runs = 0;
  session.sceneBuilders.set("arena", () => {
    runs++;
    world.spawn({ tags: ["arena"] });
  });
  const refused = await registry.invoke("dev.reload", { target: "scene", name: "arena" }, as("system.readonly"));
  assertEquals(refused.ok ? null : refused.error, { code: "forbidden", message: "re-running a scene builder needs scene.write" });
  assertEquals(runs, 0, "a read-only caller cannot re-run it");
  const r = await registry.invoke("dev.reload", { target: "scene", name: "arena" }, as("builder.readWrite"));
  assertEquals(value(r), { ok: true, target: "scene", invalidated: ["scene:arena"] });
  assertEquals(runs, 1);
  assertEquals(world.entities.size, 1);
  session.sceneBuilders.set("broken", () => {
    throw new Error("no floor");
  });
  const f = value(await registry.invoke("dev.reload", { target: "scene", name: "broken" }, as("builder.readWrite"))) as { ok: boolean; reason: string };
  assertEquals([f.ok, f.reason], [false, "scene builder broken threw: no floor"]);
});

test("without skillReload (a server without --dev) no skill handler can be swapped", async () => {
  const session = new WorldSession({ simulate: false, skillReload: false });
  const before = session.registry.get("scene.createEntity")!;
  const r = await session.registry.invoke("dev.reload", { target: "skill", name: "scene.createEntity" }, as("builder.readWrite"));
  assertEquals(r.ok ? null : r.error, { code: "forbidden", message: "swapping a skill handler needs a server started with --dev" });
  assert(session.registry.get("scene.createEntity") === before);
});

test("the Mcp class: session required, tools listed, calls routed under the session's identity", async () => {
  const { registry, tracer, world } = setup();
  registry.register(spawner(world));
  const mcp = new Mcp(registry);
  const early = await mcp.callTool({ tool: "skills.list", input: {} });
  assertEquals(early.error, { code: "forbidden", message: "MCP session is not initialized" });
  assertThrows(() => mcp.initialize({ agentId: "", sessionId: "s", profile: "p" }), { name: "TypeError" });
  const init = mcp.initialize({ agentId: "builder_1", sessionId: "sess_1", profile: "builder.readWrite" });
  assertEquals(init.session.permissions, [...PROFILES["builder.readWrite"]]);
  assertEquals(mcp.currentSession?.agentId, "builder_1");
  const tools = mcp.listTools();
  assertEquals(tools.map((t) => t.name), registry.listTools().map((t) => t.name));
  assertEquals(Object.keys(tools[0]).sort(), ["description", "input_schema", "name"]);
  const r = await mcp.callTool({ tool: "test.spawn", input: { position: [1, 1, 1] } });
  assertEquals([r.success, r.result], [true, { entity: "ent_1" }]);
  assertEquals(Object.keys(r).sort(), ["metadata", "result", "success"]);
  // The context links causes and the decision; it can never change who is calling.
  const linked = await mcp.callTool({
    tool: "test.spawn",
    input: { position: [2, 2, 2] },
    context: { decisionId: "dec_1", causedBy: ["evt_x"], agentId: "player_7", sessionId: "sess_p7" } as never,
  });
  assert(linked.success);
  const last = tracer.history().at(-1)!;
  assertEquals([last.actorId, last.threadId, last.causedBy], ["builder_1", "sess_1", ["evt_x"]]);
  assertEquals((last.payload as { decisionId: string }).decisionId, "dec_1");
  assertEquals("callToolInternal" in mcp, false, "one path: callTool");
  const failed = await mcp.callTool({ tool: "test.spawn", input: {} });
  assertEquals([failed.success, failed.error?.code, "result" in failed], [false, "invalid_input", false]);
  assertEquals(await mcp.mustCall("test.spawn", { position: [3, 3, 3] }), { entity: "ent_3" });
  let thrown = "";
  try {
    await mcp.mustCall("test.spawn", {});
  } catch (e) {
    thrown = (e as Error).message;
  }
  assert(thrown.startsWith("test.spawn failed: invalid_input: "), thrown);
  mcp.shutdown();
  assertEquals((await mcp.callTool({ tool: "skills.list" })).error?.code, "forbidden");
});

test("an unknown profile grants nothing over MCP", async () => {
  const { session } = setup();
  const mcp = session.mcp();
  const init = mcp.initialize({ agentId: "stranger", sessionId: "sess_s", profile: "no.such.profile" });
  assertEquals(init.session.permissions, []);
  const r = await mcp.callTool({ tool: "scene.queryEntities", input: {} });
  assertEquals([r.success, r.error?.code, r.error?.message], [false, "forbidden", "missing permission: scene.read"]);
  assert((await mcp.callTool({ tool: "skills.list" })).success, "skills needing no permission still answer");
});

test("skills.list, skills.describe and skills.search", async () => {
  const { registry } = setup();
  const base = as("system.readonly");
  const list = value(await registry.invoke("skills.list", {}, base)) as { tools: { name: string }[] };
  assertEquals(list.tools.map((t) => t.name), registry.all().map((s) => s.name));
  const d = value(await registry.invoke("skills.describe", { name: "trace.tail" }, base)) as Record<string, any>;
  assertEquals([d.name, d.version, d.category], ["trace.tail", "1.0.0", "system"]);
  assertEquals(Object.keys(d.input_schema.properties), ["afterSeq", "limit", "actorId", "type"]);
  const bad = await registry.invoke("skills.describe", { name: "nope.nope" }, base);
  assertEquals(errorOf(bad), { code: "not_found", message: "unknown skill: nope.nope" });
  const s = value(await registry.invoke("skills.search", { query: "trace export file" }, base)) as { results: { name: string }[] };
  assertEquals(s.results[0].name, "trace.export");
  const audit = value(await registry.invoke("skills.search", { query: "policy decision", limit: 2 }, base)) as { results: { name: string }[] };
  assertEquals(audit.results.length, 2);
  assert(audit.results.every((r) => r.name.startsWith("audit.")), JSON.stringify(audit.results));
  const none = value(await registry.invoke("skills.search", { query: "zzzz" }, base)) as { results: unknown[] };
  assertEquals(none.results, []);
});

test("inspector.snapshot pages entities and reports skills, permissions, trace", async () => {
  const { registry, world } = setup();
  for (let i = 0; i < 5; i++) world.spawn({ position: [i, 0, 0], tags: i === 2 ? ["target"] : [] });
  const base = as("system.readonly");
  const a = value(await registry.invoke("inspector.snapshot", { limit: 2 }, base)) as Record<string, any>;
  assertEquals(a.page, { limit: 2, totalEntities: 5, nextAfterEntity: "ent_2" });
  assertEquals(a.entities.map((e: { entity: string }) => e.entity), ["ent_1", "ent_2"]);
  const b = value(await registry.invoke("inspector.snapshot", { limit: 2, afterEntity: a.page.nextAfterEntity }, base)) as Record<string, any>;
  assertEquals(b.entities[0].entity, "ent_3");
  assertEquals(b.entities[0].tags, ["target"]);
  assertEquals(b.entities[0].transform.position, [2, 0, 0]);
  assertEquals(b.permissions.caller, [...PROFILES["system.readonly"]]);
  assertEquals(b.skills.length, registry.size);
  assert(b.skills.some((s: { name: string }) => s.name === "inspector.snapshot"));
  assertEquals(b.resources.counts.skills, registry.size);
  const denied = await registry.invoke("inspector.snapshot", {}, as("nobody"));
  assertEquals(errorOf(denied)?.code, "forbidden");
  const bad = await registry.invoke("inspector.snapshot", { limit: 501 }, base);
  assertEquals(errorOf(bad)?.code, "invalid_input");
  const gone = await registry.invoke("inspector.snapshot", { afterEntity: "ent_99" }, base);
  assertEquals(errorOf(gone)?.code, "invalid_input");
});
