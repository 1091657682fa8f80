// What a world session knows of its agents: the agent systems publish their
// roster here, skills and the inspector read it. Empty until agent systems run.

export interface AgentSummary {
  agentId: string;
  [key: string]: unknown;
}

export interface AgentSource {
  list(): AgentSummary[];
  perceptionOf(agentId: string): unknown | null;
  /** Stops the agents behind this roster: their world is closing. */
  close?(): void;
}

export class AgentDirectory {
  private readonly sources = new Set<AgentSource>();

  /** Publishes a roster; returns the function that withdraws it. */
  publish(source: AgentSource): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** Closes every published source (the world session is being disposed). */
  close(): void {
    for (const s of [...this.sources]) s.close?.();
    this.sources.clear();
  }

  list(): AgentSummary[] {
    return [...this.sources].flatMap((s) => s.list());
  }

  /** An agent's current perception, or null when none was built. */
  perceptionOf(agentId: string): unknown | null {
    for (const s of this.sources) {
      const p = s.perceptionOf(agentId);
      if (p !== null) return p;
    }
    return null;
  }
}
