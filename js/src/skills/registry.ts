// The SkillRegistry: the one path every agent action takes.
// resolve → Zod-validate → permission/policy → before → handler →
// output-validate → after → emit `skill.executed`.

import { z } from "zod";
import { type ErrorCode, errorCodeOf } from "../../../crates/limina-ops/js/errors.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { Decision, PolicyEngine } from "../policy/engine.ts";
import { illFormed } from "./well-formed.ts";

export type SkillCategory = "scene" | "ecs" | "three" | "physics" | "agent" | "system" | "render" | "ui" | "social" | "audio" | "game" | "world" | "terrain" | "material" | "character" | "nav" | "vfx";

/**
 * Who is calling and what the call may do. What a handler acts on (the
 * world, its physics, its scene) comes from the services its skill module
 * was built with, not from here.
 */
export interface ExecutionContext {
  agentId: string;
  sessionId: string;
  permissions: ReadonlySet<string>;
  profile: string | null;
  pkg: string | null;
  /** The fixed-step tick the call runs on. */
  tick: number;
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
  /** Where the definition comes from, so `dev.reload` can load it again: a module and the factory it exports. */
  source?: { module: string; factory: string };
  /** How in-world LLM players are offered this skill, when it must be one way (see SurfaceMode). */
  surfaceMode?: SurfaceMode;
  /** Example inputs for the reference (docs/skills.md), each with what it does; every one is a valid input. */
  examples?: { note: string; input: Record<string, unknown> }[];
  /** A call recorded by an older `version` of this skill, as this version's input (so `limina replay` of an old log does what it did). */
  upgrade?(input: unknown, version: string): unknown;
}

/**
 * How a skill reaches an LLM player's model: as a function tool
 * (`tool-only`), as a contract in the system message answered in the JSON
 * action grammar (`system-prompt`), or both.
 */
export type SurfaceMode = "tool-only" | "system-prompt" | "both";

/** A skill module's factory: its definitions, built over the services they act on. */
// deno-lint-ignore no-explicit-any
export type SkillFactory<S = any> = (services: S) => SkillDefinition[];

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

/** What a call did, in the registry's own terms (the MCP layer maps it onto its wire type). */
export interface InvokeMetadata {
  /** From the call's arrival to its handler's end (or, for a call that did not run to the end, its failure). */
  executionTimeMs: number;
  /** Types of the events this call emitted, in order. */
  eventsEmitted: string[];
  /** Their ids, in the same order. */
  eventIds: string[];
}

export type InvokeResult<O = unknown> =
  | { ok: true; value: O; metadata: InvokeMetadata }
  | { ok: false; error: { code: ErrorCode; message: string }; metadata: InvokeMetadata };

/** A skill as discovery shows it: name, description and the JSON Schema of its input. */
export interface SkillTool {
  name: string;
  description: string;
  /** JSON Schema of the skill's input (draft-07 unless asked otherwise). */
  inputSchema: unknown;
}

// deno-lint-ignore no-explicit-any
type AnySkill = SkillDefinition<any, any>;

/** JSON Schema of a skill's input, as agents see it: draft-07 in the catalog's dialect, 2020-12 (MCP's default, declared by `$schema`) for standard MCP clients. */
export function inputSchema(skill: AnySkill, target: SchemaDialect = "draft-07"): unknown {
  return z.toJSONSchema(skill.input, { target, unrepresentable: "any", io: "input" });
}

export type SchemaDialect = "draft-07" | "draft-2020-12";

const compiledSchemas = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `schema` compiled once by Zod (`z.compile`): a generated check answers
 * what passes, with the value Zod's parser would give; anything it does not
 * accept goes to Zod's own parser, so every error is exactly Zod's. A schema
 * the compiler refuses is used as it is.
 */
function compiledSchema<T extends z.ZodType>(schema: T): T {
  let compiled = compiledSchemas.get(schema);
  if (compiled === undefined) compiledSchemas.set(schema, (compiled = z.compile(schema)));
  return compiled as T;
}

export class SkillRegistry {
  private readonly skills = new Map<string, AnySkill>();
  /** The services each skill was built over, so a reload can build it again. */
  private readonly services = new Map<string, unknown>();
  private readonly tools = new Map<SchemaDialect, SkillTool[]>();
  private policy: PolicyEngine | null = null;
  private readonly listeners = new Set<() => void>();
  /** The surface mode of skills that name none (before the provider and model rules). */
  defaultSurfaceMode?: SurfaceMode;

