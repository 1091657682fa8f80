// Agent packages as providers: an in-world player whose decisions come from
// the `decide(perception)` of the package loaded as that agent, run in its
// sandbox within the decision CPU budget. Its tool calls are candidates
// like any provider's: the DecisionSystem validates them and the
// ActionSystem performs them under the agent's own profile.

import type { DecideRequest, DecideResult, LLMProvider } from "../agents/providers/provider.ts";
import type { MCPRequest } from "../mcp/protocol.ts";
import type { PackageHost } from "./host.ts";

export class PackageProvider implements LLMProvider {
  readonly name = "package";

  constructor(private readonly packages: PackageHost) {}

  async decide(req: DecideRequest): Promise<DecideResult> {
    const agentId = req.perception.selfId;
    const pkg = this.packages.get(agentId);
    if (!pkg) throw new Error(`no package is loaded as ${agentId}`);
    if (pkg.info.kind !== "agent") throw new Error(`${pkg.ref} is a ${pkg.info.kind} package, not an agent`);
    const r = await pkg.callFunction("decide", req.perception, req.perception);
    if (r.status !== "ok") throw new Error(`${pkg.ref}: decide was stopped (${r.status}): ${r.error}`);
    if (r.call !== "done") throw new Error(`${pkg.ref}: decide failed: ${r.result}`);
    // Whatever came back is only a candidate list; the DecisionSystem checks every entry.
    return { toolCalls: r.result as MCPRequest[] };
  }
}
