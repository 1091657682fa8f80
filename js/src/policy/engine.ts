// The dynamic policy engine: a contextual allow/deny at every boundary,
// deny-overrides and fail-closed, in this order (the first deny wins):
//   1. session revoked                → session.revoked
//   2. capability or agent revoked    → revoked
//   3. profile lacks a permission     → profile.denied
//   4. quota window exhausted         → quota.exceeded
//   5. resource budget exhausted      → budget.calls / budget.cpu / budget.mem
//   6. otherwise allow (profile.grant) and commit the usage.
// Every decision is recorded: `policy.decision` (allow) or `policy.denied`.

import type { Tracer } from "../observability/tracer.ts";

export type PolicyRule =
  | "session.revoked"
  | "revoked"
  | "profile.denied"
  | "quota.exceeded"
  | "budget.calls"
  | "budget.cpu"
  | "budget.mem"
  | "package.rejected"
  | "profile.grant";

export type Boundary = "registry" | "sandbox" | "session" | "package";

export interface PolicyInput {
  boundary: Boundary;
  agentId: string;
  sessionId: string;
  /** The capability exercised: a skill name at the registry. */
  cap: string;
  requiredPermissions: readonly string[];
  granted: ReadonlySet<string>;
  profile: string | null;
  package: string | null;
  tick: number | null;
}

export interface QuotaSnapshot {
  cap: string;
  max: number;
  windowMs: number;
  used: number;
  remaining: number;
}

export interface BudgetSnapshot {
  limits: { calls?: number; cpuMs?: number; memBytes?: number };
  used: { calls: number; cpuMs: number; memBytes: number };
}

export interface Decision {
  eventId: string;
  allow: boolean;
  rule: PolicyRule;
  reason: string;
  /** The first missing permission, for profile.denied. */
  missing?: string;
  quota: QuotaSnapshot | null;
  budget: BudgetSnapshot | null;
}

interface Quota {
  max: number;
  windowMs: number;
}

function quotaSnapshot(entry: [string, Quota] | null, window: number[] | null): QuotaSnapshot | null {
  if (!entry || !window) return null;
  const [cap, q] = entry;
  return { cap, max: q.max, windowMs: q.windowMs, used: window.length, remaining: Math.max(0, q.max - window.length) };
}

export interface PolicyEngineOptions {
  /** Milliseconds clock for quota windows (defaults to performance.now). */
  now?: () => number;
}

export class PolicyEngine {
  private readonly now: () => number;
  private readonly revokedSessions = new Map<string, string>();
  private readonly revokedAgents = new Map<string, string>();
  /** `${scope}\u0000${cap}` → reason, scope being "agent:<id>" or "session:<id>". */
  private readonly revokedCaps = new Map<string, string>();
  /** Quotas by cap ("*" = every cap), applied per session. */
  private readonly quotas = new Map<string, Quota>();
  /** Allowed-call timestamps per session and cap. */
  private readonly windows = new Map<string, number[]>();
  private readonly budgets = new Map<string, BudgetSnapshot["limits"]>();
  private readonly ledgers = new Map<string, BudgetSnapshot["used"]>();
  /** Per capability, its last allow's payload template in the world log: its text around the tick (see `grantTemplate`). */
  private readonly grants = new Map<string, { agentId: string; sessionId: string; profile: string | null; package: string | null; boundary: Boundary; reason: string; permissions: string[]; template: number }>();

  constructor(private readonly tracer: Tracer, options: PolicyEngineOptions = {}) {
    this.now = options.now ?? (() => performance.now());
  }

  revokeSession(sessionId: string, reason = "session revoked"): void {
    this.revokedSessions.set(sessionId, reason);
  }

  /** Revokes an agent entirely, or one capability (a skill name or a permission) of an agent or a session. */
  revoke(target: { agentId?: string; sessionId?: string; cap?: string }, reason = "revoked"): void {
    if (target.cap === undefined) {
      if (target.agentId === undefined) throw new Error("revoke needs an agentId, or a cap with an agentId or sessionId");
      this.revokedAgents.set(target.agentId, reason);
      return;
    }
    const scope = target.agentId !== undefined ? `agent:${target.agentId}` : target.sessionId !== undefined ? `session:${target.sessionId}` : null;
    if (scope === null) throw new Error("revoking a cap needs an agentId or a sessionId");
    this.revokedCaps.set(`${scope}\u0000${target.cap}`, reason);
  }

  /** At most `max` allowed calls of `cap` ("*" = any) per session in any `windowMs` window. */
  setQuota(cap: string, max: number, windowMs: number): void {
    if (!(Number.isInteger(max) && max >= 0 && windowMs > 0)) throw new Error("quota needs an integer max ≥ 0 and windowMs > 0");
    this.quotas.set(cap, { max, windowMs });
  }

