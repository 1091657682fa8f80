// What the Node drivers of the network servers (`limina --mcp-ws`,
// `--mcp-http`) share: starting the server on free ports, and checks that
// stop it at the first failure.
import { spawn } from "node:child_process";
import WebSocket from "ws";

/** Starts `limina --mcp-ws --port 0 …args`; resolves once it listens. */
export async function startWsServer(limina, args, stdout = "inherit") {
  const { server, ws } = await startServer(limina, ["--mcp-ws", "--port", "0", ...args], stdout);
  return { server, port: ws };
}

/**
 * Starts `limina …args` (network transports on free ports); resolves once
 * every transport asked for listens, with the bound ports (`ws`, `http`).
 */
export async function startServer(limina, args, stdout = "inherit") {
  const wants = { ws: args.includes("--mcp-ws"), http: args.includes("--mcp-http") };
  const server = spawn(limina, args, { stdio: ["ignore", stdout, "pipe"] });
  // A driver that dies must not leave its server running.
  process.on("exit", () => server.kill("SIGKILL"));
  const ports = await new Promise((resolve, reject) => {
    let err = "";
    server.stderr.on("data", (d) => {
      err += d;
      const ws = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      const http = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if ((!wants.ws || ws) && (!wants.http || http)) resolve({ ws: ws && Number(ws[1]), http: http && Number(http[1]) });
    });
    server.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return { server, ...ports };
}

/** `check(cond, msg)` records a passed check or kills `server` and exits 1; `checks` lists those passed. */
export function checker(server) {
  const checks = [];
  const fail = (msg) => {
    console.error(`FAIL: ${msg}`);
    server.kill("SIGKILL");
    process.exit(1);
  };
  const check = (cond, msg) => {
    if (!cond) fail(msg);
    checks.push(msg);
  };
  return { check, fail, checks };
}

/** A raw WebSocket client of the server on `port`: `call(method, params)` resolves to the reply with its id. */
export async function wsPeer(port) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  const pending = new Map();
  let next = 1;
  ws.on("message", (data) => {
    const msg = JSON.parse(data.toString());
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  });
  await new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("error", reject);
  });
  const call = (method, params = {}) => {
    const id = next++;
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return new Promise((resolve) => pending.set(id, resolve));
  };
  return { ws, call };
}
