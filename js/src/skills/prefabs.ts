// scene.* prefab skills: define a group of entities (and joints) once, place
// it many times.

import { z } from "zod";
import type { Quat } from "../ecs/world.ts";
import type { Entities } from "../scene/entities.ts";
import type { PrefabDefinition, Prefabs } from "../scene/prefabs.ts";
import { MAX_PREFAB_ENTITIES } from "../scene/prefabs.ts";
import { EntitySpec, Tags } from "./entity-spec.ts";
import type { SkillDefinition } from "./registry.ts";
import { UnitQuat, WorldVec3 } from "./schemas.ts";
import { createFromSpec } from "./scene.ts";
import * as THREE from "three";

const PrefabName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a prefab name is 1–64 letters, digits, '_', '.' or '-'");
const Amount = z.number().min(-1e6).max(1e6);
const Local = z.tuple([z.number().min(-1e4).max(1e4), z.number().min(-1e4).max(1e4), z.number().min(-1e4).max(1e4)]);

const PrefabJoint = z.strictObject({
  type: z.enum(["fixed", "revolute", "prismatic", "spherical", "rope", "spring"]),
  a: z.number().int().min(0).describe("index of the first entity in entities"),
  b: z.number().int().min(0).describe("index of the second"),
  anchor: Local.optional().describe("in the prefab's frame"),
  axis: Local.refine((a) => Math.hypot(...a) > 0, { message: "axis must be non-zero" }).optional().describe("in the prefab's frame"),
  limits: z.tuple([Amount, Amount]).refine(([lo, hi]) => lo <= hi, { message: "limits are [min, max]" }).optional(),
  length: z.number().gt(0).max(1e4).optional(),
  stiffness: z.number().min(0).max(1e9).optional(),
  damping: z.number().min(0).max(1e9).optional(),
  motor: z.strictObject({
    targetVelocity: Amount.optional(),
    targetPosition: Amount.optional(),
    stiffness: z.number().min(0).max(1e9).optional(),
    damping: z.number().min(0).max(1e9).optional(),
    maxForce: z.number().min(0).max(1e9).optional(),
  }).optional(),
  contacts: z.boolean().optional(),
});

const sceneDefinePrefabInput = z.strictObject({
  name: PrefabName,
  entities: z.array(EntitySpec).min(1).max(MAX_PREFAB_ENTITIES),
  joints: z.array(PrefabJoint).max(MAX_PREFAB_ENTITIES).default([]),
  replace: z.boolean().default(false).describe("redefine an existing prefab (instances already placed stay as they are)"),
});
const sceneDefinePrefabOutput = z.object({ prefab: z.string(), entities: z.number().int(), joints: z.number().int() });
const sceneInstantiateInput = z
  .strictObject({
    prefab: PrefabName,
    position: WorldVec3.default([0, 0, 0]),
    rotation: UnitQuat.optional(),
    rotationEuler: z.tuple([z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3)]).optional(),
    scale: z.number().gt(0).max(1e3).default(1),
    tags: Tags.max(8).optional().describe("extra tags for every entity of the instance"),
  })
  .refine((i) => !(i.rotation && i.rotationEuler), { message: "give rotation or rotationEuler, not both", path: ["rotationEuler"] });
const sceneInstantiateOutput = z.object({ instance: z.string(), entities: z.array(z.string()), joints: z.array(z.string()) });
const sceneListPrefabsInput = z.strictObject({ name: PrefabName.optional() });
const sceneListPrefabsOutput = z.object({ prefabs: z.array(z.object({ name: z.string(), entities: z.array(z.unknown()), joints: z.array(z.unknown()) })) });

export function prefabSkills({ entities, prefabs }: { entities: Entities; prefabs: Prefabs }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "prefabSkills" };
  return [
    {
      name: "scene.definePrefab",
      version: "1.0.0",
      category: "scene",
      description:
        "Define a prefab: a named group of entities (scene.createEntity specs, positioned in the prefab's own frame) and joints between them (by entity index), to place many times with scene.instantiate — a house, a tree, a door on its hinge.",
      input: sceneDefinePrefabInput,
      output: sceneDefinePrefabOutput,
      permissions: ["scene.write"],
      examples: [
        { note: "A street lamp: a post and a bulb", input: { name: "lamp", entities: [{ shape: "cylinder", radius: 0.05, height: 2, position: [0, 1, 0], static: true, color: 0x222222 }, { shape: "sphere", radius: 0.2, position: [0, 2.15, 0], static: true, color: 0xffeeaa }] } },
        { note: "A door on its frame, hinged, its motor holding it shut", input: { name: "door", entities: [{ shape: "box", size: [0.1, 2.2, 0.1], position: [0, 1.1, 0], static: true }, { shape: "box", size: [1, 2, 0.06], position: [0.55, 1.1, 0], dynamic: true }], joints: [{ type: "revolute", a: 0, b: 1, anchor: [0, 1.1, 0], axis: [0, 1, 0], limits: [0, 1.6], motor: { targetPosition: 0, stiffness: 40, damping: 8 } }] } },
      ],
      source,
      handler: ({ name, entities: specs, joints, replace }, ctx) => {
        prefabs.define({ name, entities: specs, joints } as PrefabDefinition, replace);
        ctx.emit("scene.prefab.defined", { prefab: name, entities: specs.length, joints: joints.length });
        return { prefab: name, entities: specs.length, joints: joints.length };
      },
    },
    {
      name: "scene.instantiate",
      version: "1.0.0",
      category: "scene",
      description:
        "Place an instance of a prefab at a position, rotation (quaternion, or rotationEuler in radians) and uniform scale. Each entity is tagged prefab:<name> and instance:<id>. Returns the instance id, its entity ids (in the prefab's order) and joint ids.",
      input: sceneInstantiateInput,
      output: sceneInstantiateOutput,
      permissions: ["scene.write"],
      examples: [
        { note: "A lamp at (8, 0, -8)", input: { prefab: "lamp", position: [8, 0, -8] } },
        { note: "A door turned a quarter, half again as big", input: { prefab: "door", position: [3, 0, 2], rotationEuler: [0, 1.5708, 0], scale: 1.5 } },
      ],
      source,
      handler: async ({ prefab, position, rotation, rotationEuler, scale, tags }, ctx) => {
        let q: Quat = rotation ?? [0, 0, 0, 1];
        if (rotationEuler) {
          const e = new THREE.Quaternion().setFromEuler(new THREE.Euler(rotationEuler[0], rotationEuler[1], rotationEuler[2], "XYZ"));
          q = [e.x, e.y, e.z, e.w];
        }
        const placed = await prefabs.instantiate(prefab, { position, rotation: q, scale, tags }, (spec) => createFromSpec(entities, spec as z.output<typeof EntitySpec>));
        ctx.emit("scene.prefab.instantiated", { prefab, ...placed, position });
        return placed;
      },
    },
    {
      name: "scene.listPrefabs",
      version: "1.0.0",
      category: "scene",
      description: "The prefabs this world defines: each one's name, entity count, joint count and entity specs.",
      input: sceneListPrefabsInput,
      output: sceneListPrefabsOutput,
      permissions: ["scene.read"],
      examples: [{ note: "Every prefab", input: {} }],
      source,
      handler: ({ name }) => ({ prefabs: prefabs.list().filter((p) => name === undefined || p.name === name) }),
    },
  ];
}
