// OllamaProvider (tool calling) and OllamaChat (free-form lines) against a
// local Ollama server's /api/chat, through the native HTTP op. Failure is
// honest: a dead server, bad JSON or an empty reply is an error.

import { type DecideRequest, type DecideResult, decisionMessages, functionTools, type LLMProvider, postJson, replyToolCalls } from "./provider.ts";

export interface OllamaOptions {
  baseUrl?: string;
  model: string;
  timeoutMs?: number;
}

interface OllamaReply {
  message?: { content?: string; tool_calls?: { function?: { name?: string; arguments?: unknown } }[] };
  eval_count?: number;
  prompt_eval_count?: number;
}

export class OllamaProvider implements LLMProvider {
  readonly name = "ollama";
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: OllamaOptions) {
    this.url = `${(options.baseUrl ?? "http://127.0.0.1:11434").replace(/\/$/, "")}/api/chat`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async decide(req: DecideRequest): Promise<DecideResult> {
    const reply = (await postJson(this.url, {
      model: this.options.model,
      stream: false,
      options: { temperature: 0 },
      messages: decisionMessages(req),
      tools: functionTools(req.tools),
    }, { timeoutMs: this.timeoutMs })) as OllamaReply;
    if (typeof reply !== "object" || reply === null || typeof reply.message !== "object") {
      throw new Error(`ollama: the reply has no message: ${JSON.stringify(reply).slice(0, 200)}`);
    }
    const toolCalls = replyToolCalls("ollama", reply.message.tool_calls, reply.message.content);
    return { toolCalls, usage: { totalTokens: (reply.eval_count ?? 0) + (reply.prompt_eval_count ?? 0) } };
  }
}

export class OllamaChat {
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: OllamaOptions) {
    this.url = `${(options.baseUrl ?? "http://127.0.0.1:11434").replace(/\/$/, "")}/api/chat`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** One free-form reply to a conversation. */
  async chat(messages: { role: "system" | "user" | "assistant"; content: string }[]): Promise<string> {
    const reply = (await postJson(this.url, { model: this.options.model, stream: false, messages }, { timeoutMs: this.timeoutMs })) as OllamaReply;
    const text = reply?.message?.content;
    if (typeof text !== "string" || text.trim() === "") throw new Error("ollama chat: the model replied with nothing");
    return text.trim();
  }
}
