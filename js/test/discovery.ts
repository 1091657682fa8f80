// limina: --deterministic
// LLM players' progressive discovery, surface modes and prompt accounting,
// against a local stand-in OpenAI-compatible server that records every
// request (tests/llm_server.py): what each decision offered is read back
// from what was actually sent.
import { assert, assertEquals, test } from "limina/testing";
import {
  type AgentSpec,
  createAgentSystems,
  createWorldSession,
  type DecideRequest,
  GatewayProvider,
  LIST_SKILLS,
  type LLMProvider,
  MAX_CORE,
  type MCPRequest,
  OllamaProvider,
  parseActions,
  READ_SKILL,
  resolveSurfaceMode,
  ScriptedProvider,
  type SkillDefinition,
  SURFACE_RULES,
} from "limina";
import { type LoggedRequest, startLlmServer, until } from "./support/llm_server.ts";

const server = await startLlmServer();
const gateway = (model: string) => new GatewayProvider({ baseUrl: `http://127.0.0.1:${server.port}/v1`, model, timeoutMs: 20_000 });

type Session = ReturnType<typeof createWorldSession>;

/** A world with one player agent deciding through `provider` every 5 ticks. */
function world(provider: ConstructorParameters<typeof ScriptedProvider>[0] | LLMProvider, spec: Partial<AgentSpec> = {}) {
  const session = createWorldSession();
  const sys = createAgentSystems(session, { p: typeof provider === "function" ? new ScriptedProvider(provider) : provider });
  const agent = sys.agents.add({
    id: "agt_p",
    type: "player",
    anchor: [0, 0, 0],
    decisionIntervalTicks: 5,
    profile: "player.limited",
    sessionId: "ses_p",
    llm: { provider: "p", model: "", systemPrompt: "You are a test player." },
    ...spec,
  });
  const events = (type: string) => session.tracer.history().filter((e) => e.type === type && e.actorId === agent.id);
  const close = async () => {
    // Decisions still in flight are abandoned: nothing they bring is recorded.
    sys.dispose();
    await sys.action.settled();
    session.dispose();
  };
  return { session, sys, agent, events, close };
}

/** The requests this suite's server got for `model`, oldest first. */
async function sent(model: string): Promise<LoggedRequest[]> {
  return (await server.requests()).filter((r) => r.body.model === model);
}
const toolNames = (r: LoggedRequest): string[] => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);

test("the stand-in server is up", () => assert(server.port > 0, "tests/llm_server.py did not start"));

test("progressive: the first request offers ≤ 16 core tools plus list_skills and read_skill; after read_skill the next carries that skill, and its call runs", async () => {
  const model = "discover:camera.get";
  const w = world(gateway(model), { llm: { provider: "p", model: "", systemPrompt: "You are a test player." } });
  await until(() => w.events("skill.executed").some((e) => (e.payload as { skill: string }).skill === "camera.get"), "camera.get to run");
  const [first, second] = await sent(model);
  const offered = toolNames(first);
  assert(offered.includes(LIST_SKILLS) && offered.includes(READ_SKILL), `the discovery tools are offered: ${offered}`);
  const core = offered.filter((n) => n !== LIST_SKILLS && n !== READ_SKILL);
  assert(core.length >= 1 && core.length <= MAX_CORE, `${core.length} core tools`);
  assertEquals(core, ["agent__getPerception", "scene__queryEntities", "physics__raycast", "physics__applyImpulse", "agent__emitEvent", "interaction__list", "interaction__interact", "interaction__pickup", "inventory__list", "game__status"], "player.limited's core set, by purpose");
  assert(!offered.includes("camera__get"), "camera.get is not offered before it is read");
  assert(toolNames(second).includes("camera__get"), `the next request carries it: ${toolNames(second)}`);
  // The contract read_skill returned reaches the next decision, once.
  const user = JSON.parse(second.body.messages[1].content);
  assertEquals(user.discovery[0].tool, READ_SKILL);
  assertEquals(user.discovery[0].result.id, "camera.get");
  assertEquals(user.discovery[0].result.input_schema.type, "object");
  const activated = w.events("agent.skill.activated").map((e) => e.payload as { skill: string; active: string[] });
  assertEquals(activated[0].skill, "camera.get");
  assertEquals(activated[0].active, ["camera.get"]);
  const made = w.events("agent.decision.made").map((e) => e.payload as { prompt: { tools: number; activeSkills: string[] } });
  assertEquals([made[0].prompt.tools, made[1].prompt.tools], [offered.length, offered.length + 1], "the trace counts the tools offered");
  assertEquals(made[1].prompt.activeSkills, ["camera.get"]);
  await w.close();
});

