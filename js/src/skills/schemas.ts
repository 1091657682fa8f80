// Zod schemas shared by several skill modules.

import { z } from "../../build/zod.bundle.mjs";
import { engineError } from "../errors.ts";

/**
 * The handler of a skill whose contract (schema, permissions) is live but
 * whose subsystem has not landed: an allowed call fails saying so.
 */
export function notYet(skill: string, needs: string): never {
  throw engineError("unavailable", `${skill} is not available yet: it needs ${needs}, which has not landed`);
}

export const Vec3 = z.tuple([z.number(), z.number(), z.number()]);
export const Quat = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export const EventSchema = z.object({
  id: z.string(),
  type: z.string(),
  actorId: z.string(),
  threadId: z.string(),
  parentEventId: z.string().nullable(),
  causedBy: z.array(z.string()),
  timestamp: z.string(),
  payload: z.unknown(),
  integrity: z.object({ hash: z.string(), previousHash: z.string().nullable() }).optional(),
});
