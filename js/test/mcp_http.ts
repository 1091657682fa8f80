// MCP Streamable HTTP (`limina --mcp-http`) driven by the official clients:
// both SDKs' Streamable HTTP transports, the official conformance suite,
// and hostile HTTP input. Each driver starts its own server on free ports,
// so the four run at once (they mostly wait: on their servers, the Python and
// Node 22 start-ups, the idle timeout), and each test checks its own.
import { assert, assertEquals, test } from "limina/testing";
import { started } from "./support/drivers.ts";

const sdk = started("node", "js/test/node/http_sdk.mjs");
const python = started(".venv/bin/python", "tests/mcp/python_http_client.py");
const conformance = started("node", "js/test/node/conformance.mjs");
const hostile = started("node", "js/test/node/hostile_http.mjs");

test("the TypeScript SDK over Streamable HTTP: tools, an entity a WebSocket subscriber sees, a capture as image content, logging, list_changed, DELETE", async () => {
  const out = await sdk();
  assertEquals(out.transport, "streamable-http");
  assertEquals(out.checks, 21);
});

test("the Python SDK over Streamable HTTP: initialize, tools, an entity, its capture", async () => {
  const out = await python();
  assert(/^ent_\d+$/.test(String(out.entity)), JSON.stringify(out));
});

test("the official MCP conformance suite passes every server scenario without fixture tools", async () => {
  const out = await conformance();
  const results = out.results as Record<string, { checks: string[] }>;
  assertEquals(Object.keys(results).sort(), ["dns-rebinding-protection", "logging-set-level", "ping", "server-initialize", "server-sse-multiple-streams", "tools-list"]);
  for (const [scenario, r] of Object.entries(results)) assert(r.checks.length > 0 && r.checks.every((c) => !c.endsWith("FAILURE")), `${scenario}: ${r.checks}`);
});

test("hostile HTTP input gets precise errors and the server keeps serving; sessions, idle time and tokens are enforced", async () => {
  const out = await hostile();
  assert((out.checks as number) > 220, JSON.stringify(out));
});
