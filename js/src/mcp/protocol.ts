// The MCP wire contract shared by the in-process, stdio and WebSocket transports.

export type MCPErrorCode = "not_found" | "invalid_input" | "forbidden" | "handler_error" | "capacity_exceeded";

export interface MCPTool {
  name: string;
  description: string;
  /** JSON Schema draft-07 of the skill's input. */
  input_schema: unknown;
}

export interface MCPRequest {
  tool: string;
  input?: Record<string, unknown>;
  context?: { agentId?: string; sessionId?: string; previousResults?: unknown[]; causedBy?: string[]; decisionId?: string };
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
} as const;

/** The JSON-RPC error code for an MCP error code. */
export function mcpErrorToJsonRpc(code: MCPErrorCode): number {
  switch (code) {
    case "not_found":
      return JSONRPC.METHOD_NOT_FOUND;
    case "invalid_input":
      return JSONRPC.INVALID_PARAMS;
    case "forbidden":
      return JSONRPC.FORBIDDEN;
    case "capacity_exceeded":
      return JSONRPC.CAPACITY_EXCEEDED;
    case "handler_error":
      return JSONRPC.INTERNAL_ERROR;
  }
}

/**
 * The MCP error code for something a handler threw: engine errors coded
 * `invalid_input` or `capacity_exceeded` keep their code; everything else
 * (an unknown entity included) is a `handler_error`. `not_found` stays
 * reserved for unknown skills and `forbidden` for permission and policy.
 */
export function errorCodeOf(e: unknown): MCPErrorCode {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "invalid_input" || code === "capacity_exceeded" ? code : "handler_error";
}
