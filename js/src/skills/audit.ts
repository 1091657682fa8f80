// Audit skills: answers read back from the recorded policy decisions.

import { z } from "zod";
import type { AgentDirectory } from "../agents/directory.ts";
import type { EngineEvent, Tracer } from "../observability/tracer.ts";
import type { SkillDefinition } from "./registry.ts";

interface DecisionPayload {
  allow: boolean;
  rule: string;
  reason: string;
  boundary: string;
  context: {
    agentId: string;
    sessionId: string;
    cap: string;
    profile: string | null;
    package: string | null;
    tick: number | null;
    requiredPermissions: string[] | null;
  };
  quota: unknown;
  budget: unknown;
}

const isDecision = (e: EngineEvent | undefined): e is EngineEvent & { payload: DecisionPayload } =>
  e !== undefined && (e.type === "policy.decision" || e.type === "policy.denied");

const EventRef = z.object({ id: z.string(), type: z.string(), actorId: z.string(), threadId: z.string() });
const ref = (e: EngineEvent) => ({ id: e.id, type: e.type, actorId: e.actorId, threadId: e.threadId });
const parentIds = (e: EngineEvent) => [...new Set([...(e.parentEventId ? [e.parentEventId] : []), ...e.causedBy])];

/** The decision that governs an event: itself, or the nearest decision among its causes. */
function governingDecision(tracer: Tracer, event: EngineEvent): (EngineEvent & { payload: DecisionPayload }) | null {
  const seen = new Set<string>();
  const queue = [event];
  while (queue.length > 0) {
    const e = queue.shift()!;
    if (isDecision(e)) return e;
    for (const id of parentIds(e)) {
      if (seen.has(id)) continue;
      seen.add(id);
      const p = tracer.get(id);
      if (p) queue.push(p);
    }
  }
  return null;
}

function decisions(tracer: Tracer): (EngineEvent & { payload: DecisionPayload })[] {
  return tracer.history().filter(isDecision);
}

const AgentTokens = z.object({
  agentId: z.string(),
  decisions: z.number().int(),
  promptChars: z.number().int(),
  estimatedPromptTokens: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
});

const DecisionOut = z.object({
  eventId: z.string(),
  allow: z.boolean(),
  rule: z.string(),
  reason: z.string(),
  boundary: z.string(),
  context: z.object({
    agentId: z.string(),
    sessionId: z.string(),
    cap: z.string(),
    profile: z.string().nullable(),
    package: z.string().nullable(),
    tick: z.number().nullable(),
    requiredPermissions: z.array(z.string()).nullable(),
  }),
  quota: z.unknown().nullable(),
  budget: z.unknown().nullable(),
});
const auditExplainInput = z.strictObject({ eventId: z.string() });
const auditExplainOutput = z.object({
  eventId: z.string(),
  eventType: z.string(),
  found: z.boolean(),
  decision: DecisionOut.nullable(),
  provenance: z.object({ agentId: z.string(), sessionId: z.string(), profile: z.string().nullable(), package: z.string().nullable() }),
  causalTrace: z.object({ parents: z.array(EventRef), ancestry: z.array(EventRef) }),
});
const auditQueryInput = z.strictObject({
  decision: z.enum(["allow", "deny", "all"]).default("all"),
  cap: z.string().optional(),
  rule: z.string().optional(),
  agentId: z.string().optional(),
  sessionId: z.string().optional(),
  package: z.string().optional(),
  limit: z.number().int().min(0).max(2000).default(200),
});
const auditQueryOutput = z.object({
  summary: z.object({
    total: z.number().int(),
    allowed: z.number().int(),
    denied: z.number().int(),
    byRule: z.record(z.string(), z.number()),
    byCap: z.record(z.string(), z.number()),
    packages: z.array(z.string()),
  }),
  decisions: z.array(
    z.object({
      eventId: z.string(),
      allow: z.boolean(),
      rule: z.string(),
      reason: z.string(),
      boundary: z.string(),
      cap: z.string(),
      agentId: z.string(),
      sessionId: z.string(),
      profile: z.string().nullable(),
      package: z.string().nullable(),
      tick: z.number().nullable(),
    }),
  ),
});
const auditUsageInput = z.strictObject({ sessionId: z.string().optional() });
const auditUsageOutput = z.object({
  perSessionCap: z.array(z.object({ sessionId: z.string(), cap: z.string(), allowed: z.number().int(), denied: z.number().int() })),
  quotas: z.array(z.object({ sessionId: z.string(), quota: z.unknown() })),
  budgets: z.array(z.object({ sessionId: z.string(), budget: z.unknown() })),
  agents: z.array(AgentTokens),
});

