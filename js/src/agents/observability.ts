// ObservabilitySystem: keeps each agent's recent trace (its perception,
// decisions, rejections and actions) from the world log as it is written.

import type { EngineEvent, Tracer } from "../observability/tracer.ts";
import type { AgentRegistry } from "./registry.ts";

export class ObservabilitySystem {
  private readonly traces = new Map<string, EngineEvent[]>();

  constructor(tracer: Tracer, private readonly agents: AgentRegistry, private readonly keep = 256) {
    tracer.subscribe((e) => {
      if (!this.agents.get(e.actorId)) return;
      let t = this.traces.get(e.actorId);
      if (!t) this.traces.set(e.actorId, (t = []));
      t.push(e);
      if (t.length > this.keep) t.shift();
    });
  }

  /** An agent's most recent events, oldest first. */
  traceOf(agentId: string): readonly EngineEvent[] {
    return this.traces.get(agentId) ?? [];
  }
}
