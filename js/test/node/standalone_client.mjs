// The official TypeScript MCP SDK against a limina server started by any
// command line (the self-containment test starts a copied binary with the
// source tree hidden). Usage: node standalone_client.mjs <command> [args...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { allTools } from "./sdk_tools.mjs";

const [command, ...args] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "standalone-check", version: "1.0.0" });
await client.connect(transport);
if (client.getServerVersion()?.name !== "limina") fail("not a limina server");
const { tools } = await allTools(client);
if (!tools.some((t) => t.name === "scene.createEntity")) fail(`no scene.createEntity among ${tools.length} tools`);
const made = await client.callTool({ name: "scene.createEntity", arguments: { shape: "box", position: [1, 2, 3] } });
if (made.isError) fail(`createEntity: ${JSON.stringify(made.content)}`);
const entity = made.structuredContent?.entity;
const query = await client.callTool({ name: "scene.queryEntities", arguments: { near: [1, 2, 3], radius: 1 } });
if (!query.structuredContent?.entities?.some((e) => e.entity === entity)) fail(`${entity} is not in the world`);
await client.close();
console.log(JSON.stringify({ ok: true, tools: tools.length, entity }));
