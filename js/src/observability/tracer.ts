// The Tracer: the world log. `emit` is hash-free (a sequence number and an
// FNV-1a-16 discriminator) so it is cheap on the frame path; the full
// history is kept for export, where the sha256 chain is sealed natively.

import { exportTrace, sealEvents } from "./chain.ts";

export interface EngineEvent {
  /** `evt_<actorId>_<seq:012d>_<fnv16>` */
  id: string;
  type: string;
  actorId: string;
  threadId: string;
  parentEventId: string | null;
  causedBy: string[];
  /** ISO 8601 */
  timestamp: string;
  payload: unknown;
  integrity?: { hash: string; previousHash: string | null };
}

export interface EmitOptions {
  actorId?: string;
  threadId?: string;
  parentEventId?: string | null;
  causedBy?: string[];
}

export interface TracerOptions {
  threadId?: string;
  /** Bound of the in-memory tail (default 8192). */
  tailSize?: number;
  /** The current tick, recorded with each event for `trace(actorId, sinceTick)`. */
  tick?: () => number;
  /** Append-on-emit: hash and append every event to this trace file as it happens. */
  appendTo?: string;
}

/** FNV-1a (32-bit) over the UTF-16 code units of `s`, xor-folded to 16 bits. */
export function fnv1a16(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (((h >>> 16) ^ h) & 0xffff).toString(16).padStart(4, "0");
}

export class Tracer {
  readonly threadId: string;
  private readonly tailSize: number;
  private readonly tickOf: () => number;
  private readonly appendTo?: string;
  private readonly durable: EngineEvent[] = [];
  private readonly ticks: number[] = [];
  private readonly byId = new Map<string, number>();
  private readonly children = new Map<string, string[]>();
  private readonly actors = new Set<string>();
  private lastAppendedHash = "";
  private readonly listeners = new Set<(e: EngineEvent) => void>();

  constructor(options: TracerOptions = {}) {
    this.threadId = options.threadId ?? "thread_main";
    this.tailSize = options.tailSize ?? 8192;
    this.tickOf = options.tick ?? Limina.loop.steps;
    this.appendTo = options.appendTo;
  }

  /** Records an event; returns its id. */
  emit(type: string, payload: unknown, options: EmitOptions = {}): string {
    const seq = this.durable.length;
    const actorId = options.actorId ?? "system";
    const id = `evt_${actorId}_${String(seq).padStart(12, "0")}_${fnv1a16(JSON.stringify({ seq, type, actorId, payload }) ?? "")}`;
    const causedBy = options.causedBy ?? [];
    const event: EngineEvent = {
      id,
      type,
      actorId,
      threadId: options.threadId ?? this.threadId,
      parentEventId: options.parentEventId ?? null,
      causedBy,
      timestamp: new Date().toISOString(),
      payload,
    };
    this.durable.push(event);
    this.ticks.push(this.tickOf());
    this.byId.set(id, seq);
    this.actors.add(actorId);
    if (event.parentEventId) this.linkChild(event.parentEventId, id);
    for (const parent of causedBy) if (parent !== event.parentEventId) this.linkChild(parent, id);
    if (this.appendTo) {
      const { jsonl, lastHash } = sealEvents([event], this.lastAppendedHash);
      Limina.ops.op_trace_write(this.appendTo, jsonl, true);
      this.lastAppendedHash = lastHash ?? "";
    }
    for (const l of this.listeners) l(event);
    return id;
  }

  private linkChild(parent: string, child: string): void {
    const kids = this.children.get(parent);
    if (!kids) this.children.set(parent, [child]);
    else if (kids[kids.length - 1] !== child) kids.push(child);
  }

  /** Calls `fn` for every event emitted from now on; returns the unsubscribe function. */
  subscribe(fn: (e: EngineEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get size(): number {
    return this.durable.length;
  }

  get(id: string): EngineEvent | undefined {
    const seq = this.byId.get(id);
    return seq === undefined ? undefined : this.durable[seq];
  }

  /** Ids of events naming `id` as parent or cause. */
  childrenOf(id: string): EngineEvent[] {
    return (this.children.get(id) ?? []).map((c) => this.get(c)!);
  }

  /** The bounded in-memory tail, oldest first. */
  tail(): EngineEvent[] {
    return this.durable.slice(Math.max(0, this.durable.length - this.tailSize));
  }

  /** The full durable history (read-only view). */
  history(): readonly EngineEvent[] {
    return this.durable;
  }

  /** Events after `afterSeq` (or the last `limit` when undefined), filtered, with the next cursor. */
  page(opts: { afterSeq?: number; limit?: number; actorId?: string; type?: string }): { events: EngineEvent[]; nextAfterSeq: number | null } {
    const limit = opts.limit ?? 100;
    const match = (e: EngineEvent) =>
      (opts.actorId === undefined || e.actorId === opts.actorId) && (opts.type === undefined || e.type === opts.type);
    const events: EngineEvent[] = [];
    let last: number | null = null;
    if (opts.afterSeq === undefined) {
      // The most recent `limit` matches, oldest first.
      for (let s = this.durable.length - 1; s >= 0 && events.length < limit; s--) {
        if (match(this.durable[s])) {
          events.unshift(this.durable[s]);
          last ??= s;
        }
      }
      return { events, nextAfterSeq: last };
    }
    for (let s = opts.afterSeq + 1; s < this.durable.length && events.length < limit; s++) {
      if (match(this.durable[s])) {
        events.push(this.durable[s]);
        last = s;
      }
    }
    return { events, nextAfterSeq: last };
  }

  /** One actor's events since `sinceTick` (inclusive). */
  trace(actorId: string, sinceTick = 0): EngineEvent[] {
    const out: EngineEvent[] = [];
    for (let s = 0; s < this.durable.length; s++) {
      if (this.durable[s].actorId === actorId && this.ticks[s] >= sinceTick) out.push(this.durable[s]);
    }
    return out;
  }

  inspect(recent = 20): { threadId: string; eventCount: number; actors: string[]; recent: EngineEvent[] } {
    return {
      threadId: this.threadId,
      eventCount: this.durable.length,
      actors: [...this.actors],
      recent: this.durable.slice(Math.max(0, this.durable.length - recent)),
    };
  }

  /** The durable history as hash-chained JSONL (empty string when there are no events). */
  exportJsonl(): string {
    return sealEvents(this.durable, "").jsonl;
  }

  /** Seals the durable history into a trace file under the trace directory. */
  exportTo(name: string): { name: string; path: string; bytes: number; events: number } {
    const events = this.durable.length;
    return { ...exportTrace(name, this.durable), events };
  }
}
