// The official TypeScript MCP SDK against `limina --mcp-stdio` with paginated,
// compact tool listings: pages through tools/list with nextCursor, compiles
// every listed input schema with the SDK's own JSON Schema validator
// (AjvJsonSchemaValidator, what its Client validates with) and validates a
// sample input of every skill against it, then calls a tool from a later page.
// Usage: node js/test/node/sdk_listing.mjs <path-to-limina> <samples.json>
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import { allTools } from "./sdk_tools.mjs";

const [limina, samplesFile] = process.argv.slice(2);
const samples = JSON.parse(readFileSync(samplesFile, "utf8"));
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

const PAGE = 64;
const client = new Client({ name: "node-sdk-listing", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: limina, args: ["--mcp-stdio", "--tools-page-size", String(PAGE)], env: process.env, stderr: "inherit" }));

const { tools, pages } = await allTools(client);
if (pages !== Math.ceil(tools.length / PAGE)) fail(`${pages} pages of at most ${PAGE} for ${tools.length} tools`);
if (new Set(tools.map((t) => t.name)).size !== tools.length) fail("a tool is listed twice");
const validators = new AjvJsonSchemaValidator();
let checked = 0;
for (const detail of ["compact", "exact"]) {
  const listed = detail === "compact" ? tools : (await allTools(client, { "io.limina/schemas": "exact" })).tools;
  for (const t of listed) {
    let validate;
    try {
      validate = validators.getValidator(t.inputSchema);
    } catch (e) {
      fail(`${t.name} (${detail}): the SDK's validator cannot compile the listed schema: ${e.message}`);
    }
    if (!(t.name in samples)) continue;
    const r = validate(samples[t.name]);
    if (!r.valid) fail(`${t.name} (${detail}): a valid input ${JSON.stringify(samples[t.name])} is refused: ${r.errorMessage}`);
    checked++;
  }
}

// A tool from the last page works like any other.
const last = tools.at(-1).name;
const called = await client.callTool({ name: "skills.describe", arguments: { name: last } });
if (called.isError || called.structuredContent.name !== last) fail(`skills.describe ${last}: ${JSON.stringify(called)}`);
await client.close();
console.log(JSON.stringify({ ok: true, sdk: "@modelcontextprotocol/sdk", tools: tools.length, pages, checked }));
