// scene.* skills: whole entities in the world.

import { z } from "zod";
import type { Entities } from "../scene/entities.ts";
import type { SpatialIndex } from "../spatial/spatial-index.ts";
import type { SkillDefinition } from "./registry.ts";
import { Distance, Vec3, WorldVec3 } from "./schemas.ts";

const Color = z.number().int().min(0).max(0xffffff);

export function sceneSkills({ entities, spatial }: { entities: Entities; spatial: SpatialIndex }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "sceneSkills" };
  return [
    {
      name: "scene.createEntity",
      version: "1.0.0",
      category: "scene",
      description: "Create a renderable entity (box or sphere) at a position, optionally with a dynamic physics body. Returns its entity id.",
      input: z
        .strictObject({
          shape: z.enum(["box", "sphere"]).default("box"),
          collider: z.enum(["box", "sphere", "capsule"]).optional(),
          size: z.number().gt(0).max(50).default(1),
          color: Color.default(0xffffff),
          position: WorldVec3.default([0, 0, 0]),
          dynamic: z.boolean().default(false),
          static: z.boolean().default(false),
          friction: z.number().min(0).max(10).default(0.5),
          restitution: z.number().min(0).max(2).default(0),
        })
        .refine((i) => !(i.dynamic && i.static), { message: "an entity is either dynamic or static, not both", path: ["static"] }),
      output: z.object({ entity: z.string() }),
      permissions: ["scene.write"],
      source,
      handler: (input, ctx) => {
        const entry = entities.create(input);
        ctx.emit("scene.entity.created", { entity: entry.id, shape: input.shape, position: input.position, body: entry.body ?? null });
        return { entity: entry.id };
      },
    },
    {
      name: "scene.destroyEntity",
      version: "1.0.0",
      category: "scene",
      description: "Destroy an entity and free its scene object and physics body.",
      input: z.strictObject({ entity: z.string() }),
      output: z.object({ removed: z.boolean() }),
      permissions: ["scene.write"],
      source,
      handler: ({ entity }, ctx) => {
        const removed = entities.destroy(entity);
        if (removed) ctx.emit("scene.entity.destroyed", { entity });
        return { removed };
      },
    },
    {
      name: "scene.queryEntities",
      version: "1.0.0",
      category: "scene",
      description: "List entities, optionally filtered by tag and/or within a radius of a point. Returns ids, positions, distances.",
      input: z.strictObject({ near: WorldVec3.optional(), radius: Distance.optional(), tag: z.string().optional() }),
      output: z.object({ entities: z.array(z.object({ entity: z.string(), position: Vec3, distance: z.number() })) }),
      permissions: ["scene.read"],
      source,
      handler: ({ near, radius, tag }) => {
        const { world } = entities;
        const center = near ?? [0, 0, 0];
        let hits: { eid: number; distance: number }[];
        if (radius !== undefined) {
          hits = spatial.near(center, radius);
        } else {
          hits = [];
          for (const e of world.entities.entries()) {
            const p = world.position(e.eid);
            hits.push({ eid: e.eid, distance: Math.hypot(p[0] - center[0], p[1] - center[1], p[2] - center[2]) });
          }
          hits.sort((a, b) => a.distance - b.distance);
        }
        const found = [];
        for (const h of hits) {
          const entry = world.entities.getByEid(h.eid)!;
          if (tag !== undefined && !entry.tags.has(tag)) continue;
          found.push({ entity: entry.id, position: world.position(h.eid), distance: h.distance });
        }
        return { entities: found };
      },
    },
  ];
}