  constructor(readonly tracer: Tracer, private readonly tickOf: () => number = Limina.loop.steps) {}

  register(skill: AnySkill, services?: unknown): void {
    if (this.skills.has(skill.name)) throw new Error(`skill ${skill.name} is already registered (use replace)`);
    this.check(skill);
    this.skills.set(skill.name, skill);
    this.services.set(skill.name, services);
    this.changed();
  }

  /** Registers every skill a module's factory builds over `services`. */
  registerAll<S>(factory: SkillFactory<S>, services: S): void {
    for (const skill of factory(services)) this.register(skill, services);
  }

  /** The services `name` was built over (what a reload passes its factory). */
  servicesOf(name: string): unknown {
    return this.services.get(name);
  }

  /** Swaps a registered skill for a new definition; later calls run the new handler. */
  replace(skill: AnySkill): void {
    if (!this.skills.has(skill.name)) throw new Error(`skill ${skill.name} is not registered`);
    this.check(skill);
    this.skills.set(skill.name, skill);
    this.changed();
  }

  unregister(name: string): boolean {
    const had = this.skills.delete(name);
    this.services.delete(name);
    if (had) this.changed();
    return had;
  }

  /** Calls `fn` whenever the skill set changes; returns the unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.tools.clear();
    for (const fn of this.listeners) fn();
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

  /** Every skill with its input schema in `dialect`, memoized until the next register/unregister/replace. */
  listTools(dialect: SchemaDialect = "draft-07"): SkillTool[] {
    let tools = this.tools.get(dialect);
    if (!tools) {
      tools = this.all().map((s) => ({ name: s.name, description: s.description, inputSchema: inputSchema(s, dialect) }));
      this.tools.set(dialect, tools);
    }
    return tools;
  }

  /** Validates `input` against `name`'s schema: the parsed input, or why not. */
  validate(name: string, input: unknown): { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string } {
    const skill = this.skills.get(name);
    if (!skill) return { ok: false, code: "not_found", message: `unknown skill: ${name}` };
    const bad = illFormed(input, "input");
    if (bad !== null) return { ok: false, code: "invalid_input", message: `${name}: ${bad}` };
    const parsed = compiledSchema(skill.input).safeParse(input ?? {});
    if (!parsed.success) return { ok: false, code: "invalid_input", message: `${name}: ${z.prettifyError(parsed.error)}` };
    return { ok: true, value: parsed.data };
  }

  /** Attaches (or, with null, detaches) the dynamic policy engine. */
  attachPolicy(policy: PolicyEngine | null): void {
    this.policy = policy;
  }

  get policyEngine(): PolicyEngine | null {
    return this.policy;
  }

