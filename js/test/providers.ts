// limina: waits
// The LLM providers against a real local HTTP(S) server process speaking the
// Ollama and OpenAI-compatible APIs, or attacking the client as a hostile or
// broken server would (tests/llm_server.py).
import { assert, assertEquals, assertRejects, test } from "limina/testing";
import { createAgentSystems, createWorldSession, type DecideRequest, GatewayProvider, OllamaChat, OllamaProvider, retryAfterMs, ScriptedProvider, waitSteps } from "limina";
import { startLlmServer } from "./support/llm_server.ts";
import { LoopCpuWatch } from "./support/loop_cpu.ts";

const plain = await startLlmServer();
const tls = await startLlmServer("--tls tests/fixtures/tls/server.pem tests/fixtures/tls/server.key");
const port = plain.port;
const tlsPort = tls.port;
const base = `http://127.0.0.1:${port}`;
const tlsBase = `https://127.0.0.1:${tlsPort}`;

const request: DecideRequest = {
  systemPrompt: "You are a test agent.",
  perception: { selfId: "agt_t", nearby: [{ id: "ent_2", position: [1, 0, 0], distance: 1 }], recentEvents: [], tick: 3 },
  tools: [{ name: "agent.emitEvent", description: "Emit", inputSchema: { type: "object" } }, { name: "scene.queryEntities", description: "Query", inputSchema: { type: "object" } }],
  previousResults: [],
};

async function lastRequest() {
  return (await plain.requests()).at(-1)!;
}

const requestsLogged = async () => (await plain.requests()).length;

/** This process's peak resident memory, in MiB. */
async function peakMiB(): Promise<number> {
  const status = await Limina.run({ cmd: "bash", args: ["-c", "grep VmHWM /proc/$PPID/status"] });
  return Number(/(\d+)/.exec(status.stdout)?.[1] ?? NaN) / 1024;
}

test("the local servers are up", () => assert(port > 0 && tlsPort > 0, "tests/llm_server.py did not start"));

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

test("honest failures: empty reply, bad JSON, dead server, timeout", async () => {
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "empty" }).decide(request), { message: "no tool call" });
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "badjson" }).decide(request), { message: "not JSON" });
  await assertRejects(new OllamaProvider({ baseUrl: "http://127.0.0.1:1", model: "tool" }).decide(request), { code: "io_error", message: "cannot connect to 127.0.0.1:1" });
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "slow", timeoutMs: 100 }).decide(request), { code: "io_error", message: "no complete response within 100 ms" });
});

test("bad input is refused precisely before anything is sent", async () => {
  const before = await requestsLogged();
  await assertRejects(new OllamaProvider({ baseUrl: `${base}/x\r\nX-Evil: 1`, model: "tool" }).decide(request), { code: "invalid_input", message: `has '\\r' at byte ${base.length + 2}` });
  await assertRejects(new OllamaProvider({ baseUrl: `${base}/a b`, model: "tool" }).decide(request), { code: "invalid_input", message: "has ' ' at byte" });
  await assertRejects(new OllamaProvider({ baseUrl: "ftp://127.0.0.1", model: "tool" }).decide(request), { code: "invalid_input", message: "not an http:// or https:// URL" });
  await assertRejects(new OllamaProvider({ baseUrl: `http://127.0.0.1:99999`, model: "tool" }).decide(request), { code: "invalid_input", message: "bad port" });
  const leaked = await assertRejects(new GatewayProvider({ baseUrl: base, model: "tool", apiKey: "sk-1\r\nX-Evil: 1" }).decide(request), {
    code: "invalid_input",
    message: `header "Authorization": the value has a control character`,
  });
  assert(!leaked.message.includes("sk-1"), "the key is not echoed");
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "tool", timeoutMs: 0 }).decide(request), { code: "invalid_input", message: "timeoutMs must be" });
  assertEquals(await requestsLogged(), before, "none of them reached the server");
});

// Each hostile or broken server and the precise error its request fails with.
const attacks: [model: string, code: string, message: string, timeoutMs?: number][] = [
  ["chunk-overflow", "io_error", "invalid chunk size: overflow"],
  ["chunk-huge", "capacity_exceeded", "response body over 32 MiB"],
  ["endless-chunk-line", "io_error", "chunk extensions over limit"],
  ["endless-header", "io_error", "message head is too large"],
  ["drip", "io_error", "no complete response within 300 ms", 300],
  ["bad-utf8", "io_error", "response body is not UTF-8 (invalid byte at offset 7)"],
  ["huge-length", "capacity_exceeded", "response body over 32 MiB"],
  ["huge-stream", "capacity_exceeded", "response body over 32 MiB"],
  ["reset", "io_error", "Connection reset by peer"],
  ["redirect", "io_error", `HTTP 302 redirect to "/api/chat" refused`],
];