test("prompt accounting: each decision records the size of what was sent; audit.usage reports tokens in/out per agent from the replies", async () => {
  const model = "call:agent.emitEvent:{\"type\":\"counted\"}";
  const w = world(gateway(model));
  await until(() => w.events("agent.decision.made").length >= 3, "three decisions");
  const requests = await sent(model);
  const made = w.events("agent.decision.made").map((e) => e.payload as { prompt: { chars: number; tokens: number; tools: number }; usage: { promptTokens: number; completionTokens: number } });
  for (let i = 0; i < 3; i++) {
    const body = requests[i].body;
    const chars = body.messages.reduce((n: number, m: { content: string }) => n + m.content.length, 0) + JSON.stringify(body.tools).length;
    assertEquals(made[i].prompt.chars, chars, `decision ${i + 1}: characters sent`);
    assertEquals(made[i].prompt.tokens, Math.ceil(chars / 4));
    assertEquals(made[i].prompt.tools, body.tools.length);
    assertEquals([made[i].usage.promptTokens, made[i].usage.completionTokens], [30, 12], "the reply's usage");
  }
  // Decisions go on while audit.usage runs: it counts those answered by the time it reads.
  const before = w.events("agent.decision.made").length;
  const usage = await w.session.registry.invoke("audit.usage", {}, { agentId: "operator", sessionId: "ses_op", permissions: [] });
  const after = w.events("agent.decision.made").length;
  assert(usage.ok, JSON.stringify(usage));
  const mine = (usage.value as { agents: { agentId: string; decisions: number; promptTokens: number; completionTokens: number; estimatedPromptTokens: number }[] }).agents.find((a) => a.agentId === "agt_p")!;
  const answered = mine.promptTokens / 30;
  assert(Number.isInteger(answered) && answered >= before && answered <= after, `tokens in summed from the providers' usage: ${mine.promptTokens} for ${before}..${after} answered`);
  assertEquals(mine.completionTokens, 12 * answered, "tokens out summed from the providers' usage");
  assert(mine.decisions >= answered && mine.estimatedPromptTokens >= made[0].prompt.tokens * answered, JSON.stringify(mine));
  await w.close();
});

test("full catalog (discovery mode full): every skill the profile may call, and no discovery tools", async () => {
  const model = "call:agent.emitEvent:{\"type\":\"full\"}";
  const w = world(gateway(model), { discovery: { mode: "full" } });
  await until(() => w.events("agent.decision.made").length >= 1, "a decision");
  const [first] = await sent(model);
  const permitted = w.sys.decision.surface.permitted("player.limited").map((s) => s.name.replaceAll(".", "__"));
  assertEquals(toolNames(first), permitted);
  assert(permitted.length > MAX_CORE + 2, `${permitted.length} permitted skills`);
  await w.close();
});

test("system-prompt mode: the skills go into the system message instead of the tools, and a grammar reply is executed", async () => {
  const model = "grammar:agent.emitEvent:{\"type\":\"waved\"}";
  const w = world(gateway(model), { discovery: { surfaceRules: [{ provider: "gateway", model: "grammar:*", mode: "system-prompt" }] } });
  await until(() => w.events("skill.executed").length >= 1, "the grammar action to run");
  const [first] = await sent(model);
  assertEquals(first.body.tools, undefined, "no tools in the request");
  const system: string = first.body.messages[0].content;
  assert(system.startsWith("You are a test player."), "the agent's own prompt first");
  for (const name of ["agent.emitEvent", "scene.queryEntities", "list_skills", "read_skill"]) assert(system.includes(`- ${name}: `), `${name}'s contract is in the system message`);
  assert(system.includes('{"actions":[{"tool":"<skill id>","input":{…}}]}'), "the grammar is stated");
  const executed = w.events("skill.executed")[0].payload as { skill: string; input: { type: string } };
  assertEquals([executed.skill, executed.input.type], ["agent.emitEvent", "waved"]);
  const made = w.events("agent.decision.made")[0].payload as { prompt: { tools: number; prompted: number } };
  assertEquals(made.prompt.tools, 0);
  assert(made.prompt.prompted >= 7, `prompted ${made.prompt.prompted}`);
  await w.close();
});

