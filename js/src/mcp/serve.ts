// The entry `limina --mcp-stdio` / `--mcp-ws` runs: builds the world (with
// the optional module), starts the transport and serves until stdin ends
// (stdio) or the process is stopped (WebSocket). The world keeps stepping
// on the fixed-timestep loop all the while.

import { backlog, listenStdio, listenWs, serveConfig } from "../../../crates/limina-mcp/js/hub.ts";
import { PROFILES } from "../skills/profiles.ts";
import { WorldSession } from "../world-session.ts";
import { McpServer } from "./server.ts";

const config = serveConfig();
if (!config) throw new Error("serve.ts is the entry of limina --mcp-stdio / --mcp-ws");

if (!Object.hasOwn(PROFILES, config.profile)) {
  throw new Error(`--profile ${config.profile}: unknown profile (known: ${Object.keys(PROFILES).join(", ")})`);
}

const session = new WorldSession({ policy: true, skillReload: config.dev });
if (config.worldModule) {
  const mod = await import(config.worldModule);
  const build = mod.default ?? mod.build;
  if (typeof build !== "function") {
    throw new Error(`${config.worldModule} must export a default (or "build") function taking the world session`);
  }
  await build(session);
}

let stdioConn = -1;
new McpServer(session, {
  transport: config.transport,
  profile: config.profile,
  onClose: (conn) => {
    if (conn !== stdioConn) return;
    // End of input: exit once every reply has been written.
    const finish = () => (backlog(conn) === 0 ? Limina.exit(0) : setTimeout(finish, 1));
    finish();
  },
});

if (config.transport === "stdio") {
  stdioConn = listenStdio(config.maxMessageBytes);
  console.error(`limina: serving MCP on stdio (profile for standard clients: ${config.profile})`);
} else {
  const port = await listenWs(config.host, config.port, config.maxMessageBytes, config.maxClients, config.idleTimeout);
  console.error(`limina: MCP world server listening on ws://${config.host}:${port}`);
}
