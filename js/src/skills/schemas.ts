// Zod schemas shared by several skill modules.

import { z } from "zod";

/** Any three finite numbers (what the world reports). */
export const Vec3 = z.tuple([z.number(), z.number(), z.number()]);
export const Quat = z.tuple([z.number(), z.number(), z.number(), z.number()]);

// What may enter the world: finite numbers within its extent, checked
// before any effect so a float32 column, a Rapier body and the GPU never
// see Infinity, NaN or a value they cannot hold.

/** The world's extent: ±100 km on each axis, in metres. */
export const WORLD_EXTENT = 1e5;
/** The largest scale factor on an axis. */
export const MAX_SCALE = 1e4;

const Coord = z.number().min(-WORLD_EXTENT).max(WORLD_EXTENT);
/** A point, offset, direction or impulse: every component within ±WORLD_EXTENT. */
export const WorldVec3 = z.tuple([Coord, Coord, Coord]);
/** A scale: every factor in (0, MAX_SCALE]. */
export const Scale3 = z.tuple([z.number().gt(0).max(MAX_SCALE), z.number().gt(0).max(MAX_SCALE), z.number().gt(0).max(MAX_SCALE)]);
/** A rotation quaternion [x, y, z, w]: any non-zero length, normalised on the way in. */
export const UnitQuat = z
  .tuple([z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3)])
  .refine((q) => Math.hypot(...q) > 1e-6, { message: "a rotation quaternion must be non-zero" })
  .transform((q) => {
    const n = Math.hypot(...q);
    return [q[0] / n, q[1] / n, q[2] / n, q[3] / n] as [number, number, number, number];
  });
/** A distance or radius: positive, at most the world's diagonal. */
export const Distance = z.number().gt(0).max(4 * WORLD_EXTENT);

/** A vertical field of view, in degrees. */
export const Fov = z.number().min(1).max(170);
/** A camera pose as callers give it: where it stands, the point it looks at, optionally its fov. */
export const CameraPoseInput = z
  .strictObject({ position: WorldVec3, target: WorldVec3, fov: Fov.optional() })
  .refine((c) => Math.hypot(c.target[0] - c.position[0], c.target[1] - c.position[1], c.target[2] - c.position[2]) >= 1e-3, {
    message: "the target must be at least 1 mm from the position",
    path: ["target"],
  });
/** A camera pose as the engine reports it. */
export const CameraPose = z.object({ position: Vec3, target: Vec3, fov: z.number() });

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
