// Joints between entities' bodies: a hinge turned by its motor to a target
// and held inside its limits, a slider, a fixed joint, a ball joint, a rope
// and a spring, each behaving as it should; joints removed (alone, or with
// their body); bad joints refused with nothing made; and joints surviving a
// snapshot bit for bit.
import { createWorldSession, restoreBytes, snapshotBytes, type WorldSession } from "limina";
import { assert, assertAlmostEquals, assertEquals, test } from "limina/testing";
import { refused, value } from "./support/results.ts";
import { builder, builderWorld, pos, steps } from "./support/toolbox.ts";

const dist = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

interface Joint {
  joint: string;
  type: string;
  entityA: string;
  entityB: string;
  position: number | null;
  limits: [number, number] | null;
  motor: Record<string, number | null> | null;
}

/** A door on a post: the post static, the door a dynamic slab hinged on the post's axis. */
async function door(w: ReturnType<typeof builderWorld>, extra: Record<string, unknown> = {}) {
  const post = await w.make({ shape: "cylinder", radius: 0.05, height: 2, position: [0, 1, 0], static: true, color: 0x553311 });
  const slab = await w.make({ shape: "box", size: [1, 2, 0.08], position: [0.55, 1, 0], dynamic: true, color: 0x996633 });
  const { joint } = await w.call<{ joint: string }>("physics.createJoint", { type: "revolute", entityA: post, entityB: slab, anchor: [0, 1, 0], axis: [0, 1, 0], ...extra });
  return { post, slab, joint };
}

test("a hinge's motor turns a door to its target, and its limits stop it", async () => {
  const w = builderWorld();
  const { slab, joint } = await door(w, { motor: { targetVelocity: 1.5, maxForce: 200 } });
  assertEquals((await w.call<Joint>("physics.getJoint", { joint })).position, 0, "a hinge starts at angle 0");
  steps(w.s, 60);
  const turning = await w.call<Joint>("physics.getJoint", { joint });
  assert(turning.position! > 0.3, `the motor turned the door (${turning.position} rad)`);
  // The door's edge swings round the post: its centre stays 0.55 m from the hinge axis.
  const c = pos(w.s, slab);
  assertAlmostEquals(Math.hypot(c[0], c[2]), 0.55, 0.01);
  assertAlmostEquals(c[1], 1, 0.01, "gravity does not pull a hinged door down");
  // Driven to a position: it settles there.
  const set = await w.call<Joint>("physics.setMotor", { joint, targetPosition: -1.2, stiffness: 80, damping: 12 });
  assertEquals([set.motor!.targetPosition, set.motor!.stiffness, set.motor!.damping], [Math.fround(-1.2), 80, 12]);
  steps(w.s, 300);
  assertAlmostEquals((await w.call<Joint>("physics.getJoint", { joint })).position!, -1.2, 0.02);
  // Switched off, the door stays where it is (no gravity about a vertical axis).
  const off = await w.call<Joint>("physics.setMotor", { joint, enabled: false });
  assertEquals(off.motor, null);

  // Limited to [-0.5, 0.5], a motor pushing past them stops at the limit.
  const v = builderWorld();
  const limited = await door(v, { limits: [-0.5, 0.5], motor: { targetVelocity: 3, maxForce: 500 } });
  steps(v.s, 240);
  const j = await v.call<Joint>("physics.getJoint", { joint: limited.joint });
  assertEquals(j.limits, [-0.5, 0.5]);
  assertAlmostEquals(j.position!, 0.5, 0.03, "held at the upper limit");
});

