// The Tracer: the world log. `emit` is hash-free and allocation-light (a
// sequence number and an FNV-1a-16 discriminator over seq, type and actor),
// so it is cheap on the frame path. Each event is written once, as it is
// recorded, into the native world log's batch: the log writes its JSON line
// from the id, causes, clock and payload text around an envelope (type,
// actor, thread) registered once, so no event's JSON is built on the JS
// heap. Batches are flushed to the log's thread, which spools the full
// history to disk and seals the sha256 chain off the loop; the log keeps
// the newest events' text in memory. The recent window — `trace.tail`,
// `explainEvent`, perception — is a ring of each event's id, type, actor
// and tick, which readers filter on; an event's text is read back from the
// log (flushed or not) and parsed only when a reader wants the event
// itself. So a recorded event leaves nothing on the JS heap for the garbage
// collector to copy but its id, and listeners alone get it as an object.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { type ExportedTrace, type ExportQuota, parseTrace, TRACE_TERMINATOR, WorldLog } from "../../../crates/limina-trace/js/chain.ts";

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
  /** Events kept in memory (default 8192); older ones live only in the world log on disk. */
  tailSize?: number;
  /** The current tick, recorded with each event for `trace(actorId, sinceTick)`. */
  tick?: () => number;
  /**
   * Keep the world log as this live trace file (in the trace directory) instead of an anonymous
   * spool: a verifiable open prefix as it grows, sealed with its terminator when the tracer
   * closes (a session's `dispose()`); a process that ends without closing it leaves it open.
   * An existing file of that name is refused.
   */
  logName?: string;
  /** How much this log may export (default: 64 files, 4 GiB); beyond it exports fail with `capacity_exceeded`. */
  exportQuota?: ExportQuota;
}

/** One session may use this part of a world log's export quota, so one client cannot spend everyone's. */
const SESSION_EXPORT_SHARE = 8;

/** Events buffered before a flush to the world log... */
const FLUSH_BATCH = 512;
/** ...or milliseconds since the last flush. A live log (`logName`) flushes at the end of every job instead. */
const FLUSH_INTERVAL_MS = 250;

/** FNV-1a (32-bit) over the UTF-16 code units of `s`, xor-folded to 16 bits. */
export function fnv1a16(s: string): string {
  return fold16(fnv1a(0x811c9dc5, s));
}

