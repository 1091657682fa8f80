// What the Node drivers of `limina --mcp-ws` share: starting the server on
// a free port, and checks that stop it at the first failure.
import { spawn } from "node:child_process";

/** Starts `limina --mcp-ws --port 0 …args`; resolves once it listens. */
export async function startWsServer(limina, args, stdout = "inherit") {
  const server = spawn(limina, ["--mcp-ws", "--port", "0", ...args], { stdio: ["ignore", stdout, "pipe"] });
  const port = await new Promise((resolve, reject) => {
    let err = "";
    server.stderr.on("data", (d) => {
      err += d;
      const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    server.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  return { server, port };
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
