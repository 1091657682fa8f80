// The official TypeScript MCP SDK's Streamable HTTP client against
// `limina --mcp-ws --mcp-http`: initialize, tools (2020-12 schemas), an
// entity created over HTTP and seen by a WebSocket subscriber (one world),
// a capture as image content, log messages after logging/setLevel,
// tools/list_changed after a skill reload, ping, and DELETE ending the session.
// Usage: node js/test/node/http_sdk.mjs <path-to-limina>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import WebSocket from "ws";
import { allTools } from "./sdk_tools.mjs";
import { checker, startServer } from "./ws_server.mjs";

const limina = process.argv[2];
const { server, ws: wsPort, http: httpPort } = await startServer(limina, ["--mcp-ws", "--mcp-http", "--port", "0", "--dev"]);
const { check, checks } = checker(server);
const url = new URL(`http://127.0.0.1:${httpPort}/mcp`);
// The limit only bounds a failure (what never comes), so it is generous for a loaded machine.
const waitFor = async (what, cond, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) check(false, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

// A WebSocket subscriber in the same world.
const sub = new WebSocket(`ws://127.0.0.1:${wsPort}`);
const notes = [];
let nextId = 1;
const replies = new Map();
sub.on("message", (d) => {
  const m = JSON.parse(d.toString());
  if (m.id !== undefined) replies.get(m.id)?.(m);
  else notes.push(m);
});
await new Promise((r) => sub.once("open", r));
const wsCall = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    replies.set(id, resolve);
    sub.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  });
check((await wsCall("initialize", { agentId: "watcher", sessionId: "sess_watch", profile: "system.readonly" })).result?.session, "the WebSocket watcher initializes");
check((await wsCall("state/subscribe", {})).result, "the watcher subscribes to world state");

const transport = new StreamableHTTPClientTransport(url);
const client = new Client({ name: "node-http-test", version: "1.0.0" });
const logs = [];
let listChanged = 0;
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged++);
await client.connect(transport);
check(/^[0-9a-f]{32}$/.test(transport.sessionId ?? ""), `the server issued an unguessable session id (${transport.sessionId})`);
check(client.getServerVersion()?.name === "limina", "the server is limina");
const caps = client.getServerCapabilities();
check(caps?.tools?.listChanged === true && caps?.logging !== undefined, `capabilities announce tools.listChanged and logging: ${JSON.stringify(caps)}`);
await client.ping();
check(true, "ping answers");

const { tools } = await allTools(client);
const create = tools.find((t) => t.name === "scene.createEntity");
check(create && !("$schema" in create.inputSchema), `inputSchema is JSON Schema 2020-12, MCP's default dialect (no $schema): ${create?.inputSchema?.$schema}`);
check(create.inputSchema.type === "object" && create.inputSchema.properties?.shape, "scene.createEntity's inputSchema has its properties");
check(tools.some((t) => t.name === "render.capture"), "render.capture is listed (this machine has a WebGPU adapter)");

const made = await client.callTool({ name: "scene.createEntity", arguments: { shape: "box", position: [0, 0.5, 0], color: 0xff0000, static: true } });
check(!made.isError, `scene.createEntity over HTTP: ${JSON.stringify(made.content)}`);
const entity = made.structuredContent?.entity;
check(/^ent_\d+$/.test(entity ?? ""), `the entity id ${entity}`);
// In a delta, or in the fresh snapshot a watcher gets instead once it has fallen behind (a loaded machine).
const seen = (m) => (m.method === "state/delta" && m.params.created.some((e) => e.entity === entity)) || (m.method === "state/snapshot" && m.params.entities.some((e) => e.entity === entity));
await waitFor("the watcher's delta or snapshot with it", () => notes.some(seen));
check(true, "the WebSocket subscriber sees the HTTP client's entity appear (one world)");

const shot = await client.callTool({ name: "render.capture", arguments: { width: 64, height: 48, entity } });
check(!shot.isError, `render.capture: ${JSON.stringify(shot.content).slice(0, 300)}`);
const image = shot.content.find((c) => c.type === "image");
check(image?.mimeType === "image/png", "the capture arrives as image content, image/png");
const png = Buffer.from(image.data, "base64");
check(png.subarray(1, 4).toString() === "PNG" && png.readUInt32BE(16) === 64 && png.readUInt32BE(20) === 48, "a 64×48 PNG");
check(shot.structuredContent?.width === 64 && shot.structuredContent?.png === undefined, "structured metadata carries the size, not the bytes again");

await client.setLoggingLevel("warning");
const failed = await client.callTool({ name: "three.loadGLTF", arguments: { assetId: "no-such-asset" } });
check(failed.isError, "a call for an unknown asset fails");
await waitFor("a warning log message", () => logs.some((l) => l.level === "warning" && l.logger === "skill.failed"));
check(!logs.some((l) => l.level === "debug" || l.level === "info"), "nothing below the level asked for is sent");

const reload = await client.callTool({ name: "dev.reload", arguments: { target: "skill", name: "scene.queryEntities" } });
check(!reload.isError && reload.structuredContent?.ok, `dev.reload: ${JSON.stringify(reload.content)}`);
await waitFor("tools/list_changed", () => listChanged > 0);
check(true, "a skill reload sends notifications/tools/list_changed");

const session = transport.sessionId;
await transport.terminateSession();
const after = await fetch(url, {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session },
  body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
});
check(after.status === 404, `a request on the ended session is 404 (got ${after.status})`);
await client.close();
sub.close();
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, sdk: "@modelcontextprotocol/sdk", transport: "streamable-http", tools: tools.length, entity, checks: checks.length }));
