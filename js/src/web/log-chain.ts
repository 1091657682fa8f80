// The world log's sha256 chain, checked in a browser (the static player)
// by the rules limina-trace applies natively (crates/limina-trace/src/chain.rs):
// each event's hash is "sha256:" + hex(sha256(canonical(event without
// integrity) + (previousHash ?? ""))), canonical being JSON.stringify's
// output with object keys sorted by UTF-16 code units; the first event's
// previousHash is null, every later one is the hash before it; the log ends
// with a `trace.sealed` terminator naming the event count and head hash.
// Reasons are named as `limina trace verify` names them.

import { sha256Hex } from "./sha256.ts";

export type LogVerdict =
  | { ok: true; events: Record<string, unknown>[]; headHash: string | null }
  | { ok: false; reason: string; line: number; message: string };

/** JSON text of a parsed value with every object's keys sorted (what the chain hashes). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(",")}}`;
}

const TERMINATOR = "trace.sealed";

/** Verifies a sealed world log's text; on success, its events (without the terminator). */
export function verifyLog(text: string): LogVerdict {
  const encoder = new TextEncoder();
  const lines = text.split("\n");
  const last = lines.pop()!;
  if (last !== "") return { ok: false, reason: "partial_final_line", line: lines.length + 1, message: `the final line is cut short (no newline after ${encoder.encode(last).length} bytes)` };
  const events: Record<string, unknown>[] = [];
  let previous: string | null = null;
  let sealed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const fail = (reason: string, message: string): LogVerdict => ({ ok: false, reason, line, message });
    if (sealed) return fail("after_terminator", `a line follows the ${TERMINATOR} terminator on line ${line - 1}`);
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(lines[i]);
    } catch (e) {
      return fail("invalid_json", `not valid JSON: ${e instanceof Error ? e.message : e}`);
    }
    if (event === null || typeof event !== "object" || Array.isArray(event)) return fail("invalid_json", "an event must be a JSON object");
    const integrity = event.integrity as { hash?: unknown; previousHash?: unknown } | undefined;
    if (integrity === undefined) return fail("missing_integrity", "no integrity field");
    if (typeof integrity !== "object" || integrity === null || typeof integrity.hash !== "string" || !(integrity.previousHash === null || typeof integrity.previousHash === "string")) {
      return fail("missing_integrity", "integrity needs a string hash and a previousHash (string or null)");
    }
    if (integrity.previousHash !== previous) {
      return fail("previous_hash_mismatch", `previousHash is ${JSON.stringify(integrity.previousHash)}, the chain expects ${JSON.stringify(previous)}`);
    }
    const { integrity: _, ...content } = event;
    const hash: string = `sha256:${sha256Hex(encoder.encode(canonicalJson(content) + (previous ?? "")))}`;
    if (integrity.hash !== hash) return fail("hash_mismatch", `hash is ${JSON.stringify(integrity.hash)}, the content hashes to ${hash}`);
    if (event.type === TERMINATOR) {
      const payload = (event.payload ?? {}) as { events?: unknown; headHash?: unknown };
      if (payload.events !== events.length) return fail("terminator_mismatch", `the ${TERMINATOR} payload counts ${payload.events} events, the chain holds ${events.length}`);
      if (payload.headHash !== previous) return fail("terminator_mismatch", `the ${TERMINATOR} headHash is ${payload.headHash}, the chain's head is ${previous}`);
      sealed = true;
      continue;
    }
    events.push(event);
    previous = hash;
  }
  if (!sealed) {
    const message = lines.length === 0
      ? `the file is empty: a trace ends with a ${TERMINATOR} terminator`
      : `no ${TERMINATOR} terminator after line ${lines.length}: the trace was cut short`;
    return { ok: false, reason: "truncated", line: lines.length + 1, message };
  }
  return { ok: true, events, headHash: previous };
}
