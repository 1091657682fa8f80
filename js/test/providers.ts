// The LLM providers against a real local HTTP server process speaking the
// Ollama and OpenAI-compatible APIs (tests/llm_server.py).
import { assert, assertEquals, assertRejects, test } from "limina/testing";
import { type DecideRequest, GatewayProvider, OllamaChat, OllamaProvider, ScriptedProvider } from "limina";

const log = `/tmp/limina-llm-${Date.now()}.jsonl`;
const started = await Limina.run({ cmd: "bash", args: ["-c", `python3 tests/llm_server.py --log ${log} > ${log}.out 2>&1 & echo $!`] });
const pid = started.stdout.trim();
let port = 0;
for (let i = 0; i < 200 && !port; i++) {
  await new Promise((r) => setTimeout(r, 20));
  const out = await Limina.run({ cmd: "cat", args: [`${log}.out`] });
  port = Number(/port (\d+)/.exec(out.stdout)?.[1] ?? 0);
}
const base = `http://127.0.0.1:${port}`;

const request: DecideRequest = {
  systemPrompt: "You are a test agent.",
  perception: { selfId: "agt_t", nearby: [{ id: "ent_2", position: [1, 0, 0], distance: 1 }], recentEvents: [], tick: 3 },
  tools: [{ name: "agent.emitEvent", description: "Emit", inputSchema: { type: "object" } }, { name: "scene.queryEntities", description: "Query", inputSchema: { type: "object" } }],
  previousResults: [],
};

async function lastRequest() {
  const out = await Limina.run({ cmd: "tail", args: ["-n", "1", log] });
  return JSON.parse(out.stdout);
}

test("the local server is up", () => assert(port > 0, "tests/llm_server.py did not start"));

test("OllamaProvider: native tool calls, '.' encoded as '__', temperature 0", async () => {
  const p = new OllamaProvider({ baseUrl: base, model: "tool" });
  const r = await p.decide(request);
  assertEquals(r.toolCalls, [{ tool: "agent.emitEvent", input: { type: "hello", payload: { from: "llm" } } }]);
  assertEquals(r.usage?.totalTokens, 40);
  const sent = await lastRequest();
  assertEquals(sent.path, "/api/chat");
  assertEquals(sent.body.options.temperature, 0);
  assertEquals(sent.body.tools.map((t: { function: { name: string } }) => t.function.name), ["agent__emitEvent", "scene__queryEntities"]);
  assertEquals(JSON.parse(sent.body.messages[1].content).perception.selfId, "agt_t");
});

test("OllamaProvider: the JSON-object-in-content fallback", async () => {
  const r = await new OllamaProvider({ baseUrl: base, model: "text" }).decide(request);
  assertEquals(r.toolCalls[0].tool, "agent.emitEvent");
});

test("honest failures: empty reply, bad JSON, dead server, timeout, https", async () => {
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "empty" }).decide(request), { message: "no tool call" });
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "badjson" }).decide(request), { message: "not JSON" });
  await assertRejects(new OllamaProvider({ baseUrl: "http://127.0.0.1:1", model: "tool" }).decide(request), { message: "cannot connect" });
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "slow", timeoutMs: 100 }).decide(request), { message: "no response within 100 ms" });
  await assertRejects(new GatewayProvider({ baseUrl: "https://gateway.example/v1", model: "m" }).decide(request), { message: "no TLS" });
});

test("GatewayProvider: OpenAI-compatible /chat/completions with a bearer key", async () => {
  const g = new GatewayProvider({ baseUrl: `${base}/v1`, apiKey: "sk-test", model: "tool" });
  const r = await g.decide(request);
  assertEquals(r.toolCalls, [{ tool: "agent.emitEvent", input: { type: "hello", payload: { from: "llm" } } }]);
  assertEquals(r.usage?.totalTokens, 42);
  const sent = await lastRequest();
  assertEquals([sent.path, sent.auth, sent.body.temperature, sent.body.tool_choice], ["/v1/chat/completions", "Bearer sk-test", 0, "auto"]);
  const text = await new GatewayProvider({ baseUrl: `${base}/v1`, model: "text" }).decide(request);
  assertEquals(text.toolCalls[0].tool, "agent.emitEvent");
  await assertRejects(new GatewayProvider({ baseUrl: `${base}/v1`, model: "empty" }).decide(request), { message: "no tool call" });
});

test("GatewayProvider: configured from the environment, or refusing honestly", async () => {
  const env = await Limina.run({
    cmd: "bash",
    args: ["-c", `LIMINA_GATEWAY_URL=${base}/v1 LIMINA_GATEWAY_MODEL=tool '${Limina.execPath}' tests/fixtures/gateway_env.ts`],
  });
  assertEquals(env.code, 0, env.stderr);
  assertEquals(env.stdout.trim(), "agent.emitEvent");
  const bare = await Limina.run({ cmd: "env", args: ["-u", "LIMINA_GATEWAY_URL", Limina.execPath, "tests/fixtures/gateway_env.ts"] });
  assertEquals(bare.code, 1);
  assert(bare.stderr.includes("GatewayProvider is not configured"), bare.stderr);
});

test("OllamaChat: free-form lines, and nothing is an error", async () => {
  assertEquals(await new OllamaChat({ baseUrl: base, model: "chat" }).chat([{ role: "user", content: "hi" }]), "Hello there, traveller.");
  await assertRejects(new OllamaChat({ baseUrl: base, model: "empty" }).chat([{ role: "user", content: "hi" }]), { message: "replied with nothing" });
});

test("ScriptedProvider is a pure function of the request", async () => {
  const s = new ScriptedProvider((req) => [{ tool: "agent.emitEvent", input: { type: `n${req.perception.nearby.length}` } }]);
  assertEquals((await s.decide(request)).toolCalls, [{ tool: "agent.emitEvent", input: { type: "n1" } }]);
});

test("stop the server", async () => {
  await Limina.run({ cmd: "kill", args: [pid] });
});
