// MCP over the wire, driving the real binary: the stdio protocol with every
// error code, the official TypeScript and Python SDK clients, and the
// multi-client WebSocket world server.
import { assert, assertEquals, test } from "limina/testing";
import { startedRun } from "./support/drivers.ts";
import { servedSkillNames } from "./support/skills.ts";

/** What tools/list must list: every skill a fresh world registers, and render.capture. */
const SERVED = servedSkillNames();

// The clients' drivers start at once (each its own server; they mostly wait on it); each test checks its own.
const tsSdk = startedRun("node", "js/test/node/sdk_client.mjs", String(SERVED.length));
const pySdk = startedRun(".venv/bin/python", "tests/mcp/python_sdk_client.py", String(SERVED.length));
const wsWorld = startedRun("node", "js/test/node/ws_world.mjs");
const nodeExample = startedRun("node", "examples/mcp_stdio_client.mjs");
const pyExample = startedRun(".venv/bin/python", "examples/mcp_python_client.py");

const rpc = (id: number | string | null, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const INIT = rpc(1, "initialize", { agentId: "wire", sessionId: "sess_wire", profile: "builder.readWrite" });

async function stdio(lines: string[], args: string[] = []) {
  const out = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-stdio", ...args], stdin: lines.join("\n") + "\n" });
  const replies = out.stdout.trim() === "" ? [] : out.stdout.trim().split("\n").map((l) => JSON.parse(l));
  return { ...out, replies, byId: new Map(replies.map((r: { id: unknown }) => [r.id, r])) };
}

test("stdio: the full handshake, tools, a call that changes the world, shutdown, exit 0 on EOF", async () => {
  const r = await stdio([
    INIT,
    rpc(2, "tools/list"),
    rpc(3, "listTools"),
    rpc(4, "tools/call", { name: "scene.createEntity", arguments: { shape: "sphere", position: [0, 3, 0], dynamic: true } }),
    rpc(5, "callTool", { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 10 } }),
    rpc(6, "shutdown"),
    rpc(7, "tools/call", { name: "skills.list" }),
  ]);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.stderr, "", "nothing on stderr: the start-up line is said only with --verbose (or to a terminal)");
  const init = r.byId.get(1).result;
  assertEquals([init.protocolVersion, init.session.agentId, init.session.profile], ["2025-06-18", "wire", "builder.readWrite"]);
  assertEquals(r.byId.get(2).result.tools.map((t: { name: string }) => t.name).sort(), SERVED.toSorted(), "exactly the registered skills (render.capture too: this machine has a WebGPU adapter)");
  assert(["package.list", "package.load"].every((n) => r.byId.get(2).result.tools.some((t: { name: string }) => t.name === n)), "the package skills are offered");
  assertEquals(r.byId.get(3).result.tools.length, r.byId.get(2).result.tools.length);
  assert(r.byId.get(2).result.tools[0].input_schema.$schema.includes("draft-07"));
  const made = r.byId.get(4).result;
  assertEquals([made.success, made.result.entity], [true, "ent_1"]);
  assert(made.metadata.eventsEmitted.includes("skill.executed"));
  assertEquals(r.byId.get(5).result.result.entities[0].entity, "ent_1");
  assertEquals(r.byId.get(6).result, { ok: true });
  assertEquals(r.byId.get(7).error.code, -32001, "after shutdown the session is gone");
  assertEquals(r.replies.length, 7);
});

test("stdio: a standard client's tool results are written natively, byte for byte as JSON.stringify writes each reply", async () => {
  // The cause's id comes back in trace.tail's events: quotes, a backslash, a control character, non-ASCII and U+2028.
  const odd = 'evt "q" \\ \u0001 é ✓ \u2028 end';
  const r = await stdio([
    rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "wire", version: "1.0.0" } }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    rpc('a "quoted" id', "tools/call", { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 1 }, context: { causedBy: [odd] } }),
    rpc(3, "tools/call", { name: "trace.tail", arguments: { limit: 4 } }),
    rpc(4.5, "tools/call", { name: "scene.createEntity", arguments: {} }),
  ]);
  assertEquals(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n").slice(1);
  assertEquals(lines.length, 3);
  for (const line of lines) {
    const { id, result } = JSON.parse(line);
    const value = result.structuredContent;
    assertEquals(line, JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value, isError: false } }));
  }
  assert(lines[1].includes(JSON.stringify(JSON.stringify(odd)).slice(1, -1)), "the cause's id is in the text content, escaped twice");
});

