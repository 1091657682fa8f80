// The JS face of limina-trace: the sha256 chain over the world log, sealed
// and verified natively, the spooled world log behind each Tracer, and
// trace files confined to the trace directory, written atomically and
// never replaced.

import type { EngineEvent } from "../../../js/src/observability/tracer.ts";

export type IntegrityReason =
  | "invalid_json"
  | "partial_final_line"
  | "missing_integrity"
  | "previous_hash_mismatch"
  | "hash_mismatch"
  | "truncated"
  | "terminator_mismatch"
  | "after_terminator";

/** The type of the terminator event every complete trace ends with. */
export const TRACE_TERMINATOR = "trace.sealed";

/** What an intact trace holds. */
export interface VerifiedTrace {
  /**
   * `sealed`: the trace ends with a `trace.sealed` terminator that matches it — it is complete.
   * `open`: an intact prefix with no terminator yet (a live log; only when verifying with `open`).
   */
  status: "sealed" | "open";
  /** Events before the terminator. */
  events: number;
  /** The last event's hash (null when there are none). */
  headHash: string | null;
  /** Bytes of an unfinished final line an open log ended with, which were not checked. */
  tornBytes: number;
}

export interface VerifyOptions {
  /** Accept an intact prefix without a terminator, reported as `status: "open"` (a live log). */
  open?: boolean;
}

export interface TraceFile {
  name: string;
  path: string;
  bytes: number;
}

export interface ExportedTrace extends TraceFile {
  events: number;
  headHash: string | null;
}

/** How much one world log may export over its lifetime. */
export interface ExportQuota {
  /** Export files (default 64). */
  files?: number;
  /** Bytes across all exports (default 4 GiB). */
  bytes?: number;
}

const DEFAULT_EXPORT_QUOTA = { files: 64, bytes: 4 * 2 ** 30 };

type Verification = VerifiedTrace | { reason: IntegrityReason; line: number; message: string };

interface TraceOps {
  op_trace_seal(lines: string, previousHash: string): { jsonl: string; lastHash: string | null };
  op_trace_verify(text: string, open: boolean): Verification;
  op_trace_verify_file(path: string, open: boolean): Promise<Verification>;
  op_trace_write(name: string, content: string): TraceFile;
  op_trace_read(path: string): string;
  op_trace_dir(): string;
  op_trace_log_open(options: { name: string; threadId: string; maxExportFiles: number; maxExportBytes: number; recent: number }): number;
  op_trace_log_append(log: number, joinedLines: string, events: number): void;
  op_trace_log_envelope(log: number, slot: number, text: string): void;
  op_trace_log_event(log: number, idJson: string, envelope: number, causesJson: string, ms: number, payloadJson: string): void;
  op_trace_log_template(log: number, slot: number, head: string, tail: string): void;
  op_trace_log_event_templated(log: number, idJson: string, envelope: number, causesJson: string, ms: number, template: number, value: number): void;
  op_trace_log_line(log: number, line: string): void;
  op_trace_log_flush(log: number): void;
  op_trace_log_recent(log: number, from: number, count: number): string;
  op_trace_log_read(log: number): string;
  op_trace_log_export(log: number, name: string): Promise<ExportedTrace>;
  op_trace_log_close(log: number): boolean;
}

const ops = Limina.ops as unknown as TraceOps;

export class TraceIntegrityError extends Error {
  constructor(readonly reason: IntegrityReason, readonly line: number, detail: string) {
    super(`trace integrity: ${reason} at line ${line}: ${detail}`);
    this.name = "TraceIntegrityError";
  }
}

function verdict(r: Verification): VerifiedTrace {
  if ("reason" in r) throw new TraceIntegrityError(r.reason, r.line, r.message);
  return r;
}

/** Seals events into chained JSONL continuing after `previousHash` ("" = genesis); no terminator is added. */
export function sealEvents(events: readonly EngineEvent[], previousHash: string): { jsonl: string; lastHash: string | null } {
  if (events.length === 0) return { jsonl: "", lastHash: previousHash || null };
  let lines = "";
  for (const e of events) lines += JSON.stringify(e) + "\n";
  return ops.op_trace_seal(lines, previousHash);
}

/** Verifies a JSONL trace; throws `TraceIntegrityError` naming the reason and line. */
export function verifyJsonl(text: string, options: VerifyOptions = {}): VerifiedTrace {
  return verdict(ops.op_trace_verify(text, options.open ?? false));
}

/** Verifies a trace file a line at a time, off the loop (any size, flat memory). */
export async function verifyTraceFile(path: string, options: VerifyOptions = {}): Promise<VerifiedTrace> {
  return verdict(await ops.op_trace_verify_file(path, options.open ?? false));
}

/** Verifies chained JSONL and returns its events, without the terminator (and, for an open log, without a torn final line). */
export function parseTrace(text: string, options: VerifyOptions = {}): EngineEvent[] {
  const { events } = verifyJsonl(text, options);
  const out: EngineEvent[] = [];
  let at = 0;
  for (let i = 0; i < events; i++) {
    const end = text.indexOf("\n", at);
    out.push(JSON.parse(text.slice(at, end)));
    at = end + 1;
  }
  return out;
}

/** Reads and verifies a trace file, returning its events. */
export function readTrace(path: string, options: VerifyOptions = {}): EngineEvent[] {
  return parseTrace(readTraceText(path), options);
}

/** A trace file's text, unverified. */
export function readTraceText(path: string): string {
  return ops.op_trace_read(path);
}

