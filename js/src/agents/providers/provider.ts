// The LLMProvider seam: perception and tools in, candidate tool calls out.
// Providers never act: the DecisionSystem validates every candidate.

import { httpPost } from "../../../../crates/limina-runtime/js/host.ts";
import type { MCPRequest } from "../../mcp/protocol.ts";
import type { SkillTool } from "../../skills/registry.ts";
import type { Perception } from "../registry.ts";

export interface DecideRequest {
  systemPrompt: string;
  perception: Perception;
  tools: SkillTool[];
  previousResults: unknown[];
}

export interface DecideResult {
  toolCalls: MCPRequest[];
  usage?: { totalTokens?: number };
}

export interface LLMProvider {
  readonly name: string;
  decide(req: DecideRequest): Promise<DecideResult>;
}

export type ProviderMap = Record<string, LLMProvider>;

/** Skill names as function names ('.' is not allowed there): "scene.createEntity" ⇄ "scene__createEntity". */
export const toFunctionName = (skill: string) => skill.replaceAll(".", "__");
export const fromFunctionName = (fn: string) => fn.replaceAll("__", ".");

/** One POST through the native HTTP op; a non-2xx status or non-JSON body is an error. */
export async function postJson(url: string, body: unknown, options: { timeoutMs: number; headers?: [string, string][] }): Promise<unknown> {
  const r = await httpPost({
    url,
    body: JSON.stringify(body),
    headers: options.headers ?? [],
    timeoutMs: options.timeoutMs,
  });
  if (r.status < 200 || r.status >= 300) throw new Error(`${url} answered HTTP ${r.status}: ${r.body.slice(0, 200)}`);
  try {
    return JSON.parse(r.body);
  } catch {
    throw new Error(`${url} answered with a body that is not JSON: ${r.body.slice(0, 200)}`);
  }
}

/** The system + user messages of a decision: the perception and previous results as JSON. */
export function decisionMessages(req: DecideRequest): { role: string; content: string }[] {
  return [
    { role: "system", content: req.systemPrompt },
    { role: "user", content: JSON.stringify({ perception: req.perception, previousResults: req.previousResults }) },
  ];
}

/** Skills as function tools (the shape Ollama and OpenAI-compatible APIs share). */
export function functionTools(tools: SkillTool[]): unknown[] {
  return tools.map((t) => ({ type: "function", function: { name: toFunctionName(t.name), description: t.description, parameters: t.inputSchema } }));
}

/** Tool calls a model wrote as text: a `{name, arguments}` object (or a list), possibly in a code fence. */
export function toolCallsFromText(text: string): MCPRequest[] {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const raw = (fenced ? fenced[1] : text).trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    const obj = /\{[\s\S]*\}/.exec(raw);
    if (!obj) return [];
    try {
      parsed = JSON.parse(obj[0]);
    } catch {
      return [];
    }
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.flatMap((c) => {
    const call = c as { name?: unknown; arguments?: unknown };
    if (typeof call?.name !== "string") return [];
    const args = typeof call.arguments === "string" ? safeJson(call.arguments) : call.arguments;
    return [{ tool: fromFunctionName(call.name), input: (args ?? {}) as Record<string, unknown> }];
  });
}

/** Native function calls (`{function: {name, arguments}}`, arguments as an object or a JSON string) as tool calls. */
export function toolCallsFromFunctions(calls: { function?: { name?: unknown; arguments?: unknown } }[] | undefined): MCPRequest[] {
  return (calls ?? []).flatMap((c) => {
    const name = c.function?.name;
    if (typeof name !== "string") return [];
    const args = typeof c.function?.arguments === "string" ? safeJson(c.function.arguments) : c.function?.arguments;
    return [{ tool: fromFunctionName(name), input: (args ?? {}) as Record<string, unknown> }];
  });
}

/**
 * The tool calls of a reply: native function calls, else a call written in
 * the text; none at all is an error (a provider never invents an action).
 */
export function replyToolCalls(provider: string, calls: { function?: { name?: unknown; arguments?: unknown } }[] | undefined, content: string | null | undefined): MCPRequest[] {
  let toolCalls = toolCallsFromFunctions(calls);
  if (toolCalls.length === 0 && content) toolCalls = toolCallsFromText(content);
  if (toolCalls.length === 0) throw new Error(`${provider}: the model replied with no tool call`);
  return toolCalls;
}

export function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
