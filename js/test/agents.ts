// limina: --deterministic
// Agent players: perception → off-loop decision → action, the scheduler, timeouts.
import { assert, assertEquals, test } from "limina/testing";
import { AgentScheduler, type AgentRecord, createAgentSystems, createWorldSession, DEFAULT_BUDGET, type MCPRequest, pursueNearest, ScriptedProvider, waitSteps } from "limina";
import { z } from "zod";

function world() {
  const session = createWorldSession();
  const floor = session.entities.create({ shape: "box", size: 40, position: [0, -20, 0], static: true, dynamic: false, color: 0x777777, friction: 0.5, restitution: 0 });
  return { session, floor };
}

function body(session: ReturnType<typeof createWorldSession>, position: [number, number, number]) {
  return session.entities.create({ shape: "sphere", size: 1, position, dynamic: true, static: false, color: 0xffffff, friction: 0.5, restitution: 0 }).id;
}

const pursue = pursueNearest();

test("the trace reads perception → decision → skill.executed, causally linked, tagged with the decision", async () => {
  const { session } = world();
  const me = body(session, [0, 0.5, 0]);
  const target = body(session, [5, 0.5, 0]);
  const sys = createAgentSystems(session, { scripted: new ScriptedProvider(pursue) });
  sys.agents.add({ id: "agt_p", type: "player", entityId: me, decisionIntervalTicks: 10, profile: "player.limited", sessionId: "ses_p", llm: { provider: "scripted", model: "", systemPrompt: "pursue" } });
  await waitSteps(25);
  const t = session.tracer;
  const executed = t.history().filter((e) => e.type === "skill.executed" && e.actorId === "agt_p");
  assert(executed.length >= 2, `actions ran (${executed.length})`);
  const action = executed[0];
  const decision = t.get(action.causedBy[0])!;
  assertEquals(decision.type, "agent.decision.made");
  assertEquals((action.payload as { decisionId: string }).decisionId, (decision.payload as { decisionId: string }).decisionId);
  const perception = t.get(decision.causedBy[0])!;
  assertEquals(perception.type, "agent.perception.updated");
  const p = sys.agents.get("agt_p")!.perception!;
  assertEquals(p.selfEntity, me);
  assert(p.nearby.some((n) => n.id === target), "the target is perceived");
  assert(session.world.position(session.world.entities.get(me)!.eid)[0] > 0.05, "and the player moved toward it");
  assertEquals(sys.observability.traceOf("agt_p").filter((e) => e.type === "agent.decision.made").length >= 2, true);
  const viaSkill = await session.registry.invoke("agent.getPerception", {}, { agentId: "agt_p", sessionId: "ses_p", permissions: new Set(["agent.read"]) });
  assert(viaSkill.ok, JSON.stringify(viaSkill));
  assertEquals((viaSkill.value as { perception: { selfId: string } }).perception.selfId, "agt_p");
  sys.dispose();
  session.dispose();
});

test("hallucinated and malformed calls are rejected and never run", async () => {
  const { session } = world();
  const me = body(session, [0, 0.5, 0]);
  const before = session.world.snapshot();
  const liar = new ScriptedProvider(() => [
    { tool: "world.teleport", input: { to: "moon" } },
    { tool: "physics.applyImpulse", input: { entity: me, impulse: "hard" } },
    { tool: "scene.createEntity", input: { shape: "cube" } },
  ] as MCPRequest[]);
  const sys = createAgentSystems(session, { liar });
  sys.agents.add({ id: "agt_l", type: "player", entityId: me, profile: "builder.readWrite", sessionId: "ses_l", llm: { provider: "liar", model: "", systemPrompt: "" } });
  await waitSteps(3);
  const rejected = session.tracer.history().filter((e) => e.type === "agent.toolcall.rejected").map((e) => e.payload as { tool: string; reason: string });
  assertEquals(rejected.map((r) => r.tool), ["world.teleport", "physics.applyImpulse", "scene.createEntity"]);
  assert(rejected[0].reason.includes("no such skill"));
  assert(rejected[1].reason.includes("does not match"));
  assertEquals(session.tracer.history().filter((e) => e.type === "skill.executed").length, 0, "nothing ran");
  assertEquals(session.world.snapshot().identity, before.identity);
  sys.dispose();
  session.dispose();
});

