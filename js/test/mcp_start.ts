// `limina --mcp-stdio` at start: nothing on stderr unless asked (`--verbose`;
// an MCP client spawns its server with stderr piped, and a start-up line
// would only be noise in its log); served from the "engine" start-up snapshot
// once one is made, and the same without one and with a damaged one: the
// same tools listed, the same calls answered. The handshake is answered
// without the world, which is built when first needed.
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

/** The replies of a stdio session of `lines` (written at once), in the order they came. */
async function replies(lines: string[], args: string[] = []) {
  const r = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-stdio", ...args], stdin: lines.join("\n") + "\n", env: { LIMINA_SOURCE_DIR: "" } });
  assertEquals(r.code, 0, r.stderr);
  return { stderr: r.stderr, replies: r.stdout.trim().split("\n").map((l) => JSON.parse(l)) };
}

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

test("calls sent with initialize wait for the world and are answered in order; the handshake's events open its world log", async () => {
  const { replies: out } = await replies([
    SESSION[0],
    rpc(2, "tools/call", { name: "scene.createEntity", arguments: { position: [2, 0, 0] } }),
    rpc(3, "tools/call", { name: "trace.tail", arguments: {} }),
  ]);
  assertEquals(out.map((m) => m.id), [1, 2, 3], JSON.stringify(out));
  assertEquals(out[0].result.serverInfo.name, "limina");
  const entity = out[1].result.structuredContent.entity;
  assert(typeof entity === "string", JSON.stringify(out[1]));
  const events = out[2].result.structuredContent.events as { type: string; payload: Record<string, unknown> }[];
  assertEquals(events.slice(0, 2).map((e) => e.type), ["mcp.connection.opened", "mcp.session.opened"]);
  assert(events.some((e) => JSON.stringify(e.payload).includes(entity)), JSON.stringify(events.map((e) => e.type)));
});

test("a world that cannot be built: initialize is answered, each request that needs the world gets a JSON-RPC error, and the server serves on", async () => {
  const { stderr, replies: out } = await replies(
    [SESSION[0], SESSION[1], rpc(2, "tools/list"), rpc(3, "tools/call", { name: "scene.queryEntities", arguments: {} }), rpc(4, "ping")],
    ["js/test/support/unbuildable_world.ts"],
  );
  assertEquals(out.map((m) => m.id), [1, 2, 3, 4], JSON.stringify(out));
  assertEquals(out[0].result.serverInfo.name, "limina");
  for (const failed of out.slice(1, 3)) {
    assertEquals(failed.error.code, -32603, JSON.stringify(failed));
    assert(failed.error.message.includes("the world could not be built: this world cannot be built"), failed.error.message);
  }
  assertEquals(out[3].result, {});
  assertEquals(stderr.split("the world could not be built").length, 2, stderr);
});
