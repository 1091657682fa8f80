// The client side's floor for mcp_ws.mjs's call round trip: the same 16
// Node WebSocket clients, calls on the same staggered schedule (one every
// 50 ms each), against a Node server in another process that answers each
// call at once with a reply of the same shape, and sends no deltas. What it
// measures is Node and the kernel on both sides, no engine.
// Run: node js/bench/ws_floor.mjs   (final line: JSON figures)
import { spawn } from "node:child_process";
import WebSocket, { WebSocketServer } from "ws";

const CLIENTS = 16;
const CALL_EVERY_MS = 50;
const call = (id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "scene.queryEntities", arguments: { near: [0, 0, 0], radius: 1 } } });
const idOf = (data) => Number(/"id":(\d+)/.exec(data.toString("utf8", 0, 120))[1]);

if (process.argv[2] === "server") {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  wss.on("listening", () => console.log(wss.address().port));
  wss.on("connection", (ws) =>
    ws.on("message", (data) => ws.send(`{"jsonrpc":"2.0","id":${idOf(data)},"result":{"content":[{"type":"text","text":"[]"}]}}`)),
  );
} else {
  const server = spawn(process.execPath, [new URL(import.meta.url).pathname, "server"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve) => server.stdout.once("data", (d) => resolve(Number(d.toString()))));
  const now = () => performance.timeOrigin + performance.now();
  const rtts = [];
  let measuring = false;
  const open = () =>
    new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`);
      const sentAt = new Map();
      let next = 3;
      ws.on("open", () =>
        resolve(() => {
          const id = next++;
          sentAt.set(id, now());
          ws.send(call(id));
        }),
      );
      ws.on("message", (data) => {
        const at = now();
        const id = idOf(data);
        if (measuring) rtts.push(at - sentAt.get(id));
        sentAt.delete(id);
      });
    });
  const clients = await Promise.all(Array.from({ length: CLIENTS }, open));
  // mcp_ws.mjs's schedule: each client's calls drift-free, the clients staggered.
  const start = now();
  clients.forEach((send, i) => {
    let n = 0;
    const next = () =>
      setTimeout(() => {
        send();
        n++;
        next();
      }, Math.max(0, start + ((i + n * CLIENTS) * CALL_EVERY_MS) / CLIENTS - now()));
    next();
  });
  await new Promise((r) => setTimeout(r, 1000));
  measuring = true;
  await new Promise((r) => setTimeout(r, 4000));
  measuring = false;
  rtts.sort((a, b) => a - b);
  const pct = (p) => Number(rtts[Math.min(rtts.length - 1, Math.ceil((p / 100) * rtts.length) - 1)].toFixed(3));
  console.log(JSON.stringify({ bench: "ws_floor", clients: CLIENTS, calls: rtts.length, rttP50Ms: pct(50), rttP95Ms: pct(95) }));
  server.kill();
  process.exit(0);
}