test("a permitted-looking call outside the agent's profile is denied with zero effect", async () => {
  const { session } = world();
  const me = body(session, [0, 0.5, 0]);
  const sys = createAgentSystems(session, { s: new ScriptedProvider(() => [{ tool: "scene.createEntity", input: {} }]) });
  sys.agents.add({ id: "agt_d", type: "player", entityId: me, profile: "player.limited", sessionId: "ses_d", llm: { provider: "s", model: "", systemPrompt: "" } });
  const size = session.world.entities.size;
  await waitSteps(3);
  assert(session.tracer.history().some((e) => e.type === "security.permission.denied" && e.actorId === "agt_d"));
  assertEquals(session.world.entities.size, size);
  sys.dispose();
  session.dispose();
});

test("scheduler caps: decision starts and global actions per tick", async () => {
  const { session } = world();
  const emit: MCPRequest[] = [{ tool: "agent.emitEvent", input: { type: "a" } }, { tool: "agent.emitEvent", input: { type: "b" } }, { tool: "agent.emitEvent", input: { type: "c" } }];
  const sys = createAgentSystems(session, { s: new ScriptedProvider(() => emit) }, {
    manual: true,
    budget: { maxDecisionStartsPerTick: 3, maxGlobalActionsPerTick: 4, defaultAgentBudget: { weight: 1, maxQueueDepth: 8, maxToolCallsPerDecision: 2, maxActionsPerTick: 1, decisionTimeoutMs: 1000 } },
  });
  for (let i = 0; i < 10; i++) sys.agents.add({ id: `agt_${i}`, type: "player", anchor: [i, 0, 0], decisionIntervalTicks: 1000, profile: "player.limited", sessionId: `ses_${i}`, llm: { provider: "s", model: "", systemPrompt: "" } });
  await sys.tick(1);
  assertEquals(sys.agents.all().filter((a) => a.lastDecisionTick === 1).length, 3, "3 decision starts per tick");
  await Promise.resolve();
  const queued = sys.agents.all().map((a) => a.queue.length);
  assertEquals(queued.filter((n) => n === 2).length, 3, "each decision queued 2 (3rd over maxToolCallsPerDecision)");
  assertEquals(session.tracer.history().filter((e) => e.type === "agent.toolcall.rejected").length, 3);
  await sys.tick(2);
  const executed = () => session.tracer.history().filter((e) => e.type === "skill.executed").length;
  assertEquals(executed(), 3, "one action per agent per tick (3 agents busy, global cap 4)");
  sys.dispose();
  session.dispose();
});

test("scheduler fairness: actions are shared by weight", () => {
  const { session } = world();
  const sys = createAgentSystems(session, {}, {
    manual: true,
    budget: {
      maxDecisionStartsPerTick: 0,
      maxGlobalActionsPerTick: 3,
      defaultAgentBudget: { weight: 1, maxQueueDepth: 1000, maxToolCallsPerDecision: 4, maxActionsPerTick: 3, decisionTimeoutMs: 1000 },
      agents: { agt_heavy: { weight: 2 } },
    },
  });
  const heavy = sys.agents.add({ id: "agt_heavy", type: "player", anchor: [0, 0, 0], profile: "player.limited", sessionId: "s1", llm: { provider: "x", model: "", systemPrompt: "" } });
  const light = sys.agents.add({ id: "agt_light", type: "player", anchor: [0, 0, 0], profile: "player.limited", sessionId: "s2", llm: { provider: "x", model: "", systemPrompt: "" } });
  for (const a of [heavy, light]) for (let i = 0; i < 600; i++) a.queue.push({ tool: "skills.list", input: {}, decisionId: "d", decisionEventId: "e" });
  const served = { heavy: 0, light: 0 };
  for (let t = 0; t < 100; t++) {
    for (const a of sys.scheduler.actionOrder(sys.agents.all())) {
      a.queue.shift();
      served[a === heavy ? "heavy" : "light"]++;
    }
  }
  assertEquals(served.heavy + served.light, 300, "the global cap is used in full");
  assertEquals(served.heavy, 200, `weight 2 gets two thirds (${served.heavy}:${served.light})`);
  sys.dispose();
  session.dispose();
});