test("a slider moves along its axis only; a fixed joint carries its body rigidly; a ball joint keeps its distance", async () => {
  const w = builderWorld();
  const rail = await w.make({ shape: "box", size: [6, 0.1, 0.1], position: [0, 2, 0], static: true });
  const carriage = await w.make({ shape: "box", size: 0.3, position: [0, 2, 0], dynamic: true });
  const { joint } = await w.call<{ joint: string }>("physics.createJoint", { type: "prismatic", entityA: rail, entityB: carriage, axis: [1, 0, 0], limits: [-2, 2], motor: { targetPosition: 1.5, stiffness: 60, damping: 15 } });
  steps(w.s, 240);
  const p = pos(w.s, carriage);
  assertAlmostEquals(p[0], 1.5, 0.03, "driven along x to its target");
  assertAlmostEquals(p[1], 2, 0.01, "not down");
  assertAlmostEquals((await w.call<Joint>("physics.getJoint", { joint })).position!, 1.5, 0.03);

  // A box welded to a falling ball falls with it, keeping its offset.
  const ball = await w.make({ shape: "sphere", radius: 0.3, position: [10, 5, 0], dynamic: true });
  const flag = await w.make({ shape: "box", size: [0.1, 0.5, 0.1], position: [10, 5.6, 0], dynamic: true });
  await w.call("physics.createJoint", { type: "fixed", entityA: ball, entityB: flag });
  await w.call("physics.setVelocity", { entity: ball, linear: [2, 0, 0] });
  steps(w.s, 30);
  const [b, f] = [pos(w.s, ball), pos(w.s, flag)];
  assert(b[1] < 4.5 && b[0] > 10.5, `the ball moved (${b})`);
  assertAlmostEquals(dist(b, f), 0.6, 0.01);

  // A pendulum bob on a ball joint swings, always 2 m from its pivot.
  const pivot = await w.make({ shape: "sphere", radius: 0.05, position: [20, 5, 0], static: true });
  const bob = await w.make({ shape: "sphere", radius: 0.2, position: [22, 5, 0], dynamic: true });
  await w.call("physics.createJoint", { type: "spherical", entityA: pivot, entityB: bob, anchor: [20, 5, 0] });
  let lowest = Infinity;
  for (let i = 0; i < 60; i++) {
    steps(w.s, 1);
    lowest = Math.min(lowest, pos(w.s, bob)[1]);
    assertAlmostEquals(dist(pos(w.s, bob), [20, 5, 0]), 2, 0.02);
  }
  assertAlmostEquals(lowest, 3, 0.05, "it swung through the bottom");
});

test("a rope holds a body at most its length away; a spring pulls it back toward its rest length", async () => {
  const w = builderWorld();
  const hook = await w.make({ shape: "sphere", radius: 0.05, position: [0, 10, 0], static: true });
  const load = await w.make({ shape: "box", size: 0.4, position: [0, 9, 0], dynamic: true });
  const { joint } = await w.call<{ joint: string }>("physics.createJoint", { type: "rope", entityA: hook, entityB: load, length: 3 });
  steps(w.s, 120);
  assertAlmostEquals(pos(w.s, load)[1], 7, 0.05, "it fell until the rope was taut");
  assertAlmostEquals((await w.call<Joint>("physics.getJoint", { joint })).position!, 3, 0.05);

  const anchor = await w.make({ shape: "sphere", radius: 0.05, position: [10, 10, 0], static: true });
  const weight = await w.make({ shape: "sphere", radius: 0.2, position: [10, 9, 0], dynamic: true, linearDamping: 2 });
  await w.call("physics.createJoint", { type: "spring", entityA: anchor, entityB: weight, stiffness: 200, damping: 5 });
  steps(w.s, 300);
  // At rest the spring stretches by m·g/k below its 1 m rest length.
  const mass = (4 / 3) * Math.PI * 0.2 ** 3;
  assertAlmostEquals(pos(w.s, weight)[1], 9 - (mass * 9.81) / 200, 0.02);
});

