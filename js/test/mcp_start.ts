// `limina --mcp-stdio` at start: nothing on stderr unless asked (`--verbose`;
// an MCP client spawns its server with stderr piped, and a start-up line
// would only be noise in its log); served from the "engine" start-up snapshot
// once one is made, and the same without one and with a damaged one: the
// same tools listed, the same calls answered. The handshake is answered
// without the world, which is built when first needed; with an engine
// snapshot made, a first standard `initialize` is answered by the stdin
// thread while V8 starts, byte for byte as the server answers it (the
// server's own reply is had by sending a blank line first: the thread
// leaves anything but a first `initialize` to the server, which skips it).
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

/** What the stdin thread says (with LIMINA_STARTUP_LOG) when it answered the first initialize. */
const ANSWERED = "limina: the first initialize was answered on the stdin thread";
type Warm = { cache: string; cold: Awaited<ReturnType<typeof serve>>; snapshot: string; versions: string[] };
let warmCache: Promise<Warm> | null = null;

/**
 * A fresh start-up cache, what a server started in it said (no snapshot yet: its maker starts in the background), and
 * the "engine" snapshot that maker wrote with its handshake (the revisions it offers: the server's); made once, for
 * every test that starts from a warm cache (a second maker would make the same bytes again, at a low priority).
 */
function warmed(): Promise<Warm> {
  warmCache ??= (async () => {
    const cache = `${(await sh("mktemp -d /tmp/limina-mcp-first-XXXXXX")).trim()}/cache`;
    const cold = await serve([], { LIMINA_CACHE_DIR: cache, LIMINA_STARTUP_LOG: "1" });
    const snapshot = await madeSnapshot(cache, "engine");
    // After the cache file's 64-byte header.
    const handshake = JSON.parse(await sh(`tail -c +65 ${snapshot.replace(/\.bin$/, ".handshake")}`));
    return { cache, cold, snapshot, versions: handshake.versions };
  })();
  return warmCache;
}

/**
 * A stdio session of `lines` (written at once) started from the warm cache:
 * its reply lines, and whether the stdin thread answered the first line.
 * `server`: a blank line goes first, so the server answers everything.
 */
async function session(lines: string[], { server = false, args = [] as string[] } = {}) {
  const r = await Limina.run({
    cmd: Limina.execPath,
    args: ["--mcp-stdio", ...args],
    stdin: (server ? "\n" : "") + lines.join("\n") + "\n",
    env: { LIMINA_SOURCE_DIR: "", LIMINA_CACHE_DIR: (await warmed()).cache, LIMINA_STARTUP_LOG: "1" },
  });
  assertEquals(r.code, 0, r.stderr);
  assert(!r.stderr.includes("please report"), r.stderr);
  return { stderr: r.stderr, answered: r.stderr.includes(ANSWERED), lines: r.stdout.trim().split("\n") };
}

/** The world log's first two events (type and payload) as the server's trace.tail (id 2) reported them. */
function opening(lines: string[]) {
  const tail = lines.map((l) => JSON.parse(l)).find((m) => m.id === 2);
  return tail.result.structuredContent.events.slice(0, 2).map((e: { type: string; payload: unknown }) => [e.type, e.payload]);
}

const init = (id: number | string, params: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params });

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

/** The cache whose engine snapshot the fresh-cache test damaged: made again in the background while later tests run. */
let damagedCache: string | null = null;

