// Identity over `limina --mcp-ws --profile system.readonly`: the operator's
// profile is the ceiling, a live session cannot re-initialize into another
// identity, agent ids are unique among live sessions, and every refusal is a
// `security.handshake.refused` event with the world unchanged.
// Usage: node js/test/node/hostile_ws.mjs <path-to-limina>
import { checker, startWsServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];

const { server, port } = await startWsServer(limina, ["--profile", "system.readonly"]);
const { check, checks } = checker(server);

let sessions = 0;
async function peer() {
  const { ws, call } = await wsPeer(port);
  return { ws, call, init: (agentId, profile) => call("initialize", { agentId, sessionId: `sess_${agentId}_${++sessions}`, profile }) };
}

const a = await peer();
const above = await a.init("mallory", "builder.readWrite");
check(above.error?.code === -32001, "a profile above the operator's ceiling is forbidden (-32001)");
// The refusal names exactly what the profile grants beyond the ceiling (a list that grows with the catalog's permissions).
const beyond = /^profile builder\.readWrite grants (.+), above this server's ceiling system\.readonly$/.exec(above.error.message)?.[1].split(", ") ?? [];
check(["scene.write", "ecs.modify", "physics.write", "agent.write", "ui.write", "audio.play"].every((p) => beyond.includes(p)) && !beyond.includes("scene.read"), above.error.message);
const unknown = await a.init("mallory", "root");
check(unknown.error?.code === -32602 && unknown.error.message.includes("unknown profile root"), "an unknown profile is invalid params, naming the known ones");
const reserved = await a.init("system", "system.readonly");
check(reserved.error?.code === -32001 && reserved.error.message === "agent id system is reserved for the engine", "the engine's own actor id cannot be taken");
const ok = await a.init("alice", "system.readonly");
check(ok.result?.session?.profile === "system.readonly", "a profile within the ceiling is granted");
const again = await a.init("alice", "builder.readWrite");
check(again.error?.code === -32001 && again.error.message.includes("identity and profile cannot change"), "a live session cannot re-initialize");
const write = await a.call("tools/call", { name: "scene.createEntity", arguments: {} });
check(write.error?.code === -32001, "and it still has only its own permissions");

const b = await peer();
const clash = await b.init("alice", "system.readonly");
check(clash.error?.code === -32001 && clash.error.message === "agent id alice is in use by another live session", "a client cannot claim another live session's agent id");
const std1 = await b.call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "alice", version: "1" } });
check(std1.result?.session?.agentId === `alice#1`, `a standard client naming a taken id gets a unique one (${std1.result?.session?.agentId})`);
check(std1.result.session.profile === "system.readonly", "standard clients run under the operator's profile");

const tail = await a.call("tools/call", { name: "trace.tail", arguments: { type: "security.handshake.refused", limit: 100 } });
const refused = tail.result.result.events.map((e) => e.payload.what);
check(JSON.stringify(refused) === JSON.stringify(["profile", "agentId", "reinitialize", "agentId"]), `each refusal is traced (${refused})`);
const entities = await a.call("tools/call", { name: "scene.queryEntities", arguments: {} });
check(entities.result.result.entities.length === 0, "and none of it touched the world");

for (const p of [a, b]) p.ws.close();
server.kill("SIGTERM");
console.log(`ok: ${checks.length} checks`);