test("hostile servers: each request fails precisely, memory stays bounded, the loop steps, the next request works", async () => {
  const peak = await peakMiB();
  // A body read or parsed on the loop in one piece would show in the loop's CPU between two steps.
  // (hostile_providers counts the steps a request spans, which a loop that waited on it would not run.)
  const cpu = new LoopCpuWatch();
  const outcomes = await Promise.all(attacks.map(([model, , , timeoutMs]) =>
    new OllamaProvider({ baseUrl: base, model, timeoutMs: timeoutMs ?? 5000 }).decide(request).then(() => null, (e: Error & { code?: string }) => e)
  ));
  cpu.stop(true);
  attacks.forEach(([model, code, message], i) => {
    const e = outcomes[i];
    assert(e !== null, `${model}: the request succeeded`);
    assertEquals([model, e.code], [model, code], e.message);
    assert(e.message.startsWith(`${base}/api/chat: `) && e.message.includes(message), `${model}: ${e.message}`);
  });
  assert(cpu.maxGapMs < 100, `the loop's longest stretch of CPU between two steps: ${cpu.maxGapMs.toFixed(1)} ms (${cpu.steps} steps ran)`);
  const grown = (await peakMiB()) - peak;
  assert(grown < 128, `peak memory grew ${grown.toFixed(0)} MiB`);
  assertEquals((await new OllamaProvider({ baseUrl: base, model: "tool", timeoutMs: Number.MAX_VALUE }).decide(request)).toolCalls[0].tool, "agent.emitEvent");
});

test("an agent whose provider is hostile: that decision fails with a clear event, the world steps, another agent acts", async () => {
  const session = createWorldSession();
  const sys = createAgentSystems(session, {
    hostile: new OllamaProvider({ baseUrl: base, model: "chunk-overflow" }),
    healthy: new OllamaProvider({ baseUrl: base, model: "tool" }),
  });
  for (const name of ["hostile", "healthy"]) {
    sys.agents.add({ id: `agt_${name}`, type: "player", anchor: [0, 0, 0], decisionIntervalTicks: 6, profile: "player.limited", sessionId: `s_${name}`, llm: { provider: name, model: "", systemPrompt: "" } });
  }
  const s0 = Limina.loop.steps();
  // Waits for the events (a loaded machine answers in fewer steps' time), up to a minute of steps.
  const failures = () => session.tracer.history().filter((e) => e.type === "agent.decision.failed" && e.actorId === "agt_hostile");
  const healthyActed = () => session.tracer.history().some((e) => e.type === "skill.executed" && e.actorId === "agt_healthy");
  await waitSteps(30);
  while ((failures().length < 2 || !healthyActed()) && Limina.loop.steps() - s0 < 3600) await waitSteps(1);
  const events = session.tracer.history();
  const failed = failures();
  assert(failed.length >= 2, `the hostile provider's decisions failed (${failed.length})`);
  const payload = failed[0].payload as { provider: string; error: string };
  assertEquals(payload.provider, "ollama");
  assert(payload.error === `${base}/api/chat: error reading a body from connection: invalid chunk size: overflow`, payload.error);
  assert(events.some((e) => e.type === "skill.executed" && e.actorId === "agt_healthy"), "the healthy agent decided and acted");
  assert(!events.some((e) => e.type === "agent.decision.failed" && e.actorId === "agt_healthy"), "and never failed");
  assert(Limina.loop.steps() - s0 >= 30, "the world stepped");
  sys.dispose();
  // Decisions and actions still under way land before the world log closes.
  while (sys.agents.all().some((a) => a.inFlight)) await waitSteps(1);
  await waitSteps(2);
  session.dispose();
});

test("HTTPS: an unknown issuer is refused; LIMINA_CA_CERTS adds a trusted CA; a bad CA file is a clear error", async () => {
  await assertRejects(new OllamaProvider({ baseUrl: tlsBase, model: "tool" }).decide(request), {
    code: "io_error",
    message: `${tlsBase}/api/chat: TLS handshake with 127.0.0.1:${tlsPort} failed: invalid peer certificate: UnknownIssuer`,
  });
  const gateway = (ca: string) => Limina.run({
    cmd: "bash",
    args: ["-c", `LIMINA_CA_CERTS=${ca} LIMINA_GATEWAY_URL=${tlsBase}/v1 LIMINA_GATEWAY_MODEL=tool '${Limina.execPath}' tests/fixtures/gateway_env.ts`],
  });
  const trusted = await gateway("tests/fixtures/tls/ca.pem");
  assertEquals(trusted.code, 0, trusted.stderr);
  assertEquals(trusted.stdout.trim(), "agent.emitEvent");
  const missing = await gateway("/nonexistent/ca.pem");
  assertEquals(missing.code, 1);
  assert(missing.stderr.includes("LIMINA_CA_CERTS=/nonexistent/ca.pem: No such file or directory"), missing.stderr);
  const notPem = await gateway("tests/llm_server.py");
  assert(notPem.stderr.includes("LIMINA_CA_CERTS=tests/llm_server.py: no PEM certificate in the file"), notPem.stderr);
});

