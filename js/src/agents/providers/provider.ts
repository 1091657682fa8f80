// The LLMProvider seam: perception and tools in, candidate tool calls out.
// Providers never act: the DecisionSystem validates every candidate.
// Shared here by the HTTP providers: the request's messages and function
// tools, the reply's tool calls (native calls, else the JSON action
// grammar), and one POST with retries on 429/5xx.

import { httpPost, type HttpPostResponse } from "../../../../crates/limina-runtime/js/host.ts";
import type { MCPRequest } from "../../mcp/protocol.ts";
import type { SkillTool } from "../../skills/registry.ts";
import { fromFunctionName, parseActions } from "../action-grammar.ts";
import type { Perception } from "../registry.ts";

export interface DecideRequest {
  /** The system message: the agent's prompt, plus the contracts of skills offered there and the action grammar. */
  systemPrompt: string;
  perception: Perception;
  /** Skills offered as function tools (with `list_skills` / `read_skill` under progressive discovery). */
  tools: SkillTool[];
  previousResults: unknown[];
  /** What `list_skills` / `read_skill` answered in the last decision, given once. */
  discovery?: unknown[];
  /** Set when some skill is offered in the system message: the reply may carry actions in the JSON action grammar. */
  grammar?: boolean;
  /** The agent's model, when it names one (else the provider's own). */
  model?: string;
  /** Who is deciding (providers key per-agent state on it). */
  agentId?: string;
}

/** Tokens as the provider's reply counted them. */
export interface Usage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

export interface DecideResult {
  toolCalls: MCPRequest[];
  usage?: Usage;
  /** Requests retried before this answer, each with the status that caused it and the wait. */
  retries?: RetryRecord[];
}

export interface LLMProvider {
  readonly name: string;
  /** The model it asks unless a request names one (surface-mode rules match on it). */
  readonly model?: string;
  decide(req: DecideRequest): Promise<DecideResult>;
}

export type ProviderMap = Record<string, LLMProvider>;

/** Skill names as function names ('.' is not allowed there): "scene.createEntity" ⇄ "scene__createEntity". */
export const toFunctionName = (skill: string) => skill.replaceAll(".", "__");
export { fromFunctionName };

/** How a provider retries a request a server answered with 429 or 5xx. */
export interface RetryPolicy {
  /** Retries after the first attempt (0: none). */
  retries: number;
  /** The first wait when the server names none; doubled per retry. */
  baseDelayMs: number;
  /** The longest wait, named by `Retry-After` or not: a server asking more fails the request now. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 500, maxDelayMs: 10_000 };

export interface RetryRecord {
  status: number;
  waitedMs: number;
}

export interface PostOptions {
  /** The whole request, retries and their waits included. */
  timeoutMs: number;
  /** The TCP connect, then the TLS handshake, each. */
  connectTimeoutMs?: number;
  headers?: [string, string][];
  retry?: RetryPolicy;
}

/** An error a provider's request failed with, carrying the retries made before it. */
export class ProviderError extends Error {
  code?: string;
  constructor(message: string, readonly retries: RetryRecord[] = [], code?: string) {
    super(message);
    this.code = code;
  }
}