function fnv1a(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/** Each byte as two lowercase hex digits. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function fold16(h: number): string {
  // Two table lookups: `toString(16)` leaves JS for the runtime on every event.
  const v = ((h >>> 16) ^ h) & 0xffff;
  return HEX[v >>> 8] + HEX[v & 0xff];
}

/** `fnv1a16(`${seqText}\u0000${type}\u0000${actorId}`)` without building that string: an event id's discriminator. */
function idHash(seqText: string, type: string, actorId: string): string {
  return fold16(fnv1a(Math.imul(fnv1a(Math.imul(fnv1a(0x811c9dc5, seqText), 0x01000193), type), 0x01000193), actorId));
}

/** The sequence number an event id names (`evt_<actor>_<seq:012d>_<fnv16>`), or NaN. */
function seqOf(id: string): number {
  const n = id.length;
  if (n < 22 || id.charCodeAt(n - 5) !== 95 || id.charCodeAt(n - 18) !== 95) return NaN;
  return Number(id.substring(n - 17, n - 5));
}


export class Tracer {
  readonly threadId: string;
  private readonly tailSize: number;
  private readonly tickOf: () => number;
  private readonly log: WorldLog;
  /** The ring, as parallel arrays: slot `seq % tailSize` holds event `seq`'s id, type, actor and the tick it was emitted on while it is recent. */
  private readonly ids: string[];
  private readonly types: string[];
  private readonly actorIds: string[];
  private readonly ticks: Float64Array;
  private seq = 0;
  /** The millisecond `isoNow` was formatted for: events in the same millisecond share its text. */
  private isoMs = NaN;
  /** `evt_<actor>_` of the last event's actor: a call's events share it. */
  private idActor: string | null = null;
  private idPrefix = "";
  private isoNow = "";
  /** Events recorded since the last flush. */
  private unflushed = 0;
  /** Once the log is closed: the JSON text of the recent window, events `closedFrom`.. */
  private closedTexts: string[] = [];
  private closedFrom = 0;
  private flushQueued = false;
  private lastFlush = 0;
  private readonly live: boolean;
  private closed = false;
  /** Exports made for each session (files started, bytes written): their share of the quota. */
  private readonly exportsBySession = new Map<string, { files: number; bytes: number }>();
  /** Beside the ring: slot `seq % tailSize` holds the ids of recent events naming event `seq` as parent or cause (dropped with it). */
  private readonly children: (string[] | undefined)[];
  private readonly actors = new Set<string>();
  /** Each listener, with what says whether it wants events now (none: always). */
  private readonly listeners = new Map<(e: EngineEvent) => void, (() => boolean) | undefined>();
  /** Per event type, the world log's envelope slot for its last actor and thread (see `record`). */
  private readonly envelopes = new Map<string, { actorId: string; threadId: string; plainId: boolean; slot: number }>();
  /** Payload template slots registered with the world log (`template`), and those given back for reuse. */
  private templates = 0;
  private readonly freeTemplates: number[] = [];

  constructor(options: TracerOptions = {}) {
    this.threadId = options.threadId ?? "thread_main";
    this.tailSize = options.tailSize ?? 8192;
    if (!(Number.isInteger(this.tailSize) && this.tailSize > 0)) throw new RangeError(`tailSize must be a whole number > 0, got ${this.tailSize}`);
    this.tickOf = options.tick ?? Limina.loop.steps;
    this.log = new WorldLog({ name: options.logName, threadId: this.threadId, exportQuota: options.exportQuota, recent: this.tailSize });
    this.live = options.logName !== undefined;
    const strings = () => Array.from({ length: this.tailSize }, () => "");
    this.ids = strings();
    this.types = strings();
    this.actorIds = strings();
    this.ticks = new Float64Array(this.tailSize);
    this.children = new Array(this.tailSize);
  }

  /**
   * Records an event; returns its id. `payloadJson`, when the caller already has it, is
   * `JSON.stringify(payload)` (the policy engine keeps its decisions' text), so the payload is not
   * serialised again.
   */
  emit(type: string, payload: unknown, options: EmitOptions = {}, payloadJson?: string): string {
    return this.emitAs(type, payload, options, payloadJson, -1, 0);
  }

  /**
   * Records an event whose payload's JSON is payload template `template`'s head, `value` as
   * `JSON.stringify` writes it, then its tail (see `template`): written natively, no payload text
   * is made. `payload` is the same payload as an object, for listeners (null when none listens, see `listening`).
   */
  emitTemplated(type: string, payload: unknown, options: EmitOptions, template: number, value: number): string {
    return this.emitAs(type, payload, options, undefined, template, value);
  }

  /**
   * Registers a payload template with the world log — a payload's JSON text before and after the one
   * number that differs between events (`head` not empty) — and returns its slot for
   * `emitTemplated`. Given `slot` (one of the caller's), that template is replaced.
   */
  template(head: string, tail: string, slot?: number): number {
    if (this.closed) throw engineError("unavailable", "the world log is closed (its session was disposed); cannot register a payload template");
    const s = slot ?? this.freeTemplates.pop() ?? this.templates;
    this.log.template(s, head, tail);
    if (s === this.templates) this.templates++;
    return s;
  }

  /** Gives a payload template's slot back for reuse: the caller no longer records with it. */
  releaseTemplate(slot: number): void {
    this.freeTemplates.push(slot);
  }

  private emitAs(type: string, payload: unknown, options: EmitOptions, payloadJson: string | undefined, template: number, value: number): string {
    if (this.closed) throw engineError("unavailable", `the world log is closed (its session was disposed); cannot record ${type}`);
    if (type === TRACE_TERMINATOR) throw engineError("invalid_input", `${TRACE_TERMINATOR} is reserved for the terminator that ends a trace`);
    const seq = this.seq;
    const actorId = options.actorId ?? "system";
    const threadId = options.threadId ?? this.threadId;
    const parentEventId = options.parentEventId ?? null;
    const seqText = String(seq).padStart(12, "0");
    if (actorId !== this.idActor) {
      this.idActor = actorId;
      this.idPrefix = `evt_${actorId}_`;
    }
    const id = this.idPrefix + seqText + "_" + idHash(seqText, type, actorId);
    // A copy: callers go on using their array (the registry adds the decision it caused).
    const causedBy = options.causedBy ? options.causedBy.slice() : [];
    const ms = Date.now();
    this.record(id, type, actorId, threadId, parentEventId, causedBy, ms, payload, payloadJson, template, value); // throws on a payload JSON cannot hold, before anything is recorded
    this.seq = seq + 1;
    const slot = seq % this.tailSize;
    this.children[slot] = undefined;
    this.ids[slot] = id;
    this.types[slot] = type;
    this.actorIds[slot] = actorId;
    this.ticks[slot] = this.tickOf();
    this.actors.add(actorId);
    if (parentEventId) this.linkChild(parentEventId, id);
    for (const parent of causedBy) if (parent !== parentEventId) this.linkChild(parent, id);
    this.unflushed++;
    // The wall clock the event was stamped with (a clock set back flushes too).
    const sinceFlush = ms - this.lastFlush;
    if (this.unflushed >= FLUSH_BATCH || sinceFlush >= FLUSH_INTERVAL_MS || sinceFlush < 0) this.flush();
    else if (this.live && !this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
    // The event as an object only for those who want it.
    let event: EngineEvent | undefined;
    for (const [listener, active] of this.listeners) {
      if (active && !active()) continue;
      event ??= { id, type, actorId, threadId, parentEventId, causedBy, timestamp: this.timestamp(ms), payload };
      listener(event);
    }
    return id;
  }

  /**
   * Writes the event into the world log exactly as `JSON.stringify` writes it: natively, from its
   * id, causes, clock and payload text around its envelope (type, actor, thread, no parent),
   * registered with the log per type for its last actor and thread; the payload's JSON from a
   * template when `template` ≥ 0. A payload with its own `toJSON` (which would be told its key) and
   * an envelope of unusual types are written by `JSON.stringify` itself.
   */
  private record(id: string, type: string, actorId: string, threadId: string, parentEventId: string | null, causedBy: string[], ms: number, payload: unknown, payloadJson: string | undefined, template: number, value: number): void {
    const p = payload as { toJSON?: unknown } | null | undefined;
    if (typeof threadId !== "string" || parentEventId !== null || typeof p?.toJSON === "function") {
      this.log.line(JSON.stringify({ id, type, actorId, threadId, parentEventId, causedBy, timestamp: this.timestamp(ms), payload }));
      return;
    }
    const body = template >= 0 ? "" : payloadJson ?? JSON.stringify(p);
    let envelope = this.envelopes.get(type);
    if (envelope === undefined || envelope.actorId !== actorId || envelope.threadId !== threadId) {
      const actor = JSON.stringify(actorId);
      if (envelope === undefined && this.envelopes.size >= 1024) this.envelopes.clear();
      const slot = envelope?.slot ?? this.envelopes.size;
      this.log.envelope(slot, `,"type":${JSON.stringify(type)},"actorId":${actor},"threadId":${JSON.stringify(threadId)},"parentEventId":null,"causedBy":`);
      // The id is "evt_", the actor, then digits, "_" and hex: it needs escaping only where the actor does.
      envelope = { actorId, threadId, plainId: actor.length === actorId.length + 2, slot };
      this.envelopes.set(type, envelope);
    }
    const idJson = envelope.plainId ? id : JSON.stringify(id).slice(1, -1);
    const causesJson = causedBy.length === 0 ? "" : JSON.stringify(causedBy);
    if (template >= 0) this.log.eventTemplated(idJson, envelope.slot, causesJson, ms, template, value);
    else this.log.event(idJson, envelope.slot, causesJson, ms, body ?? "");
  }

  /** `ms` in ISO 8601 for an event object, formatted once per millisecond (formatting costs more than the rest of an emit). */
  private timestamp(ms: number): string {
    if (ms !== this.isoMs) {
      this.isoMs = ms;
      this.isoNow = new Date(ms).toISOString();
    }
    return this.isoNow;
  }

  /** Hands the events not yet in the world log's thread to it. */
  flush(): void {
    this.flushQueued = false;
    this.lastFlush = Date.now();
    if (this.closed || this.unflushed === 0) return;
    this.unflushed = 0;
    this.log.flush();
  }

  /** The ring slot holding event `id`, or -1 when it is not recent. */
  private slotOf(id: string): number {
    const seq = seqOf(id);
    if (!(seq >= this.firstRecentSeq && seq < this.seq)) return -1;
    const slot = seq % this.tailSize;
    return this.ids[slot] === id ? slot : -1;
  }

  /** The JSON text of recent events `from`..`to - 1`: the world log holds them (once it is closed, `closedTexts`). */
  private texts(from: number, to: number): string[] {
    if (this.closed) return this.closedTexts.slice(from - this.closedFrom, to - this.closedFrom);
    return this.log.recent(from, to - from);
  }

  /** Recent events `from`..`to - 1`, read back from their text. */
  private range(from: number, to: number): EngineEvent[] {
    return this.texts(from, to).map((t) => JSON.parse(t));
  }

  /** The recent events numbered `seqs` (ascending), read back with one look into the log. */
  private pick(seqs: number[]): EngineEvent[] {
    if (seqs.length === 0) return [];
    const texts = this.texts(seqs[0], seqs[seqs.length - 1] + 1);
    return seqs.map((s) => JSON.parse(texts[s - seqs[0]]));
  }

  private linkChild(parent: string, child: string): void {
    const slot = this.slotOf(parent);
    if (slot < 0) return; // only links among recent events are kept
    const kids = this.children[slot];
    if (!kids) this.children[slot] = [child];
    else if (kids[kids.length - 1] !== child) kids.push(child);
  }

  /**
   * Calls `fn` for every event emitted from now on — while `active`, when given, says it wants
   * them (an event nobody wants is never made as an object); returns the unsubscribe function.
   */
  subscribe(fn: (e: EngineEvent) => void, active?: () => boolean): () => void {
    this.listeners.set(fn, active);
    return () => this.listeners.delete(fn);
  }

  /**
   * Whether an event recorded now reaches a listener: a caller whose payload object only listeners
   * read (its JSON is a template's, see `emitTemplated`) makes it only then.
   */
  get listening(): boolean {
    for (const active of this.listeners.values()) if (active === undefined || active()) return true;
    return false;
  }

  /** Events emitted so far. */
  get size(): number {
    return this.seq;
  }

  /** The oldest sequence number still in memory. */
  get firstRecentSeq(): number {
    return Math.max(0, this.seq - this.tailSize);
  }

  /**
   * A recent event by id (events older than the in-memory window are only in the world log), as
   * the world log has it: read back from its JSON text, a new object on every call.
   */
  get(id: string): EngineEvent | undefined {
    return this.slotOf(id) < 0 ? undefined : this.range(seqOf(id), seqOf(id) + 1)[0];
  }

  /** Recent events naming `id` as parent or cause. */
  childrenOf(id: string): EngineEvent[] {
    const slot = this.slotOf(id);
    const kids = slot < 0 ? undefined : this.children[slot];
    return (kids ?? []).map((c) => this.get(c)).filter((e): e is EngineEvent => e !== undefined);
  }

  /** The types of the newest `limit` events of the in-memory window that `keep` accepts, oldest first; reads back only as far as it must, parses nothing. */
  latestTypes(limit: number, keep: (type: string) => boolean = () => true): string[] {
    const out: string[] = [];
    for (let s = this.seq - 1; s >= this.firstRecentSeq && out.length < limit; s--) {
      const type = this.types[s % this.tailSize];
      if (keep(type)) out.push(type);
    }
    return out.reverse();
  }

  /** The in-memory window, oldest first. */
  tail(): EngineEvent[] {
    return this.range(this.firstRecentSeq, this.seq);
  }

  /** The full history, read back from the world log on disk (costly: for audits and tests). */
  history(): EngineEvent[] {
    this.flush();
    return parseTrace(this.log.jsonl()).map((e) => {
      delete e.integrity;
      return e;
    });
  }

  /**
   * Recent events after `afterSeq` (or the last `limit` when undefined),
   * filtered, with the next cursor. A cursor older than the in-memory
   * window resumes at its oldest event.
   */
  page(opts: { afterSeq?: number; limit?: number; actorId?: string; type?: string }): { events: EngineEvent[]; nextAfterSeq: number | null } {
    const limit = opts.limit ?? 100;
    const match = (slot: number) =>
      (opts.actorId === undefined || this.actorIds[slot] === opts.actorId) && (opts.type === undefined || this.types[slot] === opts.type);
    const seqs: number[] = [];
    const first = this.firstRecentSeq;
    if (opts.afterSeq === undefined) {
      for (let s = this.seq - 1; s >= first && seqs.length < limit; s--) if (match(s % this.tailSize)) seqs.push(s);
      seqs.reverse();
    } else {
      for (let s = Math.max(opts.afterSeq + 1, first); s < this.seq && seqs.length < limit; s++) if (match(s % this.tailSize)) seqs.push(s);
    }
    return { events: this.pick(seqs), nextAfterSeq: seqs.length === 0 ? null : seqs[seqs.length - 1] };
  }

  /** One actor's recent events since `sinceTick` (inclusive). */
  trace(actorId: string, sinceTick = 0): EngineEvent[] {
    const seqs: number[] = [];
    for (let s = this.firstRecentSeq; s < this.seq; s++) {
      const slot = s % this.tailSize;
      if (this.actorIds[slot] === actorId && this.ticks[slot] >= sinceTick) seqs.push(s);
    }
    return this.pick(seqs);
  }

  inspect(recent = 20): { threadId: string; eventCount: number; actors: string[]; recent: EngineEvent[] } {
    const recentEvents = this.range(Math.max(this.firstRecentSeq, this.seq - Math.max(0, recent)), this.seq);
    return { threadId: this.threadId, eventCount: this.seq, actors: [...this.actors], recent: recentEvents };
  }

  /** The full history as a trace in memory: hash-chained JSONL ending with its `trace.sealed` terminator. */
  exportJsonl(): string {
    this.flush();
    return this.log.jsonl();
  }

  /**
   * Writes the history so far, sealed, to a new trace file under the trace directory, off the
   * loop; resolves when the file is complete. A taken name gets the first free `NAME-N.jsonl`
   * (read `name` from the result); past the export quota it rejects with `capacity_exceeded`.
   * Made for `sessionId`, it also counts against that session's share: 1/8 of the quota's files
   * (at least one) and of its bytes, so one client cannot spend every other client's exports.
   */
  exportTo(name: string, sessionId?: string): Promise<ExportedTrace> {
    if (this.closed) return Promise.reject(engineError("unavailable", "the world log is closed (its session was disposed); cannot export it"));
    const used = sessionId === undefined ? null : this.exportsBySession.get(sessionId) ?? { files: 0, bytes: 0 };
    if (used) {
      const files = Math.max(1, Math.floor(this.log.quota.files / SESSION_EXPORT_SHARE));
      const bytes = Math.floor(this.log.quota.bytes / SESSION_EXPORT_SHARE);
      if (used.files >= files) {
        return Promise.reject(engineError("capacity_exceeded", `session ${sessionId} has made ${used.files} of its ${files} exports (a session may make 1/${SESSION_EXPORT_SHARE} of exportQuota.files)`));
      }
      if (used.bytes >= bytes) {
        return Promise.reject(engineError("capacity_exceeded", `session ${sessionId} has exported ${used.bytes} of its ${bytes} bytes (a session may use 1/${SESSION_EXPORT_SHARE} of exportQuota.bytes)`));
      }
    }
    // The file is counted as the export starts (concurrent exports cannot overrun the share), and
    // given back if it fails; its bytes, unknown until written, count once it is.
    if (used) {
      used.files++;
      this.exportsBySession.set(sessionId!, used);
    }
    this.flush();
    return this.log.exportTo(name).then(
      (written) => {
        if (used) used.bytes += written.bytes;
        return written;
      },
      (e) => {
        if (used) used.files--;
        throw e;
      },
    );
  }

  /** Whether the world log is closed (its session was disposed): nothing more can be recorded. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Frees the world log (an anonymous spool is deleted, a live one sealed); later emits throw `unavailable`. */
  close(): void {
    if (this.closed) return;
    this.flush();
    // The recent window stays readable: its text comes home before the log goes.
    this.closedTexts = this.texts(this.firstRecentSeq, this.seq);
    this.closedFrom = this.firstRecentSeq;
    this.closed = true;
    this.log.close();
  }
}
