// A line-framed JSON-RPC client on a spawned server's stdio, as an MCP
// client over stdio talks to it: `call` resolves with the reply of the same
// id, `notify` sends without an id, `stderr()` is everything the server
// wrote there so far.
import { spawn } from "node:child_process";

/** Spawns `cmd args` and connects to it; `spawned` is when (performance.now()). */
export function connectStdio(cmd, args, { cwd, env } = {}) {
  const spawned = performance.now();
  const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], cwd, env });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  const waiting = new Map();
  let rest = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop();
    for (const line of lines) {
      if (line === "") continue;
      const msg = JSON.parse(line);
      const resolve = waiting.get(msg.id);
      if (resolve) {
        waiting.delete(msg.id);
        resolve(msg);
      }
    }
  });
  let next = 1;
  const send = (msg) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
  const call = (method, params = {}) => {
    const id = next++;
    send({ id, method, params });
    return new Promise((resolve) => waiting.set(id, resolve));
  };
  const notify = (method, params) => send({ method, ...(params ? { params } : {}) });
  const close = async () => {
    child.stdin.end();
    if (child.exitCode === null) await new Promise((resolve) => child.on("exit", resolve));
  };
  return { child, spawned, call, notify, close, stderr: () => stderr };
}