test("stdio: every error code over the wire, and the server keeps serving", async () => {
  const r = await stdio([
    "this is not json",
    '{"jsonrpc":"2.0","id":10,"method":"tools/list"',
    JSON.stringify([{ jsonrpc: "2.0", id: 11, method: "ping" }]),
    JSON.stringify({ jsonrpc: "1.0", id: 12, method: "ping" }),
    JSON.stringify({ jsonrpc: "2.0", id: 13, method: 5 }),
    JSON.stringify({ jsonrpc: "2.0", id: 14, method: "ping", params: "x" }),
    rpc(15, "tools/call", { name: "skills.list" }),
    INIT,
    rpc(16, "no/such/method"),
    rpc(17, "tools/call", { name: "nope.nope" }),
    rpc(18, "tools/call", { name: "scene.createEntity", arguments: { size: 1e5 } }),
    rpc(19, "tools/call", { name: "social.say", arguments: { text: "hi" } }),
    rpc(20, "tools/call", { name: "ecs.addComponent", arguments: { entity: "ent_404", component: "x" } }),
    rpc(21, "tools/call", { name: 42 }),
    rpc(22, "initialize", { agentId: "", sessionId: "s", profile: "p" }),
    JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "scene.createEntity" } }),
    JSON.stringify({ jsonrpc: "2.0", method: "no/such/notification" }),
    rpc(24, "tools/call", { name: "skills.list", context: { agentId: "someone-else" } }),
    rpc(25, "tools/call", { name: "agent.emitEvent", arguments: { type: "a" }, context: { causedBy: ["evt_x"], previousResults: [] } }),
    rpc(26, "tools/call", { name: "scene.createEntity", arguments: {} }),
    rpc(27, "tools/call", { name: "physics.applyImpulse", arguments: { entity: "ent_2", impulse: [1, 0, 0] } }),
    rpc(30, "initialize", { agentId: "other", sessionId: "sess_other", profile: "system.readonly" }),
    rpc(31, "shutdown"),
    rpc(28, "initialize", { agentId: "reader", sessionId: "sess_reader", profile: "system.readonly" }),
    rpc(29, "tools/call", { name: "scene.createEntity", arguments: {} }),
    rpc(23, "ping"),
  ]);
  assertEquals(r.code, 0, r.stderr);
  const nulls = r.replies.filter((x: { id: unknown }) => x.id === null).map((x: { error: { code: number } }) => x.error.code);
  assertEquals(nulls.filter((c: number) => c === -32700).length, 2, "unparsable lines → -32700");
  assertEquals(nulls.filter((c: number) => c === -32600).length, 1, "a batch → -32600");
  assertEquals([12, 13, 14].map((id) => r.byId.get(id).error.code), [-32600, -32600, -32600]);
  assertEquals(r.byId.get(15).error.code, -32001, "calls before initialize are forbidden");
  assertEquals(r.byId.get(15).error.message, "MCP session is not initialized");
  assertEquals(r.byId.get(16).error.code, -32601);
  assertEquals(r.byId.get(17).error.code, -32601, "unknown skill: not_found → -32601");
  assertEquals(r.byId.get(17).error.data.error, { code: "not_found", message: "unknown skill: nope.nope" });
  assertEquals(r.byId.get(18).error.code, -32602, "invalid_input → -32602");
  assert(r.byId.get(18).error.data.error.message.includes("size"));
  assertEquals(r.byId.get(19).error.code, -32001, "a skill the profile does not grant: forbidden → -32001");
  assertEquals(r.byId.get(19).error.data.error.code, "forbidden");
  assertEquals(r.byId.get(20).error.code, -32601, "an unknown entity: not_found → -32601");
  assertEquals(r.byId.get(20).error.data.error.code, "not_found");
  assert(r.byId.get(20).error.message.includes("ent_404"));
  assertEquals(r.byId.get(26).result.result, { entity: "ent_2" }, "the tools/call notification ran (ent_1), unanswered");
  assertEquals(r.byId.get(27).error.code, -32603, "handler_error → -32603");
  assertEquals(r.byId.get(27).error.data.error, { code: "handler_error", message: "entity ent_2 has no physics body" });
  assertEquals(r.byId.get(30).error.code, -32001, "a live session cannot be re-initialized");
  assert(r.byId.get(30).error.message.includes("identity and profile cannot change"), r.byId.get(30).error.message);
  assertEquals(r.byId.get(31).result, { ok: true });
  assertEquals(r.byId.get(28).result.session.profile, "system.readonly", "after shutdown a new session may begin");
  assertEquals(r.byId.get(29).error.code, -32001, "forbidden → -32001");
  assertEquals(r.byId.get(29).error.data.error.code, "forbidden");
  assert(r.byId.get(29).error.message.startsWith("missing permission: scene.write"), r.byId.get(29).error.message);
  assertEquals(r.byId.get(21).error.code, -32602);
  assertEquals(r.byId.get(22).error.code, -32602);
  assertEquals(r.byId.get(24).error.code, -32602, "a context cannot change the caller's identity");
  assert(r.byId.get(25).result.success, "context.causedBy is accepted");
  assertEquals(r.byId.get(23).result, {}, "still serving after all that");
  assertEquals(r.replies.length, 24, "26 lines, two of them notifications: those got no reply");
});

