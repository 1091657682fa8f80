// Entities describe themselves on the WebSocket state stream (`limina
// --mcp-ws`): a subscriber that built nothing gets each entity's look (shape
// and dimensions, colour, material, visibility) and tags in the snapshot and
// in `created`, and `restyled` when a colour, visibility or tag changes —
// enough to redraw the world exactly; an area-of-interest client likewise.
// Usage: node js/test/node/ws_looks.mjs <path-to-limina>
import { checker, startWsServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];
const { server, port } = await startWsServer(limina, []);
const { check, checks } = checker(server);

/** A client: calls, and the notifications it got, awaited by predicate. */
async function client(name, profile) {
  const peer = await wsPeer(port);
  const notes = [];
  const waiters = [];
  peer.ws.on("message", (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.id !== undefined) return;
    notes.push(msg);
    for (const w of waiters.slice()) if (w.pred(msg)) w.resolve(msg);
  });
  const init = await peer.call("initialize", { agentId: name, sessionId: `sess_${name}`, profile });
  check(init.result?.session, `${name} initialized`);
  return {
    tool: async (tool, args = {}) => {
      const r = await peer.call("tools/call", { name: tool, arguments: args });
      check(r.result?.success, `${tool}: ${JSON.stringify(r.error ?? r.result?.error)}`);
      return r.result.result;
    },
    call: peer.call,
    waitFor: (pred, ms = 10_000) => {
      const hit = notes.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`${name}: timed out waiting`)), ms);
        waiters.push({ pred, resolve: (m) => (clearTimeout(t), resolve(m)) });
      });
    },
    close: () => peer.ws.close(),
  };
}

const builder = await client("builder", "builder.readWrite");
const table = (await builder.tool("scene.createEntity", { shape: "box", size: [2, 0.1, 1], color: 0x8b5a2b, position: [0, 1, 0], static: true, tags: ["table"] })).entity;

const viewer = await client("viewer", "system.readonly");
await viewer.call("state/subscribe");
const snap = await viewer.waitFor((m) => m.method === "state/snapshot");
const row = snap.params.entities.find((e) => e.entity === table);
check(JSON.stringify(row.look) === JSON.stringify({ shape: "box", size: [2, 0.1, 1], color: 0x8b5a2b, roughness: 0.5, metalness: 0, material: null, visible: true }), `the snapshot carries the table's look: ${JSON.stringify(row.look)}`);
check(JSON.stringify(row.tags) === '["table"]', "and its tags");

const lamp = (await builder.tool("scene.createEntity", { shape: "cone", radius: 0.3, height: 0.5, color: 0xffee88, position: [0, 1.3, 0], tags: ["lamp"] })).entity;
const created = await viewer.waitFor((m) => m.method === "state/delta" && m.params.created.some((e) => e.entity === lamp));
const made = created.params.created.find((e) => e.entity === lamp);
check(made.look.shape === "cone" && made.look.radius === 0.3 && made.look.height === 0.5 && made.look.color === 0xffee88, `created carries the look: ${JSON.stringify(made)}`);
check(made.transform.length === 10 && Math.abs(made.transform[1] - 1.3) < 1e-6, "and the transform");

await builder.tool("three.setMaterial", { entity: table, color: 0x224466 });
const recoloured = await viewer.waitFor((m) => m.method === "state/delta" && m.params.restyled?.some((e) => e.entity === table && e.look.color === 0x224466));
check(recoloured.params.restyled.length === 1, "only the changed entity is resent");
await builder.tool("scene.setVisible", { entity: lamp, visible: false });
await viewer.waitFor((m) => m.method === "state/delta" && m.params.restyled?.some((e) => e.entity === lamp && e.look.visible === false));
await builder.tool("scene.setTags", { entity: lamp, tags: ["lamp", "off"] });
await viewer.waitFor((m) => m.method === "state/delta" && m.params.restyled?.some((e) => e.entity === lamp && e.tags.includes("off")));

// An area-of-interest client gets looks for what it can see.
const near = await client("near", "system.readonly");
await near.call("state/subscribe");
await near.call("aoi/declare", { center: [20, 0, 0], radius: 5 });
const hidden = (await builder.tool("scene.createEntity", { shape: "torus", radius: 1, tube: 0.2, position: [21, 0, 0] })).entity;
const seen = await near.waitFor((m) => (m.method === "state/delta" && m.params.created.some((e) => e.entity === hidden)) || (m.method === "state/snapshot" && m.params.entities.some((e) => e.entity === hidden)));
const entry = (seen.params.created ?? seen.params.entities).find((e) => e.entity === hidden);
check(entry.look.shape === "torus" && entry.look.tube === 0.2, `the AOI client sees the torus's look: ${JSON.stringify(entry)}`);

builder.close();
viewer.close();
near.close();
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, checks: checks.length }));
