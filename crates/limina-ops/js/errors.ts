// The one error vocabulary, from Rust through JS to MCP: native ops throw
// `LiminaError` with one of these codes (limina-ops' ErrorCode), engine
// code throws the same for failures that start in JS, and the MCP layer
// maps each to its own JSON-RPC code.

export const ERROR_CODES = [
  "invalid_input",
  "not_found",
  "forbidden",
  "capacity_exceeded",
  "handler_error",
  "io_error",
  "unavailable",
  "internal",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

interface ErrorOps {
  op_limina_error_codes(): string[];
}

/** The codes the native side defines (a test holds them equal to ERROR_CODES). */
export function nativeErrorCodes(): string[] {
  return (Limina.ops as unknown as ErrorOps).op_limina_error_codes();
}

export function engineError(code: ErrorCode, message: string): LiminaError {
  const e = new LiminaError(message);
  e.code = code;
  return e;
}

/** The code of something thrown: its own when it carries a known one, else `handler_error`. */
export function errorCodeOf(e: unknown): ErrorCode {
  const code = (e as { code?: unknown } | null)?.code;
  return (ERROR_CODES as readonly unknown[]).includes(code) ? (code as ErrorCode) : "handler_error";
}
