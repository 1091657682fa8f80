// DecisionSystem: asks each due agent's provider for tool calls, off the
// frame path (one decision in flight per agent), with what its discovery
// offers (see discovery.ts: a core set, active skills and the discovery
// tools, each by its surface mode), answers the discovery tools itself,
// checks every other candidate against the agent's profile and its skill's
// schema, and queues the valid ones for the ActionSystem. Each decision
// records its prompt's size (characters, estimated tokens, tools offered,
// active skills) and the tokens the provider reported. A decision that
// overruns its timeout is retired by generation: its late result is
// discarded and traced, never acted on. Disposed (its world closing), it
// abandons what is in flight: nothing a late answer or timeout brings is
// recorded or queued.

import type { Tracer } from "../observability/tracer.ts";
import { resolveProfile } from "../skills/profiles.ts";
import type { SkillRegistry, SkillTool } from "../skills/registry.ts";
import { estimateTokens, type Focus, LIST_SKILLS, type Offer, READ_SKILL, SkillSurface } from "./discovery.ts";
import { type DecideRequest, type DecideResult, decisionMessages, functionTools, type LLMProvider, type ProviderMap } from "./providers/provider.ts";
import type { AgentRecord, QueuedAction } from "./registry.ts";
import type { AgentScheduler } from "./scheduler.ts";

let decisions = 0;

/** A decision's prompt as sent: what it cost and what it offered. */
export interface PromptStats {
  chars: number;
  /** Estimated: 4 characters a token. */
  tokens: number;
  /** Function tools offered. */
  tools: number;
  /** Skills offered in the system message. */
  prompted: number;
  activeSkills: string[];
}

/** Each tool's length as a function tool in JSON; offered tools are the surface's cached forms, so each is measured once. */
const functionToolChars = new WeakMap<SkillTool, number>();

/** The length of `JSON.stringify(functionTools(tools))`, from the tools' memoised lengths. */
function functionToolsChars(tools: SkillTool[]): number {
  let chars = 1 + tools.length; // the brackets and the commas between
  for (const tool of tools) {
    let n = functionToolChars.get(tool);
    if (n === undefined) {
      n = JSON.stringify(functionTools([tool])[0]).length;
      functionToolChars.set(tool, n);
    }
    chars += n;
  }
  return chars;
}

/** The size of a request as a provider sends it: its messages and function tools. */
export function promptStats(req: DecideRequest, offer: Pick<Offer, "tools" | "prompted" | "active">): PromptStats {
  const messages = decisionMessages(req).reduce((n, m) => n + m.content.length, 0);
  const tools = req.tools.length > 0 ? functionToolsChars(req.tools) : 0;
  const chars = messages + tools;
  return { chars, tokens: estimateTokens(chars), tools: offer.tools.length, prompted: offer.prompted.length, activeSkills: offer.active };
}

export class DecisionSystem {
  readonly surface: SkillSurface;
  /** Agents whose decision is under way, with its timeout. */
  private readonly waiting = new Map<AgentRecord, ReturnType<typeof setTimeout>>();
  private disposed = false;

  constructor(
    private readonly registry: SkillRegistry,
    private readonly tracer: Tracer,
    private readonly providers: ProviderMap,
    private readonly scheduler: AgentScheduler,
  ) {
    this.surface = new SkillSurface(registry);
  }

  /** Starts a decision for each agent (perception already built); never waits for one. */
  start(agents: AgentRecord[], tick: number): void {
    if (this.disposed) return;
    for (const agent of agents) this.startOne(agent, tick);
  }

  /**
   * Starts one decision narrowed to `focus` (perception already built): a
   * conversation's turn. Calls to the focus's own tools are handed to it,
   * not queued. Returns the decision's id, or null when none could start.
   */
  startFocused(agent: AgentRecord, tick: number, focus: Focus): string | null {
    if (this.disposed || agent.inFlight) return null;
    return this.startOne(agent, tick, focus);
  }

  /** Abandons every decision in flight (its agent is no longer in flight; a late answer is dropped) and starts no more. */
  dispose(): void {
    this.disposed = true;
    for (const [agent, timer] of this.waiting) {
      clearTimeout(timer);
      agent.inFlight = false;
      agent.generation++;
    }
    this.waiting.clear();
  }

  /** Records that the agent's rate limit holds its decisions back. */
  deferred(agent: AgentRecord, tick: number): void {
    const b = this.scheduler.budgetOf(agent.id);
    this.emit(agent, "agent.decision.deferred", { agentId: agent.id, tick, reason: "rate limit", decisionsPerMinute: b.decisionsPerMinute ?? null, promptTokensPerMinute: b.promptTokensPerMinute ?? null }, []);
  }