test("a fresh cache: started without a snapshot, then from the \"engine\" one, then from a damaged one (said once, made again: see the last test); the same tools and answers each time", async () => {
  const { cache: first, cold, snapshot } = await warmed();
  assert(cold.stderr.includes('start-up snapshot "engine" not ready'), cold.stderr);
  assert(cold.tools.length > 50 && cold.tools.includes("scene.queryEntities"), cold.tools.join(" "));
  assert(Number((await sh(`stat -c %s ${snapshot}`)).trim()) > 0, "the engine snapshot was made, not marked as failed");
  // Damaged below: in a copy of that cache, which the other tests start from whole.
  const cache = `${(await sh("mktemp -d /tmp/limina-mcp-start-XXXXXX")).trim()}/cache`;
  await sh(`cp -a ${first} ${cache}`);
  const file = cache + snapshot.slice(first.length);
  const env = { LIMINA_CACHE_DIR: cache, LIMINA_STARTUP_LOG: "1" };
  const warm = await serve([], env);
  assert(warm.stderr.includes('start-up snapshot "engine" used'), warm.stderr);
  assertEquals([warm.serverInfo, warm.tools], [cold.serverInfo, cold.tools]);
  await sh(`printf 'garbage!garbage!' | dd of=${file} bs=1 seek=0 conv=notrunc status=none`);
  const damaged = await serve([], env);
  assertEquals(damaged.stderr.split("\n").filter((l) => l.includes("is damaged")).length, 1, damaged.stderr);
  assertEquals([damaged.serverInfo, damaged.tools], [cold.serverInfo, cold.tools]);
  damagedCache = cache;
});

test("the stdin thread answers a first initialize byte for byte as the server does, for every revision, an unsupported one and extra client capabilities; the session's events are the same", async () => {
  const tail = rpc(2, "tools/call", { name: "trace.tail", arguments: {} });
  const { versions } = await warmed();
  assertEquals(versions.length >= 4 && versions.includes("2025-11-25"), true, versions.join(" "));
  const variants = [
    ...versions.map((v) => init(1, { protocolVersion: v, capabilities: {}, clientInfo: { name: "start", version: "1" } })),
    init(7, { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { name: "old client", version: "0.1" } }),
    init("first", { protocolVersion: "2025-06-18", capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} }, experimental: { x: { deep: [1, { a: 2 }] } } }, clientInfo: { name: "Rich-Client", title: "A client", version: "9" } }),
    init(0, { protocolVersion: "2025-11-25" }),
  ];
  for (const [i, first] of variants.entries()) {
    // The world log for one of each kind (each builds a world).
    const lines = i === 0 || i === variants.length - 1 ? [first, tail] : [first];
    const thread = await session(lines);
    const server = await session(lines, { server: true });
    assert(thread.answered && !server.answered, `${thread.stderr}\n${server.stderr}`);
    assertEquals(thread.lines[0], server.lines[0]);
    assertEquals(JSON.parse(thread.lines[0]).result.session.sessionId, "mcp-1");
    if (lines.length > 1) assertEquals(opening(thread.lines), opening(server.lines));
  }
});

test("a first message the stdin thread is not sure of is the server's, as before: malformed, a batch, not initialize, the Limina dialect, unknown fields, a reserved name", async () => {
  const std = init(1, { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "start", version: "1" } });
  for (const first of [
    '{"jsonrpc":"2.0","id":9,"method":"initialize"',
    `[${std}]`,
    rpc(9, "ping"),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    init(9, { agentId: "alice", sessionId: "s", profile: "builder.readWrite" }),
    init(9, { protocolVersion: "2025-11-25", _meta: { progressToken: 1 } }),
    JSON.stringify({ jsonrpc: "2.0", id: 9, method: "initialize", params: { protocolVersion: "2025-11-25" }, extra: true }),
    init(9, { protocolVersion: "2025-11-25", clientInfo: { name: "Operator" } }),
    init(9, { protocolVersion: "2025-11-25", clientInfo: { name: "zoë" } }),
    init(1.5, { protocolVersion: "2025-11-25" }),
  ]) {
    const lines = [first, std, rpc(3, "ping")];
    const thread = await session(lines);
    const server = await session(lines, { server: true });
    assert(!thread.answered, `${first}: ${thread.stderr}`);
    assertEquals(thread.lines, server.lines, first);
  }
});