test("scheduler order: equal passes go by id, whatever the agents' order; an agent idle for a tick loses its banked pass", () => {
  const { session } = world();
  const sys = createAgentSystems(session, {}, {
    manual: true,
    budget: {
      maxDecisionStartsPerTick: 0,
      maxGlobalActionsPerTick: 100,
      defaultAgentBudget: { weight: 1, maxQueueDepth: 1000, maxToolCallsPerDecision: 4, maxActionsPerTick: 2, decisionTimeoutMs: 1000 },
    },
  });
  const add = (id: string) => sys.agents.add({ id, type: "player", anchor: [0, 0, 0], profile: "player.limited", sessionId: `s_${id}`, llm: { provider: "x", model: "", systemPrompt: "" } });
  const [c, a, b] = ["agt_c", "agt_a", "agt_b"].map(add);
  const queue = (agent: AgentRecord, n: number) => {
    for (let i = 0; i < n; i++) agent.queue.push({ tool: "skills.list", input: {}, decisionId: "d", decisionEventId: "e" });
  };
  for (const agent of [c, a, b]) queue(agent, 3);
  const ids = () => sys.scheduler.actionOrder(sys.agents.all()).map((agent) => (agent.queue.shift(), agent.id));
  assertEquals(ids().join(), "agt_a,agt_b,agt_c,agt_a,agt_b,agt_c", "round by round, ties by id, two actions each at most");
  // a and b run dry; c's last action raises the virtual time past their old passes.
  a.queue.length = 0;
  b.queue.length = 0;
  assertEquals(ids().join(), "agt_c");
  assertEquals(a.pass, null, "idle: no pass kept");
  // Back, a and b join at the virtual time (2, where c was last served), below c's pass (3).
  queue(a, 1);
  queue(b, 1);
  queue(c, 1);
  assertEquals(ids().join(), "agt_a,agt_b,agt_c");
  sys.dispose();
  session.dispose();
});

test("scheduler fairness: a global cap below the number of busy agents still shares by weight (nobody starves)", () => {
  const { session } = world();
  const sys = createAgentSystems(session, {}, {
    manual: true,
    budget: {
      maxDecisionStartsPerTick: 0,
      maxGlobalActionsPerTick: 1,
      defaultAgentBudget: { weight: 1, maxQueueDepth: 1000, maxToolCallsPerDecision: 4, maxActionsPerTick: 1, decisionTimeoutMs: 1000 },
      agents: { agt_w2: { weight: 2 }, agt_w3: { weight: 3 } },
    },
  });
  const ids = ["agt_w1", "agt_w2", "agt_w3"];
  const agents = ids.map((id, i) => sys.agents.add({ id, type: "player", anchor: [0, 0, 0], profile: "player.limited", sessionId: `s${i}`, llm: { provider: "x", model: "", systemPrompt: "" } }));
  for (const a of agents) for (let i = 0; i < 600; i++) a.queue.push({ tool: "skills.list", input: {}, decisionId: "d", decisionEventId: "e" });
  const served = new Map<string, number>(ids.map((id) => [id, 0]));
  for (let t = 0; t < 600; t++) {
    for (const a of sys.scheduler.actionOrder(sys.agents.all())) {
      a.queue.shift();
      served.set(a.id, served.get(a.id)! + 1);
    }
  }
  const [w1, w2, w3] = ids.map((id) => served.get(id)!);
  assertEquals(w1 + w2 + w3, 600, "one action per tick, the global cap");
  assert(Math.abs(w1 - 100) <= 2 && Math.abs(w2 - 200) <= 2 && Math.abs(w3 - 300) <= 2, `shares follow weights 1:2:3 (${w1}:${w2}:${w3})`);
  // An agent idle for a while joins at the current virtual time: it gets its share from now on, not a burst of banked credit.
  const late = sys.agents.add({ id: "agt_late", type: "player", anchor: [0, 0, 0], profile: "player.limited", sessionId: "s9", llm: { provider: "x", model: "", systemPrompt: "" } });
  for (let i = 0; i < 10; i++) late.queue.push({ tool: "skills.list", input: {}, decisionId: "d", decisionEventId: "e" });
  let lateServed = 0;
  for (let t = 0; t < 7; t++) for (const a of sys.scheduler.actionOrder(sys.agents.all())) (a.queue.shift(), a === late && lateServed++);
  assert(lateServed >= 1 && lateServed <= 2, `a newcomer with weight 1 gets about 1 of 7 actions, not all of them (${lateServed})`);
  sys.dispose();
  session.dispose();
});

