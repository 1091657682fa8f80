// Identity over `limina --mcp-ws --mcp-http` with a world of per-session
// quotas: session ids are the server's (a client's sessionId is a label, so
// naming another session's — or the operator's stateless-http — takes
// nothing of theirs); reserved and confusable agent ids are refused at
// initialize and in package.load; a standard client's software name never
// becomes a reserved or taken id.
// Usage: node js/test/node/identity.mjs <path-to-limina>
import { checker, startServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];
const { server, ws: port } = await startServer(limina, ["--mcp-ws", "--mcp-http", "--port", "0", "tests/fixtures/identity_world.ts"]);
const { check, checks } = checker(server);

const init = (p, agentId, label) => p.call("initialize", { agentId, sessionId: label, profile: "builder.readWrite" });
const query = async (p) => (await p.call("tools/call", { name: "scene.queryEntities", arguments: {} }));

const alice = await wsPeer(port);
const a = (await init(alice, "alice", "sess_shared")).result?.session;
check(/^mcp-\d+$/.test(a?.sessionId) && a.label === "sess_shared", `the server issues the session id; the client's is a label (${JSON.stringify(a)})`);
const mallory = await wsPeer(port);
const m = (await init(mallory, "mallory", "sess_shared")).result?.session;
check(m && m.sessionId !== a.sessionId && m.label === "sess_shared", `naming another session's sessionId gets an id of one's own (${m?.sessionId} vs ${a.sessionId})`);
const op = await wsPeer(port);
const o = (await init(op, "mallory2", "stateless-http")).result?.session;
check(o && o.sessionId !== "stateless-http" && /^mcp-\d+$/.test(o.sessionId), `naming the operator's stateless-http takes nothing of the operator's (${o?.sessionId})`);

// Mallory spends her own quota, not Alice's.
for (let i = 0; i < 3; i++) check((await query(mallory)).result?.success, `mallory's call ${i + 1} of 3`);
const spent = await query(mallory);
check(spent.error?.data?.error?.code === "capacity_exceeded" || /quota/.test(spent.error?.message ?? ""), `mallory's 4th call is over her quota: ${JSON.stringify(spent.error)}`);
for (let i = 0; i < 3; i++) check((await query(alice)).result?.success, `alice's quota is her own: call ${i + 1} of 3`);

// Reserved and confusable ids, and ids that read as a live session's.
for (const [id, words] of [
  ["operator", "operator is reserved for the engine"],
  ["Operator", 'reads as operator'],
  ["SYSTEM", "reads as system"],
  ["operator\u200b", "invisible or control characters"],
  ["\uff4fperator", "reads as operator"],
  ["ALICE", "reads as alice, which is in use by another live session"],
]) {
  const p = await wsPeer(port);
  const r = await init(p, id, "x");
  check(r.error?.code === -32001 && r.error.message.includes(words), `initialize as ${JSON.stringify(id)} is refused: ${JSON.stringify(r.error)}`);
  p.ws.close();
}
const badLabel = await init(await wsPeer(port), "carol", "sess\u202e");
check(badLabel.error?.code === -32001 && badLabel.error.message.includes("invisible or control characters"), `a label with control characters is refused: ${JSON.stringify(badLabel.error)}`);

// A standard client's software name never becomes a reserved or taken id.
for (const [name, want] of [["operator", /^operator#\d+$/], ["op\u200berator", /^operator#\d+$/], ["Alice", /^Alice#\d+$/]]) {
  const p = await wsPeer(port);
  const r = await p.call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1" } });
  check(want.test(r.result?.session?.agentId ?? ""), `a standard client named ${JSON.stringify(name)} acts as ${r.result?.session?.agentId}`);
  p.ws.close();
}

// package.load names no reserved id and no id a live session holds (checked before the package is even looked up).
for (const [agentId, reason] of [["system", "reserved_id"], ["Operator", "reserved_id"], ["alice", "id_in_use"], ["Alice", "id_in_use"]]) {
  const r = await mallory.call("tools/call", { name: "package.load", arguments: { ref: "nothing@1.0.0", agentId, sessionId: "x", profile: "system.readonly" } });
  const d = r.result?.result ?? r.error?.data?.result;
  check(d?.rejectReason === reason, `package.load as ${agentId} → ${reason}: ${JSON.stringify(r)}`);
}

for (const p of [alice, mallory, op]) p.ws.close();
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, checks: checks.length }));
