// ecs.* skills: transform components and named component tags.

import { z } from "../../build/zod.bundle.mjs";
import type { Quat, Vec3 } from "../ecs/world.ts";
import { requireEntity, setTransform } from "../scene/entities.ts";
import type { SkillDefinition, SkillRegistry } from "./registry.ts";

const Tag = z.string().min(1).max(64);

export function ecsSkills(_registry: SkillRegistry): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "ecsSkills" };
  return [
    {
      name: "ecs.updateComponent",
      version: "1.0.0",
      category: "ecs",
      description: "Set an entity's position [x,y,z], rotation quaternion [x,y,z,w], or scale [x,y,z].",
      input: z
        .strictObject({
          entity: z.string(),
          component: z.enum(["position", "rotation", "scale"]),
          value: z.array(z.number()).min(3).max(4),
        })
        .superRefine((i, c) => {
          const want = i.component === "rotation" ? 4 : 3;
          if (i.value.length !== want) {
            c.addIssue({ code: "custom", path: ["value"], message: `${i.component} needs exactly ${want} numbers, got ${i.value.length}` });
          }
        }),
      output: z.object({ ok: z.boolean() }),
      permissions: ["ecs.modify"],
      source,
      handler: ({ entity, component, value }, ctx) => {
        const entry = requireEntity(ctx.world, entity);
        if (component === "position") setTransform(ctx.world, entry, { position: value as Vec3 });
        else if (component === "rotation") setTransform(ctx.world, entry, { rotation: value as Quat });
        else setTransform(ctx.world, entry, { scale: value as Vec3 });
        return { ok: true };
      },
    },
    {
      name: "ecs.addComponent",
      version: "1.0.0",
      category: "ecs",
      description: "Tag an entity with a named component (e.g. 'target', 'hostile').",
      input: z.strictObject({ entity: z.string(), component: Tag }),
      output: z.object({ ok: z.boolean() }),
      permissions: ["ecs.modify"],
      source,
      handler: ({ entity, component }, ctx) => {
        const entry = requireEntity(ctx.world, entity);
        if (!entry.tags.has(component)) {
          entry.tags.add(component);
          ctx.emit("ecs.component.added", { entity, component });
        }
        return { ok: true };
      },
    },
    {
      name: "ecs.removeComponent",
      version: "1.0.0",
      category: "ecs",
      description: "Remove a named component tag from an entity.",
      input: z.strictObject({ entity: z.string(), component: Tag }),
      output: z.object({ ok: z.boolean() }),
      permissions: ["ecs.modify"],
      source,
      handler: ({ entity, component }, ctx) => {
        const entry = requireEntity(ctx.world, entity);
        const had = entry.tags.delete(component);
        if (had) ctx.emit("ecs.component.removed", { entity, component });
        return { ok: had };
      },
    },
  ];
}
