// Hostile input against `limina --mcp-http`: each malformed or unwelcome
// request gets a precise HTTP status with a JSON-RPC error body, and the
// server keeps serving. Covers malformed JSON, content types, Accept,
// session ids, body size, Origin/Host (DNS rebinding), protocol versions,
// methods and paths, 200 idle sessions against the session cap and the
// idle timeout, bearer tokens (HTTP and WebSocket), and refusing a
// non-loopback bind without a token.
// Usage: node js/test/node/hostile_http.mjs <path-to-limina>
import { spawnSync } from "node:child_process";
import http from "node:http";
import WebSocket from "ws";
import { httpRequest, MCP_POST_HEADERS } from "./http_request.mjs";
import { checker, startServer } from "./ws_server.mjs";

const limina = process.argv[2];
const MAX_SESSIONS = 200;
const { server, http: port } = await startServer(limina, ["--mcp-http", "--port", "0", "--max-message-bytes", "65536", "--max-clients", String(MAX_SESSIONS), "--idle-timeout", "3"]);
const { check, checks } = checker(server);
let agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One raw HTTP request over the shared keep-alive agent: {status, headers, text, json}. */
const request = (method, { headers = {}, body, path = "/mcp", to = port, fresh = false } = {}) => httpRequest(to, method, { headers, body, path, agent: fresh ? false : agent });
const post = (message, headers = {}, extra = {}) =>
  request("POST", { headers: { ...MCP_POST_HEADERS, ...headers }, body: typeof message === "string" ? message : JSON.stringify(message), ...extra });
const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "hostile", version: "1" } } };
async function open() {
  const r = await post(INIT);
  check(r.status === 200 && r.headers["mcp-session-id"], `initialize opens a session: ${r.status} ${r.text}`);
  return r.headers["mcp-session-id"];
}
const rpcError = (r, status, code, words) =>
  r.status === status && r.json?.jsonrpc === "2.0" && r.json.error?.code === code && r.json.error.message.includes(words);

const sid = await open();
const S = { "mcp-session-id": sid };
const alive = async (what) => {
  const r = await post({ jsonrpc: "2.0", id: "alive", method: "ping" }, S);
  check(r.status === 200 && r.json?.id === "alive" && r.json.result, `the server still serves after ${what}`);
};

let r = await post("{not json", S);
check(rpcError(r, 400, -32700, "Parse error"), `malformed JSON → 400 -32700: ${r.status} ${r.text}`);
r = await post("[]", S);
check(rpcError(r, 400, -32600, "batches are not supported"), `a batch → 400 -32600: ${r.text}`);
r = await post({ jsonrpc: "2.0", id: 1.5, method: "ping" }, S);
check(rpcError(r, 400, -32600, "string or an integer"), `a fractional id → 400: ${r.text}`);
r = await post({ jsonrpc: "1.0", id: 1, method: "ping" }, S);
check(rpcError(r, 400, -32600, 'jsonrpc must be "2.0"'), `jsonrpc 1.0 → 400: ${r.text}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...S, "content-type": "text/plain" });
check(rpcError(r, 415, -32600, "Unsupported Media Type"), `text/plain → 415: ${r.status} ${r.text}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...S, accept: "text/html" });
check(rpcError(r, 406, -32600, "Not Acceptable"), `Accept: text/html → 406: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" });
check(rpcError(r, 400, -32600, "Mcp-Session-Id header is required"), `no session id → 400: ${r.status} ${r.text}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": "0".repeat(32) });
check(rpcError(r, 404, -32600, "no such session"), `an unknown session id → 404: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...S, "mcp-protocol-version": "1999-01-01" });
check(rpcError(r, 400, -32600, "unsupported MCP-Protocol-Version"), `an unknown protocol version → 400: ${r.text}`);
// An oversize body is refused unread and its connection closed, so each goes on a connection of its own.
r = await post({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(70000) } }, S, { fresh: true });
check(rpcError(r, 413, -32600, "at most 65536 bytes"), `an oversize body → 413: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(70000) } }, { ...S, "transfer-encoding": "chunked" }, { fresh: true });
check(rpcError(r, 413, -32600, "at most 65536 bytes"), `an oversize chunked body (no length given) → 413: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...S, origin: "http://evil.example.com" });
check(rpcError(r, 403, -32001, "Origin"), `a foreign Origin → 403: ${r.status} ${r.text}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...S, host: "evil.example.com" });
check(rpcError(r, 403, -32001, "Host"), `a foreign Host (DNS rebinding) → 403: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...S, origin: `http://localhost:${port}` });
check(r.status === 200, `a loopback Origin is served: ${r.status}`);
r = await request("PUT", { headers: S, body: "{}" });
check(rpcError(r, 405, -32600, "Method Not Allowed") && r.headers.allow === "GET, POST, DELETE", `PUT → 405 with Allow: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, S, { path: "/elsewhere" });
check(r.status === 404 && r.text.includes("the MCP endpoint is /mcp"), `another path → 404: ${r.status}`);
r = await request("GET", { headers: { ...S, accept: "application/json" } });
check(rpcError(r, 406, -32600, "text/event-stream"), `a GET that does not accept SSE → 406: ${r.status}`);
r = await request("DELETE", {});
check(rpcError(r, 400, -32600, "Mcp-Session-Id"), `DELETE without a session → 400: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: "sse", method: "ping" }, { ...S, accept: "text/event-stream" });
check(r.status === 200 && r.headers["content-type"] === "text/event-stream" && /^event: message\ndata: \{"jsonrpc":"2.0","id":"sse","result":\{\}\}\n\n$/.test(r.text), `a client that accepts only SSE gets its reply as an SSE event: ${JSON.stringify(r.text)}`);
r = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, S);
check(r.status === 202 && r.text === "", `a notification → 202, no body: ${r.status}`);
r = await post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "scene.createEntity", arguments: { position: [1e9, 0, 0] } } }, S);
check(r.status === 200 && r.json?.result?.isError && r.json.result.content[0].text.startsWith("invalid_input"), `a hostile skill input is a tool error: ${r.text}`);
await alive("the hostile requests");

