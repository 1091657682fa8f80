// The sha256 chain over the world log, sealed and verified natively
// (crates/limina-runtime/src/trace_chain.rs), and trace files.

import type { EngineEvent } from "./tracer.ts";

const ops = Limina.ops;

export type IntegrityReason =
  | "invalid_json"
  | "partial_final_line"
  | "missing_integrity"
  | "previous_hash_mismatch"
  | "hash_mismatch";

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

/** Reads and verifies a trace file, returning its events. */
export function readTrace(path: string): EngineEvent[] {
  const text: string = ops.op_trace_read(path);
  verifyJsonl(text);
  return text === "" ? [] : text.trimEnd().split("\n").map((l) => JSON.parse(l));
}

/** Seals events from genesis straight into a trace file (the JSONL never comes back into JS). */
export function exportTrace(name: string, events: readonly EngineEvent[]): { name: string; path: string; bytes: number; lastHash: string | null } {
  return ops.op_trace_export(name, JSON.stringify(events));
}
