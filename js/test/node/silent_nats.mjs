// `--log-sink nats://` to a port that accepts and never answers: start-up
// fails with a clear error after the connect timeout, instead of hanging.
// Usage: node js/test/node/silent_nats.mjs <path-to-limina>
import { spawn } from "node:child_process";
import net from "node:net";

const limina = process.argv[2];
const held = [];
const silent = net.createServer((socket) => held.push(socket)).listen(0, "127.0.0.1");
await new Promise((r) => silent.on("listening", r));
const url = `nats://127.0.0.1:${silent.address().port}/limina.silent`;
const started = Date.now();
const child = spawn(limina, ["--mcp-ws", "--port", "0", "--log-sink", url], { stdio: ["ignore", "ignore", "pipe"] });
let stderr = "";
child.stderr.on("data", (d) => (stderr += d));
const code = await new Promise((resolve) => child.on("exit", resolve));
const ms = Date.now() - started;
silent.close();
held.forEach((s) => s.destroy());
const ok = code !== 0 && stderr.includes("NATS connecting at nats://127.0.0.1:") && stderr.includes("no answer within 10 s") && held.length > 0;
console.log(JSON.stringify({ ok, code, ms, stderr: stderr.trim().split("\n").slice(-3) }));