/** The trace directory: `$LIMINA_TRACE_DIR`, else `traces/` in the working directory. */
export function traceDir(): string {
  return ops.op_trace_dir();
}

/** Writes a new trace file in the trace directory, atomically; a name already taken is refused (`invalid_input`, naming the file). */
export function writeTraceFile(name: string, content: string): TraceFile {
  return ops.op_trace_write(name, content);
}

export interface WorldLogOptions {
  /** Keep the log as this live trace file in the trace directory (refused when the file exists). */
  name?: string;
  /** The thread its terminator is recorded on. */
  threadId?: string;
  exportQuota?: ExportQuota;
  /** How many of the newest events it keeps in memory to read back with `recent` (default 0). */
  recent?: number;
}

function wholeNumber(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value >= 0)) throw new RangeError(`${option} must be a whole number ≥ 0, got ${value}`);
  return value;
}

/**
 * A world log: events appended in batches are spooled to disk by the log's
 * own thread (a live log seals them onto the sha256 chain as it writes), so
 * the full history never has to live in memory and no hashing runs on the
 * loop.
 */
export class WorldLog {
  private readonly id: number;
  /** The export quota in force: files and bytes over the log's lifetime. */
  readonly quota: Readonly<Required<ExportQuota>>;

  constructor(options: WorldLogOptions = {}) {
    const quota = options.exportQuota ?? {};
    this.quota = Object.freeze({
      files: Math.min(wholeNumber(quota.files, DEFAULT_EXPORT_QUOTA.files, "exportQuota.files"), 2 ** 32 - 1),
      bytes: wholeNumber(quota.bytes, DEFAULT_EXPORT_QUOTA.bytes, "exportQuota.bytes"),
    });
    this.id = ops.op_trace_log_open({
      name: options.name ?? "",
      threadId: options.threadId ?? "thread_main",
      maxExportFiles: this.quota.files,
      maxExportBytes: this.quota.bytes,
      recent: Math.min(wholeNumber(options.recent, 0, "recent"), 2 ** 32 - 1),
    });
  }

  /** Appends events given as their JSON text (`JSON.stringify` of each event, no newline), after any recorded before them, and flushes. */
  appendJson(events: readonly string[]): void {
    // Joined without a last newline (the op adds it).
    if (events.length > 0) ops.op_trace_log_append(this.id, events.join("\n"), events.length);
  }

  /**
   * Registers envelope `slot` for `event`: the text an event's JSON has between its id and its
   * causes (`,"type":…,"actorId":…,"threadId":…,"parentEventId":null,"causedBy":`). A new slot
   * is the next one (0, 1, …); a used one is replaced.
   */
  envelope(slot: number, text: string): void {
    ops.op_trace_log_envelope(this.id, slot, text);
  }

  /**
   * Records one event, its JSON written natively around envelope `envelope`:
   * `{"id":"<idJson>"<envelope><causesJson or []>,"timestamp":"<new Date(ms).toISOString()>","payload":<payloadJson>}`.
   * `idJson` is the id as JSON writes it between its quotes; `payloadJson` "" leaves the payload out (undefined).
   * It is handed to the log thread at the next `flush`.
   */
  event(idJson: string, envelope: number, causesJson: string, ms: number, payloadJson: string): void {
    ops.op_trace_log_event(this.id, idJson, envelope, causesJson, ms, payloadJson);
  }

  /**
   * Registers payload template `slot`: the JSON text of a payload that differs between events only
   * by one number, before it (`head`, not empty) and after it (`tail`). A new slot is the next one
   * (0, 1, …); a used one is replaced.
   */
  template(slot: number, head: string, tail: string): void {
    ops.op_trace_log_template(this.id, slot, head, tail);
  }

  /**
   * Records one event as `event` does, its payload's JSON being template `template`'s head, `value`
   * as `JSON.stringify` writes it (null when not finite), then its tail.
   */
  eventTemplated(idJson: string, envelope: number, causesJson: string, ms: number, template: number, value: number): void {
    ops.op_trace_log_event_templated(this.id, idJson, envelope, causesJson, ms, template, value);
  }

  /** Records one event given as its JSON text (`JSON.stringify` of the event); handed over at the next `flush`. */
  line(json: string): void {
    ops.op_trace_log_line(this.id, json);
  }

  /** Hands the events recorded since the last flush to the log thread. */
  flush(): void {
    ops.op_trace_log_flush(this.id);
  }

  /**
   * Events `from`..`from + count - 1` (numbered from 0 in the order recorded) as their JSON text,
   * from the newest ones the log keeps in memory (`recent`) and those not yet flushed; throws
   * `invalid_input` for any it does not hold.
   */
  recent(from: number, count: number): string[] {
    return count === 0 ? [] : ops.op_trace_log_recent(this.id, from, count).split("\n");
  }

  /** The whole log as a trace — chained JSONL ending with its terminator — in memory (waits for the log thread). */
  jsonl(): string {
    return ops.op_trace_log_read(this.id);
  }

  /**
   * Exports everything recorded so far as a new trace file, off the loop;
   * resolves once the file is complete and published. A taken name gets the
   * first free `NAME-N.jsonl`: read `name` from the result. Over the
   * log's quota it rejects with `capacity_exceeded` before writing anything.
   */
  exportTo(name: string): Promise<ExportedTrace> {
    return ops.op_trace_log_export(this.id, name);
  }

  /** Closes the log once everything is on disk, a live log sealed and exports finished. */
  close(): void {
    ops.op_trace_log_close(this.id);
  }
}
