// Surface modes: how each skill reaches a model. `tool-only` offers it as a
// function tool in the request; `system-prompt` states its contract in the
// system message and reads the model's actions from its text by the JSON
// action grammar (for models without native tool calling); `both` does both.
// A skill's mode is resolved by the cascade: the skill's own `surfaceMode`,
// else the registry's default, else the first rule matching the provider
// and model (an agent's own rules first, then SURFACE_RULES), else
// `tool-only`.

import type { SkillTool, SurfaceMode } from "../skills/registry.ts";
import { ACTION_GRAMMAR } from "./action-grammar.ts";

export const SURFACE_MODES = ["tool-only", "system-prompt", "both"] as const satisfies readonly SurfaceMode[];

/** A rule for a provider and model: data, matched by name and a `*` glob on the model. */
export interface SurfaceRule {
  /** The provider's name (`ollama`, `gateway`, …) or `*`. */
  provider: string;
  /** The model, with `*` matching any run of characters (case-insensitive). */
  model: string;
  mode: SurfaceMode;
  /** Why, for the docs and the trace. */
  why?: string;
}

/**
 * The built-in rules. Ollama serves these model families without native tool
 * calling (its /api/chat refuses `tools` for them), so they get every skill in
 * the system message and answer in the grammar; every other model of every
 * provider is offered tools.
 */
export const SURFACE_RULES: readonly SurfaceRule[] = Object.freeze([
  { provider: "ollama", model: "gemma*", mode: "system-prompt", why: "Gemma models have no tool calling in Ollama" },
  { provider: "ollama", model: "phi*", mode: "system-prompt", why: "Phi models have no tool calling in Ollama" },
  { provider: "ollama", model: "llama2*", mode: "system-prompt", why: "Llama 2 has no tool calling" },
  { provider: "ollama", model: "codellama*", mode: "system-prompt", why: "Code Llama has no tool calling" },
  { provider: "ollama", model: "tinyllama*", mode: "system-prompt", why: "TinyLlama has no tool calling" },
  { provider: "ollama", model: "deepseek-r1*", mode: "system-prompt", why: "DeepSeek-R1 has no tool calling in Ollama" },
]);

const globCache = new Map<string, RegExp>();
function glob(pattern: string): RegExp {
  let re = globCache.get(pattern);
  if (!re) {
    re = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "i");
    globCache.set(pattern, re);
  }
  return re;
}

/** The first rule matching `provider` and `model` among `rules`, or null. */
export function matchRule(rules: readonly SurfaceRule[], provider: string, model: string): SurfaceRule | null {
  return rules.find((r) => (r.provider === "*" || r.provider === provider) && glob(r.model).test(model)) ?? null;
}

/** The cascade for one skill (`skill` null: the discovery tools, which carry no metadata). */
export function resolveSurfaceMode(
  skill: { surfaceMode?: SurfaceMode } | null,
  registryDefault: SurfaceMode | undefined,
  provider: string,
  model: string,
  agentRules: readonly SurfaceRule[] = [],
): SurfaceMode {
  return skill?.surfaceMode ?? registryDefault ?? matchRule(agentRules, provider, model)?.mode ?? matchRule(SURFACE_RULES, provider, model)?.mode ?? "tool-only";
}

/** Checks rules an agent brings: a precise error for the first bad one. */
export function checkRules(rules: unknown): SurfaceRule[] {
  if (!Array.isArray(rules)) throw new TypeError("surfaceRules must be a list of {provider, model, mode}");
  return rules.map((r, i) => {
    const rule = r as Partial<SurfaceRule>;
    if (typeof rule?.provider !== "string" || typeof rule.model !== "string" || !(SURFACE_MODES as readonly unknown[]).includes(rule.mode)) {
      throw new TypeError(`surfaceRules[${i}] must be {provider: string, model: string, mode: ${SURFACE_MODES.join(" | ")}}`);
    }
    return { provider: rule.provider, model: rule.model, mode: rule.mode as SurfaceMode, why: rule.why };
  });
}

/** The system message: the agent's own prompt, then the contracts of skills offered there and the grammar. */
export function composeSystemPrompt(persona: string, prompted: readonly SkillTool[]): string {
  if (prompted.length === 0) return persona;
  const contracts = prompted.map((t) => `- ${t.name}: ${t.description}\n  input: ${JSON.stringify(t.inputSchema)}`).join("\n");
  return `${persona}\n\nSkills you use by writing JSON. ${ACTION_GRAMMAR}\n${contracts}`;
}
