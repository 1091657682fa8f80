// Hostile LLM providers against one real-time world: a provider answering
// with a huge body, invalid JSON, a tool call its agent may not make, a
// never-ending stream and a slow drip — each a traced error for that agent
// only, while a healthy agent acts and the world keeps stepping: steps run
// while a request waits, and none of it is done on the loop in one piece.
import { assert, assertEquals, test } from "limina/testing";
import { createAgentSystems, createWorldSession, DEFAULT_BUDGET, type DecideRequest, GatewayProvider, stepsRun, waitSteps } from "limina";
import { startLlmServer } from "./support/llm_server.ts";
import { LoopCpuWatch } from "./support/loop_cpu.ts";

const server = await startLlmServer();

/**
 * Agent → the stand-in model it talks to, and what its decisions must fail
 * with. Only the drip's failure is a timeout (its reply would take 50 s).
 * Every other provider waits 30 s (the default), so a prompt reply, or a
 * size cap, comes first however loaded the machine: a 1.5 s wait there made
 * the healthy agent (and badjson's, forbidden's) fail when the stand-in
 * server was starved of CPU.
 */
const HOSTILE: Record<string, { model: string; event: string; code: string; message: string; timeoutMs?: number }> = {
  agt_huge: { model: "huge-json", event: "agent.decision.failed", code: "capacity_exceeded", message: "response body over 32 MiB" },
  agt_badjson: { model: "badjson", event: "agent.decision.failed", code: "", message: "answered with a body that is not JSON: {not json" },
  agt_forbidden: { model: "call:scene.createEntity:{\"shape\":\"box\"}", event: "agent.toolcall.rejected", code: "forbidden", message: "forbidden: profile player.limited does not grant scene.write" },
  agt_endless: { model: "huge-stream", event: "agent.decision.failed", code: "capacity_exceeded", message: "response body over 32 MiB" },
  agt_drip: { model: "drip", event: "agent.decision.failed", code: "io_error", message: "no complete response within 1500 ms", timeoutMs: 1500 },
};

test("the stand-in server is up", () => assert(server.port > 0, "tests/llm_server.py did not start"));

test("each hostile provider is a traced error for its agent only; a healthy agent acts; the world keeps its steps", async () => {
  const session = createWorldSession();
  const provider = (model: string, timeoutMs?: number) => new GatewayProvider({ baseUrl: `http://127.0.0.1:${server.port}/v1`, model, timeoutMs, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  const providers = Object.fromEntries([...Object.entries(HOSTILE).map(([id, h]) => [id, provider(h.model, h.timeoutMs)]), ["agt_healthy", provider("call:agent.emitEvent:{\"type\":\"fine\"}")]]);
  // Steps run while each of the drip's requests waits out its 1.5 s (90 are due): a loop that waited for the
  // answer would run none until it failed.
  const dripSpans: number[] = [];
  const drip = providers.agt_drip;
  const decide = drip.decide.bind(drip);
  drip.decide = (req: DecideRequest) => {
    const from = stepsRun();
    return decide(req).finally(() => dripSpans.push(stepsRun() - from));
  };
  const sys = createAgentSystems(session, providers, { budget: { ...DEFAULT_BUDGET, defaultAgentBudget: { ...DEFAULT_BUDGET.defaultAgentBudget, decisionTimeoutMs: 30_000 } } });
  for (const id of Object.keys(providers)) {
    sys.agents.add({ id, type: "player", anchor: [0, 0, 0], decisionIntervalTicks: 20, profile: "player.limited", sessionId: `ses_${id}`, llm: { provider: id, model: "", systemPrompt: "" } });
  }
  const entities = session.world.entities.size;
  const cpu = new LoopCpuWatch();
  const t0 = performance.now();
  const of = (id: string, type: string) => session.tracer.history().filter((e) => e.actorId === id && e.type === type);
  // Until every hostile agent has failed twice (its second decision came after the first failure) and the healthy one has acted twice, within a minute.
  const done = () => Object.entries(HOSTILE).every(([id, h]) => of(id, h.event).length >= 2) && of("agt_healthy", "skill.executed").length >= 2;
  while (!done() && performance.now() - t0 < 60_000) await waitSteps(10);
  const seconds = (performance.now() - t0) / 1000;
  cpu.stop();
  for (const [id, h] of Object.entries(HOSTILE)) {
    const errors = of(id, h.event).map((e) => e.payload as { code?: string; error?: string; reason?: string });
    assert(errors.length >= 2, `${id}: ${errors.length} errors`);
    const text = errors[0].error ?? errors[0].reason ?? "";
    assert(text.includes(h.message), `${id}: ${text}`);
    if (h.code) assertEquals(errors[0].code, h.code, `${id}'s error code`);
    assertEquals(of(id, "skill.executed").length, 0, `${id} did nothing`);
  }
  const healthy = of("agt_healthy", "skill.executed").length;
  assert(healthy >= 2, `the healthy agent acted (${healthy})`);
  assertEquals(of("agt_healthy", "agent.decision.failed").length + of("agt_healthy", "agent.toolcall.rejected").length, 0, "and nothing failed for it");
  assertEquals(session.world.entities.size, entities, "the forbidden call had no effect");
  assert(dripSpans.length >= 2 && dripSpans.every((n) => n >= 30), `steps run while the drip's requests waited: ${dripSpans.join(", ")}`);
  // The 32 MiB bodies are read in pieces between steps, never in one (some 20 ms of CPU is the longest here), and
  // all of it takes the loop far less than a step's 16.7 ms on average.
  const cpuPerStep = (cpu.lastMs - cpu.startMs) / cpu.steps;
  assert(cpu.maxGapMs < 100, `the loop's longest stretch of CPU between two steps: ${cpu.maxGapMs.toFixed(1)} ms`);
  assert(cpuPerStep < 8, `the loop's CPU per step: ${cpuPerStep.toFixed(2)} ms`);
  console.log(`hostile providers: ${cpu.steps} steps in ${seconds.toFixed(2)} s; drip's requests spanned ${dripSpans.join(", ")} steps; loop CPU ${cpuPerStep.toFixed(2)} ms a step, ${cpu.maxGapMs.toFixed(1)} ms at most between two`);
  sys.dispose();
  await sys.action.settled();
  session.dispose();
});

test("stop the server", () => server.stop());
