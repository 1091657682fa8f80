// Zod schemas shared by several skill modules.

import { z } from "zod";

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