  /** A session's resource budget: total calls, handler CPU milliseconds, memory bytes. */
  setBudget(sessionId: string, limits: BudgetSnapshot["limits"]): void {
    this.budgets.set(sessionId, { ...limits });
  }

  /** Charges a session's ledger (the registry charges handler CPU; the sandbox charges memory). */
  charge(sessionId: string, usage: { cpuMs?: number; memBytes?: number }): void {
    const l = this.ledger(sessionId);
    l.cpuMs += usage.cpuMs ?? 0;
    l.memBytes += usage.memBytes ?? 0;
  }

  private ledger(sessionId: string): BudgetSnapshot["used"] {
    let l = this.ledgers.get(sessionId);
    if (!l) this.ledgers.set(sessionId, (l = { calls: 0, cpuMs: 0, memBytes: 0 }));
    return l;
  }

  private budgetSnapshot(sessionId: string): BudgetSnapshot | null {
    if (this.budgets.size === 0) return null;
    const limits = this.budgets.get(sessionId);
    return limits ? { limits: { ...limits }, used: { ...this.ledger(sessionId) } } : null;
  }

  private quotaFor(cap: string): [string, Quota] | null {
    const q = this.quotas.get(cap);
    if (q) return [cap, q];
    const any = this.quotas.get("*");
    return any ? ["*", any] : null;
  }