test("initialize twice: the second is refused as before, whoever answered the first", async () => {
  const first = init(1, { protocolVersion: "2025-11-25", clientInfo: { name: "start" } });
  const lines = [first, init(2, { protocolVersion: "2025-11-25", clientInfo: { name: "start" } }), init(3, { agentId: "bob", sessionId: "s", profile: "spectator" })];
  const thread = await session(lines);
  const server = await session(lines, { server: true });
  assert(thread.answered, thread.stderr);
  assertEquals(thread.lines, server.lines);
  const refused = thread.lines.slice(1).map((l) => JSON.parse(l).error);
  assertEquals(refused.map((e) => e.code), [-32001, -32001], JSON.stringify(refused));
  assert(refused[0].message.includes("already initialized"), refused[0].message);
});

test("calls sent with initialize wait for the world and are answered in order; the handshake's events open its world log", async () => {
  const sent = [
    SESSION[0],
    rpc(2, "tools/call", { name: "scene.createEntity", arguments: { position: [2, 0, 0] } }),
    rpc(3, "tools/call", { name: "trace.tail", arguments: {} }),
  ];
  for (const server of [false, true]) {
    const r = await session(sent, { server });
    assertEquals(r.answered, !server, r.stderr);
    const out = r.lines.map((l) => JSON.parse(l));
    check(out);
  }
  // Whatever cache the suite runs with (the thread answers with one, the server without).
  check((await replies(sent)).replies);
});

function check(out: { id: number; result: Record<string, any> }[]) {
  assertEquals(out.map((m) => m.id), [1, 2, 3], JSON.stringify(out));
  assertEquals(out[0].result.serverInfo.name, "limina");
  const entity = out[1].result.structuredContent.entity;
  assert(typeof entity === "string", JSON.stringify(out[1]));
  const events = out[2].result.structuredContent.events as { type: string; payload: Record<string, unknown> }[];
  assertEquals(events.slice(0, 2).map((e) => e.type), ["mcp.connection.opened", "mcp.session.opened"]);
  assert(events.some((e) => JSON.stringify(e.payload).includes(entity)), JSON.stringify(events.map((e) => e.type)));
}

test("a world that cannot be built: initialize is answered (by the stdin thread), each request that needs the world gets a JSON-RPC error, and the server serves on", async () => {
  const r = await session(
    [SESSION[0], SESSION[1], rpc(2, "tools/list"), rpc(3, "tools/call", { name: "scene.queryEntities", arguments: {} }), rpc(4, "ping")],
    { args: ["js/test/support/unbuildable_world.ts"] },
  );
  assert(r.answered, r.stderr);
  const [stderr, out] = [r.stderr, r.lines.map((l) => JSON.parse(l))];
  assertEquals(out.map((m) => m.id), [1, 2, 3, 4], JSON.stringify(out));
  assertEquals(out[0].result.serverInfo.name, "limina");
  for (const failed of out.slice(1, 3)) {
    assertEquals(failed.error.code, -32603, JSON.stringify(failed));
    assert(failed.error.message.includes("the world could not be built: this world cannot be built"), failed.error.message);
  }
  assertEquals(out[3].result, {});
  assertEquals(stderr.split("the world could not be built").length, 2, stderr);
});

// Last: the low-priority maker the damaged start left has had the tests above to finish in.
test("the damaged engine snapshot was made again in the background: the next server starts from it and says nothing more", async () => {
  assert(damagedCache !== null, "the fresh-cache test damaged a snapshot");
  await madeSnapshot(damagedCache, "engine");
  const again = await serve([], { LIMINA_CACHE_DIR: damagedCache, LIMINA_STARTUP_LOG: "1" });
  assert(again.stderr.includes('start-up snapshot "engine" used') && !again.stderr.includes("is damaged"), again.stderr);
  await sh(`rm -rf ${damagedCache.replace(/\/cache$/, "")}`);
});

test("the warm cache is removed", async () => {
  if (warmCache) await sh(`rm -rf ${(await warmCache).cache.replace(/\/cache$/, "")}`);
});