// 200 idle sessions: the cap holds, the server keeps serving, idle ones expire.
const sessions = [sid];
for (let i = 1; i < MAX_SESSIONS; i++) sessions.push(await open());
r = await post(INIT);
check(rpcError(r, 503, -32002, "server full") && r.headers["retry-after"], `session ${MAX_SESSIONS + 1} → 503 -32002 with Retry-After: ${r.status} ${r.text}`);
await alive(`${MAX_SESSIONS} idle sessions`);
const quietSince = Date.now();
await new Promise((res) => setTimeout(res, 3000));
// The server also closes keep-alive connections idle past --idle-timeout: a request sent on one as it
// closes would meet a hang-up (a race any HTTP client retries), so the looks below connect afresh.
agent.destroy();
agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
// Each look touches the session it names, so each looks at another one; a busy machine may sweep late.
for (let k = 1; k < MAX_SESSIONS; k++) {
  r = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": sessions[k] });
  if (r.status === 404) break;
  await new Promise((res) => setTimeout(res, 250));
}
check(r.status === 404, `a session idle past --idle-timeout has ended: ${r.status} after ${Date.now() - quietSince} ms`);
const fresh = await open();
r = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": fresh });
check(r.status === 200 && r.json.result.tools.length > 0, "expired sessions make room: a new session is served");
server.kill("SIGTERM");

// Tokens: HTTP and WebSocket refuse a client without it.
const token = "s3cret-token-for-the-test";
const guarded = await startServer(limina, ["--mcp-http", "--mcp-ws", "--port", "0", "--token", token]);
r = await post(INIT, {}, { to: guarded.http });
check(rpcError(r, 401, -32001, "Bearer") && r.headers["www-authenticate"] === "Bearer", `no token → 401: ${r.status}`);
r = await post(INIT, { authorization: "Bearer wrong-token-of-same-len" }, { to: guarded.http });
check(r.status === 401, `a wrong token → 401: ${r.status}`);
r = await post(INIT, { authorization: `Bearer ${token}` }, { to: guarded.http });
check(r.status === 200 && r.headers["mcp-session-id"], `the token → a session: ${r.status}`);
const refused = await new Promise((res) => {
  const ws = new WebSocket(`ws://127.0.0.1:${guarded.ws}`);
  ws.on("unexpected-response", (_req, resp) => res(resp.statusCode));
  ws.on("open", () => res("open"));
  ws.on("error", () => {});
});
check(refused === 401, `a WebSocket handshake without the token → 401: ${refused}`);
const admitted = await new Promise((res) => {
  const ws = new WebSocket(`ws://127.0.0.1:${guarded.ws}`, { headers: { authorization: `Bearer ${token}` } });
  ws.on("open", () => (ws.close(), res(true)));
  ws.on("error", () => res(false));
});
check(admitted, "a WebSocket handshake with the token is admitted");
guarded.server.kill("SIGTERM");

// A public bind without a token does not start.
const open0 = spawnSync(limina, ["--mcp-http", "--host", "0.0.0.0", "--port", "0"], { encoding: "utf8", timeout: 10000, env: { ...process.env, LIMINA_MCP_TOKEN: "" } });
check(open0.status === 2 && open0.stderr.includes("needs a bearer token"), `--host 0.0.0.0 without a token refuses to start: ${open0.status} ${open0.stderr}`);

agent.destroy();
console.log(JSON.stringify({ ok: true, checks: checks.length }));
