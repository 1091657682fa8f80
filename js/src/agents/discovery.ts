// Progressive discovery: what an LLM player is offered per decision. Not the
// whole catalog — a small core set for its profile (at most 16 skills,
// chosen by purpose, below), the skills it activated lately, and two
// discovery tools:
//   list_skills {family?, query?}  the ids and one-line descriptions of the
//                                  skills its profile may call, no schemas;
//   read_skill {id}                that skill's full contract, and the skill
//                                  is offered from the next decision on.
// Active skills are bounded per agent, by count and by prompt budget (the
// least recently used dropped first); activations and drops are traced.
// `mode: "full"` offers every permitted skill instead, as before.

import { z } from "zod";
import { compactSchema, oneLine } from "../skills/compact-schema.ts";
import { resolveProfile } from "../skills/profiles.ts";
import { inputSchema, type SkillDefinition, type SkillRegistry, type SkillTool, type SurfaceMode } from "../skills/registry.ts";
import { words } from "../skills/system.ts";
import type { LLMProvider } from "./providers/provider.ts";
import type { AgentRecord } from "./registry.ts";
import { checkRules, composeSystemPrompt, resolveSurfaceMode, type SurfaceRule } from "./surface-modes.ts";

export const LIST_SKILLS = "list_skills";
export const READ_SKILL = "read_skill";
/** The most skills a core set holds. */
export const MAX_CORE = 16;

export type DiscoveryMode = "progressive" | "full";

export interface DiscoveryOptions {
  /** `progressive` (default): core + active + the discovery tools; `full`: every permitted skill. */
  mode?: DiscoveryMode;
  /** The agent's own core set (at most 16 skill ids), instead of its profile's. */
  core?: string[];
  /** Active skills kept at most (default 8). */
  maxActive?: number;
  /** Estimated prompt tokens the active skills may take together (default 4000). */
  activeBudgetTokens?: number;
  /** Surface-mode rules consulted before the built-in ones. */
  surfaceRules?: SurfaceRule[];
}

export interface DiscoveryConfig {
  mode: DiscoveryMode;
  core: string[] | null;
  maxActive: number;
  activeBudgetTokens: number;
  surfaceRules: SurfaceRule[];
}

/**
 * The core purposes, in the order a core set is filled: each contributes the
 * listed skills the profile may call and the build has, until 16.
 */
export const CORE_PURPOSES: readonly { purpose: string; skills: readonly string[] }[] = Object.freeze([
  { purpose: "perceive: its own view, what is where, what a ray hits", skills: ["agent.getPerception", "scene.queryEntities", "physics.raycast"] },
  { purpose: "move its body: walk to someone or something, or push", skills: ["social.approach", "physics.applyImpulse"] },
  { purpose: "speak and signal", skills: ["social.say", "agent.emitEvent"] },
  { purpose: "play: what is within reach, use it, pick it up, what it holds, how the game stands", skills: ["interaction.list", "interaction.interact", "interaction.pickup", "inventory.list", "game.status"] },
  { purpose: "build: make, place, colour and remove things", skills: ["scene.createEntity", "three.setTransform", "three.setMaterial", "scene.destroyEntity"] },
]);

/** Rough tokens of a prompt text: 4 characters a token, the usual estimate for English and JSON. */
export const estimateTokens = (chars: number) => Math.ceil(chars / 4);

// deno-lint-ignore no-explicit-any
type AnySkill = SkillDefinition<any, any>;

/** A decision narrowed to one purpose (a conversation's turn): only these skills and tools, and what the agent must know for it. */
export interface Focus {
  /** What it is for, in rejections ("conversation"). */
  purpose: string;
  skills: string[];
  /** Tools the focus's owner answers itself (like the discovery tools). */
  tools: SkillTool[];
  /** Follows the agent's own prompt in the system message. */
  context: string;
  /** Told how the decision went: its calls (to the focus's tools among them) once made, or why it failed. */
  settled(outcome: { decisionId: string; calls: { tool: string; input: unknown }[] } | { decisionId: string; error: string }): void;
}

