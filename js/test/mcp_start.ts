// `limina --mcp-stdio` at start: nothing on stderr unless asked (`--verbose`;
// an MCP client spawns its server with stderr piped, and a start-up line
// would only be noise in its log); served from the "engine" start-up snapshot
// once one is made, and the same without one and with a damaged one: the
// same tools listed, the same calls answered.
import { assert, assertEquals, test } from "limina/testing";
import { madeSnapshot, sh } from "./support/startup_cache.ts";

const rpc = (id: number, method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const SESSION = [
  rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "start", version: "1" } }),
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  rpc(2, "tools/list", { cursor: null, _meta: { "io.limina/listing": "full" } }),
  rpc(3, "tools/call", { name: "scene.createEntity", arguments: { position: [1, 0, 0] } }),
  rpc(4, "tools/call", { name: "scene.queryEntities", arguments: { near: [1, 0, 0], radius: 0.5 } }),
];

/** One stdio session (initialize, tools/list, a call that builds, one that reads) and what it said. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const r = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-stdio", ...args], stdin: SESSION.join("\n") + "\n", env: { LIMINA_SOURCE_DIR: "", ...env } });
  assertEquals(r.code, 0, r.stderr);
  const replies = new Map(r.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((m) => [m.id, m]));
  assertEquals([...replies.keys()], [1, 2, 3, 4], r.stdout);
  const entity = replies.get(3).result.structuredContent.entity;
  const found = replies.get(4).result.structuredContent.entities.map((e: { entity: string }) => e.entity);
  assertEquals(found, [entity], JSON.stringify(replies.get(4)));
  return { stderr: r.stderr, serverInfo: replies.get(1).result.serverInfo, tools: replies.get(2).result.tools.map((t: { name: string }) => t.name) };
}

test("nothing on stderr at start; --verbose says what is served, on stderr only", async () => {
  assertEquals((await serve([])).stderr, "");
  const verbose = await serve(["--verbose"]);
  assertEquals(verbose.stderr, "limina: serving MCP on stdio (profile for standard clients: builder.readWrite)\n");
});

test("a fresh cache: started without a snapshot, then from the \"engine\" one, then from a damaged one (said once, made again); the same tools and answers each time", async () => {
  const tmp = (await sh("mktemp -d /tmp/limina-mcp-start-XXXXXX")).trim();
  const cache = `${tmp}/cache`;
  const env = { LIMINA_CACHE_DIR: cache, LIMINA_STARTUP_LOG: "1" };
  const cold = await serve([], env);
  assert(cold.stderr.includes('start-up snapshot "engine" not ready'), cold.stderr);
  assert(cold.tools.length > 50 && cold.tools.includes("scene.queryEntities"), cold.tools.join(" "));
  const file = await madeSnapshot(cache, "engine");
  assert(Number((await sh(`stat -c %s ${file}`)).trim()) > 0, "the engine snapshot was made, not marked as failed");
  const warm = await serve([], env);
  assert(warm.stderr.includes('start-up snapshot "engine" used'), warm.stderr);
  assertEquals([warm.serverInfo, warm.tools], [cold.serverInfo, cold.tools]);
  await sh(`printf 'garbage!garbage!' | dd of=${file} bs=1 seek=0 conv=notrunc status=none`);
  const damaged = await serve([], env);
  assertEquals(damaged.stderr.split("\n").filter((l) => l.includes("is damaged")).length, 1, damaged.stderr);
  assertEquals([damaged.serverInfo, damaged.tools], [cold.serverInfo, cold.tools]);
  // Made again in the background: the next server starts from it and says nothing more.
  await madeSnapshot(cache, "engine");
  const again = await serve([], env);
  assert(again.stderr.includes('start-up snapshot "engine" used') && !again.stderr.includes("is damaged"), again.stderr);
  await sh(`rm -rf ${tmp}`);
});
