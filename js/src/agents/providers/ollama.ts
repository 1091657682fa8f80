// OllamaProvider (tool calling) and OllamaChat (free-form lines) against a
// local Ollama server's /api/chat, through the native HTTP op. Failure is
// honest: a dead server, bad JSON or an empty reply is an error.

import { type DecideRequest, type DecideResult, decisionMessages, functionTools, type LLMProvider, postJson, ProviderError, replyToolCalls, type RetryPolicy } from "./provider.ts";

export interface OllamaOptions {
  baseUrl?: string;
  model: string;
  /** The whole request, retries included (default 30 000). */
  timeoutMs?: number;
  /** Connecting, then the TLS handshake, each (default 10 000). */
  connectTimeoutMs?: number;
  retry?: RetryPolicy;
}

interface OllamaReply {
  message?: { content?: string; tool_calls?: { function?: { name?: string; arguments?: unknown } }[] };
  eval_count?: number;
  prompt_eval_count?: number;
}

const chatUrl = (options: OllamaOptions) => `${(options.baseUrl ?? "http://127.0.0.1:11434").replace(/\/$/, "")}/api/chat`;

export class OllamaProvider implements LLMProvider {
  readonly name = "ollama";
  readonly model: string;
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: OllamaOptions) {
    this.url = chatUrl(options);
    this.model = options.model;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async decide(req: DecideRequest): Promise<DecideResult> {
    const body: Record<string, unknown> = { model: req.model || this.model, stream: false, options: { temperature: 0 }, messages: decisionMessages(req) };
    if (req.tools.length > 0) body.tools = functionTools(req.tools);
    const { value, retries } = await postJson(this.url, body, { timeoutMs: this.timeoutMs, connectTimeoutMs: this.options.connectTimeoutMs, retry: this.options.retry });
    const reply = value as OllamaReply;
    if (typeof reply !== "object" || reply === null || typeof reply.message !== "object" || reply.message === null) {
      throw new ProviderError(`ollama: the reply has no message: ${JSON.stringify(reply).slice(0, 200)}`, retries);
    }
    const toolCalls = replyToolCalls("ollama", reply.message.tool_calls, reply.message.content);
    const promptTokens = reply.prompt_eval_count;
    const completionTokens = reply.eval_count;
    const totalTokens = promptTokens === undefined && completionTokens === undefined ? undefined : (promptTokens ?? 0) + (completionTokens ?? 0);
    return { toolCalls, usage: { promptTokens, completionTokens, totalTokens }, retries };
  }
}

export class OllamaChat {
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: OllamaOptions) {
    this.url = chatUrl(options);
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** One free-form reply to a conversation. */
  async chat(messages: { role: "system" | "user" | "assistant"; content: string }[]): Promise<string> {
    const { value } = await postJson(this.url, { model: this.options.model, stream: false, messages }, { timeoutMs: this.timeoutMs, connectTimeoutMs: this.options.connectTimeoutMs, retry: this.options.retry });
    const text = (value as OllamaReply)?.message?.content;
    if (typeof text !== "string" || text.trim() === "") throw new Error("ollama chat: the model replied with nothing");
    return text.trim();
  }
}
