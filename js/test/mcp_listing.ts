// The standard MCP tools/list: compact tools (exact schemas when small, an
// outline past 300 bytes), paginated with cursor / nextCursor, a core
// listing for small context windows — driven by the official Python and
// TypeScript SDK clients, which validate a sample input of every skill with
// their own JSON Schema validators, and over the stateless revision's HTTP.
import { assert, assertEquals, test } from "limina/testing";
import { compactSchema, createWorldSession, oneLine, postJson } from "limina";
import { drive } from "./support/drivers.ts";
import type { MatrixFamily } from "./support/matrix/family.ts";

const dir = (await Limina.run({ cmd: "mktemp", args: ["-d", "/tmp/limina-listing-XXXXXX"] })).stdout.trim();
const samplesFile = `${dir}/samples.json`;

// A valid input of every skill whose matrix sample needs no prepared world.
const samples: Record<string, unknown> = {};
const families = (await Limina.run({ cmd: "ls", args: ["js/test/support/matrix"] })).stdout.split("\n").filter((f) => f.endsWith(".ts") && f !== "family.ts");
for (const file of families) {
  const { family } = (await import(`./support/matrix/${file}`)) as { family: MatrixFamily };
  for (const [name, sample] of Object.entries(family.samples)) if (typeof sample.input === "object") samples[name] = sample.input;
}
await Limina.run({ cmd: "bash", args: ["-c", `cat > ${samplesFile}`], stdin: JSON.stringify(samples) });
const registered = createWorldSession();
/** What the server lists: every skill `limina skills` names (render.capture too where there is a WebGPU adapter). */
const served = (await Limina.run({ cmd: Limina.execPath, args: ["skills"] })).stdout.split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]);
const skills = served.length;

test("the official Python SDK pages through the compact listing; its validator accepts every sample; the core listing fits 8 KB", async () => {
  const out = await drive(".venv/bin/python", `tests/mcp/python_listing_client.py`, samplesFile);
  assertEquals(out.tools, skills);
  assertEquals(out.pages, Math.ceil(skills / 50));
  assert((out.checked as number) >= 100, `${out.checked} samples checked`);
  assert((out.coreBytes as number) <= 8192, `core listing ${out.coreBytes} bytes`);
  console.log(`listing: ${out.tools} tools, ${out.bytesPerTool} bytes a tool (${out.outlined} outlined); core: ${out.coreTools} tools, ${out.coreBytes} bytes`);
});

test("the official TypeScript SDK pages through it too; its validator compiles every listed schema and accepts every sample", async () => {
  const out = await drive("node", "js/test/node/sdk_listing.mjs", samplesFile);
  assertEquals(out.tools, skills);
  assertEquals(out.pages, Math.ceil(skills / 64));
  assert((out.checked as number) >= 200, `${out.checked} samples checked (compact and exact)`);
});

test("the stateless revision (2026-07-28) over HTTP: tools/list pages the same way", async () => {
  const log = `${dir}/http.err`;
  const started = await Limina.run({ cmd: "bash", args: ["-c", `'${Limina.execPath}' --mcp-http --port 0 --tools-page-size 70 > /dev/null 2> ${log} & echo $!`] });
  const pid = started.stdout.trim();
  let url = "";
  for (let i = 0; i < 500 && !url; i++) {
    await new Promise((r) => setTimeout(r, 20));
    url = /listening on (http:\/\/\S+)/.exec((await Limina.run({ cmd: "cat", args: [log] })).stdout)?.[1] ?? "";
  }
  assert(url !== "", "the HTTP server did not start");
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const headers: [string, string][] = [["Accept", "application/json, text/event-stream"], ["Mcp-Protocol-Version", "2026-07-28"], ["Mcp-Method", "tools/list"]];
  const names: string[] = [];
  let cursor: string | undefined;
  let id = 0;
  do {
    const { value } = await postJson(url, { jsonrpc: "2.0", id: ++id, method: "tools/list", params: { _meta: meta, ...(cursor ? { cursor } : {}) } }, { timeoutMs: 10_000, headers });
    const result = (value as { result: { tools: { name: string }[]; nextCursor?: string; resultType: string } }).result;
    assertEquals(result.resultType, "complete");
    assert(result.tools.length <= 70, `a page of ${result.tools.length}`);
    names.push(...result.tools.map((t) => t.name));
    cursor = result.nextCursor;
  } while (cursor !== undefined && id < 100);
  assertEquals(names, served);
  assertEquals(id, Math.ceil(skills / 70));
  await Limina.run({ cmd: "kill", args: [pid] });
});

test("compact forms: a uniform tuple is one item schema, repeated shapes are $defs, descriptions one line; outlines name every property", () => {
  const full = registered.registry.listTools("draft-2020-12");
  const create = compactSchema(full.find((t) => t.name === "scene.createEntity")!.inputSchema, { annotations: true, dialect: true }) as { properties: { position: unknown } };
  assertEquals(create.properties.position, { type: "array", items: { type: "number", minimum: -100000, maximum: 100000 }, minItems: 3, maxItems: 3 });
  const label = compactSchema(full.find((t) => t.name === "ui.label")!.inputSchema, { annotations: true, dialect: true, hoistBytes: 40 }) as { $defs: Record<string, unknown> };
  assert(Object.keys(label.$defs).length >= 3, `shared shapes: ${Object.keys(label.$defs)}`);
  assert(!JSON.stringify(label).includes('"description"'), "no annotations");
  assertEquals(oneLine("Do a thing. Then more detail."), "Do a thing.");
  assertEquals(oneLine("Create a zone (box or sphere, fixed or attached) that notices entities entering and leaving it.", 40), "Create a zone…");
});

test("clean up", async () => {
  registered.dispose();
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
});
