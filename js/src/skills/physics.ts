// physics.* skills over native Rapier: impulses, velocities and body types,
// raycasts, collision and sensor events, joints and their motors, and the
// world's kill plane.

import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { JointDesc, Motor } from "../../../crates/limina-physics/js/physics.ts";
import type { EntityEntry } from "../ecs/entity-table.ts";
import { describeJoints, jointId, type JointDescription } from "../scene/describe.ts";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "./registry.ts";
import { Distance, Vec3, WorldVec3 } from "./schemas.ts";

const JOINT_TYPES = ["fixed", "revolute", "prismatic", "spherical", "rope", "spring"] as const;

/** A finite number of moderate size (velocities, targets, forces). */
const Amount = z.number().min(-1e6).max(1e6);
const NonNegative = z.number().min(0).max(1e9);

const MotorInput = z.strictObject({
  targetVelocity: Amount.optional().describe("rad/s for a hinge, m/s for a slider (default 0)"),
  targetPosition: Amount.optional().describe("radians for a hinge, metres for a slider: the motor pulls toward it"),
  stiffness: NonNegative.optional().describe("pull toward targetPosition (default 50 with one, else 0)"),
  damping: NonNegative.optional().describe("how firmly it holds targetVelocity (default 10)"),
  maxForce: NonNegative.optional().describe("the most torque (N·m) or force (N) it applies (default unlimited)"),
});

const JointOutput = z.object({
  joint: z.string(),
  type: z.enum(JOINT_TYPES),
  entityA: z.string().nullable(),
  entityB: z.string().nullable(),
  position: z.number().nullable(),
  limits: z.tuple([z.number(), z.number()]).nullable(),
  motor: z.record(z.string(), z.unknown()).nullable(),
});

/** The native handle behind a `jnt_N` id, or `not_found`. */
function jointHandle(entities: Entities, joint: string): number {
  const m = /^jnt_(\d{1,10})$/.exec(joint);
  const handle = m ? Number(m[1]) : NaN;
  if (!entities.physics.jointHandles().includes(handle)) throw engineError("not_found", `unknown joint ${JSON.stringify(joint)} (never created or already removed)`);
  return handle;
}

function bodyOf(entry: EntityEntry): number {
  if (entry.body === undefined) throw engineError("handler_error", `entity ${entry.id} has no physics body`);
  return entry.body;
}

function describeJoint(entities: Entities, handle: number): JointDescription {
  return describeJoints(entities).find((j) => j.joint === jointId(handle))!;
}

const physicsApplyImpulseInput = z.strictObject({ entity: z.string(), impulse: WorldVec3 });
const physicsApplyImpulseOutput = z.object({ ok: z.boolean() });
const physicsRaycastInput = z.strictObject({
  origin: WorldVec3,
  direction: WorldVec3.refine((d) => Math.hypot(...d) > 0, { message: "direction must be non-zero" }),
  maxDistance: Distance.default(1000),
});
const physicsRaycastOutput = z.object({ hit: z.boolean(), distance: z.number().optional(), point: Vec3.optional(), entity: z.string().optional() });
const physicsCollisionEventsInput = z.strictObject({});
const physicsCollisionEventsOutput = z.object({
  events: z.array(
    z.object({
      started: z.boolean(),
      sensor: z.boolean(),
      bodyA: z.number().int(),
      bodyB: z.number().int(),
      entityA: z.string().optional(),
      entityB: z.string().optional(),
      point: Vec3.nullable(),
      normal: Vec3.nullable(),
    }),
  ),
  dropped: z.number().int(),
});
const physicsSensorContentsInput = z.strictObject({ entity: z.string() });
const physicsSensorContentsOutput = z.object({ entities: z.array(z.string()) });
const physicsSetVelocityInput = z
  .strictObject({ entity: z.string(), linear: WorldVec3.optional(), angular: WorldVec3.optional() })
  .refine((i) => i.linear || i.angular, { message: "give linear and/or angular" });
