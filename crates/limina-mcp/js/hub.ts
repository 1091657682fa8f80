// The JS face of limina-mcp: the transports frame, bound and move bytes;
// the JSON-RPC server (js/src/mcp/server.ts) takes their events as it
// applies them and queues its replies through these functions.

/** The transports a connection can arrive by. */
export type Transport = "stdio" | "ws" | "http";

export type HubEvent =
  /** `access` "spectator": a browser that presented no token (only the spectator profile). */
  | { kind: "open"; conn: number; peer: string; transport: Transport; access: "full" | "spectator" }
  | { kind: "message"; conn: number; text: string }
  /** A stdio client's first message, answered with `reply` before the server ran (see handshake.rs). */
  | { kind: "adopted"; conn: number; text: string; reply: string }
  /** One stateless (2026-07-28) HTTP request: a connection of its own that ends with its one reply. */
  | { kind: "exchange"; conn: number; peer: string; text: string; routing: RoutingHeaders }
  | { kind: "rejected"; conn: number; reason: string }
  | { kind: "close"; conn: number; reason: string };

/** A stateless POST's routing headers (null: absent); `duplicated` names one sent more than once. */
export interface RoutingHeaders {
  version: string | null;
  method: string | null;
  name: string | null;
  duplicated: string | null;
}

/** How `--mcp-stdio`, `--mcp-ws` and `--mcp-http` asked to serve. */
export interface ServeConfig {
  stdio: boolean;
  ws: boolean;
  http: boolean;
  host: string;
  /** The WebSocket port. */
  port: number;
  /** The Streamable HTTP port. */
  httpPort: number;
  /** The Streamable HTTP endpoint's path. */
  path: string;
  profile: string;
  maxMessageBytes: number;
  /** `--max-clients`: WebSocket connections, and HTTP sessions, served at once. */
  maxClients: number;
  /** `--idle-timeout`: seconds of silence after which a network client is closed. */
  idleTimeout: number;
  /** `--dev`: `dev.reload` may swap skill handlers. */
  dev: boolean;
  /** `--verbose`, or stderr is a terminal: say at start what is served (an MCP client would only log it as noise). */
  verbose: boolean;
  /** The module that builds the world, as a file URL. */
  worldModule: string | null;
  /** `--world-file`: the durable world's file (restored at start, saved as it runs and on stop). */
  worldFile: string | null;
  /** `--save-every`: seconds between saves of the world file. */
  saveEvery: number;
  /** `--log-sink`: where the world log streams too (`nats://HOST:PORT/SUBJECT`). */
  logSink: string | null;
  /** `--tools-page-size`: tools per page of a standard `tools/list` (0: one page). */
  toolsPageSize: number;
  /** `--tools-listing`: the listing standard clients get by default. */
  toolsListing: "full" | "core";
  /** `--spectator-sink`: where the state stream is published for relays (`nats://HOST:PORT/SUBJECT`). */
  spectatorSink: string | null;
  /** `limina relay URL`: the NATS address this relay serves spectators from. */
  relay: string | null;
}

/** What queuing a message did: sent, dropped (droppable — a state delta — and the client is behind), or the connection is closed. */
export const SendOutcome = { Sent: 0, Dropped: 1, Closed: 2 } as const;
export type SendOutcome = (typeof SendOutcome)[keyof typeof SendOutcome];

