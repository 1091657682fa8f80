// The host bridge: the one way out of a sandbox. Before each entry into a
// sandbox (its top-level code, a tick, a decision) the bridge injects the
// owner's perception snapshot, which `host.perception` reads inside the
// sandbox without a crossing. Each entry returns with the intents its
// `host.invoke` calls recorded; the bridge performs them as ordinary skill
// calls under the host's attribution (the agent and session that own the
// sandbox, its granted permissions, `pkg` provenance), the policy engine
// deciding each crossing, and settles their promises — round after round,
// until the entry is quiet or its CPU budget is spent. The sandbox's CPU
// time and memory are charged to its session's budget.

import type { Answer, Intent, Outcome, Sandbox, SandboxStatus } from "../../../crates/limina-sandbox/js/sandbox.ts";
import type { PolicyEngine } from "../policy/engine.ts";
import type { SkillRegistry } from "../skills/registry.ts";

/** Who a sandbox acts as. */
export interface Attribution {
  agentId: string;
  sessionId: string;
  profile: string;
  /** What its calls may do: the capabilities it declared, all granted by its profile. */
  permissions: ReadonlySet<string>;
  /** The package's `name@version`. */
  pkg: string;
  /** Events behind its calls (its load). */
  causedBy: string[];
}

export interface RunBudget {
  /** Sandbox CPU time for the whole entry, all rounds together. */
  cpuMs: number;
  /** Most `host.invoke` calls one entry may make. */
  maxIntents: number;
  /** Told the CPU each round used, as it is used (the world's per-tick budget counts it). */
  spend?: (cpuMs: number) => void;
}

export interface RunResult {
  status: SandboxStatus | "intent_budget";
  /** Why, when the status is not ok. */
  error: string | null;
  call: Outcome["call"];
  /** The call's result (parsed) once done, or why it failed. */
  result: unknown;
  cpuMs: number;
  memBytes: number;
  /** Intents performed. */
  invoked: number;
}

export class HostBridge {
  /** Memory already charged per sandbox, so the ledger holds each one's peak. */
  private readonly charged = new WeakMap<Sandbox, number>();
  /** The snapshot each sandbox holds, so an unchanged one is not injected again. */
  private readonly injected = new WeakMap<Sandbox, unknown>();

  constructor(
    private readonly registry: SkillRegistry,
    private readonly policy: PolicyEngine,
    /** The latest perception of the agent a sandbox acts as (null: it has none, e.g. a builder's session). */
    private readonly perceptionOf: (agentId: string) => unknown | null = () => null,
    private readonly tickOf: () => number = Limina.loop.steps,
  ) {}

  /**
   * Runs one entry to quiescence: `enter` starts it, the bridge answers its
   * intents. `perception` is the snapshot the entry reads (default: the
   * owner's latest perception).
   */
  async run(sandbox: Sandbox, enter: (cpuMs: number) => Outcome, who: Attribution, budget: RunBudget, perception?: unknown): Promise<RunResult> {
    const snapshot = perception === undefined ? this.perceptionOf(who.agentId) : perception;
    if (!this.injected.has(sandbox) || this.injected.get(sandbox) !== snapshot) {
      try {
        sandbox.perceive(snapshot);
      } catch (e) {
        return { status: "threw", error: (e as Error).message, call: "failed", result: null, cpuMs: 0, memBytes: sandbox.memoryBytes, invoked: 0 };
      }
      this.injected.set(sandbox, snapshot);
    }
    let outcome = enter(budget.cpuMs);
    let cpuMs = outcome.cpuMs;
    budget.spend?.(outcome.cpuMs);
    let invoked = 0;
    let stopped: { status: RunResult["status"]; error: string } | null = null;
    while (outcome.status === "ok" && outcome.intents.length > 0) {
      if (invoked + outcome.intents.length > budget.maxIntents) {
        stopped = { status: "intent_budget", error: `over its budget of ${budget.maxIntents} host.invoke calls per run` };
        break;
      }
      const answers: [Intent, Answer][] = [];
      // One after another, in the order the sandbox made them.
      for (const intent of outcome.intents) answers.push([intent, await this.perform(intent, who)]);
      invoked += answers.length;
      if (sandbox.disposed) break;
      const left = budget.cpuMs - cpuMs;
      if (left <= 0) {
        stopped = { status: "cpu_budget", error: "stopped at its CPU-time deadline" };
        break;
      }
      outcome = sandbox.settle(answers, left);
      cpuMs += outcome.cpuMs;
      budget.spend?.(outcome.cpuMs);
    }
    this.charge(sandbox, who.sessionId, cpuMs, outcome.memBytes);
    const status = stopped?.status ?? outcome.status;
    let result: unknown = outcome.result;
    if (outcome.call === "done" && outcome.result !== null) result = JSON.parse(outcome.result);
    return { status, error: stopped?.error ?? outcome.error, call: outcome.call, result, cpuMs, memBytes: outcome.memBytes, invoked };
  }

  private charge(sandbox: Sandbox, sessionId: string, cpuMs: number, memBytes: number): void {
    const before = this.charged.get(sandbox) ?? 0;
    const grown = Math.max(0, memBytes - before);
    if (grown > 0) this.charged.set(sandbox, memBytes);
    this.policy.charge(sessionId, { cpuMs, memBytes: grown });
  }

  /** One crossing: decided by the policy engine, performed by the registry. */
  private async perform(intent: Intent, who: Attribution): Promise<Answer> {
    let input: unknown;
    try {
      input = JSON.parse(intent.input);
    } catch {
      return { ok: false, error: "invalid_input: the input is not JSON" };
    }
    const causedBy = [...who.causedBy];
    // A registry with a policy engine decides the crossing itself (with the
    // package's provenance); otherwise the bridge asks the engine first.
    if (this.registry.policyEngine === null) {
      const skill = this.registry.get(intent.skill);
      const decision = this.policy.evaluate(
        {
          boundary: "sandbox",
          agentId: who.agentId,
          sessionId: who.sessionId,
          cap: intent.skill,
          requiredPermissions: skill?.permissions ?? [],
          granted: who.permissions,
          profile: who.profile,
          package: who.pkg,
          tick: this.tickOf(),
        },
        causedBy,
      );
      if (!decision.allow) return { ok: false, error: `forbidden: ${decision.reason}` };
      causedBy.push(decision.eventId);
    }
    const r = await this.registry.invoke(intent.skill, input, {
      agentId: who.agentId,
      sessionId: who.sessionId,
      permissions: who.permissions,
      profile: who.profile,
      pkg: who.pkg,
      causedBy,
    });
    return r.ok ? { ok: true, value: r.value } : { ok: false, error: `${r.error.code}: ${r.error.message}` };
  }
}