const physicsSetVelocityOutput = z.object({ ok: z.boolean() });
const physicsSetBodyTypeInput = z.strictObject({ entity: z.string(), type: z.enum(["dynamic", "static", "kinematic"]) });
const physicsSetBodyTypeOutput = z.object({ ok: z.boolean() });
const physicsCreateJointInput = z.strictObject({
  type: z.enum(JOINT_TYPES),
  entityA: z.string(),
  entityB: z.string(),
  anchor: WorldVec3.optional().describe("where they are joined (default entityB's centre); a rope or spring holds entityA there"),
  axis: WorldVec3.refine((a) => Math.hypot(...a) > 0, { message: "axis must be non-zero" }).optional().describe("revolute, prismatic: the axis (default [0,1,0])"),
  limits: z.tuple([Amount, Amount]).refine(([lo, hi]) => lo <= hi, { message: "limits are [min, max]" }).optional(),
  length: z.number().gt(0).max(1e5).optional().describe("rope: its maximum length; spring: its rest length (default: the distance now)"),
  stiffness: NonNegative.optional().describe("spring: N/m (default 100)"),
  damping: NonNegative.optional().describe("spring: N·s/m (default 5)"),
  motor: MotorInput.optional(),
  contacts: z.boolean().default(false).describe("whether the joined bodies still collide with each other"),
});
const physicsCreateJointOutput = z.object({ joint: z.string() });
const physicsRemoveJointInput = z.strictObject({ joint: z.string() });
const physicsRemoveJointOutput = z.object({ removed: z.boolean() });
const physicsSetMotorInput = MotorInput.extend({ joint: z.string(), enabled: z.boolean().default(true) });
const physicsGetJointInput = z.strictObject({ joint: z.string() });
const physicsSetKillPlaneInput = z.strictObject({ y: z.number().min(-1e5).max(1e5).default(-500), action: z.enum(["remove", "respawn", "off"]).default("remove") });
const physicsSetKillPlaneOutput = z.object({ killPlane: z.object({ y: z.number(), action: z.enum(["remove", "respawn"]) }).nullable() });

