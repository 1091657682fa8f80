// The entry `limina --mcp-stdio` / `--mcp-ws` / `--mcp-http` runs: builds
// the world (with the optional module), starts the transports and serves
// until stdin ends (stdio) or the process is stopped (network servers).
// WebSocket and Streamable HTTP may run together: one world, one total
// order. The world keeps stepping on the fixed-timestep loop all the while.
// A stdio server answers its client's handshake first and builds the world
// when it is first needed (see server.ts): the client's first reply does not
// wait for it. A network server builds it before it listens.

import { backlog, closeAll, unclosed, listenHttp, listenStdio, listenWs, serveConfig } from "../../../crates/limina-mcp/js/hub.ts";
import { waitForStopSignal } from "../../../crates/limina-trace/js/world-file.ts";
import { PROFILES } from "../skills/profiles.ts";
import { streamWorldLog } from "../persistence/log-sink.ts";
import { keepWorldFile, loadWorld, saveWorldNow } from "../persistence/world-file.ts";
import type { LiveIdentities } from "../policy/identity.ts";
import { WorldSession } from "../world-session.ts";
import { MODERN_VERSIONS } from "./modern.ts";
import { McpServer, STANDARD_VERSIONS } from "./server.ts";
import { SpectatorSink } from "../../../crates/limina-mcp/js/fanout.ts";

const config = serveConfig();
if (!config) throw new Error("serve.ts is the entry of limina --mcp-stdio / --mcp-ws / --mcp-http");

if (!Object.hasOwn(PROFILES, config.profile)) {
  throw new Error(`--profile ${config.profile}: unknown profile (known: ${Object.keys(PROFILES).join(", ")})`);
}

/** How long a stopping server waits for replies already queued to be written. */
const FLUSH_LIMIT_MS = 100;

// Set once every transport serves: a stop before that exits without saving (the world may not be restored yet).
let serving = false;
let server: McpServer | null = null;
// Set once the world is built.
let session: WorldSession | null = null;

// SIGTERM or SIGINT, watched from the start: save the world file and hand the world log
// everything (the flush), then let queued replies go out (briefly), close every client, say so in
// one line, and exit 0 — well within 200 ms of the flush.
void waitForStopSignal().then(async (signal) => {
  const started = performance.now();
  if (!serving || !server) {
    console.error(`limina: ${signal}: stopped while starting, before serving${config.worldFile ? ` (${config.worldFile} left as it was)` : ""}`);
    Limina.exit(0);
  }
  let saved = "";
  // A world file is kept by network servers only, which build their world before serving.
  if (config.worldFile && session) {
    try {
      const bytes = saveWorldNow(session, config.worldFile);
      saved = `, saved the world to ${config.worldFile} (${bytes} bytes) in ${Math.round(performance.now() - started)} ms`;
    } catch (e) {
      console.error(`limina: ${signal}: could not save the world to ${config.worldFile}: ${e instanceof Error ? e.message : e}`);
      Limina.exit(1);
    }
  }
  session?.tracer.flush();
  const flushed = performance.now();
  // The loop thread's own work from here on, which a busy machine does not stretch (the wall time it does).
  const flushedCpu = Limina.loop.cpuMs();
  const conns = server!.connectionIds();
  const queued = () => conns.reduce((n, c) => n + backlog(c), 0);
  while (queued() > 0 && performance.now() - started < FLUSH_LIMIT_MS) await new Promise((r) => setTimeout(r, 1));
  const unsent = queued();
  // Every connection, also one whose opening the loop has not taken yet (a client that connected just before the signal).
  const closed = closeAll();
  // Close frames go out on the transports' own tasks (a WebSocket's once its writer thread has drained it).
  await new Promise((r) => setTimeout(r, 10));
  while (unclosed() > 0 && performance.now() - flushed < FLUSH_LIMIT_MS) await new Promise((r) => setTimeout(r, 1));
  const ms = Math.round(performance.now() - flushed);
  const cpuMs = (Limina.loop.cpuMs() - flushedCpu).toFixed(1);
  console.error(`limina: ${signal}: stopped serving in ${ms} ms (${cpuMs} ms of CPU) after flushing (tick ${session?.tick ?? 0}, ${closed} client${closed === 1 ? "" : "s"} closed${unsent ? `, ${unsent} replies unsent` : ""}${saved})`);
  Limina.exit(0);
});

