// DecisionSystem: asks each due agent's provider for tool calls, off the
// frame path (one decision in flight per agent), validates every candidate
// against its skill's schema, and queues the valid ones for the
// ActionSystem. A decision that overruns its timeout is retired by
// generation: its late result is discarded and traced, never acted on.
// Disposed (its world closing), it abandons what is in flight: nothing a
// late answer or timeout brings is recorded or queued.

import type { Tracer } from "../observability/tracer.ts";
import type { SkillRegistry, SkillTool } from "../skills/registry.ts";
import { resolveProfile } from "../skills/profiles.ts";
import type { LLMProvider, ProviderMap } from "./providers/provider.ts";
import type { AgentRecord, QueuedAction } from "./registry.ts";
import type { AgentScheduler } from "./scheduler.ts";

let decisions = 0;

export class DecisionSystem {
  private readonly toolsByProfile = new Map<string, SkillTool[]>();
  private readonly timeouts = new Set<ReturnType<typeof setTimeout>>();
  private disposed = false;

  constructor(
    private readonly registry: SkillRegistry,
    private readonly tracer: Tracer,
    private readonly providers: ProviderMap,
    private readonly scheduler: AgentScheduler,
  ) {
    registry.onChange(() => this.toolsByProfile.clear());
  }

  /** The tools an agent's profile could ever be allowed to call. */
  private toolsFor(profile: string): SkillTool[] {
    let tools = this.toolsByProfile.get(profile);
    if (!tools) {
      const granted = resolveProfile(profile);
      const allowed = new Set(this.registry.all().filter((s) => s.permissions.every((p: string) => granted.has(p))).map((s) => s.name));
      tools = this.registry.listTools().filter((t) => allowed.has(t.name));
      this.toolsByProfile.set(profile, tools);
    }
    return tools;
  }

  /** Starts a decision for each agent (perception already built); never waits for one. */
  start(agents: AgentRecord[], tick: number): void {
    if (this.disposed) return;
    for (const agent of agents) this.startOne(agent, tick);
  }

  /** Abandons every decision in flight and starts no more. */
  dispose(): void {
    this.disposed = true;
    for (const t of this.timeouts) clearTimeout(t);
    this.timeouts.clear();
  }

  private emit(agent: AgentRecord, type: string, payload: unknown, causedBy: string[]): string {
    return this.tracer.emit(type, payload, { actorId: agent.id, threadId: agent.sessionId, causedBy });
  }

  private startOne(agent: AgentRecord, tick: number): void {
    const provider: LLMProvider | undefined = this.providers[agent.llm.provider];
    const decisionId = `dec_${++decisions}`;
    const cause = agent.perceptionEventId ? [agent.perceptionEventId] : [];
    agent.lastDecisionTick = tick;
    if (!provider) {
      this.emit(agent, "agent.decision.failed", { agentId: agent.id, decisionId, provider: agent.llm.provider, error: `no provider named ${agent.llm.provider}` }, cause);
      return;
    }
    const budget = this.scheduler.budgetOf(agent.id);
    const generation = ++agent.generation;
    agent.inFlight = true;
    const started = performance.now();
    const timer = setTimeout(() => {
      this.timeouts.delete(timer);
      if (agent.generation !== generation || !agent.inFlight) return;
      agent.inFlight = false;
      agent.generation++;
      this.emit(agent, "agent.decision.timeout", { agentId: agent.id, decisionId, timeoutMs: budget.decisionTimeoutMs }, cause);
    }, budget.decisionTimeoutMs);
    this.timeouts.add(timer);
    const settled = () => {
      clearTimeout(timer);
      this.timeouts.delete(timer);
      return !this.disposed;
    };
    let pending: Promise<{ toolCalls: unknown[] }>;
    try {
      pending = provider.decide({
        systemPrompt: agent.llm.systemPrompt,
        perception: agent.perception!,
        tools: this.toolsFor(agent.profile),
        previousResults: agent.previousResults.slice(),
      });
    } catch (e) {
      pending = Promise.reject(e);
    }
    pending.then(
      (result) => {
        if (!settled()) return;
        if (agent.generation !== generation) {
          this.emit(agent, "agent.decision.discarded", { agentId: agent.id, decisionId, reason: "arrived after its timeout", latencyMs: performance.now() - started }, cause);
          return;
        }
        agent.inFlight = false;
        this.accept(agent, decisionId, result.toolCalls, performance.now() - started, cause);
      },
      (e) => {
        if (!settled()) return;
        if (agent.generation !== generation) return;
        agent.inFlight = false;
        this.emit(agent, "agent.decision.failed", { agentId: agent.id, decisionId, provider: provider.name, error: e instanceof Error ? e.message : String(e) }, cause);
      },
    );
  }

  /** Validates candidates and queues the valid ones, within the agent's budget. */
  private accept(agent: AgentRecord, decisionId: string, candidates: unknown[], latencyMs: number, cause: string[]): void {
    const budget = this.scheduler.budgetOf(agent.id);
    const decisionEventId = this.emit(agent, "agent.decision.made", {
      agentId: agent.id,
      decisionId,
      provider: agent.llm.provider,
      toolCalls: Array.isArray(candidates) ? candidates.length : 0,
      latencyMs,
    }, cause);
    const reject = (tool: unknown, reason: string) =>
      this.emit(agent, "agent.toolcall.rejected", { agentId: agent.id, decisionId, tool: typeof tool === "string" ? tool : null, reason }, [decisionEventId]);
    if (!Array.isArray(candidates)) {
      reject(null, "the provider returned no list of tool calls");
      return;
    }
    candidates.forEach((raw, i) => {
      const call = raw as { tool?: unknown; input?: unknown };
      if (i >= budget.maxToolCallsPerDecision) return reject(call?.tool, `over the cap of ${budget.maxToolCallsPerDecision} tool calls per decision`);
      if (typeof call?.tool !== "string") return reject(null, "a tool call needs a tool name");
      const valid = this.registry.validate(call.tool, call.input);
      if (!valid.ok) return reject(call.tool, valid.code === "not_found" ? `no such skill: ${call.tool}` : `input does not match ${valid.message}`);
      if (agent.queue.length >= budget.maxQueueDepth) return reject(call.tool, `the agent's queue is full (${budget.maxQueueDepth})`);
      const action: QueuedAction = { tool: call.tool, input: (call.input ?? {}) as Record<string, unknown>, decisionId, decisionEventId };
      agent.queue.push(action);
    });
  }
}