test("stdio: capacity_exceeded → -32002, with a module that builds the world first", async () => {
  const r = await stdio([INIT, rpc(2, "tools/call", { name: "scene.createEntity" })], ["tests/fixtures/full_world.ts"]);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.byId.get(2).error.code, -32002);
  assertEquals(r.byId.get(2).error.data.error.code, "capacity_exceeded");
});

test("stdio: a line over the size limit is refused precisely; the next line is served", async () => {
  const big = rpc(2, "tools/call", { name: "agent.emitEvent", arguments: { type: "x", payload: { pad: "y".repeat(500) } } });
  const r = await stdio([INIT, big, rpc(3, "ping")], ["--max-message-bytes", "300"]);
  assertEquals(r.code, 0, r.stderr);
  const refused = r.replies.find((x: { id: unknown }) => x.id === null);
  assertEquals(refused.error.code, -32600);
  assert(refused.error.message.includes("300-byte limit"), refused.error.message);
  assertEquals(r.byId.get(3).result, {});
});

test("stdio: the world keeps stepping while serving", async () => {
  // A ball dropped at y = 10 falls while no request comes: the client waits,
  // sending nothing, until the world has marked three more 30-step
  // boundaries on stderr (so at least 61 steps ran), then asks for a
  // snapshot. Counted in steps; the 30 s deadline is only a safety net.
  const script = [
    `err=$(mktemp)`,
    `coproc L { '${Limina.execPath}' --mcp-stdio tests/fixtures/stepping_world.ts 2>"$err"; }`,
    `printf '%s\\n' '${INIT}' '${rpc(2, "tools/call", { name: "scene.createEntity", arguments: { shape: "sphere", position: [0, 10, 0], dynamic: true } })}' >&"\${L[1]}"`,
    `read -r one <&"\${L[0]}"; read -r two <&"\${L[0]}"; printf '%s\\n%s\\n' "$one" "$two"`,
    `k=$(grep -c '^step ' "$err")`,
    `for _ in $(seq 600); do [ "$(grep -c '^step ' "$err")" -ge $((k + 3)) ] && break; sleep 0.05; done`,
    `printf '%s\\n' '${rpc(3, "tools/call", { name: "inspector.snapshot", arguments: {} })}' >&"\${L[1]}"`,
    `read -r three <&"\${L[0]}"; printf '%s\\n' "$three"`,
    `grep '^step ' "$err" | tail -n +$((k + 1)) | tr '\\n' ' '; echo`,
    `eval "exec \${L[1]}>&-"; wait "$L_PID"; rm -f "$err"`,
  ].join("\n");
  const r = await Limina.run({ cmd: "bash", args: ["-c", script] });
  assertEquals(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  const marks = (lines[3] ?? "").trim().split(/\s*step /).filter(Boolean).map(Number);
  assert(marks.length >= 3, `the world stepped on while no request came: ${marks.length} of 3 marks (steps ${marks})`);
  const snap = JSON.parse(lines[2]).result.result;
  assert(snap.world.tick >= marks[2], `the snapshot comes after those steps (tick ${snap.world.tick}, marks ${marks})`);
  assert(snap.entities[0].transform.position[1] < 9, `the ball fell meanwhile (${snap.entities[0].transform.position})`);
});

test("the official TypeScript SDK client lists the tools and creates an entity", async () => {
  const r = await tsSdk;
  assertEquals(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok && out.tools === SERVED.length, r.stdout);
});

test("the official Python SDK client lists the tools and creates an entity", async () => {
  const r = await pySdk;
  assertEquals(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok && out.tools === SERVED.length, r.stdout);
});

test("WebSocket: concurrent clients, total order, deltas, AOI, a stalled client, fuzzed frames", async () => {
  const r = await wsWorld;
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assertEquals(out.checks, 18);
});

test("the Node example runs against the real binary", async () => {
  const node = await nodeExample;
  assertEquals(node.code, 0, node.stderr);
  assert(node.stdout.includes("created: ent_1"), node.stdout);
  assert(/→ -32001 /.test(node.stdout), `the example shows a forbidden call (-32001):\n${node.stdout}`);
});

test("the Python example runs against the real binary", async () => {
  const py = await pyExample;
  assertEquals(py.code, 0, py.stderr);
  assert(py.stdout.includes("three.setLighting") && py.stdout.includes("lighting: ok"), py.stdout);
});
