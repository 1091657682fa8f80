// One error vocabulary from native ops through the registry to MCP: the
// JS codes are the native ones, a thrown code survives every layer (never
// collapsed into handler_error), and each maps to its own JSON-RPC code.
import {
  engineError,
  ERROR_CODES,
  errorCodeOf,
  JSONRPC,
  JSONRPC_CODE_OF,
  mcpErrorToJsonRpc,
  nativeErrorCodes,
  PhysicsWorld,
  type SkillDefinition,
  toResponse,
  WorldSession,
} from "limina";
import { assert, assertEquals, assertThrows, test } from "limina/testing";
import { z } from "zod";

test("ERROR_CODES is exactly the native vocabulary", () => {
  assertEquals([...ERROR_CODES], ["invalid_input", "not_found", "forbidden", "capacity_exceeded", "handler_error", "io_error", "unavailable", "internal"]);
  assertEquals(nativeErrorCodes(), [...ERROR_CODES]);
});

test("each code has its own JSON-RPC code", () => {
  assertEquals(Object.keys(JSONRPC_CODE_OF).sort(), [...ERROR_CODES].sort());
  assertEquals({ ...JSONRPC_CODE_OF }, {
    not_found: -32601,
    invalid_input: -32602,
    handler_error: -32603,
    forbidden: -32001,
    capacity_exceeded: -32002,
    unavailable: -32003,
    io_error: -32004,
    internal: -32005,
  });
  const codes = ERROR_CODES.map(mcpErrorToJsonRpc);
  assertEquals(new Set(codes).size, ERROR_CODES.length, `distinct: ${codes}`);
  for (const c of codes) assert(Number.isInteger(c) && c < 0, `${c}`);
  for (const reserved of [JSONRPC.PARSE_ERROR, JSONRPC.INVALID_REQUEST]) assert(!codes.includes(reserved), `${reserved} stays the protocol's own`);
  assert(Object.isFrozen(JSONRPC_CODE_OF));
});

test("engineError and errorCodeOf: a known code is kept, anything else is handler_error", () => {
  for (const code of ERROR_CODES) {
    const e = engineError(code, `a ${code}`);
    assert(e instanceof LiminaError && e instanceof Error);
    assertEquals([e.code, e.message], [code, `a ${code}`]);
    assertEquals(errorCodeOf(e), code);
  }
  assertEquals(errorCodeOf(new Error("plain")), "handler_error");
  assertEquals(errorCodeOf(Object.assign(new Error("odd"), { code: "ENOENT" })), "handler_error");
  assertEquals(errorCodeOf(null), "handler_error");
  assertEquals(errorCodeOf("a string"), "handler_error");
});

test("native ops throw LiminaError with the shared codes", () => {
  const physics = new PhysicsWorld();
  assertThrows(() => physics.bodyState(12345), { name: "LiminaError", code: "not_found" });
  assertThrows(() => physics.step(0), { name: "LiminaError", code: "invalid_input" });
  physics.dispose();
  assertThrows(() => physics.bodyCount(), { name: "LiminaError", code: "not_found" });
});

test("a code thrown by a handler survives the registry and MCP, one for one", async () => {
  const session = new WorldSession({ simulate: false });
  const thrower: SkillDefinition = {
    name: "test.fail",
    version: "1.0.0",
    category: "system",
    description: "Throws the code it is given.",
    input: z.strictObject({ code: z.enum(ERROR_CODES) }),
    output: z.object({}),
    permissions: [],
    handler: ({ code }) => {
      throw engineError(code, `failing with ${code}`);
    },
  };
  session.registry.register(thrower);
  const mcp = session.mcp();
  mcp.initialize({ agentId: "t", sessionId: "s", profile: "system.readonly" });
  for (const code of ERROR_CODES) {
    const r = await session.registry.invoke("test.fail", { code }, { agentId: "t", sessionId: "s", permissions: [] });
    assertEquals(r.ok ? null : r.error, { code, message: `failing with ${code}` });
    const wire = toResponse(r);
    assertEquals([wire.success, wire.error], [false, { code, message: `failing with ${code}` }]);
    assertEquals(wire.metadata, r.metadata);
    const viaMcp = await mcp.callTool({ tool: "test.fail", input: { code } });
    assertEquals(viaMcp.error?.code, code);
    const failed = session.tracer.tail().at(-1)!;
    assertEquals([failed.type, (failed.payload as { code: string }).code], ["skill.failed", code]);
  }
  // Codes that start in the engine, each kept: unknown entity, unknown skill, missing permission, bad input.
  const builder = { agentId: "b", sessionId: "s", permissions: ["ecs.modify", "scene.write"] };
  const cases: [string, unknown, string][] = [
    ["ecs.addComponent", { entity: "ent_404", component: "x" }, "not_found"],
    ["nope.nope", {}, "not_found"],
    ["scene.destroyEntity", { entity: 1 }, "invalid_input"],
    ["physics.applyImpulse", { entity: "ent_1", impulse: [0, 0, 0] }, "forbidden"],
  ];
  for (const [tool, input, code] of cases) {
    const r = await session.registry.invoke(tool, input, builder);
    assertEquals(r.ok ? null : r.error.code, code, tool);
  }
  const ok = toResponse(await session.registry.invoke("skills.list", {}, builder));
  assertEquals([ok.success, "error" in ok], [true, false]);
  session.dispose();
});
