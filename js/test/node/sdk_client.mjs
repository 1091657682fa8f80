// The official TypeScript MCP SDK against `limina --mcp-stdio`.
// Usage: node js/test/node/sdk_client.mjs <path-to-limina> <number of registered skills>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { allTools } from "./sdk_tools.mjs";

const [limina, expected] = [process.argv[2], Number(process.argv[3])];
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

const transport = new StdioClientTransport({ command: limina, args: ["--mcp-stdio", "--profile", "builder.readWrite"], env: process.env, stderr: "inherit" });
const client = new Client({ name: "node-sdk-test", version: "1.0.0" });
await client.connect(transport);
const server = client.getServerVersion();
if (server?.name !== "limina") fail(`server name ${server?.name}`);

// Every registered skill, page by page (100 a page).
const { tools } = await allTools(client);
if (tools.length !== expected) fail(`${tools.length} tools, expected the ${expected} registered skills`);
const create = tools.find((t) => t.name === "scene.createEntity");
if (create?.inputSchema?.type !== "object" || !create.inputSchema.properties?.shape) fail("scene.createEntity has no inputSchema");

const made = await client.callTool({ name: "scene.createEntity", arguments: { shape: "sphere", position: [0, 2, 0], dynamic: true } });
if (made.isError) fail(`createEntity failed: ${JSON.stringify(made.content)}`);
const entity = made.structuredContent?.entity;
if (!/^ent_\d+$/.test(entity ?? "")) fail(`structuredContent ${JSON.stringify(made.structuredContent)}`);
if (JSON.parse(made.content[0].text).entity !== entity) fail("text content disagrees with structuredContent");

const query = await client.callTool({ name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 10 } });
if (!query.structuredContent.entities.some((e) => e.entity === entity)) fail("the new entity is not in the world");

const unknown = await client.callTool({ name: "social.shout", arguments: { text: "hi" } });
if (!unknown.isError || unknown.content[0].text !== "not_found: unknown skill: social.shout") fail(`social.shout: ${JSON.stringify(unknown)}`);
const sayDenied = await client.callTool({ name: "social.say", arguments: { text: "hi" } });
if (!sayDenied.isError || !sayDenied.content[0].text.startsWith("forbidden")) fail(`social.say without social.act: ${JSON.stringify(sayDenied)}`);
const invalid = await client.callTool({ name: "scene.createEntity", arguments: { size: -1 } });
if (!invalid.isError || !invalid.content[0].text.startsWith("invalid_input")) fail(`invalid input: ${JSON.stringify(invalid)}`);
await client.close();

// A server whose standard clients run read-only: looking is allowed, building is not.
const reader = new Client({ name: "node-sdk-reader", version: "1.0.0" });
await reader.connect(new StdioClientTransport({ command: limina, args: ["--mcp-stdio", "--profile", "system.readonly"], env: process.env, stderr: "inherit" }));
const looked = await reader.callTool({ name: "scene.queryEntities", arguments: {} });
if (looked.isError) fail(`scene.queryEntities under system.readonly: ${JSON.stringify(looked)}`);
const denied = await reader.callTool({ name: "scene.createEntity", arguments: {} });
if (!denied.isError || !denied.content[0].text.startsWith("forbidden: missing permission: scene.write")) fail(`scene.createEntity under system.readonly: ${JSON.stringify(denied)}`);
await reader.close();

console.log(JSON.stringify({ ok: true, sdk: "@modelcontextprotocol/sdk", tools: tools.length, entity }));
