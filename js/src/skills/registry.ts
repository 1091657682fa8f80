// The SkillRegistry: the one path every agent action takes.
// resolve → Zod-validate → permission/policy → before → handler →
// output-validate → after → emit `skill.executed`.

import { z } from "../../build/zod.bundle.mjs";
import type { Tracer } from "../observability/tracer.ts";
import type { Decision, PolicyEngine } from "../policy/engine.ts";
import { errorCodeOf, type MCPErrorCode, type MCPResponse, type MCPTool } from "../mcp/protocol.ts";
import type { WorldContext } from "./context.ts";

export type SkillCategory = "scene" | "ecs" | "three" | "physics" | "agent" | "system" | "ui" | "social" | "audio";

export interface ExecutionContext {
  agentId: string;
  sessionId: string;
  permissions: ReadonlySet<string>;
  profile: string | null;
  pkg: string | null;
  /** The fixed-step tick the call runs on. */
  tick: number;
  world: WorldContext;
  /** Records an event attributed to the caller; returns its id. */
  emit(type: string, payload: unknown, causedBy?: string[]): string;
}

// deno-lint-ignore no-explicit-any
export interface SkillDefinition<I = any, O = any> {
  name: string;
  version: string;
  description: string;
  category: SkillCategory;
  input: z.ZodType<I>;
  output: z.ZodType<O>;
  permissions: string[];
  handler(input: I, ctx: ExecutionContext): O | Promise<O>;
  hooks?: {
    before?(input: I, ctx: ExecutionContext): void | Promise<void>;
    after?(result: O, ctx: ExecutionContext): void | Promise<void>;
  };
  /** Where the definition comes from, so `dev.reload` can load it again from disk. */
  source?: { module: string; factory: string };
}

/** Who is calling, under what. */
export interface InvokeBase {
  agentId: string;
  sessionId: string;
  permissions: ReadonlySet<string> | Iterable<string>;
  /** The caller's profile name, recorded for audit. */
  profile?: string | null;
  /** Set when the call comes from a loaded package. */
  pkg?: string | null;
  /** Events that caused this call (e.g. the decision behind an agent's action). */
  causedBy?: string[];
  /** The agent decision this call executes, when there is one. */
  decisionId?: string;
}

export interface SkillSummary {
  name: string;
  description: string;
}

// deno-lint-ignore no-explicit-any
type AnySkill = SkillDefinition<any, any>;

/** JSON Schema draft-07 of a skill's input, as agents see it. */
export function inputSchema(skill: AnySkill): unknown {
  return z.toJSONSchema(skill.input, { target: "draft-07", unrepresentable: "any", io: "input" });
}

export class SkillRegistry {
  private readonly skills = new Map<string, AnySkill>();
  private tools: MCPTool[] | null = null;
  private policy: PolicyEngine | null = null;

  constructor(
    readonly tracer: Tracer,
    readonly world: WorldContext,
    private readonly tickOf: () => number = Limina.loop.steps,
  ) {}

  register(skill: AnySkill): void {
    if (this.skills.has(skill.name)) throw new Error(`skill ${skill.name} is already registered (use replace)`);
    this.check(skill);
    this.skills.set(skill.name, skill);
    this.tools = null;
  }

  /** Swaps a registered skill for a new definition; later calls run the new handler. */
  replace(skill: AnySkill): void {
    if (!this.skills.has(skill.name)) throw new Error(`skill ${skill.name} is not registered`);
    this.check(skill);
    this.skills.set(skill.name, skill);
    this.tools = null;
  }

  unregister(name: string): boolean {
    const had = this.skills.delete(name);
    if (had) this.tools = null;
    return had;
  }

  private check(skill: AnySkill): void {
    if (!/^[a-z]+\.[A-Za-z]+$/.test(skill.name)) throw new Error(`bad skill name ${JSON.stringify(skill.name)}`);
    if (typeof skill.handler !== "function") throw new Error(`skill ${skill.name} has no handler`);
  }

  get(name: string): AnySkill | undefined {
    return this.skills.get(name);
  }

  has(name: string): boolean {
    return this.skills.has(name);
  }

  /** Every registered skill, in registration order. */
  all(): AnySkill[] {
    return [...this.skills.values()];
  }

  get size(): number {
    return this.skills.size;
  }

  /** The MCP tool list, memoized until the next register/unregister/replace. */
  listTools(): MCPTool[] {
    this.tools ??= this.all().map((s) => ({ name: s.name, description: s.description, input_schema: inputSchema(s) }));
    return this.tools;
  }

