// The MCP wire contract shared by the in-process, stdio and WebSocket
// transports, and the one mapping from the engine's error codes to JSON-RPC.

import type { ErrorCode } from "../../../crates/limina-ops/js/errors.ts";

/** MCP error codes are the engine's error codes, one for one. */
export type MCPErrorCode = ErrorCode;

export interface MCPTool {
  name: string;
  description: string;
  /** JSON Schema draft-07 of the skill's input. */
  input_schema: unknown;
}

export interface MCPRequest {
  tool: string;
  input?: Record<string, unknown>;
  /** `causedBy` links the call into the caller's causal chain; `decisionId` tags an agent's action. Identity is always the session's. */
  context?: { causedBy?: string[]; decisionId?: string; previousResults?: unknown[] };
}

export interface MCPResponse {
  success: boolean;
  result?: unknown;
  error?: { code: MCPErrorCode; message: string };
  metadata?: {
    executionTimeMs: number;
    /** Types of the events this call emitted, in order. */
    eventsEmitted: string[];
    /** Their ids, in the same order. */
    eventIds: string[];
  };
}

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  FORBIDDEN: -32001,
  CAPACITY_EXCEEDED: -32002,
  UNAVAILABLE: -32003,
  IO_ERROR: -32004,
  ENGINE_INTERNAL: -32005,
} as const;

/** Each engine error code's JSON-RPC code: one for one, never collapsed. */
export const JSONRPC_CODE_OF: Readonly<Record<MCPErrorCode, number>> = Object.freeze({
  not_found: JSONRPC.METHOD_NOT_FOUND,
  invalid_input: JSONRPC.INVALID_PARAMS,
  handler_error: JSONRPC.INTERNAL_ERROR,
  forbidden: JSONRPC.FORBIDDEN,
  capacity_exceeded: JSONRPC.CAPACITY_EXCEEDED,
  unavailable: JSONRPC.UNAVAILABLE,
  io_error: JSONRPC.IO_ERROR,
  internal: JSONRPC.ENGINE_INTERNAL,
});

/** The JSON-RPC error code for an MCP error code. */
export function mcpErrorToJsonRpc(code: MCPErrorCode): number {
  return JSONRPC_CODE_OF[code];
}
