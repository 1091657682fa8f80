// ScriptedProvider: a deterministic policy, the test path and demo baseline.

import type { MCPRequest } from "../../mcp/protocol.ts";
import type { DecideRequest, DecideResult, LLMProvider } from "./provider.ts";

export class ScriptedProvider implements LLMProvider {
  readonly name = "scripted";

  constructor(private readonly policy: (req: DecideRequest) => MCPRequest[] | Promise<MCPRequest[]>) {}

  async decide(req: DecideRequest): Promise<DecideResult> {
    return { toolCalls: await this.policy(req) };
  }
}
