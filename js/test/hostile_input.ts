// limina: waits
// Hostile input at the MCP edge, over the real wire: each test reproduces
// an attack and asserts the precise error, a server that keeps serving,
// and a world (and world log) the rejected input did not touch.
import { traceDir } from "limina";
import { assert, assertEquals, test } from "limina/testing";

const rpc = (id: number | string, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const INIT = rpc(1, "initialize", { agentId: "probe", sessionId: "sess_probe", profile: "builder.readWrite" });

async function stdio(input: string) {
  const out = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-stdio"], stdin: input });
  assertEquals(out.code, 0, out.stderr);
  return out.stdout.trim().split("\n");
}
const byId = (lines: string[]) => new Map(lines.map((l) => JSON.parse(l)).map((r: { id: unknown }) => [r.id, r]));

test("lone surrogates and deep nesting are refused at the edge, naming the field; the world log still exports", async () => {
  const deep = JSON.parse("[".repeat(200) + "]".repeat(200));
  const lines = await stdio(
    [
      rpc(1, "initialize", { agentId: "agt_\ud800", sessionId: "s", profile: "builder.readWrite" }),
      INIT,
      rpc(2, "tools/call", { name: "trace.tail", arguments: { type: "\ud800" } }),
      rpc(3, "tools/call", { name: "agent.emitEvent", arguments: { type: "deep", payload: { deep } } }),
      rpc(4, "tools/call", { name: "agent.emitEvent", arguments: { type: "fine", payload: { emoji: "\u{1F600}" } } }),
      rpc(5, "tools/call", { name: "trace.tail", arguments: { limit: 1000 } }),
      rpc(6, "tools/call", { name: "trace.export", arguments: { name: `hostile-${Date.now()}` } }),
    ].join("\n") + "\n",
  );
  const r = byId(lines);
  const first = JSON.parse(lines[0]);
  assertEquals(first.error.code, -32602);
  assertEquals(first.error.message, "Invalid params: params.agentId holds a lone UTF-16 surrogate");
  assertEquals(r.get(2).error.message, "Invalid params: params.arguments.type holds a lone UTF-16 surrogate");
  assert(r.get(3).error.message.startsWith("Invalid params: params.arguments.payload.deep"), r.get(3).error.message);
  assert(r.get(3).error.message.endsWith("is nested deeper than 64 levels"), r.get(3).error.message);
  assert(r.get(4).result.success, "well-formed text (a surrogate pair) is fine");
  const types = r.get(5).result.result.events.map((e: { type: string }) => e.type);
  assert(!types.includes("agent.signal.deep") && types.includes("agent.signal.fine"), `the refused calls left no trace (${types})`);
  assert(r.get(6).result.success, `the world log still exports: ${JSON.stringify(r.get(6))}`);
  await Limina.run({ cmd: "rm", args: ["-f", `${traceDir()}/${r.get(6).result.result.name}`] });
});

test("numbers stay finite and inside the world: out-of-extent values are refused before any effect", async () => {
  const lines = await stdio(
    [
      INIT,
      rpc(2, "tools/call", { name: "scene.createEntity", arguments: { position: [1, 2, 3] } }),
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ecs.updateComponent","arguments":{"entity":"ent_1","component":"position","value":[1e39,0,0]}}}',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ecs.updateComponent","arguments":{"entity":"ent_1","component":"position","value":[3.5e38,0,0]}}}',
      rpc(5, "tools/call", { name: "ecs.updateComponent", arguments: { entity: "ent_1", component: "scale", value: [0, 1, 1] } }),
      rpc(6, "tools/call", { name: "scene.createEntity", arguments: { position: [0, 200000, 0] } }),
      rpc(7, "tools/call", { name: "three.setTransform", arguments: { entity: "ent_1", scale: [1, 1e5, 1] } }),
      rpc(8, "tools/call", { name: "physics.applyImpulse", arguments: { entity: "ent_1", impulse: [0, -1e300, 0] } }),
      rpc(9, "tools/call", { name: "ecs.updateComponent", arguments: { entity: "ent_1", component: "rotation", value: [0, 0, 0, 2] } }),
      rpc(10, "tools/call", { name: "inspector.snapshot", arguments: {} }),
    ].join("\n") + "\n",
  );
  const r = byId(lines);
  for (const [id, field] of [[3, "position"], [4, "position"], [5, "scale"], [6, "position"], [7, "scale"], [8, "impulse"]] as const) {
    assertEquals(r.get(id).error?.data?.error?.code, "invalid_input", `call ${id}: ${JSON.stringify(r.get(id))}`);
    assert(r.get(id).error.message.includes(field) || r.get(id).error.message.includes("value"), r.get(id).error.message);
  }
  assert(r.get(9).result.success, "a non-unit quaternion is normalised on the way in");
  const snap = r.get(10).result.result;
  assert(snap !== undefined, `inspector.snapshot still works: ${JSON.stringify(r.get(10))}`);
  const entity = snap.entities.find((e: { entity: string }) => e.entity === "ent_1");
  assertEquals(entity.transform.position, [1, 2, 3], "the refused writes changed nothing");
  assertEquals(entity.transform.rotation, [0, 0, 0, 1]);
  assertEquals(entity.transform.scale, [1, 1, 1]);
  assertEquals(snap.entities.length, 1, "the refused create made nothing");
});