  /** Attaches (or, with null, detaches) the dynamic policy engine. */
  attachPolicy(policy: PolicyEngine | null): void {
    this.policy = policy;
  }

  get policyEngine(): PolicyEngine | null {
    return this.policy;
  }

  async invoke(name: string, input: unknown, base: InvokeBase): Promise<MCPResponse> {
    const started = performance.now();
    const eventIds: string[] = [];
    const eventsEmitted: string[] = [];
    const tick = this.tickOf();
    const emit = (type: string, payload: unknown, causedBy: string[] = []): string => {
      const id = this.tracer.emit(type, payload, { actorId: base.agentId, threadId: base.sessionId, causedBy });
      eventIds.push(id);
      eventsEmitted.push(type);
      return id;
    };
    const done = (response: Omit<MCPResponse, "metadata">): MCPResponse => ({
      ...response,
      metadata: { executionTimeMs: performance.now() - started, eventsEmitted, eventIds },
    });
    const fail = (code: MCPErrorCode, message: string) => done({ success: false, error: { code, message } });

    const skill = this.skills.get(name);
    if (!skill) return fail("not_found", `unknown skill: ${name}`);

    const parsed = skill.input.safeParse(input ?? {});
    if (!parsed.success) return fail("invalid_input", `${name}: ${z.prettifyError(parsed.error)}`);

    const permissions = base.permissions instanceof Set ? base.permissions : new Set(base.permissions);
    const causedBy = [...(base.causedBy ?? [])];
    if (this.policy) {
      const decision: Decision = this.policy.evaluate(
        {
          boundary: "registry",
          agentId: base.agentId,
          sessionId: base.sessionId,
          cap: name,
          requiredPermissions: skill.permissions,
          granted: permissions,
          profile: base.profile ?? null,
          package: base.pkg ?? null,
          tick,
        },
        causedBy,
      );
      eventIds.push(decision.eventId);
      eventsEmitted.push(decision.allow ? "policy.decision" : "policy.denied");
      if (!decision.allow) {
        if (decision.rule === "profile.denied") {
          emit("security.permission.denied", { skill: name, missing: decision.missing, agentId: base.agentId }, [decision.eventId]);
        }
        return fail("forbidden", decision.reason);
      }
      causedBy.push(decision.eventId);
    } else {
      for (const p of skill.permissions) {
        if (!permissions.has(p)) {
          emit("security.permission.denied", { skill: name, missing: p, agentId: base.agentId }, causedBy);
          return fail("forbidden", `missing permission: ${p}`);
        }
      }
    }

    const ctx: ExecutionContext = {
      agentId: base.agentId,
      sessionId: base.sessionId,
      permissions,
      profile: base.profile ?? null,
      pkg: base.pkg ?? null,
      tick,
      world: this.world,
      emit,
    };
    const handlerStart = performance.now();
    let result: unknown;
    try {
      await skill.hooks?.before?.(parsed.data, ctx);
      result = await skill.handler(parsed.data, ctx);
    } catch (e) {
      this.policy?.charge(base.sessionId, { cpuMs: performance.now() - handlerStart });
      const code = errorCodeOf(e);
      const message = e instanceof Error ? e.message : String(e);
      emit("skill.failed", { skill: name, version: skill.version, code, message, tick }, causedBy);
      return fail(code, message);
    }
    this.policy?.charge(base.sessionId, { cpuMs: performance.now() - handlerStart });
    const checked = skill.output.safeParse(result);
    if (!checked.success) {
      const message = `${name} returned output that does not match its schema: ${z.prettifyError(checked.error)}`;
      emit("skill.failed", { skill: name, version: skill.version, code: "handler_error", message, tick }, causedBy);
      return fail("handler_error", message);
    }
    try {
      await skill.hooks?.after?.(checked.data, ctx);
    } catch (e) {
      const message = `${name} after-hook failed: ${e instanceof Error ? e.message : String(e)}`;
      emit("skill.failed", { skill: name, version: skill.version, code: "handler_error", message, tick }, causedBy);
      return fail("handler_error", message);
    }
    const payload: Record<string, unknown> = { skill: name, version: skill.version, input: parsed.data, tick };
    if (base.decisionId) payload.decisionId = base.decisionId;
    emit("skill.executed", payload, causedBy);
    return done({ success: true, result: checked.data });
  }
}
