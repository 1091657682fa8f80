// Structured engine errors: the same `LiminaError` class and `code`
// vocabulary native ops throw, for failures that start in JS.

export type ErrorCode =
  | "invalid_input"
  | "not_found"
  | "forbidden"
  | "capacity_exceeded"
  | "handler_error"
  | "unavailable"
  | "internal";

export function engineError(code: ErrorCode, message: string): LiminaError {
  const e = new LiminaError(message);
  e.code = code;
  return e;
}
