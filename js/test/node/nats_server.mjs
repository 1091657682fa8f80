// A real nats-server for the drivers that need one (the world log on
// JetStream, the spectator fan-out): on a free loopback port, killed when
// the driver exits.
import { spawn } from "node:child_process";

/** Starts nats-server (`-js` with `storeDir`: JetStream too); resolves to {nats, port}. */
export async function startNats(storeDir = null) {
  const args = ["-a", "127.0.0.1", "-p", "-1", ...(storeDir ? ["-js", "-sd", storeDir] : [])];
  const nats = spawn("/usr/sbin/nats-server", args, { stdio: ["ignore", "ignore", "pipe"] });
  process.on("exit", () => nats.kill("SIGKILL"));
  const port = await new Promise((resolve, reject) => {
    let err = "";
    nats.stderr.on("data", (d) => {
      err += d;
      const m = /Listening for client connections on [^\s]*:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    nats.on("exit", (code) => reject(new Error(`nats-server exited ${code}: ${err}`)));
  });
  return { nats, port };
}
