// Reading skill results in tests: the value of a call that must succeed, and
// the check that a call was refused with a given code and reason.
import type { InvokeResult } from "limina";
import { assert, assertEquals } from "limina/testing";

/** The call's value; a refusal fails the test with its code and message. */
export function value<T>(r: InvokeResult): T {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

/** Asserts the call was refused with `code` and a message mentioning `message`. */
export function refused(r: InvokeResult, code: string, message: string): void {
  assert(!r.ok, `expected ${code}, got success`);
  assertEquals(r.error.code, code, r.error.message);
  assert(r.error.message.includes(message), `${r.error.message} should mention ${message}`);
}
