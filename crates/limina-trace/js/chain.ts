// The JS face of limina-trace: the sha256 chain over the world log, sealed
// and verified natively, the spooled world log behind each Tracer, and
// trace files confined to the trace directory.

import type { EngineEvent } from "../../../js/src/observability/tracer.ts";

export type IntegrityReason =
  | "invalid_json"
  | "partial_final_line"
  | "missing_integrity"
  | "previous_hash_mismatch"
  | "hash_mismatch";

interface Written {
  name: string;
  path: string;
  bytes: number;
}

interface TraceOps {
  op_trace_seal(eventsJson: string, previousHash: string): { jsonl: string; lastHash: string | null };
  op_trace_verify(text: string): { events: number; lastHash: string | null } | { reason: IntegrityReason; line: number; message: string };
  op_trace_write(name: string, content: string, append: boolean): Written;
  op_trace_read(path: string): string;
  op_trace_dir(): string;
  op_trace_log_open(name: string): number;
  op_trace_log_append(log: number, jsonLines: string): void;
  op_trace_log_read(log: number): string;
  op_trace_log_export(log: number, name: string): Written & { events: number; lastHash: string | null };
  op_trace_log_close(log: number): boolean;
}

const ops = Limina.ops as unknown as TraceOps;

export class TraceIntegrityError extends Error {
  constructor(readonly reason: IntegrityReason, readonly line: number, detail: string) {
    super(`trace integrity: ${reason} at line ${line}: ${detail}`);
    this.name = "TraceIntegrityError";
  }
}

/** Seals events into chained JSONL continuing after `previousHash` ("" = genesis). */
export function sealEvents(events: readonly EngineEvent[], previousHash: string): { jsonl: string; lastHash: string | null } {
  if (events.length === 0) return { jsonl: "", lastHash: previousHash || null };
  return ops.op_trace_seal(JSON.stringify(events), previousHash);
}

/** Verifies a JSONL trace; throws `TraceIntegrityError` naming the reason and line. */
export function verifyJsonl(text: string): { events: number; lastHash: string | null } {
  const r = ops.op_trace_verify(text);
  if ("reason" in r) throw new TraceIntegrityError(r.reason, r.line, r.message);
  return r;
}

/** Parses chained JSONL into events (after verifying it). */
export function parseTrace(text: string): EngineEvent[] {
  verifyJsonl(text);
  return text === "" ? [] : text.trimEnd().split("\n").map((l) => JSON.parse(l));
}

/** Reads and verifies a trace file, returning its events. */
export function readTrace(path: string): EngineEvent[] {
  return parseTrace(readTraceText(path));
}

/** A trace file's text, unverified. */
export function readTraceText(path: string): string {
  return ops.op_trace_read(path);
}

/** The trace directory: `$LIMINA_TRACE_DIR`, else `traces/` in the working directory. */
export function traceDir(): string {
  return ops.op_trace_dir();
}

/** Writes (or appends to) a trace file by name in the trace directory. */
export function writeTraceFile(name: string, content: string, append = false): Written {
  return ops.op_trace_write(name, content, append);
}

/**
 * A world log: events appended in batches are sealed onto the sha256 chain
 * and spooled to disk by the log's own thread, so the full history never has
 * to live in memory and no hashing runs on the loop.
 */
export class WorldLog {
  private readonly id: number;

  /** An anonymous spool, or with `name` a live trace file in the trace directory. */
  constructor(name = "") {
    this.id = ops.op_trace_log_open(name);
  }

  append(events: readonly EngineEvent[]): void {
    let lines = "";
    for (const e of events) lines += JSON.stringify(e) + "\n";
    if (lines !== "") ops.op_trace_log_append(this.id, lines);
  }

  /** The whole log as chained JSONL (waits for the log thread to catch up). */
  jsonl(): string {
    return ops.op_trace_log_read(this.id);
  }

  /** Copies the whole log into a trace file under the trace directory. */
  exportTo(name: string): Written & { events: number; lastHash: string | null } {
    return ops.op_trace_log_export(this.id, name);
  }

  close(): void {
    ops.op_trace_log_close(this.id);
  }
}