/** What one decision offers an agent. */
export interface Offer {
  /** Offered as function tools. */
  tools: SkillTool[];
  /** Offered in the system message (answered in the grammar). */
  prompted: SkillTool[];
  systemPrompt: string;
  /** The agent's active skills, most recent first. */
  active: string[];
}

const ListInput = z.strictObject({
  family: z.string().min(1).max(64).optional(),
  query: z.string().min(1).max(200).optional(),
});
const ReadInput = z.strictObject({ id: z.string().min(1).max(200) });

const DISCOVERY_TOOLS: readonly SkillTool[] = Object.freeze([
  {
    name: LIST_SKILLS,
    description: "List the other skills you may use: id and one line each, no schemas. Narrow it with family (e.g. \"ui\") or query words.",
    inputSchema: { type: "object", properties: { family: { type: "string" }, query: { type: "string" } }, additionalProperties: false },
  },
  {
    name: READ_SKILL,
    description: "Read one skill's full contract (its input schema); from your next decision on it is offered to you.",
    inputSchema: { type: "object", properties: { id: { type: "string", description: "skill id, e.g. ui.label" } }, required: ["id"], additionalProperties: false },
  },
]);

/** An agent's discovery options checked and filled with defaults. */
export function discoveryConfig(options: DiscoveryOptions = {}): DiscoveryConfig {
  const mode = options.mode ?? "progressive";
  if (mode !== "progressive" && mode !== "full") throw new TypeError(`discovery.mode must be progressive or full, got ${JSON.stringify(mode)}`);
  const core = options.core ?? null;
  if (core !== null && (!Array.isArray(core) || core.length > MAX_CORE || !core.every((s) => typeof s === "string"))) {
    throw new TypeError(`discovery.core must be a list of at most ${MAX_CORE} skill ids`);
  }
  const maxActive = options.maxActive ?? 8;
  if (!(Number.isInteger(maxActive) && maxActive >= 0 && maxActive <= 256)) throw new TypeError(`discovery.maxActive must be a whole number in 0..256, got ${maxActive}`);
  const activeBudgetTokens = options.activeBudgetTokens ?? 4000;
  if (!(Number.isFinite(activeBudgetTokens) && activeBudgetTokens > 0)) throw new TypeError(`discovery.activeBudgetTokens must be > 0, got ${activeBudgetTokens}`);
  return { mode, core: core ? [...core] : null, maxActive, activeBudgetTokens, surfaceRules: checkRules(options.surfaceRules ?? []) };
}

/**
 * An agent's last offer (not a focused one) and everything it was made from,
 * each compared before the offer is reused: the catalog's revision, the
 * provider, the agent's profile, model, prompt, discovery settings and active
 * skills, and the registry's default surface mode.
 */
interface KeptOffer {
  offer: Offer;
  catalog: number;
  provider: LLMProvider;
  providerModel: string | undefined;
  fallback: SurfaceMode | undefined;
  profile: string;
  model: string;
  persona: string;
  mode: DiscoveryMode;
  /** A copy of the agent's own core set (null: its profile's). */
  core: string[] | null;
  rules: SurfaceRule[];
  rulesLength: number;
}