test("Ollama too: progressive discovery over /api/chat, and system-prompt mode answered in the grammar", async () => {
  const ollama = (model: string) => new OllamaProvider({ baseUrl: `http://127.0.0.1:${server.port}`, model, timeoutMs: 20_000 });
  const discover = world(ollama("discover:camera.get"));
  await until(() => discover.events("skill.executed").some((e) => (e.payload as { skill: string }).skill === "camera.get"), "camera.get to run over Ollama");
  const [first, second] = (await sent("discover:camera.get")).filter((r) => r.path === "/api/chat");
  assert(toolNames(first).includes(READ_SKILL) && toolNames(first).length <= MAX_CORE + 2 && !toolNames(first).includes("camera__get"), toolNames(first).join(" "));
  assert(toolNames(second).includes("camera__get"), "the next request carries the skill read");
  await discover.close();
  const model = "grammar:agent.emitEvent:{\"type\":\"ollama\"}";
  const prompted = world(ollama(model), { discovery: { surfaceRules: [{ provider: "ollama", model: "grammar:*", mode: "system-prompt" }] } });
  await until(() => prompted.events("skill.executed").length >= 1, "the grammar action to run over Ollama");
  const [req] = (await sent(model)).filter((r) => r.path === "/api/chat");
  assertEquals(req.body.tools, undefined);
  assert(req.body.messages[0].content.includes("- agent.emitEvent: "), "the contract is in the system message");
  assertEquals((prompted.events("skill.executed")[0].payload as { input: { type: string } }).input.type, "ollama");
  await prompted.close();
});

test("both: a skill whose own surfaceMode is `both` is in the tools and the system message", async () => {
  const model = "call:agent.emitEvent:{\"type\":\"both\"}";
  const w = world(gateway(model));
  const emit = w.session.registry.get("agent.emitEvent")! as SkillDefinition;
  w.session.registry.replace({ ...emit, surfaceMode: "both" });
  await until(() => w.events("agent.decision.made").length >= 1, "a decision");
  const [first] = await sent(model);
  assert(toolNames(first).includes("agent__emitEvent"), "as a tool");
  assert(first.body.messages[0].content.includes("- agent.emitEvent: "), "and in the system message");
  assert(!first.body.messages[0].content.includes("- scene.queryEntities: "), "the others stay tools only");
  await w.close();
});

test("the surface-mode cascade: the skill's own, else the registry default, else the agent's rules, else the built-in rules, else tool-only", () => {
  const agentRules = [{ provider: "ollama", model: "qwen*", mode: "both" as const }];
  assertEquals(resolveSurfaceMode({ surfaceMode: "tool-only" }, "system-prompt", "ollama", "gemma3:4b", agentRules), "tool-only");
  assertEquals(resolveSurfaceMode({}, "system-prompt", "ollama", "qwen2.5:7b", agentRules), "system-prompt");
  assertEquals(resolveSurfaceMode({}, undefined, "ollama", "qwen2.5:7b", agentRules), "both");
  assertEquals(resolveSurfaceMode({}, undefined, "ollama", "gemma3:4b", agentRules), "system-prompt");
  assertEquals(resolveSurfaceMode({}, undefined, "ollama", "GEMMA2", []), "system-prompt", "models match case-insensitively");
  assertEquals(resolveSurfaceMode({}, undefined, "gateway", "gemma3:4b", []), "tool-only", "rules are per provider");
  assertEquals(resolveSurfaceMode(null, undefined, "ollama", "llama3.1:8b", []), "tool-only");
  assert(SURFACE_RULES.every((r) => r.why), "every built-in rule says why");
});