interface McpOps {
  op_mcp_config(): ServeConfig | null;
  op_mcp_listen_stdio(maxMessageBytes: number): number;
  op_mcp_listen_ws(host: string, port: number, maxMessageBytes: number, maxClients: number, idleTimeoutS: number, relay: boolean): Promise<number>;
  op_mcp_listen_http(host: string, port: number, path: string, maxMessageBytes: number, maxSessions: number, idleTimeoutS: number, versions: [string[], string[]], wsPort: number): Promise<number>;
  /** A message comes as `[conn, text]`, any other event as its object. */
  op_mcp_take(max: number): ([number, string] | HubEvent)[];
  op_mcp_send(conn: number, text: string, droppable: boolean): SendOutcome;
  op_mcp_send_tool_text(conn: number, idJson: string, json: string, plain: boolean): SendOutcome;
  op_mcp_broadcast(conns: number[], text: string, droppable: boolean): SendOutcome[];
  op_mcp_backlog(conn: number): number;
  op_mcp_close(conn: number): void;
  op_mcp_close_all(): number;
  op_mcp_unclosed(): number;
  op_mcp_received(): number;
}

const ops = Limina.ops as unknown as McpOps;

/** The serve configuration, or null when this process is not an MCP server. */
export const serveConfig = (): ServeConfig | null => ops.op_mcp_config();
/** Serves MCP on stdin/stdout; returns its connection id. */
export const listenStdio = (maxMessageBytes: number): number => ops.op_mcp_listen_stdio(maxMessageBytes);
/**
 * Listens for WebSocket clients, at most `maxClients` at once, closing those silent for `idleTimeoutS`; a plain GET gets
 * the spectator page (`relay`: as a relay serves it). Resolves to the bound port.
 */
export const listenWs = (host: string, port: number, maxMessageBytes: number, maxClients: number, idleTimeoutS: number, relay = false): Promise<number> =>
  ops.op_mcp_listen_ws(host, port, maxMessageBytes, maxClients, idleTimeoutS, relay);
/**
 * Serves MCP Streamable HTTP at `path`, at most `maxSessions` sessions, ending those idle for `idleTimeoutS`;
 * `versions` are the session revisions a client may name, `modernVersions` the stateless ones; other paths serve the
 * spectator page, which connects to the WebSocket port `wsPort` (0: none). Resolves to the bound port.
 */
export const listenHttp = (host: string, port: number, path: string, maxMessageBytes: number, maxSessions: number, idleTimeoutS: number, versions: string[], modernVersions: string[], wsPort = 0): Promise<number> =>
  ops.op_mcp_listen_http(host, port, path, maxMessageBytes, maxSessions, idleTimeoutS, [versions, modernVersions], wsPort);
/** Up to `max` transport events, round-robin across connections (each connection's in arrival order). */
export const takeEvents = (max: number): HubEvent[] =>
  ops.op_mcp_take(max).map((e) => (Array.isArray(e) ? { kind: "message", conn: e[0], text: e[1] } : e));
/** Queues one message to a connection. */
export const send = (conn: number, text: string, droppable: boolean): SendOutcome => ops.op_mcp_send(conn, text, droppable);
/**
 * Queues a standard client's successful tools/call reply around its result's JSON text `json` (the
 * text content, and the structured content: the result itself when `plain`, else `{"result":…}`),
 * written natively byte for byte as `JSON.stringify` writes the reply; `idJson` is the id's JSON.
 */
export const sendToolText = (conn: number, idJson: string, json: string, plain: boolean): SendOutcome => ops.op_mcp_send_tool_text(conn, idJson, json, plain);
/** Queues the same message to many connections; each outcome in order. */
export const broadcast = (conns: number[], text: string, droppable: boolean): SendOutcome[] => ops.op_mcp_broadcast(conns, text, droppable);
/** Messages queued to a connection and not yet written. */
export const backlog = (conn: number): number => ops.op_mcp_backlog(conn);
/** Closes a connection once its queued messages are written. */
export const close = (conn: number): void => ops.op_mcp_close(conn);
/** Closes every connection, those the server has not seen open yet included; returns how many. */
export const closeAll = (): number => ops.op_mcp_close_all();
/** WebSocket clients whose close frame is not written yet. */
export const unclosed = (): number => ops.op_mcp_unclosed();
/** Messages read so far from every connection (a test's world holds a call until the ones behind it are read). */
export const received = (): number => ops.op_mcp_received();
