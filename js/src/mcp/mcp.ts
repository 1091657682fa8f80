// The in-process MCP surface: a session, tool discovery and tool calls,
// each a thin wrapper over `registry.invoke()`. Every caller — an external
// builder over the wire, an engine system acting for an agent — takes the
// same path under its session's identity and permissions.

import type { InvokeResult, SkillRegistry } from "../skills/registry.ts";
import { resolveProfile } from "../skills/profiles.ts";
import type { MCPRequest, MCPResponse, MCPTool } from "./protocol.ts";

export const PROTOCOL_VERSION = "2025-06-18";

export interface McpSession {
  agentId: string;
  sessionId: string;
  profile: string;
  permissions: ReadonlySet<string>;
}

/** The wire form of a registry result. */
export function toResponse(r: InvokeResult): MCPResponse {
  return r.ok
    ? { success: true, result: r.value, metadata: r.metadata }
    : { success: false, error: r.error, metadata: r.metadata };
}

export class Mcp {
  private session: McpSession | null = null;
  private readonly registryOf: () => SkillRegistry;

  /** `registry`, or where to find it when first asked (a server binds sessions before its world exists). */
  constructor(registry: SkillRegistry | (() => SkillRegistry)) {
    this.registryOf = typeof registry === "function" ? registry : () => registry;
  }

  get registry(): SkillRegistry {
    return this.registryOf();
  }

  /** Binds the session: its permissions are the profile's (an unknown profile grants nothing). */
  initialize(params: { agentId: string; sessionId: string; profile: string }): { protocolVersion: string; session: { agentId: string; sessionId: string; profile: string; permissions: string[] } } {
    for (const key of ["agentId", "sessionId", "profile"] as const) {
      if (typeof params?.[key] !== "string" || params[key].length === 0) {
        throw new TypeError(`initialize needs a non-empty string ${key}`);
      }
    }
    const permissions = resolveProfile(params.profile);
    this.session = { agentId: params.agentId, sessionId: params.sessionId, profile: params.profile, permissions };
    return { protocolVersion: PROTOCOL_VERSION, session: { agentId: params.agentId, sessionId: params.sessionId, profile: params.profile, permissions: [...permissions] } };
  }

  get currentSession(): McpSession | null {
    return this.session;
  }

  shutdown(): void {
    this.session = null;
  }

  listTools(): MCPTool[] {
    return this.registry.listTools().map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  }

  /**
   * A call under the bound session's identity and permissions;
   * `context.causedBy` links its cause, `context.decisionId` the agent
   * decision it carries out.
   */
  callTool(req: MCPRequest): Promise<MCPResponse> {
    const s = this.session;
    if (!s) {
      return Promise.resolve({ success: false, error: { code: "forbidden", message: "MCP session is not initialized" }, metadata: { executionTimeMs: 0, eventsEmitted: [], eventIds: [] } });
    }
    const context = req.context;
    // A call that names no cause and no decision is made under the session object itself (never
    // changed: initialize replaces it), not a copy made for every call.
    const base = context?.causedBy === undefined && context?.decisionId === undefined ? s : {
      agentId: s.agentId,
      sessionId: s.sessionId,
      permissions: s.permissions,
      profile: s.profile,
      causedBy: context.causedBy,
      decisionId: context.decisionId,
    };
    // A promise's `then`, not an async function: the same turns of the microtask queue, without an async frame.
    return this.registry.invoke(req.tool, req.input ?? {}, base).then(toResponse);
  }

  /** `callTool` for scripts that author a world: the result, or a thrown error naming the failure. */
  async mustCall<T>(tool: string, input: Record<string, unknown> = {}): Promise<T> {
    const r = await this.callTool({ tool, input });
    if (!r.success) throw new Error(`${tool} failed: ${r.error?.code}: ${r.error?.message}`);
    return r.result as T;
  }
}
