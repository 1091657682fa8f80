// A WebSocket client of the authoritative world server: start it with
//   target/release/limina --mcp-ws --port 7878
// then run: node examples/ws_client.mjs [ws://127.0.0.1:7878]
// It opens a session, subscribes to state, declares an area of interest,
// drops a ball into it and prints the deltas it receives.
import { createRequire } from "node:module";

// The `ws` package is installed under js/ by scripts/setup.sh.
const WebSocket = createRequire(new URL("../js/package.json", import.meta.url))("ws");

const url = process.argv[2] ?? "ws://127.0.0.1:7878";
const ws = new WebSocket(url);
let nextId = 1;
const pending = new Map();
const request = (method, params) => {
  const id = nextId++;
  ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  return new Promise((resolve) => pending.set(id, resolve));
};
let deltas = 0;
ws.on("message", (data) => {
  const msg = JSON.parse(data.toString());
  if (msg.id !== undefined) {
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  } else if (msg.method === "state/snapshot") {
    console.log(`snapshot at tick ${msg.params.tick}: ${msg.params.entities.length} entities in view`);
  } else if (msg.method === "state/delta" && deltas++ < 10) {
    const p = msg.params;
    // Positions arrive as base64 float32 triples, one per id in p.moved.ids.
    const bytes = Buffer.from(p.moved.positions, "base64");
    const xyz = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    console.log(`tick ${p.tick}: ${p.moved.ids.length} moved, ${p.turned.ids.length} turned, ${p.changed.ids.length} otherwise changed, ${p.created.length} created, ${p.destroyed.length} destroyed` +
      (p.moved.ids[0] ? ` — ${p.moved.ids[0]} at y=${xyz[1].toFixed(3)}` : ""));
  }
});
await new Promise((r) => ws.on("open", r));
await request("initialize", { agentId: "ws-example", sessionId: "sess_ws_example", profile: "builder.readWrite" });
await request("state/subscribe", {});
await request("aoi/declare", { center: [0, 0, 0], radius: 20 });
const made = await request("tools/call", { name: "scene.createEntity", arguments: { shape: "sphere", position: [0, 8, 0], dynamic: true } });
console.log("dropped", made.result.result.entity);
await request("tools/call", { name: "scene.createEntity", arguments: { shape: "box", size: 20, position: [0, -10, 0], static: true } });
setTimeout(() => ws.close(), 2000);
