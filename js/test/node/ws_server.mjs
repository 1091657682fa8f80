// What the Node drivers of the network servers (`limina --mcp-ws`,
// `--mcp-http`) share: starting the server on free ports, and checks that
// stop it at the first failure.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
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

/**
 * A raw WebSocket client of the server on `port`: `call(method, params)` resolves to the reply with its id;
 * `other(msg, false)` gets every other text message parsed, `other(data, true)` every binary one.
 */
export async function wsPeer(port, other = () => {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  const pending = new Map();
  let next = 1;
  ws.on("message", (data, binary) => {
    if (binary) return other(data, true);
    const msg = JSON.parse(data.toString());
    const reply = pending.get(msg.id);
    if (!reply) return other(msg, false);
    reply(msg);
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

/**
 * A WebSocket client over a bare TCP socket, for a reader the test pauses:
 * resolves once the server has answered the handshake, with the socket
 * paused; `send(text)` writes one masked text frame.
 */
export async function rawWsClient(port) {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((r) => socket.on("connect", r));
  socket.write(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  // Frames may follow only the server's answer (a server refuses bytes after the request).
  await new Promise((resolve, reject) => {
    let head = "";
    const read = (d) => {
      head += d.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.pause();
      socket.off("data", read);
      if (head.startsWith("HTTP/1.1 101")) resolve();
      else reject(new Error(`handshake refused: ${head.split("\r\n")[0]}`));
    };
    socket.on("data", read);
  });
  const send = (text) => {
    const payload = Buffer.from(text);
    const mask = Buffer.from([1, 2, 3, 4]);
    const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
    socket.write(Buffer.concat([head, mask, Buffer.from(payload.map((x, i) => x ^ mask[i % 4]))]));
  };
  return { socket, send };
}

/**
 * The kernel's queues of the loopback connection between the server on `serverPort` and a client on
 * `clientPort` (/proc/net/tcp): bytes the server wrote but could not send (a full receive window keeps
 * them), and `key`, both ends' queues together, which stops changing once its writer is blocked.
 */
export function loopbackQueues(serverPort, clientPort) {
  const hex = (port) => `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  // One read for both ends: the kernel walks every socket on the machine for each read of the table.
  const rows = readFileSync("/proc/net/tcp", "utf8").split("\n").map((l) => l.trim().split(/\s+/));
  const queue = (local, remote) => {
    const row = rows.find((f) => f[1] === hex(local) && f[2] === hex(remote));
    if (!row) throw new Error(`no loopback connection ${local} → ${remote} in /proc/net/tcp`);
    return row[4].split(":").map((q) => parseInt(q, 16));
  };
  const [unsent] = queue(serverPort, clientPort);
  const [, unread] = queue(clientPort, serverPort);
  return { unsent, key: `${unsent} bytes queued to send, ${unread} received unread` };
}