export function physicsSkills({ entities }: { entities: Entities }): SkillDefinition[] {
  const { physics, world } = entities;
  const source = { module: import.meta.url, factory: "physicsSkills" };
  return [
    {
      name: "physics.applyImpulse",
      version: "1.0.0",
      category: "physics",
      description: "Apply an impulse [x,y,z] to an entity's dynamic body (wakes it).",
      input: physicsApplyImpulseInput,
      output: physicsApplyImpulseOutput,
      permissions: ["physics.write"],
      source,
      handler: ({ entity, impulse }) => {
        physics.applyImpulse(bodyOf(entities.require(entity)), impulse);
        return { ok: true };
      },
    },
    {
      name: "physics.raycast",
      version: "1.0.0",
      category: "physics",
      description: "Cast a ray from origin along direction; returns the first hit (distance, point, entity). Sensors do not stop rays.",
      input: physicsRaycastInput,
      output: physicsRaycastOutput,
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
      version: "1.1.0",
      category: "physics",
      description:
        "Drain the collision start/stop events since the last call, mapped to entity ids where available. Sensor events (sensor: true) say a body entered (started) or left a sensor, which is entityA. Keeps the latest 4096; dropped counts older ones lost.",
      input: physicsCollisionEventsInput,
      output: physicsCollisionEventsOutput,
      permissions: ["physics.read"],
      examples: [{ note: "What touched and what entered sensors since the last call", input: {} }],
      source,
      handler: () => entities.drainContacts(),
    },
    {
      name: "physics.sensorContents",
      version: "1.0.0",
      category: "physics",
      description: "The entities inside a sensor now (bodies overlapping its sensor colliders, as of the last step).",
      input: physicsSensorContentsInput,
      output: physicsSensorContentsOutput,
      permissions: ["physics.read"],
      examples: [{ note: "Who is in the trigger zone now", input: { entity: "ent_6" } }],
      source,
      handler: ({ entity }) => {
        const byBody = new Map<number, string>();
        for (const e of world.entities.entries()) if (e.body !== undefined) byBody.set(e.body, e.id);
        return { entities: physics.sensorContents(bodyOf(entities.require(entity))).flatMap((b) => byBody.get(b) ?? []) };
      },
    },
    {
      name: "physics.setVelocity",
      version: "1.0.0",
      category: "physics",
      description: "Set a dynamic body's linear velocity [x,y,z] (m/s) and/or angular velocity [x,y,z] (rad/s) (wakes it).",
      input: physicsSetVelocityInput,
      output: physicsSetVelocityOutput,
      permissions: ["physics.write"],
      examples: [{ note: "Throw a ball up and spin it", input: { entity: "ent_2", linear: [0, 6, 2], angular: [0, 0, 3] } }],
      source,
      handler: ({ entity, linear, angular }) => {
        const body = bodyOf(entities.require(entity));
        if (physics.bodyState(body).kind !== "dynamic") throw engineError("invalid_input", `entity ${entity} is not dynamic: only dynamic bodies have a velocity to set (move a kinematic one with three.setTransform)`);
        if (linear) physics.setLinearVelocity(body, linear);
        if (angular) physics.setAngularVelocity(body, angular);
        return { ok: true };
      },
    },
    {
      name: "physics.setBodyType",
      version: "1.0.0",
      category: "physics",
      description: "Change how an entity's body moves: dynamic (by physics), static (never) or kinematic (only by its transform, pushing dynamic bodies). It keeps its pose and starts at rest.",
      input: physicsSetBodyTypeInput,
      output: physicsSetBodyTypeOutput,
      permissions: ["physics.define"],
      examples: [{ note: "Freeze a falling crate where it is", input: { entity: "ent_7", type: "static" } }],
      source,
      handler: ({ entity, type }, ctx) => {
        entities.setBodyType(entities.require(entity), type);
        ctx.emit("physics.body.type", { entity, type });
        return { ok: true };
      },
    },
    {
      name: "physics.createJoint",
      version: "1.0.0",
      category: "physics",
      description:
        "Join two entities' bodies: fixed, revolute (a hinge about axis, with limits in radians and a motor), prismatic (a slider along axis, limits in metres, motor), spherical (a ball joint), rope (at most length apart) or spring (pulled toward length). anchor and axis are in world space as the bodies stand now. Returns the joint id.",
      input: physicsCreateJointInput,
      output: physicsCreateJointOutput,
      permissions: ["physics.define"],
      examples: [
        { note: "A door hinged on its post, opening to 90°, driven by a motor", input: { type: "revolute", entityA: "ent_3", entityB: "ent_4", anchor: [-6, 1.1, 4], axis: [0, 1, 0], limits: [0, 1.5708], motor: { targetVelocity: 1.2, maxForce: 60 } } },
        { note: "A lamp hanging from a hook on a 2 m rope", input: { type: "rope", entityA: "ent_8", entityB: "ent_9", length: 2 } },
        { note: "A drawer sliding out up to 40 cm", input: { type: "prismatic", entityA: "ent_10", entityB: "ent_11", axis: [0, 0, 1], limits: [0, 0.4] } },
      ],
      source,
      handler: (input, ctx) => {
        const { entityA, entityB, ...rest } = input;
        const desc: JointDesc = { ...rest, bodyA: bodyOf(entities.require(entityA)), bodyB: bodyOf(entities.require(entityB)) };
        const joint = jointId(physics.createJoint(desc));
        ctx.emit("physics.joint.created", { joint, type: input.type, entityA, entityB });
        return { joint };
      },
    },
    {
      name: "physics.removeJoint",
      version: "1.0.0",
      category: "physics",
      description: "Remove a joint; the bodies move freely again.",
      input: physicsRemoveJointInput,
      output: physicsRemoveJointOutput,
      permissions: ["physics.define"],
      examples: [{ note: "Unhinge a door", input: { joint: "jnt_1" } }],
      source,
      handler: ({ joint }, ctx) => {
        physics.removeJoint(jointHandle(entities, joint));
        ctx.emit("physics.joint.removed", { joint });
        return { removed: true };
      },
    },
    {
      name: "physics.setMotor",
      version: "1.0.0",
      category: "physics",
      description:
        "Drive a revolute or prismatic joint: toward targetVelocity, and toward targetPosition when given (stiffness, damping), with at most maxForce; enabled: false switches the motor off.",
      input: physicsSetMotorInput,
      output: JointOutput,
      permissions: ["physics.write"],
      examples: [
        { note: "Swing the door open to 1.2 rad and hold it there", input: { joint: "jnt_1", targetPosition: 1.2, stiffness: 50, damping: 10 } },
        { note: "Switch the motor off", input: { joint: "jnt_1", enabled: false } },
      ],
      source,
      handler: ({ joint, enabled, ...motor }, ctx) => {
        const handle = jointHandle(entities, joint);
        physics.setMotor(handle, enabled ? (motor as Motor) : null);
        ctx.emit("physics.joint.motor", { joint, motor: enabled ? motor : null });
        return describeJoint(entities, handle);
      },
    },
    {
      name: "physics.getJoint",
      version: "1.0.0",
      category: "physics",
      description: "A joint's type, the entities it joins, its position (a hinge's angle in radians, a slider's offset, a rope's or spring's length), limits and motor.",
      input: physicsGetJointInput,
      output: JointOutput,
      permissions: ["physics.read"],
      examples: [{ note: "How far the door is open", input: { joint: "jnt_1" } }],
      source,
      handler: ({ joint }) => describeJoint(entities, jointHandle(entities, joint)),
    },
    {
      name: "physics.setKillPlane",
      version: "1.0.0",
      category: "physics",
      description:
        "Set where dynamic bodies fall out of the world (below y, or beyond the ±100 km extent) and what happens to them: remove (the entity is destroyed) or respawn (put back where it was created, at rest); off lets them fall forever. Each case is logged as physics.killPlane. Default: remove below y = -500.",
      input: physicsSetKillPlaneInput,
      output: physicsSetKillPlaneOutput,
      permissions: ["physics.define"],
      examples: [
        { note: "Respawn whatever falls below y = -50", input: { y: -50, action: "respawn" } },
        { note: "Let bodies fall forever", input: { action: "off" } },
      ],
      source,
      handler: ({ y, action }, ctx) => {
        physics.setKillPlane(action === "off" ? null : { y, respawn: action === "respawn" });
        const killPlane = action === "off" ? null : { y, action };
        ctx.emit("physics.killPlane.set", { killPlane });
        return { killPlane };
      },
    },
  ];
}