  private emit(agent: AgentRecord, type: string, payload: unknown, causedBy: string[]): string {
    return this.tracer.emit(type, payload, { actorId: agent.id, threadId: agent.sessionId, causedBy });
  }

  private startOne(agent: AgentRecord, tick: number, focus?: Focus): string {
    const provider: LLMProvider | undefined = this.providers[agent.llm.provider];
    const decisionId = `dec_${++decisions}`;
    const cause = agent.perceptionEventId ? [agent.perceptionEventId] : [];
    agent.lastDecisionTick = tick;
    if (!provider) {
      const error = `no provider named ${agent.llm.provider}`;
      this.emit(agent, "agent.decision.failed", { agentId: agent.id, decisionId, provider: agent.llm.provider, error }, cause);
      focus?.settled({ decisionId, error });
      return decisionId;
    }
    const offer = this.surface.offer(agent, provider, focus);
    const req: DecideRequest = {
      systemPrompt: offer.systemPrompt,
      perception: agent.perception!,
      tools: offer.tools,
      previousResults: agent.previousResults.slice(),
      discovery: agent.pendingDiscovery.splice(0),
      grammar: offer.prompted.length > 0,
      model: agent.llm.model || undefined,
      agentId: agent.id,
    };
    const prompt = promptStats(req, offer);
    agent.recentDecisions.push({ tick, tokens: prompt.tokens });
    const u = agent.usage;
    u.decisions++;
    u.promptChars += prompt.chars;
    u.estimatedPromptTokens += prompt.tokens;
    const budget = this.scheduler.budgetOf(agent.id);
    const generation = ++agent.generation;
    agent.inFlight = true;
    const started = performance.now();
    const timer = setTimeout(() => {
      this.waiting.delete(agent);
      if (agent.generation !== generation || !agent.inFlight) return;
      agent.inFlight = false;
      agent.generation++;
      this.emit(agent, "agent.decision.timeout", { agentId: agent.id, decisionId, timeoutMs: budget.decisionTimeoutMs, prompt }, cause);
      focus?.settled({ decisionId, error: `no answer within ${budget.decisionTimeoutMs} ms` });
    }, budget.decisionTimeoutMs);
    this.waiting.set(agent, timer);
    const settled = () => {
      clearTimeout(timer);
      if (this.waiting.get(agent) === timer) this.waiting.delete(agent);
      return !this.disposed;
    };
    let pending: Promise<DecideResult>;
    try {
      pending = provider.decide(req);
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
        u.promptTokens += result?.usage?.promptTokens ?? 0;
        u.completionTokens += result?.usage?.completionTokens ?? 0;
        this.accept(agent, decisionId, result, performance.now() - started, prompt, cause, focus);
      },
      (e) => {
        if (!settled()) return;
        if (agent.generation !== generation) return;
        agent.inFlight = false;
        const err = e as Error & { code?: string; malformed?: boolean; reply?: string; retries?: unknown[] };
        const payload: Record<string, unknown> = { agentId: agent.id, decisionId, provider: provider.name, error: err instanceof Error ? err.message : String(e), prompt };
        if (err?.code) payload.code = err.code;
        if (err?.malformed) {
          payload.malformed = true;
          payload.reply = err.reply;
        }
        if (Array.isArray(err?.retries) && err.retries.length > 0) payload.retries = err.retries;
        this.emit(agent, "agent.decision.failed", payload, cause);
        focus?.settled({ decisionId, error: payload.error as string });
      },
    );
    return decisionId;
  }

  /** Answers discovery calls, validates the rest and queues the valid ones, within the agent's budget. */
  private accept(agent: AgentRecord, decisionId: string, result: DecideResult, latencyMs: number, prompt: PromptStats, cause: string[], focus?: Focus): void {
    const budget = this.scheduler.budgetOf(agent.id);
    const candidates: unknown = result?.toolCalls;
    const made: Record<string, unknown> = {
      agentId: agent.id,
      decisionId,
      provider: agent.llm.provider,
      toolCalls: Array.isArray(candidates) ? candidates.length : 0,
      latencyMs,
      prompt,
    };
    if (result?.usage) made.usage = result.usage;
    if (result?.retries && result.retries.length > 0) made.retries = result.retries;
    const decisionEventId = this.emit(agent, "agent.decision.made", made, cause);
    const reject = (tool: unknown, reason: string, code?: string) =>
      this.emit(agent, "agent.toolcall.rejected", { agentId: agent.id, decisionId, tool: typeof tool === "string" ? tool : null, reason, ...(code ? { code } : {}) }, [decisionEventId]);
    if (!Array.isArray(candidates)) {
      reject(null, "the provider returned no list of tool calls");
      focus?.settled({ decisionId, calls: [] });
      return;
    }
    const taken: { tool: string; input: unknown }[] = [];
    candidates.forEach((raw, i) => {
      const call = raw as { tool?: unknown; input?: unknown };
      if (i >= budget.maxToolCallsPerDecision) return reject(call?.tool, `over the cap of ${budget.maxToolCallsPerDecision} tool calls per decision`);
      if (typeof call?.tool !== "string") return reject(null, "a tool call needs a tool name");
      if (focus) {
        // A focused decision may call its focus's skills and tools, nothing else.
        if (focus.tools.some((t) => t.name === call.tool)) return void taken.push({ tool: call.tool, input: call.input ?? {} });
        if (!focus.skills.includes(call.tool)) return reject(call.tool, `not offered in this ${focus.purpose}: ${focus.skills.concat(focus.tools.map((t) => t.name)).join(", ")}`, "forbidden");
      }
      if (this.surface.isDiscoveryTool(call.tool) && agent.discovery.mode === "progressive") return this.discover(agent, decisionId, call.tool, call.input, decisionEventId, reject);
      const skill = this.registry.get(call.tool);
      if (!skill) return reject(call.tool, `no such skill: ${call.tool}`, "not_found");
      if (!this.surface.mayCall(agent, call.tool)) {
        const granted = resolveProfile(agent.profile);
        const missing = skill.permissions.filter((p: string) => !granted.has(p));
        const denied = this.emit(agent, "security.permission.denied", { skill: call.tool, missing: missing[0] ?? skill.permissions[0], agentId: agent.id }, [decisionEventId]);
        this.emit(agent, "agent.toolcall.rejected", { agentId: agent.id, decisionId, tool: call.tool, reason: `forbidden: profile ${agent.profile} does not grant ${skill.permissions.join(", ")}`, code: "forbidden" }, [decisionEventId, denied]);
        return;
      }
      const valid = this.registry.validate(call.tool, call.input);
      if (!valid.ok) return reject(call.tool, `input does not match ${valid.message}`, valid.code);
      if (agent.queue.length >= budget.maxQueueDepth) return reject(call.tool, `the agent's queue is full (${budget.maxQueueDepth})`, "capacity_exceeded");
      const dropped = this.surface.activate(agent, call.tool);
      if (dropped.length > 0) this.emit(agent, "agent.skill.dropped", { agentId: agent.id, decisionId, skills: dropped, active: [...agent.active] }, [decisionEventId]);
      const action: QueuedAction = { tool: call.tool, input: (call.input ?? {}) as Record<string, unknown>, decisionId, decisionEventId };
      agent.queue.push(action);
      taken.push({ tool: call.tool, input: action.input });
    });
    focus?.settled({ decisionId, calls: taken });
  }

  /** `list_skills` / `read_skill`: answered now, seen by the next decision, traced. */
  private discover(agent: AgentRecord, decisionId: string, tool: string, input: unknown, decisionEventId: string, reject: (tool: unknown, reason: string, code?: string) => string): void {
    if (tool === LIST_SKILLS) {
      const r = this.surface.list(agent, input);
      if (!r.ok) {
        agent.pendingDiscovery.push({ tool, input: input ?? {}, error: r.error });
        return void reject(tool, r.error, "invalid_input");
      }
      agent.pendingDiscovery.push({ tool, input: input ?? {}, result: r.value });
      this.emit(agent, "agent.skills.listed", { agentId: agent.id, decisionId, input: input ?? {}, total: r.value.total }, [decisionEventId]);
      return;
    }
    if (tool === READ_SKILL) {
      const r = this.surface.read(agent, input);
      if (!r.ok) {
        agent.pendingDiscovery.push({ tool, input: input ?? {}, error: r.error });
        return void reject(tool, r.error, r.code);
      }
      agent.pendingDiscovery.push({ tool, input: input ?? {}, result: r.value });
      this.emit(agent, "agent.skill.activated", { agentId: agent.id, decisionId, skill: r.value.id, active: [...agent.active], dropped: r.dropped }, [decisionEventId]);
    }
  }
}
