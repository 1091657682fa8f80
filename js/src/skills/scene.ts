// scene.* skills: whole entities in the world — made from any shape, with
// any body and colliders, tagged, shown or hidden, and described the way
// other clients redraw them.

import { z } from "zod";
import type { EntityEntry } from "../ecs/entity-table.ts";
import { describeEntity, type EntityDescription } from "../scene/describe.ts";
import type { CreateEntityOptions, Entities } from "../scene/entities.ts";
import type { SpatialIndex } from "../spatial/spatial-index.ts";
import { EntitySpec, type EntitySpecValue, Tag, Tags } from "./entity-spec.ts";
import type { SkillDefinition } from "./registry.ts";
import { Distance, Vec3, WorldVec3 } from "./schemas.ts";
import { loadGltf } from "./three.ts";

/** Makes one entity from a validated spec, loading its model first when it is a mesh. */
export async function createFromSpec(entities: Entities, spec: EntitySpecValue, overrides: Partial<CreateEntityOptions> = {}): Promise<EntityEntry> {
  const options = { ...spec, ...overrides } as CreateEntityOptions;
  if (spec.shape !== "mesh" || spec.asset === undefined) return entities.create(options);
  const { object, resource } = await loadGltf(spec.asset);
  return entities.create(options, object, resource);
}

/** The output schema of an entity description (see scene/describe.ts and docs/entities.md). */
export const EntityDescriptionSchema: z.ZodType<EntityDescription> = z.object({
  entity: z.string(),
  look: z.record(z.string(), z.unknown()).nullable(),
  tags: z.array(z.string()),
  transform: z.object({ position: Vec3, rotation: z.tuple([z.number(), z.number(), z.number(), z.number()]), scale: Vec3 }),
  body: z.record(z.string(), z.unknown()).nullable(),
  joints: z.array(z.record(z.string(), z.unknown())),
}) as unknown as z.ZodType<EntityDescription>;

const sceneCreateEntityOutput = z.object({ entity: z.string() });
const sceneDestroyEntityInput = z.strictObject({ entity: z.string() });
const sceneDestroyEntityOutput = z.object({ removed: z.boolean() });
const sceneQueryEntitiesInput = z.strictObject({ near: WorldVec3.optional(), radius: Distance.optional(), tag: Tag.optional(), tags: Tags.min(1).optional() });
const sceneQueryEntitiesOutput = z.object({ entities: z.array(z.object({ entity: z.string(), position: Vec3, distance: z.number(), tags: z.array(z.string()) })) });
const sceneDescribeInput = z.strictObject({ entity: z.string() });
const sceneSetTagsInput = z.strictObject({ entity: z.string(), tags: Tags });
const sceneSetTagsOutput = z.object({ tags: z.array(z.string()) });
const sceneSetVisibleInput = z.strictObject({ entity: z.string(), visible: z.boolean() });
const sceneSetVisibleOutput = z.object({ ok: z.boolean() });

