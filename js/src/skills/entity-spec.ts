// The entity a builder asks for, as a typed contract: its shape and
// dimensions, look, transform, body, colliders and tags. scene.createEntity
// takes one; a prefab holds a list of them. The shape's own rules (which
// dimensions each shape takes, capsule proportions, …) are checked by
// normalizeShape when the entity is made, so every surface reports them alike.

import * as THREE from "three";
import { z } from "zod";
import { SHAPES } from "../scene/shapes.ts";
import { Scale3, UnitQuat, WorldVec3 } from "./schemas.ts";

export const Color = z.number().int().min(0).max(0xffffff);
/** A length in metres. */
const Length = z.number().gt(0).max(1e4);
/** A size: one number for all three axes, or [x, y, z] (a plane's y is 0). */
const Size = z.union([Length, z.tuple([z.number().min(0).max(1e4), z.number().min(0).max(1e4), z.number().min(0).max(1e4)])]);

export const Tag = z.string().min(1).max(64);
/** Most tags one entity carries. */
export const MAX_TAGS = 32;
export const Tags = z.array(Tag).max(MAX_TAGS);

/** The collider types a body can use (COLLIDER_BUILDERS in scene/colliders.ts builds each). */
export const COLLIDER_TYPES = ["box", "sphere", "capsule", "cylinder", "cone", "convexHull", "trimesh", "heightfield"] as const;

/** Most heights one heightfield collider takes over the wire (a 256×256 grid). */
export const MAX_COLLIDER_HEIGHTS = 65_536;
const GridSide = z.number().int().min(2).max(MAX_COLLIDER_HEIGHTS / 2);

export const ColliderSpec = z.strictObject({
  type: z.enum(COLLIDER_TYPES),
  size: Size.optional().describe("box: its size; heightfield: [x, ignored, z] it spans; fitted to the visible shape when absent"),
  radius: Length.optional(),
  height: Length.optional(),
  offset: WorldVec3.optional().describe("its centre in the entity's frame"),
  rotation: UnitQuat.optional().describe("its rotation in the entity's frame, quaternion [x, y, z, w]"),
  sensor: z.boolean().optional(),
  heights: z.array(z.number().min(-1e4).max(1e4)).min(4).max(MAX_COLLIDER_HEIGHTS).optional().describe("heightfield: rows × cols heights in metres, row-major from -z to +z, each row from -x to +x"),
  rows: GridSide.optional().describe("heightfield: rows along z"),
  cols: GridSide.optional().describe("heightfield: columns along x"),
});

const Group = z.number().int().min(0).max(31);
export const GroupsSpec = z.strictObject({
  belongsTo: z.array(Group).max(32).optional().describe("the groups it is in (default all)"),
  collidesWith: z.array(Group).max(32).optional().describe("the groups it collides with (default all)"),
});

/** Euler angles in radians, XYZ order. */
const Euler = z.tuple([z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3), z.number().min(-1e3).max(1e3)]);

export const EntitySpec = z
  .strictObject({
    shape: z.enum(SHAPES).default("box"),
    size: Size.default(1).describe("the bounding size: one number, or [x, y, z] (box edges; sphere diameter; [diameter, height, diameter] for capsule, cylinder and cone; [width, 0, depth] for a plane; a torus's outer diameter; explicit radius, height and tube win; not for a mesh)"),
    radius: Length.optional().describe("sphere, capsule, cylinder, cone; a torus's ring radius"),
    height: Length.optional().describe("capsule (caps included), cylinder, cone"),
    tube: Length.optional().describe("a torus's tube radius"),
    asset: z.string().min(1).max(256).optional().describe("mesh: the glTF model's asset id"),
    // White for primitives: a default the schema states, not one Zod fills in, so a mesh keeps its model's colours.
    color: Color.optional().meta({ default: 0xffffff, description: "0xRRGGBB (default white; a mesh keeps its own colours unless given one)" }),
    roughness: z.number().min(0).max(1).optional(),
    metalness: z.number().min(0).max(1).optional(),
    visible: z.boolean().default(true),
    position: WorldVec3.default([0, 0, 0]),
    rotation: UnitQuat.optional().describe("quaternion [x, y, z, w]"),
    rotationEuler: Euler.optional().describe("Euler angles in radians (XYZ), instead of rotation"),
    scale: Scale3.optional(),
    dynamic: z.boolean().default(false).describe("a body moved by physics"),
    static: z.boolean().default(false).describe("a body that never moves"),
    kinematic: z.boolean().default(false).describe("a body moved only by setting its transform; it pushes dynamic bodies"),
    friction: z.number().min(0).max(10).default(0.5),
    restitution: z.number().min(0).max(2).default(0),
    density: z.number().gt(0).max(1e5).optional(),
    linearDamping: z.number().min(0).max(1e3).optional(),
    angularDamping: z.number().min(0).max(1e3).optional(),
    collider: z.union([z.enum(COLLIDER_TYPES), ColliderSpec]).optional().describe("one collider instead of the shape's own"),
    colliders: z.array(ColliderSpec).min(1).max(64).optional().describe("several colliders: a compound body"),
    sensor: z.boolean().default(false).describe("reports bodies entering and leaving it (physics.collisionEvents, physics.sensorContents, the world log) and stops nothing"),
    ccd: z.boolean().default(false).describe("continuous collision detection for fast bodies"),
    groups: GroupsSpec.optional(),
    tags: Tags.optional(),
  })
  .refine((i) => [i.dynamic, i.static, i.kinematic].filter(Boolean).length <= 1, { message: "an entity's body is one of dynamic, static or kinematic", path: ["static"] })
  .refine((i) => !(i.collider && i.colliders), { message: "give collider or colliders, not both", path: ["colliders"] })
  .refine((i) => !(i.rotation && i.rotationEuler), { message: "give rotation or rotationEuler, not both", path: ["rotationEuler"] })
  .transform(({ rotationEuler, ...i }) => {
    if (!rotationEuler) return i;
    const q = new THREE.Quaternion().setFromEuler(new THREE.Euler(...rotationEuler, "XYZ"));
    return { ...i, rotation: [q.x, q.y, q.z, q.w] as [number, number, number, number] };
  });

export type EntitySpecInput = z.input<typeof EntitySpec>;
export type EntitySpecValue = z.output<typeof EntitySpec>;
