// `limina relay nats://HOST:PORT/SUBJECT --port N`: serves the spectator
// page and fans a world's state stream out to browsers. The world server
// publishes once a tick (`--spectator-sink`); the relay keeps the world's
// state as the stream describes it — each entity's transform, look and
// tags, each character's last whole animation state and the changes since
// (a mirror with history), and the world's look — so a browser that joins
// gets a snapshot at once, then the very delta messages the world published, forwarded as
// they came (encoded once, by the world). A relay serves spectators only:
// nothing it answers writes, and it has no world to write to.

import { SpectatorStream } from "../../../crates/limina-mcp/js/fanout.ts";
import { backlog, broadcast, listenWs, send, SendOutcome, serveConfig, takeEvents } from "../../../crates/limina-mcp/js/hub.ts";
import { error, type Id, notification, parseRequest, result, RpcError } from "../mcp/jsonrpc.ts";
import { JSONRPC } from "../mcp/protocol.ts";
import { onArrivals, onFixedStep } from "../loop.ts";
import { StateMirror } from "./mirror.ts";
import { SPECTATOR } from "./spectator.ts";

const config = serveConfig();
if (!config?.relay) throw new Error("relay.ts is the entry of limina relay");
const url = config.relay;

/** A client this many messages behind waits to catch up, then gets a fresh snapshot. */
const BACKLOG_LIMIT = 8;

interface Client {
  conn: number;
  initialized: boolean;
  subscribed: boolean;
  /** In lock-step with the stream: gets every delta as it comes. */
  synced: boolean;
}

const mirror = new StateMirror(true);
/** Whether the relay's state follows the stream (false until a snapshot, and after a gap). */
let live = false;
let lastSeq = 0;
const clients = new Map<number, Client>();

function snapshotText(): string {
  mirror.clients = clients.size;
  return notification("state/snapshot", mirror.snapshot({ sentAt: performance.timeOrigin + performance.now(), relay: true }));
}

/** Sends the relay's state whole to subscribers that are not in lock-step and have caught up. */
function resync(): void {
  if (!live) return;
  const joiners = [...clients.values()].filter((c) => c.subscribed && !c.synced && backlog(c.conn) < BACKLOG_LIMIT);
  if (joiners.length === 0) return;
  const outcomes = broadcast(joiners.map((c) => c.conn), snapshotText(), true);
  outcomes.forEach((o, i) => (joiners[i].synced = o === SendOutcome.Sent));
}

function forward(text: string): void {
  const members = [...clients.values()].filter((c) => c.synced);
  for (const c of members) if (backlog(c.conn) >= BACKLOG_LIMIT) c.synced = false;
  const to = members.filter((c) => c.synced);
  if (to.length === 0) return;
  broadcast(to.map((c) => c.conn), text, true).forEach((o, i) => {
    if (o !== SendOutcome.Sent) to[i].synced = false;
  });
}

async function follow(stream: SpectatorStream): Promise<void> {
  for (;;) {
    const batch = await stream.next();
    if (batch.length === 0) {
      console.error(`limina relay: the subscription to ${url} ended`);
      Limina.exit(1);
      return;
    }
    for (const [seq, text] of batch) {
      const gap = lastSeq !== 0 && seq !== lastSeq + 1;
      lastSeq = seq;
      const msg = JSON.parse(text) as { method: string; params: Record<string, unknown> };
      if (msg.method === "state/snapshot") {
        mirror.applySnapshot(msg.params);
        live = true;
        for (const c of clients.values()) c.synced = false;
      } else if (msg.method === "state/delta") {
        if (gap) live = false; // a delta went missing: wait for the next snapshot
        if (!live) continue;
        mirror.applyDelta(msg.params);
        forward(text);
      }
    }
  }
}

function handle(c: Client, text: string): string | null {
  let id: Id = null;
  try {
    const req = parseRequest(text);
    id = req.id;
    const p = (req.params ?? {}) as Record<string, unknown>;
    let value: unknown;
    switch (req.method) {
      case "initialize":
        if (p.profile !== undefined && p.profile !== SPECTATOR) {
          throw new RpcError(JSONRPC.FORBIDDEN, `a relay serves spectators only: initialize with profile ${SPECTATOR}, not ${String(p.profile)}`);
        }
        c.initialized = true;
        value = { protocolVersion: "limina", serverInfo: { name: "limina-relay", version: Limina.version }, session: { profile: SPECTATOR, permissions: [] }, relay: url };
        break;
      case "ping":
        value = {};
        break;
      case "state/subscribe":
        if (!c.initialized) throw new RpcError(JSONRPC.FORBIDDEN, "MCP session is not initialized");
        c.subscribed = true;
        c.synced = false;
        value = { ok: true, layout: mirror.layout, aoi: null, snapshot: "state/snapshot now, then state/delta as the world publishes them" };
        break;
      case "state/unsubscribe":
        value = { ok: c.subscribed };
        c.subscribed = c.synced = false;
        break;
      case "tools/list":
        value = { tools: [] };
        break;
      default:
        throw new RpcError(JSONRPC.METHOD_NOT_FOUND, `Method not found: ${req.method} (a relay serves spectators only: initialize, state/subscribe, state/unsubscribe, ping)`);
    }
    return req.hasId ? result(req.id, value) : null;
  } catch (e) {
    const r = e instanceof RpcError ? e : new RpcError(JSONRPC.INTERNAL_ERROR, String(e));
    return error(r.id ?? id, r.code, r.message);
  }
}

function tellClients(): void {
  const subs = [...clients.values()].filter((c) => c.subscribed).map((c) => c.conn);
  if (subs.length > 0) broadcast(subs, notification("state/clients", { clients: clients.size }), true);
}

onArrivals(() => {
  for (;;) {
    const events = takeEvents(256);
    if (events.length === 0) break;
    for (const e of events) {
      if (e.kind === "open") {
        clients.set(e.conn, { conn: e.conn, initialized: false, subscribed: false, synced: false });
        tellClients();
      } else if (e.kind === "close") {
        if (clients.delete(e.conn)) tellClients();
      } else if (e.kind === "message") {
        const c = clients.get(e.conn);
        const reply = c ? handle(c, e.text) : null;
        if (reply !== null) send(e.conn, reply, false);
      } else if (e.kind === "rejected") {
        send(e.conn, error(null, JSONRPC.INVALID_REQUEST, `Invalid Request: ${e.reason}`), false);
      }
    }
  }
});

// Joiners get their snapshot on the relay's next step (which also keeps the host loop, and so arrivals, running).
onFixedStep(resync);
const stream = await SpectatorStream.open(url);
const port = await listenWs(config.host, config.port, config.maxMessageBytes, config.maxClients, config.idleTimeout, true);
console.error(`limina relay: serving spectators of ${url} on ws://${config.host}:${port} (the page: http://${config.host}:${port}/)`);
void follow(stream);
