// What the world log can hold: every string (and object key) well-formed
// UTF-16 — no lone surrogate — and nesting at most MAX_DEPTH levels deep.
// Input is checked where it enters (the MCP transports, the registry), so an
// event the trace chain could not canonicalise is never admitted.

/** Deepest nesting accepted in any input: objects and arrays inside each other. */
export const MAX_DEPTH = 64;

/** Why `value` cannot enter the world, naming the path of the first offending part; null when it can. */
export function illFormed(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === "string") return value.isWellFormed() ? null : `${path} holds a lone UTF-16 surrogate`;
  if (typeof value !== "object" || value === null) return null;
  if (depth >= MAX_DEPTH) return `${path} is nested deeper than ${MAX_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const why = illFormed(value[i], `${path}[${i}]`, depth + 1);
      if (why !== null) return why;
    }
    return null;
  }
  for (const key in value) {
    if (!key.isWellFormed()) return `${path} has a key with a lone UTF-16 surrogate`;
    const why = illFormed((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    if (why !== null) return why;
  }
  return null;
}
