// MCP Streamable HTTP round trips against `limina --mcp-http` (policy
// engine on, every call traced) as a standard client makes them, over one
// keep-alive connection: sequential tools/call of a cheap read
// (`scene.queryEntities`) and a write (`ecs.updateComponent`), and ping;
// p50/p99 of each. First in a 2025-11-25 session (with its session id), then
// stateless (2026-07-28: each POST carries its envelope and routing headers,
// no session), where `server/discover` stands in for ping, which that
// revision dropped.
// Run: node js/bench/mcp_http.mjs target/release/limina   (final line: JSON figures)
import http from "node:http";
import { startServer } from "../test/node/ws_server.mjs";

const limina = process.argv[2] ?? "target/release/limina";
const N = 2000;
const { server, http: port } = await startServer(limina, ["--mcp-http", "--port", "0"], "ignore");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let session = null;
let stateless = false;
const MODERN = "2026-07-28";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" } };
let next = 1;
const call = (method, params) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: next++, method, params: stateless ? { ...params, _meta: ENVELOPE } : params });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": Buffer.byteLength(body) };
    if (stateless) {
      headers["mcp-protocol-version"] = MODERN;
      headers["mcp-method"] = method;
      if (method === "tools/call") headers["mcp-name"] = params.name;
    } else if (session) headers["mcp-session-id"] = session;
    const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        session ??= res.headers["mcp-session-id"];
        resolve(JSON.parse(text));
      });
    });
    req.on("error", reject);
    req.end(body);
  });
const pct = (s, p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
const ms = (v) => Math.round(v * 1000) / 1000;

await call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
const ent = (await call("tools/call", { name: "scene.createEntity", arguments: {} })).result.structuredContent.entity;
const read = () => call("tools/call", { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 1 } });
const write = (i) => call("tools/call", { name: "ecs.updateComponent", arguments: { entity: ent, component: "position", value: [i % 2, 0, 0] } });
const ping = () => call("ping", {});

async function sequential(fn) {
  for (let i = 0; i < 200; i++) await fn(i); // warm-up
  const rtt = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const r = await fn(i);
    if (r.error || r.result?.isError) throw new Error(JSON.stringify(r));
    rtt.push(performance.now() - t);
  }
  return rtt.sort((a, b) => a - b);
}

const reads = await sequential(read);
const writes = await sequential(write);
const pings = await sequential(ping);
stateless = true;
const modernReads = await sequential(read);
const modernWrites = await sequential(write);
const discovers = await sequential(() => call("server/discover", {}));
agent.destroy();
server.kill("SIGTERM");
console.log(
  JSON.stringify({
    bench: "mcp_http",
    sequentialCalls: N,
    readRttP50Ms: ms(pct(reads, 50)),
    readRttP99Ms: ms(pct(reads, 99)),
    writeRttP50Ms: ms(pct(writes, 50)),
    writeRttP99Ms: ms(pct(writes, 99)),
    pingRttP50Ms: ms(pct(pings, 50)),
    pingRttP99Ms: ms(pct(pings, 99)),
    statelessReadRttP50Ms: ms(pct(modernReads, 50)),
    statelessReadRttP99Ms: ms(pct(modernReads, 99)),
    statelessWriteRttP50Ms: ms(pct(modernWrites, 50)),
    statelessWriteRttP99Ms: ms(pct(modernWrites, 99)),
    statelessDiscoverRttP50Ms: ms(pct(discovers, 50)),
    statelessDiscoverRttP99Ms: ms(pct(discovers, 99)),
  }),
);