test("dev.reload swaps a skill handler only on a --dev server, and never for a caller without the skill's permissions", async () => {
  const reload = rpc(2, "tools/call", { name: "dev.reload", arguments: { target: "skill", name: "scene.createEntity" } });
  const shared = byId(await stdio([INIT, reload].join("\n") + "\n"));
  assertEquals(shared.get(2).error.data.error, { code: "forbidden", message: "swapping a skill handler needs a server started with --dev" });
  const out = await Limina.run({
    cmd: Limina.execPath,
    args: ["--mcp-stdio", "--dev"],
    stdin: [rpc(1, "initialize", { agentId: "dev", sessionId: "s", profile: "builder.readWrite" }), reload].join("\n") + "\n",
  });
  const dev = byId(out.stdout.trim().split("\n"));
  assertEquals(dev.get(2).result.result, { ok: true, target: "skill", invalidated: ["skill:scene.createEntity", "tools/list"] });
});

test("assets are read off the loop: a FIFO, a directory, an oversized file or a way out is a clear error, never a hang", async () => {
  const dir = `/tmp/limina-hostile-assets-${Date.now()}`;
  const manifest = JSON.stringify({
    assets: {
      pipe: { kind: "gltf", path: "pipe.glb" },
      dir: { kind: "gltf", path: "models" },
      huge: { kind: "gltf", path: "huge.glb" },
      out: { kind: "gltf", path: "link.glb" },
    },
  });
  const made = await Limina.run({
    cmd: "bash",
    args: ["-c", `mkdir -p "$0/models" && mkfifo "$0/pipe.glb" && truncate -s 300M "$0/huge.glb" && ln -s /etc/hostname "$0/link.glb" && printf '%s' "$1" > "$0/manifest.json"`, dir, manifest],
  });
  assertEquals(made.code, 0, made.stderr);
  const load = (id: number, assetId: string) => rpc(id, "tools/call", { name: "three.loadGLTF", arguments: { assetId } });
  const out = await Limina.run({
    cmd: Limina.execPath,
    args: ["--mcp-stdio"],
    env: { LIMINA_ASSETS_DIR: dir },
    stdin: [INIT, load(3, "pipe"), load(4, "dir"), load(5, "huge"), load(6, "out"), load(7, "crate")].join("\n") + "\n",
  });
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
  assertEquals(out.code, 0, out.stderr);
  const r = byId(out.stdout.trim().split("\n"));
  const err = (id: number) => r.get(id).error?.data?.error;
  assertEquals(err(3), { code: "invalid_input", message: "asset pipe is not a regular file" });
  assertEquals(err(4), { code: "invalid_input", message: "asset dir is not a regular file" });
  assertEquals(err(5), { code: "capacity_exceeded", message: "asset huge is 314572800 bytes, over the 268435456-byte limit" });
  assertEquals(err(6), { code: "invalid_input", message: "asset out resolves outside the asset directory" });
  assert(!out.stdout.includes(dir), "no reply names the server's directories");
  assert(r.get(7).result?.success, "and the server goes on loading what it may (a built-in asset)");
});

test("JSON-RPC ids come back exactly as sent, replies keep arrival order, and every bad line is answered", async () => {
  const lines = await stdio(
    [
      INIT,
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}',
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
      '{"jsonrpc":"2.0","id":-1.5e300,"method":"ping"}',
      rpc("text-id", "ping"),
      "\u00ff\u00fe not json",
      rpc(7, "ping"),
    ].join("\n") + "\n" + '{"jsonrpc":"2.0","id":8,"method":"ping"}',
  );
  assertEquals(lines[1], '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}');
  assertEquals(lines[2], '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}');
  assertEquals(lines[3], '{"jsonrpc":"2.0","id":-1.5e300,"result":{}}');
  assertEquals(JSON.parse(lines[4]).id, "text-id");
  assertEquals(JSON.parse(lines[5]).error.code, -32700, "the bad line is answered in its place, after the replies before it");
  assertEquals([JSON.parse(lines[6]).id, JSON.parse(lines[7]).id], [7, 8], "a last line without a newline is served");
});

test("invalid UTF-8 as the last line, without a newline, still gets its error reply", async () => {
  const out = await Limina.run({ cmd: "bash", args: ["-c", `printf '%s\\n\\x7b\\xff\\xfe\\x7d' "$1" | "$0" --mcp-stdio`, Limina.execPath, INIT] });
  const lines = out.stdout.trim().split("\n");
  assertEquals(lines.length, 2, out.stdout);
  assertEquals(JSON.parse(lines[1]).error, { code: -32700, message: "Invalid Request: message is not valid UTF-8" });
});

test("a world module's console.log never reaches the protocol on stdout", async () => {
  // tools/list needs the world: the module builds it (a stdio server builds its world when first needed).
  const out = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-stdio", "tests/fixtures/chatty_world.ts"], stdin: INIT + "\n" + rpc(2, "tools/list") + "\n" });
  assertEquals(out.code, 0, out.stderr);
  assertEquals(out.stdout.trim().split("\n").map((l) => JSON.parse(l).id), [1, 2]);
  assert(out.stderr.includes("building the chatty world"), out.stderr);
});

test("over WebSocket: the operator's profile is the ceiling, identity is bound for the session's life and unique", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/hostile_ws.mjs", Limina.execPath] });
  assertEquals(r.code, 0, r.stderr + r.stdout);
  assert(r.stdout.includes("ok:"), r.stdout);
});

test("over WebSocket: close codes 1009, 1007, 1002 and 1013, a handshake timeout, a flooder's calls taking turns with another client's, and the server keeps serving", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/ws_limits.mjs", Limina.execPath] });
  assertEquals(r.code, 0, r.stderr + r.stdout);
  assert(r.stdout.includes("ok:"), r.stdout);
});
