// `subscriptions/listen` (MCP 2026-07-28): how a stateless client hears of
// changes. The listen request's answer is a stream: the server first
// acknowledges the kinds of change it will tell, then sends each matching
// notification tagged with the request's id, until the client cancels it
// (stdio, WebSocket) or closes it (HTTP). Limina has one kind to tell: its
// tool list changed. Nothing is replayed: a client that missed a change
// listens again and refetches.

import { send, SendOutcome } from "../../../crates/limina-mcp/js/hub.ts";
import { notification, RpcError, type Id } from "./jsonrpc.ts";
import { SUBSCRIPTION_ID_KEY } from "./modern.ts";
import { JSONRPC } from "./protocol.ts";

/** Open listen streams at most, server-wide. */
export const MAX_LISTENS = 1024;

interface Stream {
  conn: number;
  id: Id;
  tools: boolean;
}

const keyOf = (conn: number, id: unknown) => `${conn}:${JSON.stringify(id)}`;

export class ListenStreams {
  private readonly streams = new Map<string, Stream>();

  get open(): number {
    return this.streams.size;
  }

  /** Opens a stream for request `id` of `conn` and acknowledges what it will carry. */
  listen(conn: number, id: Id, params: Record<string, unknown>): void {
    const filter = params.notifications;
    if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
      throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: subscriptions/listen needs a notifications filter object");
    }
    const key = keyOf(conn, id);
    if (this.streams.has(key)) throw new RpcError(JSONRPC.INVALID_REQUEST, "Invalid Request: a listen stream with this id is already open");
    if (this.streams.size >= MAX_LISTENS) throw new RpcError(JSONRPC.INTERNAL_ERROR, `Subscription limit reached (${MAX_LISTENS} open listen streams)`);
    // Only what this server can tell is honoured: prompts and resources it has none of.
    const tools = (filter as Record<string, unknown>).toolsListChanged === true;
    this.streams.set(key, { conn, id, tools });
    const honoured = tools ? { toolsListChanged: true } : {};
    send(conn, notification("notifications/subscriptions/acknowledged", { notifications: honoured, _meta: { [SUBSCRIPTION_ID_KEY]: id } }), false);
  }

  /** A client's `notifications/cancelled` for one of its streams ends it. */
  cancel(conn: number, requestId: unknown): void {
    this.streams.delete(keyOf(conn, requestId));
  }

  /** Ends every stream of a connection that went away. */
  closed(conn: number): void {
    for (const [key, s] of this.streams) if (s.conn === conn) this.streams.delete(key);
  }

  /** Tells every stream that asked that the tool list changed. */
  toolsChanged(): void {
    for (const [key, s] of this.streams) {
      if (!s.tools) continue;
      const sent = send(s.conn, notification("notifications/tools/list_changed", { _meta: { [SUBSCRIPTION_ID_KEY]: s.id } }), false);
      if (sent === SendOutcome.Closed) this.streams.delete(key);
    }
  }
}
