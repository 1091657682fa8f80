// AgentScheduler: who decides and who acts on each tick, within budgets.
// Decisions start for due agents (longest-waiting first) up to
// maxDecisionStartsPerTick. Actions are served weighted-fair by stride
// scheduling: each action advances its agent's pass by 1/weight and the
// agent with the lowest pass goes next, within its own maxActionsPerTick and
// the global maxGlobalActionsPerTick. Shares follow the weights however tight
// the global cap is (no agent starves), and an agent that was idle joins at
// the current virtual time rather than with banked credit.
// Rate limits hold an agent's decisions back within a minute of world ticks
// (3,600 fixed steps): at most `decisionsPerMinute` starts, and no start once
// the estimated prompt tokens started that minute reach `promptTokensPerMinute`.

import type { AgentRecord } from "./registry.ts";

export interface AgentBudget {
  weight: number;
  maxQueueDepth: number;
  maxToolCallsPerDecision: number;
  maxActionsPerTick: number;
  decisionTimeoutMs: number;
  /** Decisions started per minute of world ticks at most (unset: no limit). */
  decisionsPerMinute?: number;
  /** Estimated prompt tokens per minute of world ticks at most (unset: no limit). */
  promptTokensPerMinute?: number;
}

/** A minute of fixed steps at 60 steps per second. */
export const TICKS_PER_MINUTE = 3600;

export interface SchedulerBudget {
  maxDecisionStartsPerTick: number;
  maxGlobalActionsPerTick: number;
  defaultAgentBudget: AgentBudget;
  agents?: Record<string, Partial<AgentBudget>>;
}

export const DEFAULT_BUDGET: SchedulerBudget = {
  maxDecisionStartsPerTick: 64,
  maxGlobalActionsPerTick: 256,
  defaultAgentBudget: { weight: 1, maxQueueDepth: 8, maxToolCallsPerDecision: 4, maxActionsPerTick: 2, decisionTimeoutMs: 10_000 },
};

export class AgentScheduler {
  private readonly budgets = new Map<string, AgentBudget>();
  /** The pass of the last action served: where an agent that was idle joins. */
  private virtualTime = 0;

  constructor(readonly budget: SchedulerBudget = DEFAULT_BUDGET) {}

  budgetOf(agentId: string): AgentBudget {
    let b = this.budgets.get(agentId);
    if (!b) this.budgets.set(agentId, (b = Object.freeze({ ...this.budget.defaultAgentBudget, ...this.budget.agents?.[agentId] })));
    return b;
  }

  /** Agents whose decision is due and may start this tick (none in a conversation: it paces them), longest-waiting first. */
  dueForDecision(agents: AgentRecord[], tick: number): AgentRecord[] {
    return agents
      .filter((a) => !a.inFlight && a.conversation === null && tick - a.lastDecisionTick >= a.decisionIntervalTicks && this.withinRate(a, tick))
      .sort((a, b) => a.lastDecisionTick - b.lastDecisionTick || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, this.budget.maxDecisionStartsPerTick);
  }

  /** Whether the agent's rate limits let a decision start at `tick`; sets `heldSince` while they do not. */
  withinRate(agent: AgentRecord, tick: number): boolean {
    const b = this.budgetOf(agent.id);
    const recent = agent.recentDecisions;
    while (recent.length > 0 && recent[0].tick <= tick - TICKS_PER_MINUTE) recent.shift();
    const held = (b.decisionsPerMinute !== undefined && recent.length >= b.decisionsPerMinute) ||
      (b.promptTokensPerMinute !== undefined && recent.reduce((sum, d) => sum + d.tokens, 0) >= b.promptTokensPerMinute);
    if (!held) agent.heldSince = null;
    else agent.heldSince ??= tick;
    return !held;
  }

  /** The order in which queued actions run this tick (an agent appears once per action). */
  actionOrder(agents: AgentRecord[]): AgentRecord[] {
    const busy: AgentRecord[] = [];
    for (const a of agents) {
      if (a.queue.length === 0) a.pass = null; // no banking while idle
      else {
        a.pass ??= this.virtualTime;
        busy.push(a);
      }
    }
    // Per busy agent, by index: how many actions it may run this tick, its pass increment, and how many it has.
    const caps = busy.map((a) => Math.min(a.queue.length, this.budgetOf(a.id).maxActionsPerTick));
    const strides = busy.map((a) => 1 / this.budgetOf(a.id).weight);
    const taken = busy.map(() => 0);
    const order: AgentRecord[] = [];
    while (order.length < this.budget.maxGlobalActionsPerTick) {
      let best = -1;
      for (let i = 0; i < busy.length; i++) {
        if (taken[i] >= caps[i]) continue;
        const a = busy[i];
        if (best < 0) best = i;
        else {
          const b = busy[best];
          if (a.pass! < b.pass! || (a.pass === b.pass && a.id < b.id)) best = i;
        }
      }
      if (best < 0) break;
      const b = busy[best];
      this.virtualTime = b.pass!;
      b.pass! += strides[best];
      taken[best]++;
      order.push(b);
    }
    return order;
  }
}