test("a malformed reply (neither a tool call nor the grammar) is a traced error for that agent, and nothing else happens", async () => {
  const model = "prose";
  const w = world(gateway(model));
  const before = w.session.tracer.history().length;
  await until(() => w.events("agent.decision.failed").length >= 2, "two failed decisions");
  const failed = w.events("agent.decision.failed")[0].payload as { error: string; malformed: boolean; reply: string; prompt: { tools: number } };
  assert(failed.error.startsWith("gateway: the reply is neither a tool call nor actions in the JSON grammar: not JSON"), failed.error);
  assertEquals(failed.malformed, true);
  assertEquals(failed.reply, "I think I will wave at the traveller and then look around.");
  assert(failed.prompt.tools > 0, "the failed decision's prompt is accounted too");
  const since = w.session.tracer.history().slice(before).filter((e) => e.actorId === "agt_p").map((e) => e.type);
  assertEquals([...new Set(since)].sort(), ["agent.decision.failed", "agent.perception.updated"], "no action, no rejection, nothing queued");
  assertEquals(w.agent.queue.length, 0);
  await w.close();
});

test("native tool calls with arguments that are not JSON are malformed too", async () => {
  const w = world(gateway("badargs"));
  await until(() => w.events("agent.decision.failed").length >= 1, "a failed decision");
  const failed = w.events("agent.decision.failed")[0].payload as { error: string; malformed: boolean; reply: string };
  assertEquals([failed.error, failed.malformed, failed.reply], ["gateway: the arguments of tool call 1 (agent__emitEvent) are not JSON", true, "{type: hello"]);
  assertEquals(w.events("skill.executed").length, 0);
  await w.close();
});

test("the JSON action grammar: strict forms accepted, everything else refused with the reason", () => {
  const ok = (text: string) => {
    const r = parseActions(text);
    assert(r.ok, `${text}: ${r.ok ? "" : r.error}`);
    return r.ok ? r.calls : [];
  };
  const bad = (text: string, why: string) => {
    const r = parseActions(text);
    assert(!r.ok && r.error.includes(why), `${text}: ${JSON.stringify(r)}`);
  };
  assertEquals(ok('{"actions":[{"tool":"agent.emitEvent","input":{"type":"a"}}]}'), [{ tool: "agent.emitEvent", input: { type: "a" } }]);
  assertEquals(ok('```json\n{"name":"agent__emitEvent","arguments":"{\\"type\\":\\"b\\"}"}\n```'), [{ tool: "agent.emitEvent", input: { type: "b" } }]);
  assertEquals(ok('  [{"tool":"camera.get"},{"tool":"scene.queryEntities","input":{}}] '), [{ tool: "camera.get", input: {} }, { tool: "scene.queryEntities", input: {} }]);
  bad("Sure! I'll wave.", "not JSON");
  bad('Here you go: {"tool":"camera.get"}', "not JSON");
  bad('```json\n{"tool":"camera.get"}\n```\nDone.', "one ```json block");
  bad('{"actions":[],"why":"x"}', 'unexpected key "why"');
  bad('{"actions":[]}', "no action");
  bad('{"actions":{"tool":"x.y"}}', '"actions" must be a list');
  bad('{"tool":"camera.get","input":[1]}', '"input" must be an object');
  bad('{"tool":"camera.get","args":{}}', 'unexpected key "args"');
  bad('{"tool":7}', '"tool" must be a skill id');
  bad("[1]", "action 1");
});

test("active skills are bounded by count: the least recently used is dropped, and the trace says so", async () => {
  const reads = ["camera.get", "trace.tail", "skills.list", "trace.explainEvent"];
  let n = 0;
  const w = world(() => (n < reads.length ? [{ tool: READ_SKILL, input: { id: reads[n++] } }] : [{ tool: "camera.get", input: {} }]), { discovery: { maxActive: 2 } });
  await until(() => w.events("skill.executed").length >= 1, "camera.get to run");
  const activated = w.events("agent.skill.activated").map((e) => e.payload as { skill: string; active: string[]; dropped: string[] });
  assertEquals(activated.map((a) => a.skill), reads);
  assertEquals(activated.map((a) => a.dropped), [[], [], ["camera.get"], ["trace.tail"]]);
  assertEquals(activated[3].active, ["trace.explainEvent", "skills.list"]);
  // Using a skill that is not active makes it the most recent again.
  assertEquals(w.agent.active[0], "camera.get");
  const dropped = w.events("agent.skill.dropped").map((e) => e.payload as { skills: string[] });
  assertEquals(dropped[0].skills, ["skills.list"]);
  await w.close();
});

