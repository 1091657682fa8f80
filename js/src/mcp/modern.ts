// MCP revision 2026-07-28: stateless. There is no `initialize`; every
// request carries its protocol version, client info and capabilities in
// `params._meta`, and a client learns what the server speaks with
// `server/discover`. This file holds that revision's wire facts: the
// envelope keys, the validation ladder every request passes before it is
// dispatched, and the result envelope. The ladder's rungs and codes are the
// official SDKs': the first failing rung answers.

import type { RoutingHeaders } from "../../../crates/limina-mcp/js/hub.ts";
import { RpcError } from "./jsonrpc.ts";
import { JSONRPC } from "./protocol.ts";

/** Stateless revisions served, newest last. */
export const MODERN_VERSIONS = ["2026-07-28"];

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
export const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";

/** The 2026-07-28 error codes this server answers with (MCP's own range). */
const MODERN_CODES = {
  HEADER_MISMATCH: -32020,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/** A request's method → the param the HTTP `Mcp-Name` header mirrors. */
const NAME_BEARING: Readonly<Record<string, string>> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** Whether `params` carries the revision's envelope: its protocol-version key is the one sign (legacy `_meta` holds other keys). */
export function hasEnvelope(params: unknown): boolean {
  const meta = (params as { _meta?: unknown } | null)?._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) && Object.hasOwn(meta, PROTOCOL_VERSION_KEY);
}

/** The -32022 error naming what is served. */
export function unsupportedVersion(requested: unknown, message = "Unsupported protocol version"): RpcError {
  const data = typeof requested === "string" ? { supported: MODERN_VERSIONS, requested } : { supported: MODERN_VERSIONS };
  return new RpcError(MODERN_CODES.UNSUPPORTED_PROTOCOL_VERSION, message, data);
}

/**
 * Runs the ladder over one request; throws the first failing rung's error.
 * What the envelope says of the client (its name, its capabilities) is
 * never who acts: that is the operator.
 * `routing` is given over HTTP only (other transports have no headers).
 * 1. `_meta` holds the protocol version and client capabilities (-32602);
 * 2. the routing headers agree with the body (-32020), checked before the
 *    version so a client that disagrees with itself is told so;
 * 3. the version is a string (-32602) this server serves (-32022).
 */
export function checkRequest(method: string, params: Record<string, unknown>, routing: RoutingHeaders | null): void {
  if (routing?.duplicated) throw new RpcError(MODERN_CODES.HEADER_MISMATCH, `${routing.duplicated} header appears more than once`);
  const meta = params._meta;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw new RpcError(JSONRPC.INVALID_PARAMS, `params._meta must be an object carrying the required '${PROTOCOL_VERSION_KEY}' and '${CLIENT_CAPABILITIES_KEY}' envelope keys`);
  }
  const m = meta as Record<string, unknown>;
  const missing = [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY].filter((key) => !Object.hasOwn(m, key));
  if (missing.length > 0) throw new RpcError(JSONRPC.INVALID_PARAMS, `params._meta is missing the required envelope key(s): ${missing.join(", ")}`);
  const version = m[PROTOCOL_VERSION_KEY];
  if (routing) {
    if (routing.version === null || routing.version !== version) {
      throw new RpcError(MODERN_CODES.HEADER_MISMATCH, "mcp-protocol-version header does not match the request envelope's protocol version");
    }
    if (routing.method !== method) throw new RpcError(MODERN_CODES.HEADER_MISMATCH, "mcp-method header does not match the request body's method");
    const key = NAME_BEARING[method];
    if (key !== undefined && params[key] !== undefined && params[key] !== null && decodeHeaderValue(routing.name) !== params[key]) {
      throw new RpcError(MODERN_CODES.HEADER_MISMATCH, `mcp-name header does not match the request body's '${key}' parameter`);
    }
  }
  if (typeof version !== "string") throw new RpcError(JSONRPC.INVALID_PARAMS, "the protocol-version envelope value must be a string");
  if (!MODERN_VERSIONS.includes(version)) throw unsupportedVersion(version);
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** V8's built-in base64 on Uint8Array (ES2026), not yet in TypeScript's lib. */
interface Base64Bytes extends Uint8Array {
  toBase64(): string;
}
const Bytes = Uint8Array as unknown as { fromBase64(text: string): Base64Bytes };

/**
 * A header value as the client meant it: values that would not survive an
 * HTTP field travel as `=?base64?…?=`. A malformed one is null, so it never
 * matches a body value by accident.
 */
export function decodeHeaderValue(value: string | null): string | null {
  if (value === null) return null;
  const m = SENTINEL.exec(value);
  if (!m) return value;
  try {
    const bytes = Bytes.fromBase64(m[1]);
    // Only the canonical encoding counts (decoding forgives stray bits).
    if (bytes.toBase64() !== m[1]) return null;
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** A result as the revision sends it: typed `complete` and stamped with who answered. */
export function modernResult(value: Record<string, unknown>): Record<string, unknown> {
  return { ...value, resultType: "complete", _meta: { [SERVER_INFO_KEY]: { name: "limina", version: Limina.version } } };
}