test("a decision past its timeout is retired; its late result is discarded and traced", async () => {
  const { session } = world();
  const me = body(session, [0, 0.5, 0]);
  const slow = new ScriptedProvider(() => new Promise((r) => setTimeout(() => r([{ tool: "agent.emitEvent", input: { type: "late" } }]), 80)));
  const sys = createAgentSystems(session, { slow }, { budget: { maxDecisionStartsPerTick: 8, maxGlobalActionsPerTick: 8, defaultAgentBudget: { weight: 1, maxQueueDepth: 8, maxToolCallsPerDecision: 4, maxActionsPerTick: 2, decisionTimeoutMs: 20 } } });
  sys.agents.add({ id: "agt_s", type: "player", entityId: me, decisionIntervalTicks: 100_000, profile: "player.limited", sessionId: "ses_s", llm: { provider: "slow", model: "", systemPrompt: "" } });
  await waitSteps(1);
  await new Promise((r) => setTimeout(r, 150));
  const types = session.tracer.history().map((e) => e.type);
  assert(types.includes("agent.decision.timeout"), types.join());
  assert(types.includes("agent.decision.discarded"), types.join());
  assert(!types.includes("agent.signal.late"), "the late result never acted");
  assertEquals(sys.agents.get("agt_s")!.queue.length, 0);
  assertEquals(sys.agents.get("agt_s")!.inFlight, false);
  sys.dispose();
  session.dispose();
});

test("disposing the world with decisions in flight ends its agents quietly: late answers and timeouts record and queue nothing", async () => {
  const { session } = world();
  const me = body(session, [0, 0.5, 0]);
  const answers: ((calls: MCPRequest[]) => void)[] = [];
  const pending = new ScriptedProvider(() => new Promise<MCPRequest[]>((r) => answers.push(r)));
  const sys = createAgentSystems(session, { pending }, { budget: { maxDecisionStartsPerTick: 8, maxGlobalActionsPerTick: 8, defaultAgentBudget: { weight: 1, maxQueueDepth: 8, maxToolCallsPerDecision: 4, maxActionsPerTick: 2, decisionTimeoutMs: 40 } } });
  sys.agents.add({ id: "agt_a", type: "player", entityId: me, decisionIntervalTicks: 1, profile: "player.limited", sessionId: "ses_a", llm: { provider: "pending", model: "", systemPrompt: "" } });
  sys.agents.add({ id: "agt_b", type: "player", entityId: me, decisionIntervalTicks: 1, profile: "player.limited", sessionId: "ses_b", llm: { provider: "pending", model: "", systemPrompt: "" } });
  await waitSteps(2);
  const asked = answers.length;
  assert(asked >= 2 && sys.agents.all().every((a) => a.inFlight), `both agents await an answer (${asked} asked)`);
  // Disposing the session alone stops the agent systems published on it.
  session.dispose();
  assert(sys.agents.all().every((a) => !a.inFlight), "no agent is left in flight: its decision is abandoned");
  answers[asked - 1]([{ tool: "agent.emitEvent", input: { type: "late" } }]);
  // The other agent's timeout (40 ms) would fire here; its answer never comes.
  await new Promise((r) => setTimeout(r, 120));
  await waitSteps(3);
  assertEquals(answers.length, asked, "no decision starts after the dispose");
  assert(sys.agents.all().every((a) => a.queue.length === 0), "the late answer queued nothing");
  assertEquals(session.agents.list().length, 0, "the roster is withdrawn");
  sys.dispose();
});

