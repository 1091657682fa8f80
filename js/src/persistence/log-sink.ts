// Streaming a world log to a durable log elsewhere (NATS JetStream): every
// event the tracer records from now on is sealed onto the sink's own chain
// and published, batched per job so the frame path only queues them.

import { NatsLogSink } from "../../../crates/limina-trace/js/nats.ts";
import type { EngineEvent, Tracer } from "../observability/tracer.ts";

/** Streams `tracer`'s events to `url` (`nats://HOST:PORT/SUBJECT`); resolves once connected, to the sink. */
export async function streamWorldLog(tracer: Tracer, url: string): Promise<NatsLogSink> {
  if (!url.startsWith("nats://")) throw new Error(`--log-sink ${url}: only nats://HOST:PORT/SUBJECT sinks are supported`);
  const sink = await NatsLogSink.open(url);
  let pending: EngineEvent[] = [];
  tracer.subscribe((event) => {
    if (pending.length === 0) queueMicrotask(() => {
      const batch = pending;
      pending = [];
      sink.append(batch);
    });
    pending.push(event);
  });
  return sink;
}