  async invoke(name: string, input: unknown, base: InvokeBase): Promise<InvokeResult> {
    const call = new Call(this.tracer, base, this.tickOf());
    const tick = call.tick;
    if (this.tracer.isClosed) return disposed(call, name, false);
    const valid = this.validate(name, input);
    if (!valid.ok) return call.fail(valid.code, valid.message);
    const skill = this.skills.get(name)!;
    const args = valid.value;

    // slice, not a spread: no iteration protocol, and no empty array made to spread.
    const causedBy = base.causedBy ? base.causedBy.slice() : [];
    if (this.policy) {
      const decision: Decision = this.policy.evaluate(
        {
          boundary: "registry",
          agentId: base.agentId,
          sessionId: base.sessionId,
          cap: name,
          requiredPermissions: skill.permissions,
          granted: call.permissions,
          profile: call.profile,
          package: call.pkg,
          tick,
        },
        causedBy,
      );
      call.recorded(decision.allow ? "policy.decision" : "policy.denied", decision.eventId);
      if (!decision.allow) {
        if (decision.rule === "profile.denied") {
          call.record("security.permission.denied", { skill: name, missing: decision.missing, agentId: base.agentId }, [decision.eventId]);
        }
        return call.fail("forbidden", decision.reason);
      }
      causedBy.push(decision.eventId);
    } else {
      for (const p of skill.permissions) {
        if (!call.permissions.has(p)) {
          call.record("security.permission.denied", { skill: name, missing: p, agentId: base.agentId }, causedBy);
          return call.fail("forbidden", `missing permission: ${p}`);
        }
      }
    }

    const handlerStart = performance.now();
    let result: unknown;
    try {
      // An absent hook is not awaited: each await is a turn of the microtask queue (about 0.3 µs a call).
      if (skill.hooks?.before) await skill.hooks.before(args, call);
      result = await skill.handler(args, call);
    } catch (e) {
      if (this.tracer.isClosed) return disposed(call, name, true);
      this.policy?.charge(base.sessionId, { cpuMs: performance.now() - handlerStart });
      const code = errorCodeOf(e);
      const message = e instanceof Error ? e.message : String(e);
      call.record("skill.failed", { skill: name, version: skill.version, code, message, tick }, causedBy);
      return call.fail(code, message);
    }
    if (this.tracer.isClosed) return disposed(call, name, true);
    // One clock read: the handler's end charges its CPU and ends the call's executionTimeMs.
    const handlerEnd = performance.now();
    this.policy?.charge(base.sessionId, { cpuMs: handlerEnd - handlerStart });
    const checked = compiledSchema(skill.output).safeParse(result);
    if (!checked.success) {
      const message = `${name} returned output that does not match its schema: ${z.prettifyError(checked.error)}`;
      call.record("skill.failed", { skill: name, version: skill.version, code: "handler_error", message, tick }, causedBy);
      return call.fail("handler_error", message);
    }
    try {
      if (skill.hooks?.after) await skill.hooks.after(checked.data, call);
    } catch (e) {
      if (this.tracer.isClosed) return disposed(call, name, true);
      const message = `${name} after-hook failed: ${e instanceof Error ? e.message : String(e)}`;
      call.record("skill.failed", { skill: name, version: skill.version, code: "handler_error", message, tick }, causedBy);
      return call.fail("handler_error", message);
    }
    if (this.tracer.isClosed) return disposed(call, name, true);
    const payload: Record<string, unknown> = { skill: name, version: skill.version, input: args, tick };
    // A handler that awaited (an asset load) took effect on a later tick: replay applies it there.
    const appliedTick = this.tickOf();
    if (appliedTick !== tick) payload.appliedTick = appliedTick;
    if (base.decisionId) payload.decisionId = base.decisionId;
    if (base.pkg) payload.pkg = base.pkg;
    call.record("skill.executed", payload, causedBy);
    return { ok: true, value: checked.data, metadata: call.metadata(handlerEnd) };
  }
}

/** A call that arrives, or finishes, after its world was disposed records nothing: the world log is closed. */
function disposed(call: Call, name: string, ran: boolean): InvokeResult {
  return call.fail("unavailable", `the world session was disposed; ${name} ${ran ? "ran, but nothing of it was recorded" : "was not run"}`);
}

/**
 * One call under way: the context its handler (and hooks) get, and the events it recorded for its
 * metadata. A class, not closures made for every call: `emit` is made only if a handler reads it.
 */
class Call implements ExecutionContext {
  readonly agentId: string;
  readonly sessionId: string;
  readonly permissions: ReadonlySet<string>;
  readonly profile: string | null;
  readonly pkg: string | null;
  // Private (#): a handler's context shows it only what ExecutionContext declares.
  readonly #tracer: Tracer;
  readonly #started = performance.now();
  readonly #eventIds: string[] = [];
  readonly #eventsEmitted: string[] = [];
  #emitter: ExecutionContext["emit"] | undefined = undefined;

  constructor(tracer: Tracer, base: InvokeBase, readonly tick: number) {
    this.#tracer = tracer;
    this.agentId = base.agentId;
    this.sessionId = base.sessionId;
    this.permissions = base.permissions instanceof Set ? base.permissions : new Set(base.permissions);
    this.profile = base.profile ?? null;
    this.pkg = base.pkg ?? null;
  }

  get emit(): ExecutionContext["emit"] {
    return (this.#emitter ??= (type, payload, causedBy) => this.record(type, payload, causedBy));
  }

  /** Records an event attributed to the caller, in this call's metadata; returns its id. */
  record(type: string, payload: unknown, causedBy: string[] = []): string {
    const id = this.#tracer.emit(type, payload, { actorId: this.agentId, threadId: this.sessionId, causedBy });
    this.recorded(type, id);
    return id;
  }

  /** Counts an event recorded for this call (the policy decision is recorded by the engine). */
  recorded(type: string, id: string): void {
    this.#eventIds.push(id);
    this.#eventsEmitted.push(type);
  }

  /** What the call did; it took until `end` (a `performance.now()` reading). */
  metadata(end = performance.now()): InvokeMetadata {
    return { executionTimeMs: end - this.#started, eventsEmitted: this.#eventsEmitted, eventIds: this.#eventIds };
  }

  fail(code: ErrorCode, message: string): InvokeResult {
    return { ok: false, error: { code, message }, metadata: this.metadata() };
  }
}
