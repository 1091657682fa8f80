// AgentRecord and AgentRegistry: the agents living in the world. Records
// are plain JS (strings and LLM config are not SoA material); a player
// inhabits an `ent_` entity whose SoA position is its own.

import type { Vec3 } from "../ecs/world.ts";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { MCPRequest } from "../mcp/protocol.ts";
import { type DiscoveryConfig, discoveryConfig, type DiscoveryOptions } from "./discovery.ts";

export interface PerceivedEntity {
  id: string;
  position: Vec3;
  distance: number;
  /** With a navmesh: whether the agent can walk to it. */
  reachable?: boolean;
}

export interface Perception {
  selfId: string;
  selfEntity?: string;
  position?: Vec3;
  nearby: PerceivedEntity[];
  recentEvents: { type: string }[];
  tick: number;
}

/** A validated tool call waiting for the ActionSystem, with the decision that produced it. */
export interface QueuedAction extends MCPRequest {
  input: Record<string, unknown>;
  decisionId: string;
  decisionEventId: string;
}

export interface AgentRecord {
  /** `agt_…` */
  id: string;
  type: "builder" | "player";
  /** The entity a player inhabits. */
  entityId?: string;
  /** Where an agent without an entity perceives from. */
  anchor?: Vec3;
  perceptionRadius: number;
  decisionIntervalTicks: number;
  profile: string;
  sessionId: string;
  llm: { provider: string; model: string; systemPrompt: string };
  /** What each decision offers the model (progressive discovery unless `mode: "full"`). */
  discovery: DiscoveryConfig;
  // Runtime state.
  perception?: Perception;
  perceptionEventId?: string;
  inFlight: boolean;
  /** Bumped per decision and on timeout: a result from an older generation is late. */
  generation: number;
  lastDecisionTick: number;
  queue: QueuedAction[];
  previousResults: unknown[];
  /** Weighted-fair scheduling position (stride scheduling); null while idle. */
  pass: number | null;
  /** Skills activated by `read_skill` or use, most recent first (progressive discovery). */
  active: string[];
  /** What `list_skills` / `read_skill` answered, for the next decision only. */
  pendingDiscovery: unknown[];
  /** Decisions started in the last minute of ticks, with their estimated prompt tokens (rate limits). */
  recentDecisions: { tick: number; tokens: number }[];
  /** Held back by its rate limit since this tick; null when not. */
  heldSince: number | null;
  /** The conversation it is in (it makes no other decisions meanwhile); null when none. */
  conversation: string | null;
  usage: AgentUsage;
}

/** What an agent's decisions cost, summed over its life. */
export interface AgentUsage {
  decisions: number;
  /** Prompt size as sent, in characters, and estimated tokens (4 characters a token). */
  promptChars: number;
  estimatedPromptTokens: number;
  /** As the providers' replies counted them (0 where a provider reports none). */
  promptTokens: number;
  completionTokens: number;
}

export type AgentSpec = Pick<AgentRecord, "type" | "profile" | "sessionId" | "llm"> &
  Partial<Pick<AgentRecord, "id" | "entityId" | "anchor" | "perceptionRadius" | "decisionIntervalTicks">> & { discovery?: DiscoveryOptions };

export class AgentRegistry {
  private readonly agents = new Map<string, AgentRecord>();
  private next = 1;

  add(spec: AgentSpec): AgentRecord {
    const id = spec.id ?? `agt_${this.next++}`;
    if (!/^agt_[A-Za-z0-9_-]+$/.test(id)) throw engineError("invalid_input", `agent id ${JSON.stringify(id)} must look like agt_<name>`);
    if (this.agents.has(id)) throw engineError("invalid_input", `agent ${id} already exists`);
    const radius = spec.perceptionRadius ?? 15;
    const interval = spec.decisionIntervalTicks ?? 30;
    if (!(Number.isFinite(radius) && radius > 0)) throw engineError("invalid_input", `perceptionRadius must be > 0, got ${radius}`);
    if (!(Number.isInteger(interval) && interval >= 1)) throw engineError("invalid_input", `decisionIntervalTicks must be a whole number ≥ 1, got ${interval}`);
    if (spec.type !== "player" && spec.type !== "builder") throw engineError("invalid_input", `agent type must be player or builder, got ${spec.type}`);
    let discovery: DiscoveryConfig;
    try {
      discovery = discoveryConfig(spec.discovery);
    } catch (e) {
      throw engineError("invalid_input", (e as Error).message);
    }
    const record: AgentRecord = {
      id,
      type: spec.type,
      entityId: spec.entityId,
      anchor: spec.anchor,
      perceptionRadius: radius,
      decisionIntervalTicks: interval,
      profile: spec.profile,
      sessionId: spec.sessionId,
      llm: { ...spec.llm },
      discovery,
      inFlight: false,
      generation: 0,
      // Due on the first tick it is seen.
      lastDecisionTick: -Infinity,
      queue: [],
      previousResults: [],
      pass: null,
      active: [],
      pendingDiscovery: [],
      recentDecisions: [],
      heldSince: null,
      conversation: null,
      usage: { decisions: 0, promptChars: 0, estimatedPromptTokens: 0, promptTokens: 0, completionTokens: 0 },
    };
    this.agents.set(id, record);
    return record;
  }

  get(id: string): AgentRecord | undefined {
    return this.agents.get(id);
  }

  remove(id: string): boolean {
    return this.agents.delete(id);
  }

  all(): AgentRecord[] {
    return [...this.agents.values()];
  }

  get size(): number {
    return this.agents.size;
  }

  /** A summary per agent, for the inspector. */
  summaries(): { agentId: string; [k: string]: unknown }[] {
    return this.all().map((a) => ({
      agentId: a.id,
      type: a.type,
      entityId: a.entityId ?? null,
      profile: a.profile,
      sessionId: a.sessionId,
      provider: a.llm.provider,
      inFlight: a.inFlight,
      lastDecisionTick: Number.isFinite(a.lastDecisionTick) ? a.lastDecisionTick : null,
      queued: a.queue.length,
      discovery: a.discovery.mode,
      activeSkills: [...a.active],
      conversation: a.conversation,
      usage: { ...a.usage },
    }));
  }
}
