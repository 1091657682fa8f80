// GatewayProvider: an OpenAI-compatible /chat/completions endpoint,
// configured by LIMINA_GATEWAY_URL (e.g. https://host/v1),
// LIMINA_GATEWAY_KEY and LIMINA_GATEWAY_MODEL. Unconfigured, it rejects
// saying so; it never pretends to decide.

import { env } from "../../../../crates/limina-runtime/js/host.ts";
import { type DecideRequest, type DecideResult, decisionMessages, functionTools, type LLMProvider, postJson, replyToolCalls } from "./provider.ts";

export interface GatewayOptions {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  timeoutMs?: number;
}

interface ChatCompletion {
  choices?: { message?: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] } }[];
  usage?: { total_tokens?: number };
}

export class GatewayProvider implements LLMProvider {
  readonly name = "gateway";
  private readonly baseUrl?: string;
  private readonly apiKey?: string;
  private readonly model?: string;
  private readonly timeoutMs: number;

  constructor(options: GatewayOptions = {}) {
    this.baseUrl = options.baseUrl ?? env("LIMINA_GATEWAY_URL");
    this.apiKey = options.apiKey ?? env("LIMINA_GATEWAY_KEY");
    this.model = options.model ?? env("LIMINA_GATEWAY_MODEL");
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async decide(req: DecideRequest): Promise<DecideResult> {
    if (!this.baseUrl || !this.model) {
      throw new Error("GatewayProvider is not configured: set LIMINA_GATEWAY_URL and LIMINA_GATEWAY_MODEL (and LIMINA_GATEWAY_KEY if the gateway needs one)");
    }
    const reply = (await postJson(`${this.baseUrl.replace(/\/$/, "")}/chat/completions`, {
      model: this.model,
      temperature: 0,
      messages: decisionMessages(req),
      tools: functionTools(req.tools),
      tool_choice: "auto",
    }, { timeoutMs: this.timeoutMs, headers: this.apiKey ? [["Authorization", `Bearer ${this.apiKey}`]] : [] })) as ChatCompletion;
    const message = reply?.choices?.[0]?.message;
    if (!message) throw new Error(`gateway: the reply has no choices[0].message: ${JSON.stringify(reply).slice(0, 200)}`);
    const toolCalls = replyToolCalls("gateway", message.tool_calls, message.content);
    return { toolCalls, usage: { totalTokens: reply.usage?.total_tokens } };
  }
}