  private window(sessionId: string, quotaCap: string, cap: string, q: Quota, now: number): number[] {
    const key = `${sessionId}\u0000${quotaCap === "*" ? "*" : cap}`;
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = []));
    while (w.length > 0 && w[0] <= now - q.windowMs) w.shift();
    return w;
  }

  /** Decides one crossing, records it, and (on allow) commits the usage. */
  evaluate(input: PolicyInput, causedBy: string[] = []): Decision {
    const quotaEntry = this.quotas.size > 0 ? this.quotaFor(input.cap) : null;
    // The clock is read only for a quota window.
    const now = quotaEntry ? this.now() : 0;
    const window = quotaEntry ? this.window(input.sessionId, quotaEntry[0], input.cap, quotaEntry[1], now) : null;
    const denial = this.denial(input, quotaEntry, window);
    if (denial) {
      return this.record(input, { eventId: "", allow: false, rule: denial.rule, reason: denial.reason, missing: denial.missing, quota: quotaSnapshot(quotaEntry, window), budget: this.budgetSnapshot(input.sessionId) }, causedBy);
    }
    window?.push(now);
    this.ledger(input.sessionId).calls++;
    return this.record(
      input,
      { eventId: "", allow: true, rule: "profile.grant", reason: this.grantReason(input), quota: quotaSnapshot(quotaEntry, window), budget: this.budgetSnapshot(input.sessionId) },
      causedBy,
    );
  }

  /** The first rule that denies `input`, in the order above; null to allow. */
  private denial(input: PolicyInput, quotaEntry: [string, Quota] | null, window: number[] | null): { rule: PolicyRule; reason: string; missing?: string } | null {
    const sessionRevoked = this.revokedSessions.get(input.sessionId);
    if (sessionRevoked !== undefined) return { rule: "session.revoked", reason: `session ${input.sessionId} is revoked: ${sessionRevoked}` };

    const agentRevoked = this.revokedAgents.get(input.agentId);
    if (agentRevoked !== undefined) return { rule: "revoked", reason: `agent ${input.agentId} is revoked: ${agentRevoked}` };
    if (this.revokedCaps.size > 0) {
      for (const cap of [input.cap, ...input.requiredPermissions]) {
        for (const scope of [`agent:${input.agentId}`, `session:${input.sessionId}`]) {
          const why = this.revokedCaps.get(`${scope}\u0000${cap}`);
          if (why !== undefined) return { rule: "revoked", reason: `${cap} is revoked for ${scope.replace(":", " ")}: ${why}` };
        }
      }
    }

    for (const p of input.requiredPermissions) {
      if (!input.granted.has(p)) return { rule: "profile.denied", reason: `missing permission: ${p} (profile ${input.profile ?? "none"} does not grant it)`, missing: p };
    }

    if (quotaEntry && window && window.length >= quotaEntry[1].max) {
      return { rule: "quota.exceeded", reason: `quota for ${quotaEntry[0]} exhausted: ${quotaEntry[1].max} calls per ${quotaEntry[1].windowMs} ms` };
    }

    const limits = this.budgets.get(input.sessionId);
    if (limits) {
      const used = this.ledger(input.sessionId);
      if (limits.calls !== undefined && used.calls >= limits.calls) return { rule: "budget.calls", reason: `call budget exhausted: ${used.calls} of ${limits.calls} calls used` };
      if (limits.cpuMs !== undefined && used.cpuMs >= limits.cpuMs) return { rule: "budget.cpu", reason: `CPU budget exhausted: ${used.cpuMs.toFixed(3)} of ${limits.cpuMs} ms used` };
      if (limits.memBytes !== undefined && used.memBytes >= limits.memBytes) return { rule: "budget.mem", reason: `memory budget exhausted: ${used.memBytes} of ${limits.memBytes} bytes used` };
    }
    return null;
  }

  /** Records a denial decided before the rules above apply (a package's manifest, hash or signature). */
  deny(input: PolicyInput, rule: PolicyRule, reason: string, causedBy: string[] = []): Decision {
    return this.record(input, { eventId: "", allow: false, rule, reason, quota: null, budget: this.budgetSnapshot(input.sessionId) }, causedBy);
  }

  /** Records `d` (made for this call alone) and returns it with its event's id. */
  private record(input: PolicyInput, d: Decision, causedBy: string[]): Decision {
    const options = { actorId: input.agentId, threadId: input.sessionId, causedBy };
    const template = d.allow && d.quota === null && d.budget === null ? this.grantTemplate(input, d.reason) : -1;
    // A templated event's payload object is only for listeners (the log writes the template): made when one listens.
    d.eventId = template >= 0
      ? this.tracer.emitTemplated("policy.decision", this.tracer.listening ? decisionPayload(input, d) : null, options, template, input.tick ?? NaN)
      : this.tracer.emit(d.allow ? "policy.decision" : "policy.denied", decisionPayload(input, d), options);
    return d;
  }

  /**
   * An allow's reason, "<profile> grants <cap>": the capability's last grant's text when its profile
   * is the same (the text is too), so it is not joined again. Joined, not a template, so the
   * recorded event serialises on JSON.stringify's fast path (see Tracer.emit).
   */
  private grantReason(input: PolicyInput): string {
    const g = this.grants.get(input.cap);
    return g !== undefined && g.profile === input.profile ? g.reason : [input.profile ?? "session", " grants ", input.cap].join("");
  }

  /**
   * The world log's payload template of an allow with no quota and no budget: its JSON is the same
   * for every call of a capability by one session but for its tick, so it is registered per
   * capability (for its last caller) and the log writes the tick (null as NaN). -1 for what it does
   * not cover.
   */
  private grantTemplate(input: PolicyInput, reason: string): number {
    const tick = input.tick;
    if (typeof tick !== "number" && tick !== null) return -1;
    let g = this.grants.get(input.cap);
    if (
      g === undefined || g.agentId !== input.agentId || g.sessionId !== input.sessionId || g.profile !== input.profile ||
      g.package !== input.package || g.boundary !== input.boundary || g.reason !== reason || !sameStrings(g.permissions, input.requiredPermissions)
    ) {
      const strings = [input.agentId, input.sessionId, input.cap, input.boundary, reason, ...input.requiredPermissions];
      const orNull = [input.profile, input.package];
      if (!strings.every((v) => typeof v === "string") || !orNull.every((v) => v === null || typeof v === "string")) return -1;
      const j = JSON.stringify;
      if (g === undefined && this.grants.size >= 4096) {
        for (const old of this.grants.values()) this.tracer.releaseTemplate(old.template);
        this.grants.clear();
      }
      const template = this.tracer.template(
        `{"allow":true,"rule":"profile.grant","reason":${j(reason)},"boundary":${j(input.boundary)},"context":{"agentId":${j(input.agentId)},"sessionId":${j(input.sessionId)},"cap":${j(input.cap)},"profile":${j(input.profile)},"package":${j(input.package)},"tick":`,
        `,"requiredPermissions":${j(input.requiredPermissions)}},"quota":null,"budget":null}`,
        g?.template,
      );
      g = {
        agentId: input.agentId,
        sessionId: input.sessionId,
        profile: input.profile,
        package: input.package,
        boundary: input.boundary,
        reason,
        permissions: [...input.requiredPermissions],
        template,
      };
      this.grants.set(input.cap, g);
    }
    return g.template;
  }
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A decision's world log payload. */
function decisionPayload(input: PolicyInput, d: Decision): Record<string, unknown> {
  return {
    allow: d.allow,
    rule: d.rule,
    reason: d.reason,
    boundary: input.boundary,
    context: {
      agentId: input.agentId,
      sessionId: input.sessionId,
      cap: input.cap,
      profile: input.profile,
      package: input.package,
      tick: input.tick,
      requiredPermissions: [...input.requiredPermissions],
    },
    quota: d.quota,
    budget: d.budget,
  };
}
