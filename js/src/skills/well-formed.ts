// What the world log can hold: every string (and object key) well-formed
// UTF-16 — no lone surrogate — and nesting at most MAX_DEPTH levels deep.
// Input is checked where it enters (the MCP transports, the registry), so an
// event the trace chain could not canonicalise is never admitted.

/** Deepest nesting accepted in any input: objects and arrays inside each other. */
export const MAX_DEPTH = 64;

/** Why `value` cannot enter the world, naming the path of the first offending part; null when it can. */
export function illFormed(value: unknown, path: string): string | null {
  // Every call on the wire passes here: check first, and name the path only for what fails.
  return wellFormed(value, 0) ? null : why(value, path, 0);
}

function wellFormed(value: unknown, depth: number): boolean {
  if (typeof value === "string") return value.isWellFormed();
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!wellFormed(value[i], depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (!key.isWellFormed() || !wellFormed((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function why(value: unknown, path: string, depth: number): string | null {
  if (typeof value === "string") return value.isWellFormed() ? null : `${path} holds a lone UTF-16 surrogate`;
  if (typeof value !== "object" || value === null) return null;
  if (depth >= MAX_DEPTH) return `${path} is nested deeper than ${MAX_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = why(value[i], `${path}[${i}]`, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const key in value) {
    if (!key.isWellFormed()) return `${path} has a key with a lone UTF-16 surrogate`;
    const found = why((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