/** A reply that is neither a tool call nor an action in the grammar: `reply` holds its start. */
export class MalformedReply extends Error {
  readonly malformed = true;
  constructor(message: string, readonly reply: string) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds or an HTTP date, as milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(headers: [string, string][], now = Date.now()): number | null {
  const value = headers.find(([k]) => k === "retry-after")?.[1].trim();
  if (value === undefined || value === "") return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const retryable = (status: number) => status === 429 || (status >= 500 && status <= 599);

/**
 * One POST of `body` as JSON through the native HTTP op; a 429 or 5xx is
 * retried after the server's `Retry-After` (else a doubling backoff), within
 * the policy and the deadline. A non-2xx status or non-JSON body is an error.
 */
export async function postJson(url: string, body: unknown, options: PostOptions): Promise<{ value: unknown; retries: RetryRecord[] }> {
  const policy = options.retry ?? DEFAULT_RETRY;
  const text = JSON.stringify(body);
  const deadline = performance.now() + options.timeoutMs;
  const retries: RetryRecord[] = [];
  for (let attempt = 0; ; attempt++) {
    let r: HttpPostResponse;
    // A retry gets what is left of the request's time; its timeout is reported as the request's.
    const timeoutMs = attempt === 0 ? options.timeoutMs : Math.max(1, deadline - performance.now());
    try {
      r = await httpPost({ url, body: text, headers: options.headers ?? [], timeoutMs, connectTimeoutMs: options.connectTimeoutMs });
    } catch (e) {
      const err = e as Error & { code?: string };
      const message = attempt === 0 ? err.message : err.message.replace(/no complete response within [\d.e+]+ ms/, `no complete response within ${options.timeoutMs} ms, retries included`);
      throw new ProviderError(message, retries, err.code);
    }
    if (r.status >= 200 && r.status < 300) {
      try {
        return { value: JSON.parse(r.body), retries };
      } catch {
        throw new ProviderError(`${url} answered with a body that is not JSON: ${r.body.slice(0, 200)}`, retries);
      }
    }
    const failed = `${url} answered HTTP ${r.status}: ${r.body.slice(0, 200)}`;
    if (!retryable(r.status)) throw new ProviderError(failed, retries);
    if (attempt >= policy.retries) throw new ProviderError(`${failed} (after ${retries.length} ${retries.length === 1 ? "retry" : "retries"})`, retries);
    const asked = retryAfterMs(r.headers);
    if (asked !== null && asked > policy.maxDelayMs) {
      throw new ProviderError(`${failed} (Retry-After asks ${Math.ceil(asked / 1000)} s; this provider waits at most ${policy.maxDelayMs / 1000} s)`, retries);
    }
    const wait = asked ?? Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
    if (performance.now() + wait >= deadline) throw new ProviderError(`${failed} (no time left to retry within ${options.timeoutMs} ms)`, retries);
    retries.push({ status: r.status, waitedMs: wait });
    await sleep(wait);
  }
}

/** The system + user messages of a decision: the perception, previous results and discovery answers as JSON. */
export function decisionMessages(req: DecideRequest): { role: string; content: string }[] {
  const user: Record<string, unknown> = { perception: req.perception, previousResults: req.previousResults };
  if (req.discovery && req.discovery.length > 0) user.discovery = req.discovery;
  return [
    { role: "system", content: req.systemPrompt },
    { role: "user", content: JSON.stringify(user) },
  ];
}

/** Skills as function tools (the shape Ollama and OpenAI-compatible APIs share). */
export function functionTools(tools: SkillTool[]): unknown[] {
  return tools.map((t) => ({ type: "function", function: { name: toFunctionName(t.name), description: t.description, parameters: t.inputSchema } }));
}

/** Native function calls (`{function: {name, arguments}}`, arguments as an object or a JSON string) as tool calls; bad arguments are malformed. */
export function toolCallsFromFunctions(provider: string, calls: { function?: { name?: unknown; arguments?: unknown } }[] | undefined): MCPRequest[] {
  if (calls !== undefined && !Array.isArray(calls)) throw new MalformedReply(`${provider}: tool_calls is not a list`, JSON.stringify(calls).slice(0, 200));
  return (calls ?? []).map((c, i) => {
    const name = c?.function?.name;
    if (typeof name !== "string" || name === "") throw new MalformedReply(`${provider}: tool call ${i + 1} has no function name`, JSON.stringify(c).slice(0, 200));
    let args: unknown = c.function?.arguments ?? {};
    if (typeof args === "string") {
      const text = args;
      try {
        args = text.trim() === "" ? {} : JSON.parse(text);
      } catch {
        throw new MalformedReply(`${provider}: the arguments of tool call ${i + 1} (${name}) are not JSON`, text.slice(0, 200));
      }
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new MalformedReply(`${provider}: the arguments of tool call ${i + 1} (${name}) are not an object`, JSON.stringify(args).slice(0, 200));
    }
    return { tool: fromFunctionName(name), input: args as Record<string, unknown> };
  });
}

/**
 * The tool calls of a reply: native function calls, else actions written in
 * the JSON action grammar. No call at all is an error, and text that is not
 * the grammar is a `MalformedReply` (a provider never invents an action).
 */
export function replyToolCalls(provider: string, calls: { function?: { name?: unknown; arguments?: unknown } }[] | undefined, content: string | null | undefined): MCPRequest[] {
  const native = toolCallsFromFunctions(provider, calls);
  if (native.length > 0) return native;
  if (typeof content !== "string" || content.trim() === "") throw new Error(`${provider}: the model replied with no tool call`);
  const parsed = parseActions(content);
  if (!parsed.ok) throw new MalformedReply(`${provider}: the reply is neither a tool call nor actions in the JSON grammar: ${parsed.error}`, content.slice(0, 200));
  return parsed.calls;
}
