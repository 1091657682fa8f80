// GatewayProvider: an OpenAI-compatible /chat/completions endpoint,
// configured by LIMINA_GATEWAY_URL (e.g. https://host/v1),
// LIMINA_GATEWAY_KEY and LIMINA_GATEWAY_MODEL. Unconfigured, it rejects
// saying so; it never pretends to decide.

import { env } from "../../../../crates/limina-runtime/js/host.ts";
import {
  type DecideRequest,
  type DecideResult,
  decisionMessages,
  functionTools,
  type LLMProvider,
  postJson,
  ProviderError,
  replyToolCalls,
  type RetryPolicy,
} from "./provider.ts";

export interface GatewayOptions {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  /** The whole request, retries included (default 30 000). */
  timeoutMs?: number;
  /** Connecting, then the TLS handshake, each (default 10 000). */
  connectTimeoutMs?: number;
  retry?: RetryPolicy;
}

interface ChatCompletion {
  choices?: { message?: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

/** The error every decision of an unconfigured gateway fails with. */
export const GATEWAY_UNCONFIGURED =
  "GatewayProvider is not configured: set LIMINA_GATEWAY_URL (the base URL, e.g. http://127.0.0.1:8080/v1) and LIMINA_GATEWAY_MODEL (and LIMINA_GATEWAY_KEY if the gateway needs one)";

export class GatewayProvider implements LLMProvider {
  readonly name = "gateway";
  readonly model?: string;
  private readonly baseUrl?: string;
  private readonly apiKey?: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: GatewayOptions = {}) {
    this.baseUrl = options.baseUrl ?? env("LIMINA_GATEWAY_URL");
    this.apiKey = options.apiKey ?? env("LIMINA_GATEWAY_KEY");
    this.model = options.model ?? env("LIMINA_GATEWAY_MODEL");
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Whether the URL and model are set (else every decision fails naming the variables). */
  get configured(): boolean {
    return Boolean(this.baseUrl && this.model);
  }

  async decide(req: DecideRequest): Promise<DecideResult> {
    const model = req.model || this.model;
    if (!this.baseUrl || !model) throw new ProviderError(GATEWAY_UNCONFIGURED, [], "unavailable");
    const body: Record<string, unknown> = { model, temperature: 0, messages: decisionMessages(req) };
    if (req.tools.length > 0) {
      body.tools = functionTools(req.tools);
      body.tool_choice = "auto";
    }
    const { value, retries } = await postJson(`${this.baseUrl.replace(/\/$/, "")}/chat/completions`, body, {
      timeoutMs: this.timeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs,
      headers: this.apiKey ? [["Authorization", `Bearer ${this.apiKey}`]] : [],
      retry: this.options.retry,
    });
    const reply = value as ChatCompletion;
    const message = reply?.choices?.[0]?.message;
    if (typeof message !== "object" || message === null) throw new ProviderError(`gateway: the reply has no choices[0].message: ${JSON.stringify(reply).slice(0, 200)}`, retries);
    const toolCalls = replyToolCalls("gateway", message.tool_calls, message.content);
    const u = reply.usage;
    return { toolCalls, usage: { promptTokens: u?.prompt_tokens, completionTokens: u?.completion_tokens, totalTokens: u?.total_tokens }, retries };
  }
}
