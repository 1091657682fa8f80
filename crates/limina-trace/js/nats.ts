// The JS face of limina-trace's NATS JetStream world log: a sink that
// publishes the world log as sealed JSONL lines (one message each, the
// sha256 chain running across them) and the reader `limina replay nats://…`
// rebuilds a world from.

import type { EngineEvent } from "../../../js/src/observability/tracer.ts";
import { sealEvents } from "./chain.ts";

interface NatsOps {
  op_nats_sink_open(url: string): Promise<number>;
  op_nats_sink_append(sink: number, lines: string): void;
  op_nats_sink_flush(sink: number): Promise<number>;
  op_nats_log_read(url: string): Promise<string>;
}

const ops = Limina.ops as unknown as NatsOps;

/** A world log streaming to `nats://HOST:PORT/SUBJECT` (the JetStream stream is created when missing). */
export class NatsLogSink {
  private headHash = "";

  private constructor(private readonly id: number, readonly url: string) {}

  /** Connects and makes sure the stream exists; `unavailable` when the server cannot be reached. */
  static async open(url: string): Promise<NatsLogSink> {
    return new NatsLogSink(await ops.op_nats_sink_open(url), url);
  }

  /** Seals `events` onto the chain and hands them over to publish, in order. */
  append(events: readonly EngineEvent[]): void {
    if (events.length === 0) return;
    const { jsonl, lastHash } = sealEvents(events, this.headHash);
    this.headHash = lastHash ?? this.headHash;
    ops.op_nats_sink_append(this.id, jsonl);
  }

  /** Resolves once JetStream acknowledged everything appended so far, to how many events it holds from this sink. */
  flush(): Promise<number> {
    return ops.op_nats_sink_flush(this.id);
  }
}

/** The whole world log a NATS stream holds, as chained JSONL (an open log: no terminator). */
export function readNatsLog(url: string): Promise<string> {
  return ops.op_nats_log_read(url);
}