test("connect and TLS handshake timeouts: a port that never accepts, a server that never answers the handshake", async () => {
  await assertRejects(new OllamaProvider({ baseUrl: `http://127.0.0.1:${plain.fullPort}`, model: "tool", connectTimeoutMs: 300 }).decide(request), {
    code: "io_error",
    message: `http://127.0.0.1:${plain.fullPort}/api/chat: cannot connect to 127.0.0.1:${plain.fullPort} within 300 ms`,
  });
  await assertRejects(new GatewayProvider({ baseUrl: `https://127.0.0.1:${plain.silentPort}/v1`, model: "tool", connectTimeoutMs: 300 }).decide(request), {
    code: "io_error",
    message: `https://127.0.0.1:${plain.silentPort}/v1/chat/completions: no TLS handshake with 127.0.0.1:${plain.silentPort} within 300 ms`,
  });
  // Over plain HTTP there is no handshake: the request is written, and the exchange's timeout ends the wait.
  await assertRejects(new OllamaProvider({ baseUrl: `http://127.0.0.1:${plain.silentPort}`, model: "tool", connectTimeoutMs: 300, timeoutMs: 400 }).decide(request), {
    code: "io_error",
    message: "no complete response within 400 ms",
  });
  await assertRejects(new OllamaProvider({ baseUrl: base, model: "tool", connectTimeoutMs: 0 }).decide(request), { code: "invalid_input", message: "connectTimeoutMs must be a number of milliseconds ≥ 1, not 0" });
});

test("retries: a 429's Retry-After is honoured, a 5xx backs off doubling, a 4xx is not retried, the policy bounds both", async () => {
  const gateway = (model: string, retry = { retries: 2, baseDelayMs: 50, maxDelayMs: 10_000 }) => new GatewayProvider({ baseUrl: `${base}/v1`, model, retry, timeoutMs: 20_000 });
  const times = async (model: string) => (await plain.requests()).filter((r) => r.body.model === model).map((r) => r.at);
  const limited = await gateway("status:429:1:1:a").decide(request);
  assertEquals(limited.toolCalls[0].tool, "agent.emitEvent");
  assertEquals(limited.retries, [{ status: 429, waitedMs: 1000 }]);
  const [t0, t1] = await times("status:429:1:1:a");
  assert(t1 - t0 >= 0.95, `the retry came ${(t1 - t0).toFixed(3)} s later`);
  const busy = await gateway("status:503:2::b").decide(request);
  assertEquals(busy.retries, [{ status: 503, waitedMs: 50 }, { status: 503, waitedMs: 100 }]);
  assertEquals((await times("status:503:2::b")).length, 3);
  const down = await assertRejects(gateway("status:502:9::c").decide(request), { message: "answered HTTP 502" });
  assert(down.message.endsWith("(after 2 retries)"), down.message);
  assertEquals((await times("status:502:9::c")).length, 3, "three attempts");
  await assertRejects(gateway("status:429:1:120:d").decide(request), { message: "(Retry-After asks 120 s; this provider waits at most 10 s)" });
  assertEquals((await times("status:429:1:120:d")).length, 1, "not retried");
  await assertRejects(gateway("status:400:1::e").decide(request), { message: "answered HTTP 400" });
  assertEquals((await times("status:400:1::e")).length, 1, "a 4xx other than 429 is not retried");
  const short = new GatewayProvider({ baseUrl: `${base}/v1`, model: "status:503:9::g", retry: { retries: 5, baseDelayMs: 400, maxDelayMs: 10_000 }, timeoutMs: 1000 });
  await assertRejects(short.decide(request), { message: "(no time left to retry within 1000 ms)" });
  assertEquals(retryAfterMs([["retry-after", "Wed, 21 Oct 2015 07:28:05 GMT"]], Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")), 5000);
  assertEquals(retryAfterMs([["retry-after", "soon"]]), null);
  assertEquals(retryAfterMs([]), null);
});

test("a retried decision records its retries in the trace", async () => {
  const session = createWorldSession();
  const sys = createAgentSystems(session, { g: new GatewayProvider({ baseUrl: `${base}/v1`, model: "status:503:1::h", retry: { retries: 2, baseDelayMs: 50, maxDelayMs: 1000 } }) });
  sys.agents.add({ id: "agt_r", type: "player", anchor: [0, 0, 0], decisionIntervalTicks: 1000, profile: "player.limited", sessionId: "s_r", llm: { provider: "g", model: "", systemPrompt: "" } });
  let made: { retries?: unknown } | undefined;
  for (let i = 0; i < 600 && !made; i++) {
    await waitSteps(1);
    made = session.tracer.history().find((e) => e.type === "agent.decision.made")?.payload as { retries?: unknown } | undefined;
  }
  assertEquals(made?.retries, [{ status: 503, waitedMs: 50 }]);
  sys.dispose();
  await sys.action.settled();
  session.dispose();
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

test("stop the servers", async () => {
  await plain.stop();
  await tls.stop();
});