test("disposing the world with an action in flight: the action ends unavailable, nothing is written to the closed world log, the process lives", async () => {
  const { session } = world();
  const me = body(session, [0, 0.5, 0]);
  const finish: (() => void)[] = [];
  session.registry.register({
    name: "test.slowAction",
    version: "1.0.0",
    category: "agent",
    description: "An action that awaits real work (as an asset load does).",
    input: z.strictObject({}),
    output: z.object({ done: z.boolean() }),
    permissions: ["agent.read"],
    source: { module: import.meta.url, factory: "test" },
    handler: async (_input, ctx) => {
      await new Promise<void>((r) => finish.push(r));
      ctx.emit("agent.signal.slow", {});
      return { done: true };
    },
  });
  const sys = createAgentSystems(session, { s: new ScriptedProvider(() => [{ tool: "test.slowAction", input: {} }]) });
  sys.agents.add({ id: "agt_slow", type: "player", entityId: me, decisionIntervalTicks: 1, profile: "player.limited", sessionId: "ses_slow", llm: { provider: "s", model: "", systemPrompt: "" } });
  while (finish.length === 0) await waitSteps(1);
  const agent = sys.agents.get("agt_slow")!;
  const before = agent.previousResults.length;
  session.dispose();
  finish.forEach((r) => r());
  await sys.action.settled();
  const after = agent.previousResults.slice(before) as { success: boolean; error: { code: string; message: string } }[];
  assert(after.length >= 1, "the action in flight finished");
  assert(after.every((r) => !r.success && r.error.code === "unavailable" && r.error.message.includes("disposed")), JSON.stringify(after));
  assert(after[0].error.message.includes("ran, but nothing of it was recorded"), after[0].error.message);
  const late = await session.registry.invoke("agent.emitEvent", { type: "after" }, { agentId: "agt_slow", sessionId: "ses_slow", permissions: new Set(["agent.write"]) });
  assert(!late.ok && late.error.code === "unavailable", "a call after the dispose is refused, not thrown");
  sys.dispose();
});

test("perception: the native batch and the JS oracle give byte-identical envelopes", () => {
  const { session } = world();
  for (let i = 0; i < 300; i++) body(session, [((i * 37) % 41) - 20, 0.5, ((i * 53) % 43) - 21]);
  const sys = createAgentSystems(session, {}, { manual: true });
  const ids = [...session.world.entities.entries()].slice(1, 40).map((e) => e.id);
  ids.forEach((entityId, i) => sys.agents.add({ id: `agt_${i}`, type: "player", entityId, perceptionRadius: 6 + (i % 5), profile: "player.limited", sessionId: `s${i}`, llm: { provider: "x", model: "", systemPrompt: "" } }));
  const agents = sys.agents.all();
  sys.perception.build(agents, 7);
  const native = JSON.stringify(agents.map((a) => ({ ...a.perception, recentEvents: [] })));
  sys.perception.build(agents, 7, { forceOracle: true });
  const oracle = JSON.stringify(agents.map((a) => ({ ...a.perception, recentEvents: [] })));
  assertEquals(native, oracle);
  assert(agents.every((a) => a.perception!.nearby.every((n) => n.id !== a.entityId)), "an agent never perceives itself");
  sys.dispose();
  session.dispose();
});

test("the scheduler starts the longest-waiting decisions first when the per-tick cap binds", () => {
  const scheduler = new AgentScheduler({ ...DEFAULT_BUDGET, maxDecisionStartsPerTick: 2 });
  const agent = (id: string, lastDecisionTick: number, inFlight = false) => ({ id, lastDecisionTick, decisionIntervalTicks: 10, inFlight, conversation: null, recentDecisions: [] }) as unknown as AgentRecord;
  // Listed in an order that is not the waiting order: the last decided come first.
  const agents = [agent("agt_c", 50), agent("agt_b", 30), agent("agt_late", 95), agent("agt_busy", 0, true), agent("agt_d", 10), agent("agt_a", 10)];
  assertEquals(scheduler.dueForDecision(agents, 100).map((a) => a.id), ["agt_a", "agt_d"]);
  assertEquals(new AgentScheduler({ ...DEFAULT_BUDGET, maxDecisionStartsPerTick: 8 }).dueForDecision(agents, 100).map((a) => a.id), ["agt_a", "agt_d", "agt_b", "agt_c"]);
});

