// SIGTERM ends every server — stdio, WebSocket, Streamable HTTP, and a durable
// world with --world-file — promptly and cleanly: replies already asked for
// are delivered, the world file is saved, clients are closed (a WebSocket
// client gets a close frame), one line says so, and the exit status is 0.
// Each server reports how long its own shutdown took (the figure the 200 ms
// goal is about), in wall time and in its loop thread's CPU time. The wall
// time stretches on a busy machine, so it is only printed; the CPU time is
// checked: at 200 ms or more no machine could meet the goal. The wall time
// from the signal to the exit is checked with a wide margin (a hang).
// Usage: node js/test/node/sigterm.mjs <path-to-limina>
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";

const limina = process.argv[2];
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};
const checks = [];
const check = (cond, msg) => {
  if (!cond) fail(msg);
  checks.push(msg);
};

/** Starts a server; resolves once `ready` matches its stderr, with the match. */
function start(args, ready) {
  const child = spawn(limina, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, LIMINA_AUDIO: "null" } });
  process.on("exit", () => child.kill("SIGKILL"));
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  // The exit times the stop; the streams' end says everything it printed has been read.
  const exit = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, at: performance.now() })));
  const drained = new Promise((resolve) => child.on("close", resolve));
  const exited = Promise.all([exit, drained]).then(([e]) => e);
  const listening = new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = ready.exec(stderr);
      if (m) resolve(m);
    });
    child.on("exit", (code) => reject(new Error(`exited ${code} before it was ready: ${stderr}`)));
  });
  return { child, listening, exited, stderr: () => stderr, stdout: () => stdout };
}

/** Sends SIGTERM; resolves with the exit, the one line it printed, its own shutdown time (wall and CPU) and the wall time. */
async function stop(s) {
  const sent = performance.now();
  s.child.kill("SIGTERM");
  const exit = await s.exited;
  const lines = s.stderr().trim().split("\n").filter((l) => l.includes("SIGTERM"));
  const [, own, ownCpu] = /stopped serving in (\d+) ms \(([\d.]+) ms of CPU\) after flushing/.exec(lines[0] ?? "") ?? [];
  return { ...exit, lines, own: Number(own), ownCpu: Number(ownCpu), wall: exit.at - sent };
}

function judge(name, r, extra = () => {}) {
  check(r.code === 0 && r.signal === null, `${name}: exit 0 after SIGTERM, got ${r.code} ${r.signal}`);
  check(r.lines.length === 1 && /^limina: SIGTERM: stopped serving in \d+ ms \([\d.]+ ms of CPU\) after flushing \(tick \d+, \d+ clients? closed/.test(r.lines[0]), `${name}: one line says so: ${JSON.stringify(r.lines)}`);
  check(r.ownCpu < 200, `${name}: after flushing its loop used ${r.ownCpu} ms of CPU to stop (${r.own} ms of wall time), under 200`);
  check(r.wall < 3000, `${name}: it was gone ${Math.round(r.wall)} ms after the signal`);
  extra();
  return { name, ownMs: r.own, ownCpuMs: r.ownCpu, wallMs: Math.round(r.wall) };
}

const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sigterm", version: "1" } } };
const results = [];

// stdio: a reply asked for just before the signal is still delivered.
{
  const s = start(["--mcp-stdio", "--verbose"], /serving MCP on stdio/);
  await s.listening;
  s.child.stdin.write(JSON.stringify(INIT) + "\n");
  s.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "scene.createEntity", arguments: { shape: "cone" } } }) + "\n");
  while (!s.stdout().includes('"id":2')) await new Promise((r) => setTimeout(r, 5));
  const r = await stop(s);
  results.push(judge("stdio", r, () => check(/"id":2.*ent_1/.test(s.stdout()), "stdio: the reply went out")));
}

// WebSocket: every connected client gets a close frame, not a reset — also those that connected
// just before the signal, whose opening the server's loop may not have taken yet.
{
  const s = start(["--mcp-ws", "--port", "0"], /listening on ws:\/\/127\.0\.0\.1:(\d+)/);
  const port = Number((await s.listening)[1]);
  const clients = Array.from({ length: 8 }, () => new WebSocket(`ws://127.0.0.1:${port}`));
  await Promise.all(clients.map((ws) => new Promise((resolve, reject) => (ws.on("open", resolve), ws.on("error", reject)))));
  const closed = Promise.all(clients.map((ws) => new Promise((resolve) => ws.on("close", (code) => resolve(code)))));
  const r = await stop(s);
  const codes = await closed;
  results.push(judge("ws", r, () => check(codes.every((c) => c === 1000) && /\b8 clients closed/.test(r.lines[0]), `ws: all 8 clients got a close frame (${codes}; ${r.lines[0]})`)));
}

// Streamable HTTP.
{
  const s = start(["--mcp-http", "--port", "0"], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  const port = Number((await s.listening)[1]);
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(INIT) });
  check(res.status === 200, `http: initialize answered (${res.status})`);
  results.push(judge("http", await stop(s)));
}

// A durable world: WebSocket and HTTP together, the world file saved on the way out.
{
  const dir = mkdtempSync(join(tmpdir(), "limina-sigterm-"));
  const file = join(dir, "world.bin");
  const s = start(["--mcp-ws", "--mcp-http", "--port", "0", "--world-file", file], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  await s.listening;
  const r = await stop(s);
  results.push(judge("ws+http+world-file", r, () => check(/saved the world to .*world\.bin \(\d+ bytes\) in \d+ ms\)$/.test(r.lines[0]) && existsSync(file), `the world file was saved: ${r.lines[0]}`)));
  rmSync(dir, { recursive: true, force: true });
}

console.log(JSON.stringify({ ok: true, checks: checks.length, results }));