test("active skills are bounded by prompt budget too", async () => {
  const reads = ["trace.tail", "camera.get", "skills.list"];
  let n = 0;
  const w = world(() => [{ tool: READ_SKILL, input: { id: reads[n++ % reads.length] } }], { discovery: { activeBudgetTokens: 150 } });
  await until(() => w.events("agent.skill.activated").length >= 3, "three activations");
  const surface = w.sys.decision.surface;
  const cost = (names: string[]) => names.reduce((sum, name) => sum + surface.costOf(name), 0);
  for (const e of w.events("agent.skill.activated")) {
    const { active } = e.payload as { active: string[] };
    assert(active.length === 1 || cost(active) <= 150, `over the budget: ${active} (${cost(active)} tokens)`);
  }
  assert(w.events("agent.skill.activated").some((e) => (e.payload as { dropped: string[] }).dropped.length > 0), "something was dropped for the budget");
  await w.close();
});

test("an agent's offer is kept while nothing it is made from changes, and the next offer shows any change to it", async () => {
  const w = world(() => []);
  const surface = w.sys.decision.surface;
  const scripted = new ScriptedProvider(() => []);
  const decide = () => Promise.resolve({ toolCalls: [] });
  type Offer = ReturnType<typeof surface.offer>;
  const names = (o: Offer) => o.tools.map((t) => t.name);
  const first = surface.offer(w.agent, scripted);
  assert(Object.isFrozen(first.tools) && Object.isFrozen(first.prompted) && Object.isFrozen(first.active), "a kept offer's lists cannot be changed by whoever reads them");
  assert(surface.offer(w.agent, scripted) === first, "kept while nothing changed");
  /** The offer after `change`: a new one, which `check` inspects; then kept again. */
  const after = (change: () => void, provider: LLMProvider, check: (o: Offer) => boolean, what: string) => {
    change();
    const o = surface.offer(w.agent, provider);
    assert(check(o), `the next offer shows ${what}`);
    assert(surface.offer(w.agent, provider) === o, `kept after ${what}`);
  };
  const gone = first.tools[0].name;
  after(() => w.session.registry.unregister(gone), scripted, (o) => !names(o).includes(gone), "a skill unregistered");
  after(() => surface.activate(w.agent, "camera.get"), scripted, (o) => names(o).includes("camera.get") && o.active[0] === "camera.get", "an activated skill");
  after(() => (w.agent.active = []), scripted, (o) => !names(o).includes("camera.get") && o.active.length === 0, "active skills cleared");
  after(() => (w.session.registry.defaultSurfaceMode = "system-prompt"), scripted, (o) => o.tools.length === 0 && o.prompted.length > 0, "the registry's default mode");
  after(() => (w.session.registry.defaultSurfaceMode = undefined), scripted, (o) => o.prompted.length === 0, "the default mode unset");
  after(() => (w.agent.llm.systemPrompt = "Another persona."), scripted, (o) => o.systemPrompt === "Another persona.", "the agent's prompt");
  after(() => (w.agent.llm.model = "gemma3:4b"), scripted, (o) => o.prompted.length === 0, "a model no rule of this provider's names");
  const ollama: LLMProvider = { name: "ollama", decide };
  after(() => {}, ollama, (o) => o.tools.length === 0 && o.prompted.length > 0, "another provider");
  after(() => (w.agent.llm.model = ""), ollama, (o) => o.prompted.length === 0, "the agent's model");
  const phi = { name: "ollama", model: "llama3.1", decide };
  after(() => {}, phi, (o) => o.prompted.length === 0, "a provider with a model");
  after(() => (phi.model = "phi3"), phi, (o) => o.prompted.length > 0, "the provider's model");
  after(() => (w.agent.discovery.surfaceRules = [{ provider: "scripted", model: "*", mode: "both" }]), scripted, (o) => o.prompted.length > 0 && o.tools.length === o.prompted.length, "the agent's surface rules");
  after(() => (w.agent.discovery.surfaceRules = [{ provider: "scripted", model: "*", mode: "tool-only" }]), scripted, (o) => o.prompted.length === 0, "other rules");
  after(() => (w.agent.discovery.surfaceRules = []), scripted, (o) => o.prompted.length === 0, "the rules removed");
  after(() => w.agent.discovery.surfaceRules.push({ provider: "scripted", model: "*", mode: "system-prompt" }), scripted, (o) => o.tools.length === 0, "a rule added in place");
  w.agent.discovery.surfaceRules = [];
  after(() => (w.agent.discovery.core = ["camera.get"]), scripted, (o) => names(o).join() === `camera.get,${LIST_SKILLS},${READ_SKILL}`, "the agent's own core set");
  after(() => (w.agent.discovery.core![0] = "trace.tail"), scripted, (o) => names(o)[0] === "trace.tail", "its core set changed in place");
  after(() => (w.agent.discovery.mode = "full"), scripted, (o) => !names(o).includes(LIST_SKILLS) && o.tools.length > 2, "full discovery");
  after(() => (w.agent.profile = "builder.readWrite"), scripted, (o) => names(o).includes("scene.createEntity"), "the agent's profile");
  await w.close();
});

