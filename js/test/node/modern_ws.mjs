// The stateless revision (2026-07-28) over `limina --mcp-ws`: a connection
// whose first request carries the envelope is served as the operator (under
// the server's --profile) and refuses initialize; a connection that begins
// with initialize beside it is an ordinary session; both act on one world.
// Usage: node js/test/node/modern_ws.mjs <path-to-limina>
import { checker, startWsServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];
const MODERN = "2026-07-28";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };

const { server, port } = await startWsServer(limina, ["--profile", "builder.readWrite"]);
const { check, checks } = checker(server);

async function peer() {
  const { ws, call } = await wsPeer(port);
  return { ws, call, modern: (method, params = {}) => call(method, { ...params, _meta: ENVELOPE }) };
}

const stateless = await peer();
const discover = await stateless.modern("server/discover");
check(discover.result?.supportedVersions?.[0] === MODERN, `server/discover over WebSocket: ${JSON.stringify(discover)}`);
const made = await stateless.modern("tools/call", { name: "scene.createEntity", arguments: { position: [7, 0.5, 0], static: true } });
check(made.result?.isError === false && made.result.resultType === "complete", `a stateless call builds: ${JSON.stringify(made)}`);
const entity = made.result.structuredContent.entity;
const again = await stateless.call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "late", version: "1" } });
check(again.error?.code === -32022 && again.error.data.supported[0] === MODERN, `initialize on the stateless connection → -32022: ${JSON.stringify(again)}`);
const bare = await stateless.call("tools/list");
check(bare.error?.code === -32602, `a request without the envelope on it → -32602: ${JSON.stringify(bare)}`);

const session = await peer();
const init = await session.call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "operator", version: "1" } });
check(init.result?.session?.agentId?.startsWith("operator#"), `a session cannot take the operator's agent id: ${JSON.stringify(init.result?.session)}`);
const seen = await session.call("tools/call", { name: "scene.queryEntities", arguments: { near: [7, 0.5, 0], radius: 0.01 } });
check(seen.result?.structuredContent?.entities?.[0]?.entity === entity, `the session sees the stateless client's entity: ${JSON.stringify(seen)}`);
const enveloped = await session.modern("tools/list");
check(enveloped.error?.code === -32600, `the envelope inside a session → -32600: ${JSON.stringify(enveloped)}`);

stateless.ws.close();
session.ws.close();
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, transport: "ws", checks: checks.length }));
