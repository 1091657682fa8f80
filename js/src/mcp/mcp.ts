// The in-process MCP surface: a session, tool discovery and tool calls,
// each a thin wrapper over `registry.invoke()`.

import type { SkillRegistry } from "../skills/registry.ts";
import { resolveProfile } from "../skills/profiles.ts";
import type { MCPErrorCode, MCPRequest, MCPResponse, MCPTool } from "./protocol.ts";

export const PROTOCOL_VERSION = "2025-06-18";

export interface McpSession {
  agentId: string;
  sessionId: string;
  profile: string;
  permissions: ReadonlySet<string>;
}

function refuse(code: MCPErrorCode, message: string): MCPResponse {
  return { success: false, error: { code, message }, metadata: { executionTimeMs: 0, eventsEmitted: [], eventIds: [] } };
}

export class Mcp {
  private session: McpSession | null = null;

  constructor(readonly registry: SkillRegistry) {}

  /** Binds the session: its permissions are the profile's (an unknown profile grants nothing). */
  initialize(params: { agentId: string; sessionId: string; profile: string }): { protocolVersion: string; session: { agentId: string; sessionId: string; profile: string; permissions: string[] } } {
    for (const key of ["agentId", "sessionId", "profile"] as const) {
      if (typeof params?.[key] !== "string" || params[key].length === 0) {
        throw new TypeError(`initialize needs a non-empty string ${key}`);
      }
    }
    const permissions = resolveProfile(params.profile);
    this.session = { agentId: params.agentId, sessionId: params.sessionId, profile: params.profile, permissions };
    return { protocolVersion: PROTOCOL_VERSION, session: { ...params, permissions: [...permissions] } };
  }

  get currentSession(): McpSession | null {
    return this.session;
  }

  shutdown(): void {
    this.session = null;
  }

  listTools(): MCPTool[] {
    return this.registry.listTools();
  }

  /** A call under the bound session's identity and permissions (`context.causedBy` links its cause). */
  callTool(req: MCPRequest): Promise<MCPResponse> {
    const s = this.session;
    if (!s) return Promise.resolve(refuse("forbidden", "MCP session is not initialized"));
    return this.registry.invoke(req.tool, req.input ?? {}, {
      agentId: s.agentId,
      sessionId: s.sessionId,
      permissions: s.permissions,
      profile: s.profile,
      causedBy: req.context?.causedBy,
    });
  }

  /** `callTool` for scripts that author a world: the result, or a thrown error naming the failure. */
  async mustCall<T>(tool: string, input: Record<string, unknown> = {}): Promise<T> {
    const r = await this.callTool({ tool, input });
    if (!r.success) throw new Error(`${tool} failed: ${r.error?.code}: ${r.error?.message}`);
    return r.result as T;
  }

  /**
   * For engine systems that own attribution: `context.agentId`/`sessionId`
   * (and causal links) override the session's, permissions still come from it.
   */
  callToolInternal(req: MCPRequest): Promise<MCPResponse> {
    const s = this.session;
    if (!s) return Promise.resolve(refuse("forbidden", "MCP session is not initialized"));
    return this.registry.invoke(req.tool, req.input ?? {}, {
      agentId: req.context?.agentId ?? s.agentId,
      sessionId: req.context?.sessionId ?? s.sessionId,
      permissions: s.permissions,
      profile: s.profile,
      causedBy: req.context?.causedBy,
      decisionId: req.context?.decisionId,
    });
  }
}