test("list_skills: what the profile may call beyond the core set, by family or words; read_skill refuses what it may not call", async () => {
  const calls: MCPRequest[][] = [
    [{ tool: LIST_SKILLS, input: {} }, { tool: LIST_SKILLS, input: { family: "ui" } }, { tool: LIST_SKILLS, input: { query: "trace" } }],
    [{ tool: READ_SKILL, input: { id: "scene.createEntity" } }, { tool: READ_SKILL, input: { id: "no.suchSkill" } }, { tool: LIST_SKILLS, input: { family: 7 } }],
  ];
  const seen: DecideRequest[] = [];
  let n = 0;
  const w = world((req) => {
    seen.push(req);
    return calls[n++] ?? [{ tool: "camera.get", input: {} }];
  });
  await until(() => seen.length >= 3, "three decisions");
  const answers = seen[1].discovery as { input: { family?: string }; result: { skills: { id: string }[]; total: number } }[];
  const all = answers[0].result.skills.map((s) => s.id);
  assert(all.includes("camera.get") && all.includes("trace.tail"), `${all}`);
  assert(!all.includes("scene.createEntity") && !all.includes("ui.label"), "nothing the profile may not call");
  assert(!all.includes("agent.emitEvent"), "nor what the core set already offers");
  assertEquals(answers[0].result.total, all.length);
  assertEquals(answers[1].result.skills, [], "player.limited may call no ui.* skill");
  assert(answers[2].result.skills.length > 0 && answers[2].result.skills.every((s) => s.id.includes("trace") || JSON.stringify(s).toLowerCase().includes("trace")), JSON.stringify(answers[2]));
  const rejected = w.events("agent.toolcall.rejected").map((e) => e.payload as { tool: string; code: string; reason: string });
  assertEquals(rejected.map((r) => [r.tool, r.code]), [[READ_SKILL, "forbidden"], [READ_SKILL, "not_found"], [LIST_SKILLS, "invalid_input"]]);
  assert(rejected[0].reason.includes("scene.write"), rejected[0].reason);
  assertEquals(seen[2].discovery!.length, 3, "the failures are answered to the model too");
  assertEquals(seen[3]?.discovery ?? [], [], "answers are given once");
  await w.close();
});

test("a forbidden tool call is rejected before it is queued: a traced error for that agent, with zero effect", async () => {
  const w = world(gateway("call:scene.createEntity:{\"shape\":\"box\"}"));
  const entities = w.session.world.entities.size;
  await until(() => w.events("agent.toolcall.rejected").length >= 2, "two rejections");
  const r = w.events("agent.toolcall.rejected")[0];
  assertEquals((r.payload as { code: string }).code, "forbidden");
  const denied = w.session.tracer.get(r.causedBy[1])!;
  assertEquals([denied.type, (denied.payload as { missing: string }).missing], ["security.permission.denied", "scene.write"]);
  assertEquals(w.agent.queue.length, 0);
  assertEquals(w.session.world.entities.size, entities);
  assertEquals(w.events("skill.executed").length + w.events("skill.failed").length, 0);
  await w.close();
});

test("stop the server", () => server.stop());
