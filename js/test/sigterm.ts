// SIGTERM ends every MCP server — stdio, WebSocket, Streamable HTTP, and a
// durable world — after flushing, within 200 ms of the flush by its own
// account, with one line saying so and exit status 0
// (js/test/node/sigterm.mjs: real servers, real signals).
import { assert, assertEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

test("SIGTERM stops every server cleanly and promptly, saying so in one line", async () => {
  const out = await drive("node", "js/test/node/sigterm.mjs");
  const results = out.results as { name: string; ownMs: number; wallMs: number }[];
  assertEquals(results.map((r) => r.name), ["stdio", "ws", "http", "ws+http+world-file"]);
  assert(results.every((r) => r.ownMs < 200), JSON.stringify(results));
});