export function sceneSkills({ entities, spatial }: { entities: Entities; spatial: SpatialIndex }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "sceneSkills" };
  return [
    {
      name: "scene.createEntity",
      version: "1.1.0",
      category: "scene",
      description:
        "Create an entity: a box (size a number or [x,y,z]), sphere, capsule, cylinder, cone, plane, torus, or mesh (a glTF asset), with a colour, transform and tags, optionally a body (dynamic, static or kinematic) whose colliders match the shape unless overridden (collider, heightfield ground included, or colliders for a compound body), a sensor, CCD and collision groups. Returns its entity id.",
      input: EntitySpec,
      output: sceneCreateEntityOutput,
      permissions: ["scene.write"],
      examples: [
        { note: "A non-cubic box that falls", input: { shape: "box", size: [2, 0.5, 1], color: 0xcc3333, position: [0, 3, 0], dynamic: true } },
        { note: "A static cylinder (a pillar)", input: { shape: "cylinder", radius: 0.4, height: 3, position: [4, 1.5, 0], static: true } },
        { note: "A floor from a glTF model, collided as its triangles", input: { shape: "mesh", asset: "floor_tiles", static: true, collider: "trimesh" } },
        { note: "Rolling ground: a plane whose collider is a 3×3 heightfield rising along x", input: { shape: "plane", size: [8, 0, 8], static: true, collider: { type: "heightfield", heights: [0, 1, 2, 0, 1, 2, 0, 1, 2], rows: 3, cols: 3 } } },
        { note: "A hidden trigger zone", input: { shape: "box", size: [2, 2, 2], position: [0, 1, 5], sensor: true, visible: false, tags: ["trigger"] } },
        { note: "A table: one static body of five colliders", input: { shape: "box", size: [2, 0.1, 2], position: [0, 1, 0], static: true, colliders: [{ type: "box", size: [2, 0.1, 2] }, { type: "box", size: [0.1, 1, 0.1], offset: [-0.9, -0.5, -0.9] }, { type: "box", size: [0.1, 1, 0.1], offset: [0.9, -0.5, 0.9] }] } },
        { note: "A fast ball in collision group 2 that ignores group 1", input: { shape: "sphere", radius: 0.1, dynamic: true, ccd: true, groups: { belongsTo: [2], collidesWith: [0, 2] } } },
      ],
      source,
      handler: async (input, ctx) => {
        const entry = await createFromSpec(entities, input);
        ctx.emit("scene.entity.created", { entity: entry.id, shape: input.shape, position: input.position, body: entry.body ?? null });
        return { entity: entry.id };
      },
    },
    {
      name: "scene.destroyEntity",
      version: "1.0.0",
      category: "scene",
      description: "Destroy an entity and free its scene object and physics body (and the body's joints).",
      input: sceneDestroyEntityInput,
      output: sceneDestroyEntityOutput,
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
      version: "1.1.0",
      category: "scene",
      description: "List entities, optionally filtered by tag (or tags, all of which it must carry) and/or within a radius of a point. Returns ids, positions, distances, tags.",
      input: sceneQueryEntitiesInput,
      output: sceneQueryEntitiesOutput,
      permissions: ["scene.read"],
      examples: [
        { note: "Everything within 10 m of the origin", input: { near: [0, 0, 0], radius: 10 } },
        { note: "Every entity tagged both tree and oak", input: { tags: ["tree", "oak"] } },
      ],
      source,
      handler: ({ near, radius, tag, tags }) => {
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
        // Made only when filtering: most queries name no tag.
        const wanted: readonly string[] | undefined = tag === undefined ? tags : tags === undefined ? [tag] : [tag, ...tags];
        const found = [];
        for (const h of hits) {
          const entry = world.entities.getByEid(h.eid)!;
          if (wanted !== undefined && !wanted.every((t) => entry.tags.has(t))) continue;
          found.push({ entity: entry.id, position: world.position(h.eid), distance: h.distance, tags: [...entry.tags] });
        }
        return { entities: found };
      },
    },
    {
      name: "scene.describe",
      version: "1.0.0",
      category: "scene",
      description:
        "Describe an entity completely, as another client would redraw it: its look (shape and dimensions, colour, roughness/metalness, named material, visibility), tags, transform, body (type, colliders, sensor, CCD, groups, motion) and joints.",
      input: sceneDescribeInput,
      output: EntityDescriptionSchema,
      permissions: ["scene.read"],
      examples: [{ note: "Everything about ent_3", input: { entity: "ent_3" } }],
      source,
      handler: ({ entity }) => describeEntity(entities, entities.require(entity)),
    },
    {
      name: "scene.setTags",
      version: "1.0.0",
      category: "scene",
      description: "Replace an entity's tags (the labels scene.queryEntities filters by).",
      input: sceneSetTagsInput,
      output: sceneSetTagsOutput,
      permissions: ["scene.write"],
      examples: [{ note: "Mark a door as locked", input: { entity: "ent_4", tags: ["door", "locked"] } }],
      source,
      handler: ({ entity, tags }, ctx) => {
        const entry = entities.require(entity);
        entities.setTags(entry, tags);
        ctx.emit("scene.entity.tagged", { entity, tags: [...entry.tags] });
        return { tags: [...entry.tags] };
      },
    },
    {
      name: "scene.setVisible",
      version: "1.0.0",
      category: "scene",
      description: "Show or hide an entity. A hidden entity is not drawn but keeps its body: it still collides (and a hidden sensor is a trigger zone).",
      input: sceneSetVisibleInput,
      output: sceneSetVisibleOutput,
      permissions: ["scene.write"],
      examples: [{ note: "Hide an entity (it still collides)", input: { entity: "ent_5", visible: false } }],
      source,
      handler: ({ entity, visible }, ctx) => {
        entities.restyle(entities.require(entity), { visible });
        ctx.emit("scene.entity.visibility", { entity, visible });
        return { ok: true };
      },
    },
  ];
}