test("agent records: defaults, ids, validation", () => {
  const { session } = world();
  const sys = createAgentSystems(session, {}, { manual: true });
  const a = sys.agents.add({ type: "player", profile: "player.limited", sessionId: "s", llm: { provider: "scripted", model: "", systemPrompt: "" } });
  assertEquals([a.id, a.perceptionRadius, a.decisionIntervalTicks, a.inFlight, a.queue], ["agt_1", 15, 30, false, []]);
  let threw = 0;
  for (const bad of [{ id: "player" }, { perceptionRadius: 0 }, { decisionIntervalTicks: 0.5 }, { id: "agt_1" }]) {
    try {
      sys.agents.add({ type: "player", profile: "p", sessionId: "s", llm: { provider: "x", model: "", systemPrompt: "" }, ...bad });
    } catch {
      threw++;
    }
  }
  assertEquals(threw, 4);
  assertEquals([a.discovery.mode, a.discovery.maxActive, a.discovery.activeBudgetTokens, a.active], ["progressive", 8, 4000, []]);
  const refusals: string[] = [];
  for (const discovery of [{ mode: "some" }, { core: Array.from({ length: 17 }, (_, i) => `a.b${i}`) }, { maxActive: -1 }, { activeBudgetTokens: 0 }, { surfaceRules: [{ provider: "ollama", model: "x", mode: "prompt" }] }]) {
    try {
      sys.agents.add({ type: "player", profile: "p", sessionId: "s", llm: { provider: "x", model: "", systemPrompt: "" }, discovery } as never);
    } catch (e) {
      refusals.push(`${(e as { code: string }).code}: ${(e as Error).message}`);
    }
  }
  assertEquals(refusals, [
    'invalid_input: discovery.mode must be progressive or full, got "some"',
    "invalid_input: discovery.core must be a list of at most 16 skill ids",
    "invalid_input: discovery.maxActive must be a whole number in 0..256, got -1",
    "invalid_input: discovery.activeBudgetTokens must be > 0, got 0",
    "invalid_input: surfaceRules[0] must be {provider: string, model: string, mode: tool-only | system-prompt | both}",
  ]);
  sys.dispose();
  session.dispose();
});

test("rate limits hold an agent's decisions back within a minute of world ticks, traced once per hold", async () => {
  const { session } = world();
  const sys = createAgentSystems(session, { s: new ScriptedProvider(() => [{ tool: "agent.emitEvent", input: { type: "tick" } }]) }, {
    budget: { ...DEFAULT_BUDGET, agents: { agt_few: { decisionsPerMinute: 3 }, agt_tokens: { promptTokensPerMinute: 1 } } },
  });
  for (const id of ["agt_free", "agt_few", "agt_tokens"]) {
    sys.agents.add({ id, type: "player", anchor: [0, 0, 0], decisionIntervalTicks: 10, profile: "player.limited", sessionId: `ses_${id}`, llm: { provider: "s", model: "", systemPrompt: "" } });
  }
  const made = (id: string) => session.tracer.history().filter((e) => e.type === "agent.decision.made" && e.actorId === id).length;
  const deferred = (id: string) => session.tracer.history().filter((e) => e.type === "agent.decision.deferred" && e.actorId === id);
  await waitSteps(300);
  assert(made("agt_free") >= 25, `no limit: ${made("agt_free")} decisions`);
  assertEquals(made("agt_few"), 3, "three decisions a minute");
  assertEquals(made("agt_tokens"), 1, "its first prompt spent the minute's tokens");
  assertEquals(deferred("agt_few").length, 1, "held once, traced once");
  assertEquals((deferred("agt_few")[0].payload as { reason: string; decisionsPerMinute: number }).decisionsPerMinute, 3);
  const few = sys.agents.get("agt_few")!;
  const first = few.recentDecisions[0].tick;
  // Held until a minute after its first decision, over 3,200 steps away: waited for in one go, since
  // scanning the whole history every step would make the wait quadratic.
  await waitSteps(3200);
  assertEquals(made("agt_few"), 3, "still held");
  while (made("agt_few") < 4) await waitSteps(1);
  assertEquals(few.lastDecisionTick, first + 3600, "a minute after its first decision, the next starts");
  // The window slides: the decisions of ticks +10 and +20 expire in turn, then it is full again.
  await waitSteps(40);
  assertEquals(made("agt_few"), 6);
  assertEquals(deferred("agt_few").length, 2, "held again, and traced again");
  sys.dispose();
  session.dispose();
});