/** The world served: its log sink, its restored state, the module's building. */
async function buildWorld(identities: LiveIdentities): Promise<WorldSession> {
  const built = new WorldSession({ policy: true, skillReload: config!.dev, identities });
  // render.capture is offered where a GPU driver is installed; nothing touches it before the first capture.
  if (!(await built.enableCapture()) && config!.verbose) console.error("limina: render.capture is not offered: no GPU driver (Vulkan or EGL) is installed");
  // The sink first, so the stream holds the world log from the restore or the module's building on.
  if (config!.logSink) {
    await streamWorldLog(built.tracer, config!.logSink);
    console.error(`limina: streaming the world log to ${config!.logSink}`);
  }
  // A durable world comes back first, so the module sees `session.restored` and skips its one-time building.
  if (config!.worldFile && (await loadWorld(built, config!.worldFile))) {
    console.error(`limina: restored the world from ${config!.worldFile} (tick ${built.tick}, ${built.world.entities.size} entities)`);
  }
  if (config!.worldModule) {
    const mod = await import(config!.worldModule);
    const build = mod.default ?? mod.build;
    if (typeof build !== "function") {
      throw new Error(`${config!.worldModule} must export a default (or "build") function taking the world session`);
    }
    await build(built);
  }
  if (config!.worldFile) {
    const file = config!.worldFile;
    keepWorldFile(built, file, {
      everyMs: config!.saveEvery * 1000,
      exitOnSignal: false,
      onSave: (r) => "error" in r && console.error(`limina: could not save the world to ${file}: ${r.error instanceof Error ? r.error.message : r.error}`),
    });
  }
  session = built;
  return built;
}

// Spectators beyond this machine: the state stream goes to NATS once a tick, for relays to fan out.
const sink = config.spectatorSink ? await SpectatorSink.open(config.spectatorSink) : null;
if (sink) console.error(`limina: publishing the state stream to ${config.spectatorSink}`);

let stdioConn = -1;
server = new McpServer((identities) =>
  buildWorld(identities).catch((e) => {
    console.error(`limina: the world could not be built: ${e instanceof Error ? e.stack ?? e.message : e}`);
    throw e;
  }), {
  profile: config.profile,
  toolsPageSize: config.toolsPageSize,
  toolsListing: config.toolsListing,
  sink: sink ? (text) => sink.publish(text) : undefined,
  onClose: (conn) => {
    if (conn !== stdioConn) return;
    // End of input: exit once every reply has been written.
    const finish = () => (backlog(conn) === 0 ? Limina.exit(0) : setTimeout(finish, 1));
    finish();
  },
});

// A network server's clients find the world built, and a world that cannot be built stops it here.
if (config.ws || config.http) await server.world();
if (config.stdio) {
  stdioConn = listenStdio(config.maxMessageBytes);
  if (config.verbose) console.error(`limina: serving MCP on stdio (profile for standard clients: ${config.profile})`);
}
let wsPort = 0;
if (config.ws) {
  wsPort = await listenWs(config.host, config.port, config.maxMessageBytes, config.maxClients, config.idleTimeout);
  console.error(`limina: MCP world server listening on ws://${config.host}:${wsPort} (the spectator page: http://${config.host}:${wsPort}/)`);
}
if (config.http) {
  const port = await listenHttp(config.host, config.httpPort, config.path, config.maxMessageBytes, config.maxClients, config.idleTimeout, STANDARD_VERSIONS, MODERN_VERSIONS, wsPort);
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  console.error(`limina: MCP Streamable HTTP listening on http://${host}:${port}${config.path}`);
}
serving = true;
