// The agent systems on the fixed step: act on queued decisions, pace the
// conversations' turns, then build perception for the agents due to decide
// and start their decisions (which resolve later, off the frame path).

import { onFixedStep } from "../loop.ts";
import type { WorldSession } from "../world-session.ts";
import { ActionSystem } from "./action.ts";
import { Conversations } from "./conversation.ts";
import { DecisionSystem } from "./decision.ts";
import { ObservabilitySystem } from "./observability.ts";
import { PerceptionSystem } from "./perception.ts";
import type { ProviderMap } from "./providers/provider.ts";
import { AgentRegistry } from "./registry.ts";
import { AgentScheduler, DEFAULT_BUDGET, type SchedulerBudget } from "./scheduler.ts";

export interface AgentSystems {
  agents: AgentRegistry;
  scheduler: AgentScheduler;
  perception: PerceptionSystem;
  decision: DecisionSystem;
  action: ActionSystem;
  observability: ObservabilitySystem;
  /** Conversations between these agents (turns paced on the fixed step). */
  conversations: Conversations;
  /** One tick of the agent pipeline (registered on the fixed step unless `manual`). */
  tick(step: number): Promise<void>;
  /** Stops the systems on the loop. */
  dispose(): void;
}

export function createAgentSystems(session: WorldSession, providers: ProviderMap, options: { budget?: SchedulerBudget; manual?: boolean } = {}): AgentSystems {
  const agents = new AgentRegistry();
  const scheduler = new AgentScheduler(options.budget ?? DEFAULT_BUDGET);
  const perception = new PerceptionSystem(session.world, session.spatial, session.tracer, session.nav);
  const decision = new DecisionSystem(session.registry, session.tracer, providers, scheduler);
  const action = new ActionSystem(session.registry, scheduler);
  const observability = new ObservabilitySystem(session.tracer, agents);
  const conversations = new Conversations(session, agents, perception, decision, session.tracer);
  const withdraw = session.agents.publish({
    list: () => agents.summaries(),
    perceptionOf: (agentId) => agents.get(agentId)?.perception ?? null,
    close: () => dispose(),
  });
  const tick = (step: number) => {
    if (session.paused) return Promise.resolve();
    const all = agents.all();
    const acted = action.run(all);
    const talked = conversations.tick(step);
    const due = scheduler.dueForDecision(all, step);
    for (const a of all) if (a.heldSince === step) decision.deferred(a, step);
    perception.build(due, step);
    decision.start(due, step);
    return Promise.all([acted, talked]).then(() => {});
  };
  const off = options.manual ? () => {} : onFixedStep((_dt, step) => void tick(step));
  const dispose = () => {
    off();
    decision.dispose();
    conversations.dispose();
    withdraw();
  };
  return { agents, scheduler, perception, decision, action, observability, conversations, tick, dispose };
}