const sameList = (a: readonly string[] | null, b: readonly string[] | null): boolean => {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

export class SkillSurface {
  /** Skills as models see them (one-line description, compact schema), by name. */
  private readonly forms = new Map<string, { tool: SkillTool; tokens: number }>();
  private readonly permittedByProfile = new Map<string, AnySkill[]>();
  private readonly coreByProfile = new Map<string, string[]>();
  /** Bumped whenever the registry's skill set changes: kept offers made before are stale. */
  private catalog = 0;
  /** Each agent's last offer: decisions offer the same thing until something it depends on changes. */
  private readonly kept = new WeakMap<AgentRecord, KeptOffer>();

  constructor(private readonly registry: SkillRegistry) {
    registry.onChange(() => {
      this.forms.clear();
      this.permittedByProfile.clear();
      this.coreByProfile.clear();
      this.catalog++;
    });
  }

  /** A skill as a model is offered it, and its estimated prompt tokens. */
  private form(skill: AnySkill): { tool: SkillTool; tokens: number } {
    let f = this.forms.get(skill.name);
    if (!f) {
      const tool = { name: skill.name, description: oneLine(skill.description), inputSchema: compactSchema(inputSchema(skill), { dialect: true }) };
      f = { tool, tokens: estimateTokens(JSON.stringify(tool).length) };
      this.forms.set(skill.name, f);
    }
    return f;
  }

  /** The estimated prompt tokens `name` takes as offered to a model (0 for no such skill). */
  costOf(name: string): number {
    const skill = this.registry.get(name);
    return skill ? this.form(skill).tokens : 0;
  }

  /** The skills `profile` may call, in registration order. */
  permitted(profile: string): AnySkill[] {
    let skills = this.permittedByProfile.get(profile);
    if (!skills) {
      const granted = resolveProfile(profile);
      skills = this.registry.all().filter((s) => s.permissions.every((p: string) => granted.has(p)));
      this.permittedByProfile.set(profile, skills);
    }
    return skills;
  }

  /** Whether `agent` may call `name` (its profile grants every permission the skill needs). */
  mayCall(agent: AgentRecord, name: string): boolean {
    const skill = this.registry.get(name);
    return skill !== undefined && this.permitted(agent.profile).includes(skill);
  }

  /** The agent's core set: its own, else its profile's by CORE_PURPOSES; only skills it may call. */
  core(agent: AgentRecord): string[] {
    if (agent.discovery.core) return agent.discovery.core.filter((n) => this.mayCall(agent, n));
    let core = this.coreByProfile.get(agent.profile);
    if (!core) {
      const names = new Set(this.permitted(agent.profile).map((s) => s.name));
      core = CORE_PURPOSES.flatMap((p) => p.skills.filter((n) => names.has(n))).slice(0, MAX_CORE);
      this.coreByProfile.set(agent.profile, core);
    }
    return core;
  }

  /**
   * What the next decision offers `agent`, each skill by its surface mode.
   * With a `focus` (a conversation's turn), only its skills and extra tools
   * are offered and its context follows the agent's prompt. Without one, the
   * agent's last offer is given again while nothing it was made from changed.
   */
  offer(agent: AgentRecord, provider: LLMProvider, focus?: Focus): Offer {
    if (focus) return this.make(agent, provider, focus);
    const k = this.kept.get(agent);
    const d = agent.discovery;
    if (
      k !== undefined && k.catalog === this.catalog && k.provider === provider && k.providerModel === provider.model &&
      k.fallback === this.registry.defaultSurfaceMode && k.profile === agent.profile && k.model === agent.llm.model &&
      k.persona === agent.llm.systemPrompt && k.mode === d.mode && k.rules === d.surfaceRules && k.rulesLength === d.surfaceRules.length &&
      sameList(k.core, d.core) && sameList(k.offer.active, agent.active)
    ) return k.offer;
    const offer = this.make(agent, provider);
    this.kept.set(agent, {
      offer,
      catalog: this.catalog,
      provider,
      providerModel: provider.model,
      fallback: this.registry.defaultSurfaceMode,
      profile: agent.profile,
      model: agent.llm.model,
      persona: agent.llm.systemPrompt,
      mode: d.mode,
      core: d.core && [...d.core],
      rules: d.surfaceRules,
      rulesLength: d.surfaceRules.length,
    });
    return offer;
  }

  /** An offer made afresh; its lists are frozen, since an agent's decisions share them while they stay current. */
  private make(agent: AgentRecord, provider: LLMProvider, focus?: Focus): Offer {
    const model = agent.llm.model || provider.model || "";
    const rules = agent.discovery.surfaceRules;
    const fallback = this.registry.defaultSurfaceMode;
    const tools: SkillTool[] = [];
    const prompted: SkillTool[] = [];
    const place = (tool: SkillTool, skill: AnySkill | null) => {
      const mode = resolveSurfaceMode(skill, fallback, provider.name, model, rules);
      if (mode !== "system-prompt") tools.push(tool);
      if (mode !== "tool-only") prompted.push(tool);
    };
    let skills: AnySkill[];
    if (focus) skills = focus.skills.map((n) => this.registry.get(n)).filter((s): s is AnySkill => s !== undefined && this.mayCall(agent, s.name));
    else if (agent.discovery.mode === "full") skills = this.permitted(agent.profile);
    else {
      const names = [...new Set([...this.core(agent), ...agent.active])];
      skills = names.map((n) => this.registry.get(n)).filter((s): s is AnySkill => s !== undefined && this.mayCall(agent, s.name));
    }
    for (const s of skills) place(this.form(s).tool, s);
    if (focus) for (const t of focus.tools) place(t, null);
    else if (agent.discovery.mode === "progressive") for (const t of DISCOVERY_TOOLS) place(t, null);
    const persona = focus ? `${agent.llm.systemPrompt}\n\n${focus.context}` : agent.llm.systemPrompt;
    const systemPrompt = composeSystemPrompt(persona, prompted);
    return { tools: Object.freeze(tools) as SkillTool[], prompted: Object.freeze(prompted) as SkillTool[], systemPrompt, active: Object.freeze([...agent.active]) as string[] };
  }

  /** Whether `name` is one of the discovery tools (answered by the decision system, not the registry). */
  isDiscoveryTool(name: string): boolean {
    return name === LIST_SKILLS || name === READ_SKILL;
  }

  /** `list_skills`: the skills the agent may call beyond its core, optionally one family's or matching words. */
  list(agent: AgentRecord, input: unknown): { ok: true; value: { skills: { id: string; description: string }[]; total: number } } | { ok: false; error: string } {
    const parsed = ListInput.safeParse(input ?? {});
    if (!parsed.success) return { ok: false, error: `list_skills: ${z.prettifyError(parsed.error)}` };
    const { family, query } = parsed.data;
    const core = new Set(this.core(agent));
    const terms = query ? words(query) : [];
    const skills = this.permitted(agent.profile)
      .filter((s) => !core.has(s.name) && (family === undefined || s.name.split(".")[0] === family || s.category === family))
      .filter((s) => terms.length === 0 || terms.some((t) => words(`${s.name} ${s.description}`).some((w) => w.startsWith(t))))
      .map((s) => ({ id: s.name, description: oneLine(s.description) }));
    return { ok: true, value: { skills, total: skills.length } };
  }

  /** `read_skill`: the skill's full contract; activates it. */
  read(agent: AgentRecord, input: unknown): { ok: true; value: Record<string, unknown>; dropped: string[] } | { ok: false; code: "invalid_input" | "not_found" | "forbidden"; error: string } {
    const parsed = ReadInput.safeParse(input ?? {});
    if (!parsed.success) return { ok: false, code: "invalid_input", error: `read_skill: ${z.prettifyError(parsed.error)}` };
    const skill = this.registry.get(parsed.data.id);
    if (!skill) return { ok: false, code: "not_found", error: `read_skill: no such skill: ${parsed.data.id}` };
    if (!this.mayCall(agent, skill.name)) return { ok: false, code: "forbidden", error: `read_skill: ${skill.name} needs ${skill.permissions.join(", ")}, which profile ${agent.profile} does not grant` };
    const dropped = this.activate(agent, skill.name);
    const value = { id: skill.name, version: skill.version, category: skill.category, description: skill.description, permissions: skill.permissions, input_schema: inputSchema(skill) };
    return { ok: true, value, dropped };
  }

  /**
   * Makes `name` the agent's most recently used skill (a core skill needs
   * no activation); drops the least recently used while over the count or
   * the prompt budget. Returns what was dropped.
   */
  activate(agent: AgentRecord, name: string): string[] {
    if (agent.discovery.mode === "full" || this.core(agent).includes(name)) return [];
    agent.active = [name, ...agent.active.filter((n) => n !== name)];
    const dropped: string[] = [];
    const cost = () => agent.active.reduce((sum, n) => sum + this.costOf(n), 0);
    while (agent.active.length > agent.discovery.maxActive || (agent.active.length > 1 && cost() > agent.discovery.activeBudgetTokens)) {
      dropped.push(agent.active.pop()!);
    }
    return dropped;
  }
}
