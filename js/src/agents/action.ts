// ActionSystem: drains agents' validated action queues on the fixed step,
// in the scheduler's weighted-fair order and within its caps, through
// `Mcp.callTool` → `registry.invoke()` under each agent's own session and
// profile, tagged with the decision that produced the action.

import { Mcp } from "../mcp/mcp.ts";
import type { SkillRegistry } from "../skills/registry.ts";
import type { AgentRecord } from "./registry.ts";
import type { AgentScheduler } from "./scheduler.ts";

const KEEP_RESULTS = 8;

export class ActionSystem {
  private readonly sessions = new Map<string, Mcp>();
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly registry: SkillRegistry, private readonly scheduler: AgentScheduler) {}

  private mcpFor(agent: AgentRecord): Mcp {
    let mcp = this.sessions.get(agent.id);
    if (!mcp) {
      mcp = new Mcp(this.registry);
      mcp.initialize({ agentId: agent.id, sessionId: agent.sessionId, profile: agent.profile });
      this.sessions.set(agent.id, mcp);
    }
    return mcp;
  }

  /** Resolves once every action started so far has run. */
  settled(): Promise<void> {
    return this.running;
  }

  /**
   * Runs this tick's actions one after another (so they apply in the
   * scheduler's order); they complete before the next fixed step.
   */
  run(agents: AgentRecord[]): Promise<void> {
    const order = this.scheduler.actionOrder(agents);
    if (order.length === 0) return this.running;
    const batch = order.map((agent) => ({ agent, action: agent.queue.shift()! }));
    this.running = this.running.then(async () => {
      for (const { agent, action } of batch) {
        const r = await this.mcpFor(agent).callTool({
          tool: action.tool,
          input: action.input,
          context: { decisionId: action.decisionId, causedBy: [action.decisionEventId] },
        });
        agent.previousResults.push({ tool: action.tool, decisionId: action.decisionId, success: r.success, result: r.result, error: r.error });
        if (agent.previousResults.length > KEEP_RESULTS) agent.previousResults.shift();
      }
    });
    return this.running;
  }
}