export function auditSkills({ tracer, agents }: { tracer: Tracer; agents: AgentDirectory }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "auditSkills" };
  return [
    {
      name: "audit.explain",
      version: "1.0.0",
      category: "system",
      description:
        "Answer 'why was action X allowed/denied': the governing policy decision (rule + reason + context + quota/budget), the provenance (agent/session/profile/package), and the causal-parent chain — all from the real recorded trace.",
      input: auditExplainInput,
      output: auditExplainOutput,
      permissions: [],
      source,
      handler: ({ eventId }) => {
        const event = tracer.get(eventId);
        if (!event) {
          return {
            eventId,
            eventType: "",
            found: false,
            decision: null,
            provenance: { agentId: "", sessionId: "", profile: null, package: null },
            causalTrace: { parents: [], ancestry: [] },
          };
        }
        const d = governingDecision(tracer, event);
        const parents = parentIds(event).map((id) => tracer.get(id)).filter((e): e is EngineEvent => e !== undefined);
        const ancestry: EngineEvent[] = [];
        const seen = new Set<string>();
        const queue = [...parents];
        while (queue.length > 0 && ancestry.length < 256) {
          const e = queue.shift()!;
          if (seen.has(e.id)) continue;
          seen.add(e.id);
          ancestry.push(e);
          for (const id of parentIds(e)) {
            const p = tracer.get(id);
            if (p) queue.push(p);
          }
        }
        return {
          eventId,
          eventType: event.type,
          found: true,
          decision: d
            ? { eventId: d.id, allow: d.payload.allow, rule: d.payload.rule, reason: d.payload.reason, boundary: d.payload.boundary, context: d.payload.context, quota: d.payload.quota ?? null, budget: d.payload.budget ?? null }
            : null,
          provenance: {
            agentId: d?.payload.context.agentId ?? event.actorId,
            sessionId: d?.payload.context.sessionId ?? event.threadId,
            profile: d?.payload.context.profile ?? null,
            package: d?.payload.context.package ?? null,
          },
          causalTrace: { parents: parents.map(ref), ancestry: ancestry.map(ref) },
        };
      },
    },
    {
      name: "audit.query",
      version: "1.0.0",
      category: "system",
      description:
        "Query recorded policy decisions: filter by allow/deny, cap, rule, agent, session, or package (package provenance). Returns matching decision events plus an allow/deny + by-rule + by-cap summary.",
      input: auditQueryInput,
      output: auditQueryOutput,
      permissions: [],
      source,
      handler: (q) => {
        const matches = decisions(tracer).filter(({ payload: p }) =>
          (q.decision === "all" || p.allow === (q.decision === "allow")) &&
          (q.cap === undefined || p.context.cap === q.cap) &&
          (q.rule === undefined || p.rule === q.rule) &&
          (q.agentId === undefined || p.context.agentId === q.agentId) &&
          (q.sessionId === undefined || p.context.sessionId === q.sessionId) &&
          (q.package === undefined || p.context.package === q.package)
        );
        const byRule: Record<string, number> = {};
        const byCap: Record<string, number> = {};
        const packages = new Set<string>();
        let allowed = 0;
        for (const { payload: p } of matches) {
          if (p.allow) allowed++;
          byRule[p.rule] = (byRule[p.rule] ?? 0) + 1;
          byCap[p.context.cap] = (byCap[p.context.cap] ?? 0) + 1;
          if (p.context.package) packages.add(p.context.package);
        }
        return {
          summary: { total: matches.length, allowed, denied: matches.length - allowed, byRule, byCap, packages: [...packages] },
          // The most recent `limit` matches, oldest first.
          decisions: matches.slice(Math.max(0, matches.length - q.limit)).map(({ id, payload: p }) => ({
            eventId: id,
            allow: p.allow,
            rule: p.rule,
            reason: p.reason,
            boundary: p.boundary,
            cap: p.context.cap,
            agentId: p.context.agentId,
            sessionId: p.context.sessionId,
            profile: p.context.profile,
            package: p.context.package,
            tick: p.context.tick,
          })),
        };
      },
    },
    {
      name: "audit.usage",
      version: "1.0.0",
      category: "system",
      description:
        "Resource usage from recorded decisions: allowed/denied call counts per session+cap, plus the latest quota and budget snapshots seen for each session — derived from the real policy events — and each LLM player's prompt size and tokens in/out as its providers reported them.",
      input: auditUsageInput,
      output: auditUsageOutput,
      permissions: [],
      source,
      handler: ({ sessionId }) => {
        const counts = new Map<string, { sessionId: string; cap: string; allowed: number; denied: number }>();
        const quotas = new Map<string, unknown>();
        const budgets = new Map<string, unknown>();
        for (const { payload: p } of decisions(tracer)) {
          const s = p.context.sessionId;
          if (sessionId !== undefined && s !== sessionId) continue;
          const key = `${s}\u0000${p.context.cap}`;
          let c = counts.get(key);
          if (!c) counts.set(key, (c = { sessionId: s, cap: p.context.cap, allowed: 0, denied: 0 }));
          if (p.allow) c.allowed++;
          else c.denied++;
          if (p.quota) quotas.set(s, p.quota);
          if (p.budget) budgets.set(s, p.budget);
        }
        const tokens = agents
          .list()
          .filter((a) => (sessionId === undefined || a.sessionId === sessionId) && typeof a.usage === "object" && a.usage !== null)
          .map((a) => ({ agentId: a.agentId, ...(a.usage as Omit<z.infer<typeof AgentTokens>, "agentId">) }));
        return {
          perSessionCap: [...counts.values()],
          quotas: [...quotas].map(([s, quota]) => ({ sessionId: s, quota })),
          budgets: [...budgets].map(([s, budget]) => ({ sessionId: s, budget })),
          agents: tokens,
        };
      },
    },
  ];
}
