// The entry `limina --mcp-stdio` / `--mcp-ws` runs: builds the world (with
// the optional module), starts the transport and serves until stdin ends
// (stdio) or the process is stopped (WebSocket). The world keeps stepping
// on the fixed-timestep loop all the while.

import { createWorldSession } from "../world-session.ts";
import { type HubEvent, McpServer } from "./server.ts";

const ops = Limina.ops;

interface ServeConfig {
  transport: "stdio" | "ws";
  host: string;
  port: number;
  profile: string;
  maxMessageBytes: number;
  worldModule: string | null;
}

const config: ServeConfig | null = ops.op_mcp_config();
if (!config) throw new Error("serve.ts is the entry of limina --mcp-stdio / --mcp-ws");

const session = createWorldSession({ policy: true });
if (config.worldModule) {
  const mod = await import(config.worldModule);
  const build = mod.default ?? mod.build;
  if (typeof build !== "function") {
    throw new Error(`${config.worldModule} must export a default (or "build") function taking the world session`);
  }
  await build(session);
}

let stdioConn = -1;
const server = new McpServer(session, {
  transport: config.transport,
  profile: config.profile,
  onClose: (conn) => {
    if (conn !== stdioConn) return;
    // End of input: exit once every reply has been written.
    const finish = () => (ops.op_mcp_backlog(conn) === 0 ? Limina.exit(0) : setTimeout(finish, 1));
    finish();
  },
});

if (config.transport === "stdio") {
  stdioConn = ops.op_mcp_listen_stdio(config.maxMessageBytes);
  console.error(`limina: serving MCP on stdio (profile for standard clients: ${config.profile})`);
} else {
  const port: number = await ops.op_mcp_listen_ws(config.host, config.port, config.maxMessageBytes);
  console.error(`limina: MCP world server listening on ws://${config.host}:${port}`);
}

for (;;) {
  const event: HubEvent | null = await ops.op_mcp_next();
  if (event === null) break;
  server.onEvent(event);
}
