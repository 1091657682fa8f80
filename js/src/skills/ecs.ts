// ecs.* skills: transform components and named component tags.

import { z } from "zod";
import type { Quat, Vec3 } from "../ecs/world.ts";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "./registry.ts";
import { Scale3, UnitQuat, WorldVec3 } from "./schemas.ts";

const Tag = z.string().min(1).max(64);

const ecsUpdateComponentInput = z
  .strictObject({
    entity: z.string(),
    component: z.enum(["position", "rotation", "scale"]),
    value: z.array(z.number()).min(3).max(4),
  })
  .transform((i, c) => {
    const want = i.component === "rotation" ? 4 : 3;
    if (i.value.length !== want) {
      c.addIssue({ code: "custom", path: ["value"], message: `${i.component} needs exactly ${want} numbers, got ${i.value.length}` });
      return z.NEVER;
    }
    const schema = i.component === "position" ? WorldVec3 : i.component === "rotation" ? UnitQuat : Scale3;
    const parsed = schema.safeParse(i.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) c.addIssue({ ...issue, code: "custom", path: ["value", ...issue.path], message: `${i.component}: ${issue.message}` });
      return z.NEVER;
    }
    return { ...i, value: parsed.data as number[] };
  });
const ecsUpdateComponentOutput = z.object({ ok: z.boolean() });
const ecsAddComponentInput = z.strictObject({ entity: z.string(), component: Tag });
const ecsAddComponentOutput = z.object({ ok: z.boolean() });
const ecsRemoveComponentInput = z.strictObject({ entity: z.string(), component: Tag });
const ecsRemoveComponentOutput = z.object({ ok: z.boolean() });

export function ecsSkills({ entities }: { entities: Entities }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "ecsSkills" };
  return [
    {
      name: "ecs.updateComponent",
      version: "1.0.0",
      category: "ecs",
      description: "Set an entity's position [x,y,z], rotation quaternion [x,y,z,w], or scale [x,y,z].",
      input: ecsUpdateComponentInput,
      output: ecsUpdateComponentOutput,
      permissions: ["ecs.modify"],
      source,
      handler: ({ entity, component, value }) => {
        const entry = entities.require(entity);
        if (component === "position") entities.setTransform(entry, { position: value as Vec3 });
        else if (component === "rotation") entities.setTransform(entry, { rotation: value as Quat });
        else entities.setTransform(entry, { scale: value as Vec3 });
        return { ok: true };
      },
    },
    {
      name: "ecs.addComponent",
      version: "1.0.0",
      category: "ecs",
      description: "Tag an entity with a named component (e.g. 'target', 'hostile').",
      input: ecsAddComponentInput,
      output: ecsAddComponentOutput,
      permissions: ["ecs.modify"],
      source,
      handler: ({ entity, component }, ctx) => {
        const entry = entities.require(entity);
        if (!entry.tags.has(component)) {
          entry.tags.add(component);
          entities.touch(entry);
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
      input: ecsRemoveComponentInput,
      output: ecsRemoveComponentOutput,
      permissions: ["ecs.modify"],
      source,
      handler: ({ entity, component }, ctx) => {
        const entry = entities.require(entity);
        const had = entry.tags.delete(component);
        if (had) {
          entities.touch(entry);
          ctx.emit("ecs.component.removed", { entity, component });
        }
        return { ok: had };
      },
    },
  ];
}
