// physics.* skills over native Rapier.

import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "./registry.ts";
import { Distance, Vec3, WorldVec3 } from "./schemas.ts";

export function physicsSkills({ entities }: { entities: Entities }): SkillDefinition[] {
  const { physics, world } = entities;
  const source = { module: import.meta.url, factory: "physicsSkills" };
  return [
    {
      name: "physics.applyImpulse",
      version: "1.0.0",
      category: "physics",
      description: "Apply an impulse [x,y,z] to an entity's dynamic body (wakes it).",
      input: z.strictObject({ entity: z.string(), impulse: WorldVec3 }),
      output: z.object({ ok: z.boolean() }),
      permissions: ["physics.write"],
      source,
      handler: ({ entity, impulse }) => {
        const entry = entities.require(entity);
        if (entry.body === undefined) throw engineError("handler_error", `entity ${entity} has no physics body`);
        physics.applyImpulse(entry.body, impulse);
        return { ok: true };
      },
    },
    {
      name: "physics.raycast",
      version: "1.0.0",
      category: "physics",
      description: "Cast a ray from origin along direction; returns the first hit (distance, point, entity).",
      input: z.strictObject({
        origin: WorldVec3,
        direction: WorldVec3.refine((d) => Math.hypot(...d) > 0, { message: "direction must be non-zero" }),
        maxDistance: Distance.default(1000),
      }),
      output: z.object({ hit: z.boolean(), distance: z.number().optional(), point: Vec3.optional(), entity: z.string().optional() }),
      permissions: ["physics.read"],
      source,
      handler: ({ origin, direction, maxDistance }) => {
        const hit = physics.raycast(origin, direction, maxDistance);
        if (!hit) return { hit: false };
        const entity = hit.eid === null ? undefined : world.entities.getByEid(hit.eid)?.id;
        return { hit: true, distance: hit.distance, point: hit.point, ...(entity ? { entity } : {}) };
      },
    },
    {
      name: "physics.collisionEvents",
      version: "1.0.0",
      category: "physics",
      description: "Drain physics collision start/stop events, mapped to entity ids where available.",
      input: z.strictObject({}),
      output: z.object({
        events: z.array(
          z.object({
            started: z.boolean(),
            bodyA: z.number().int(),
            bodyB: z.number().int(),
            entityA: z.string().optional(),
            entityB: z.string().optional(),
            point: Vec3.nullable(),
            normal: Vec3.nullable(),
          }),
        ),
      }),
      permissions: ["physics.read"],
      source,
      handler: () => {
        const table = world.entities;
        const idOf = (eid: number | null) => (eid === null ? undefined : table.getByEid(eid)?.id);
        return {
          events: physics.drainCollisions().map((e) => {
            const entityA = idOf(e.eidA);
            const entityB = idOf(e.eidB);
            return {
              started: e.started,
              bodyA: e.a,
              bodyB: e.b,
              ...(entityA ? { entityA } : {}),
              ...(entityB ? { entityB } : {}),
              point: e.point,
              normal: e.normal,
            };
          }),
        };
      },
    },
  ];
}
