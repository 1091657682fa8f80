// Reading a family's saved state back (from a snapshot, a world file, a
// checkpoint or a save): parsed whole against its schema first, so a
// malformed save is refused before anything changes.

import type { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";

export function parseSaved<S extends z.ZodType>(schema: S, saved: unknown, resource: string): z.output<S> {
  const parsed = schema.safeParse(saved);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw engineError("invalid_input", `saved ${resource} is malformed at ${issue.path.join(".") || "the top"}: ${issue.message}`);
  }
  return parsed.data;
}
