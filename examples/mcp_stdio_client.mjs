// A minimal MCP client in plain Node (no dependencies): spawns
// `limina --mcp-stdio` and walks initialize → tools/list → tools/call →
// shutdown over newline-delimited JSON-RPC, then opens a read-only session
// whose write is denied.
// Run: node examples/mcp_stdio_client.mjs [path-to-limina]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const limina = process.argv[2] ?? "target/release/limina";
const server = spawn(limina, ["--mcp-stdio"], { stdio: ["pipe", "pipe", "inherit"] });
const pending = new Map();
createInterface({ input: server.stdout }).on("line", (line) => {
  const msg = JSON.parse(line);
  pending.get(msg.id)?.(msg);
  pending.delete(msg.id);
});
let nextId = 1;
function request(method, params) {
  const id = nextId++;
  server.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((resolve) => pending.set(id, resolve));
}

const init = await request("initialize", { agentId: "example-builder", sessionId: "sess_example", profile: "builder.readWrite" });
console.log("initialized:", init.result.session.agentId, "with", init.result.session.permissions.length, "permissions");

const { result: { tools } } = await request("tools/list", {});
console.log(`${tools.length} tools, e.g.`, tools.slice(0, 5).map((t) => t.name).join(", "));

const created = await request("tools/call", { name: "scene.createEntity", arguments: { shape: "sphere", color: 0xff8c1a, position: [0, 0.5, 0], dynamic: true } });
console.log("created:", created.result.result.entity, "in", created.result.metadata.executionTimeMs.toFixed(2), "ms; events:", created.result.metadata.eventsEmitted.join(", "));

await request("shutdown", {});

// A read-only observer may look, not build: the call is refused and changes nothing.
await request("initialize", { agentId: "example-observer", sessionId: "sess_observer", profile: "system.readonly" });
const denied = await request("tools/call", { name: "scene.createEntity", arguments: { shape: "box" } });
console.log("scene.createEntity as system.readonly →", denied.error.code, denied.error.message);
const { result: seen } = await request("tools/call", { name: "scene.queryEntities", arguments: {} });
console.log("entities the observer sees:", seen.result.entities.map((e) => e.entity).join(", "));

await request("shutdown", {});
server.stdin.end();