test("removing a joint frees the bodies; destroying a body removes its joints", async () => {
  const w = builderWorld();
  const { slab, joint } = await door(w);
  assertEquals(await w.call("physics.removeJoint", { joint }), { removed: true });
  refused(await w.raw("physics.getJoint", { joint }), "not_found", joint);
  steps(w.s, 30);
  assert(pos(w.s, slab)[1] < 0.5, "the door falls once unhinged");
  const again = await door(w);
  assertEquals((await w.call<{ joints: Joint[] }>("scene.describe", { entity: again.post })).joints.map((j) => j.joint), [again.joint]);
  await w.call("scene.destroyEntity", { entity: again.slab });
  refused(await w.raw("physics.setMotor", { joint: again.joint, targetVelocity: 1 }), "not_found", again.joint);
  assertEquals((await w.call<{ joints: Joint[] }>("scene.describe", { entity: again.post })).joints, []);
});

test("bad joints are refused precisely and make nothing", async () => {
  const w = builderWorld();
  const a = await w.make({ static: true });
  const b = await w.make({ dynamic: true, position: [2, 0, 0] });
  const ghost = await w.make({ position: [4, 0, 0] });
  const cases: [Record<string, unknown>, string, string][] = [
    [{ type: "revolute", entityA: a, entityB: ghost }, "handler_error", "has no physics body"],
    [{ type: "revolute", entityA: a, entityB: "ent_99" }, "not_found", "ent_99"],
    [{ type: "revolute", entityA: a, entityB: a }, "invalid_input", "two different bodies"],
    [{ type: "fixed", entityA: a, entityB: b, axis: [1, 0, 0] }, "invalid_input", "no axis"],
    [{ type: "spherical", entityA: a, entityB: b, motor: { targetVelocity: 1 } }, "invalid_input", "only revolute and prismatic"],
    [{ type: "revolute", entityA: a, entityB: b, limits: [1, -1] }, "invalid_input", "limits"],
    [{ type: "revolute", entityA: a, entityB: b, axis: [0, 0, 0] }, "invalid_input", "axis"],
    [{ type: "revolute", entityA: a, entityB: b, length: 2 }, "invalid_input", "only rope and spring"],
    [{ type: "hinge", entityA: a, entityB: b }, "invalid_input", "type"],
  ];
  for (const [input, code, message] of cases) refused(await w.raw("physics.createJoint", input), code, message);
  assertEquals(w.s.physics.jointHandles(), []);
  refused(await w.raw("physics.removeJoint", { joint: "jnt_1" }), "not_found", "jnt_1");
  refused(await w.raw("physics.setMotor", { joint: "nonsense", targetVelocity: 1 }), "not_found", "nonsense");
  const { joint } = await w.call<{ joint: string }>("physics.createJoint", { type: "rope", entityA: a, entityB: b });
  refused(await w.raw("physics.setMotor", { joint, targetVelocity: 1 }), "invalid_input", "only revolute and prismatic");
});

test("joints and their motors survive a snapshot: the restored world steps bit for bit like the original", async () => {
  const w = builderWorld();
  await w.make({ shape: "box", size: [20, 1, 20], position: [0, -0.5, 0], static: true });
  const { joint } = await door(w, { limits: [-2, 2], motor: { targetVelocity: 1, maxForce: 50 } });
  const hook = await w.make({ shape: "sphere", radius: 0.05, position: [5, 5, 0], static: true });
  const load = await w.make({ shape: "box", size: 0.4, position: [6, 5, 0], dynamic: true });
  await w.call("physics.createJoint", { type: "rope", entityA: hook, entityB: load, length: 2 });
  steps(w.s, 45);
  const restored = createWorldSession({ simulate: false });
  await restoreBytes(restored, snapshotBytes(w.s));
  assertEquals(restored.digest(), w.s.digest());
  for (let i = 0; i < 120; i++) {
    w.s.step(1 / 60);
    restored.step(1 / 60);
  }
  assertEquals(restored.digest(), w.s.digest());
  const call = (s: WorldSession) => s.registry.invoke("physics.getJoint", { joint }, builder);
  assertEquals(value(await call(restored)), value(await call(w.s)));
  // New joints get the same next handle on both.
  const again = async (s: WorldSession) => value<{ joint: string }>(await s.registry.invoke("physics.createJoint", { type: "fixed", entityA: hook, entityB: load }, builder)).joint;
  assertEquals(await again(restored), await again(w.s));
});
