// JSON-RPC 2.0 framing: parse and validate one message, build replies.

import { JSONRPC } from "./protocol.ts";

/** A request id as sent: a number beyond what a double holds exactly is kept as its raw JSON text. */
export type Id = string | number | null | RawJson;

/** `JSON.rawJSON`'s result: serialised by JSON.stringify as the text it holds. */
interface RawJson {
  readonly rawJSON: string;
}

const json = JSON as JSON & {
  rawJSON(text: string): RawJson;
  parse(text: string, reviver: (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown): unknown;
};

/** The top-level `id` of `text` exactly as written (the parse rounded it). */
function rawId(text: string): RawJson {
  const ids: [unknown, string][] = [];
  const root = json.parse(text, function (this: unknown, key: string, value: unknown, context: { source?: string }) {
    if (key === "id" && context.source !== undefined) ids.push([this, context.source]);
    return value;
  });
  return json.rawJSON(ids.find(([holder]) => holder === root)![1]);
}

export interface Request {
  id: Id;
  /** False for a notification (no `id` member): it runs but gets no reply. */
  hasId: boolean;
  method: string;
  params: unknown;
}

export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown, readonly id: Id = null) {
    super(message);
  }
}

/** Parses one message; throws RpcError (-32700 / -32600) for what is not a valid request. */
export function parseRequest(text: string): Request {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    throw new RpcError(JSONRPC.PARSE_ERROR, `Parse error: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (Array.isArray(msg)) throw new RpcError(JSONRPC.INVALID_REQUEST, "Invalid Request: batches are not supported");
  if (typeof msg !== "object" || msg === null) throw new RpcError(JSONRPC.INVALID_REQUEST, "Invalid Request: a request must be a JSON object");
  const m = msg as Record<string, unknown>;
  const hasId = Object.hasOwn(m, "id");
  const id = m.id;
  const validId = !hasId || id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  const exact = typeof id === "number" && !Number.isSafeInteger(id) ? rawId(text) : (id as Id);
  const replyId: Id = validId && hasId ? exact : null;
  if (!validId) throw new RpcError(JSONRPC.INVALID_REQUEST, "Invalid Request: id must be a string, a number or null");
  if (m.jsonrpc !== "2.0") throw new RpcError(JSONRPC.INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"', undefined, replyId);
  if (typeof m.method !== "string" || m.method.length === 0) {
    throw new RpcError(JSONRPC.INVALID_REQUEST, "Invalid Request: method must be a non-empty string", undefined, replyId);
  }
  if (m.params !== undefined && (typeof m.params !== "object" || m.params === null)) {
    throw new RpcError(JSONRPC.INVALID_REQUEST, "Invalid Request: params must be an object or an array", undefined, replyId);
  }
  return { id: replyId, hasId, method: m.method, params: m.params ?? {} };
}

export function result(id: Id, value: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result: value });
}

export function error(id: Id, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });
}

export function notification(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}
