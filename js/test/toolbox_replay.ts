// limina: --deterministic
// The builder's toolbox is world state end to end: a session that builds
// with every shape (a glTF mesh and a compound body among them), sensors,
// collision groups, CCD, joints and their motors, prefabs, tags and
// visibility, sets the kill plane and loses a body to it, is saved as a
// world file mid-way and exported; `limina replay` rebuilds it from the
// start and from the world file, matching every checkpoint's digest, and the
// world file restores into a new session with the saved digest.
import { loadWorld, readTrace, saveWorld, traceDir, waitSteps, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";

const digestLine = (stdout: string) => /^digest (sha256:[0-9a-f]{64})$/m.exec(stdout)?.[1];

test("a toolbox-built world replays from its log and from its world file to every recorded digest", async () => {
  const session = new WorldSession({ checkpointEvery: 20 });
  const mcp = session.mcp();
  mcp.initialize({ agentId: "builder", sessionId: "sess_toolbox", profile: "builder.readWrite" });
  const call = <T = { entity: string }>(tool: string, input: Record<string, unknown>) => mcp.mustCall<T>(tool, input);
  await call("physics.setKillPlane", { y: -15, action: "remove" });
  await call("scene.createEntity", { shape: "mesh", asset: "crate", position: [3, 0, 3], static: true });
  await call("scene.createEntity", { shape: "plane", size: [20, 0, 20], static: true, color: 0x556655, groups: { belongsTo: [1] } });
  const post = (await call("scene.createEntity", { shape: "cylinder", radius: 0.05, height: 2, position: [-3, 1, 0], static: true })).entity;
  const door = (await call("scene.createEntity", { shape: "box", size: [1, 1.8, 0.08], position: [-2.45, 1, 0], dynamic: true })).entity;
  const { joint } = await call<{ joint: string }>("physics.createJoint", { type: "revolute", entityA: post, entityB: door, anchor: [-3, 1, 0], limits: [-1.5, 1.5], motor: { targetVelocity: 0.8, maxForce: 40 } });
  await call("scene.createEntity", { shape: "box", size: [2, 2, 2], position: [0, 1, -4], sensor: true, visible: false, tags: ["zone"] });
  await call("scene.definePrefab", { name: "dumbbell", entities: [
    { shape: "sphere", radius: 0.3, position: [-0.5, 0, 0], dynamic: true },
    { shape: "sphere", radius: 0.3, position: [0.5, 0, 0], dynamic: true },
  ], joints: [{ type: "fixed", a: 0, b: 1 }] });
  for (const [x, z] of [[0, -4], [2, -4], [-2, 4]]) await call("scene.instantiate", { prefab: "dumbbell", position: [x, 3, z], rotationEuler: [0, x, 0] });
  const tumbler = (await call("scene.createEntity", { shape: "torus", radius: 0.5, tube: 0.15, position: [5, 2, -3], dynamic: true, ccd: true, colliders: [{ type: "box", size: [1.3, 0.3, 1.3] }, { type: "sphere", radius: 0.2, offset: [0, 0.3, 0] }] })).entity;
  await waitSteps(30);
  const world = `/tmp/limina-toolbox-replay-${Date.now()}.world`;
  // The snapshot is taken when saveWorld is called; the file is written off the loop.
  const atSave = session.digest();
  await saveWorld(session, world);
  // After the world file: a push off the floor, a motor change, a body type, tags, visibility, a rope.
  const stray = (await call("scene.createEntity", { shape: "cone", radius: 0.3, height: 0.6, position: [9, 1, 9], dynamic: true })).entity;
  await call("physics.setVelocity", { entity: stray, linear: [4, 2, 4], angular: [1, 0, 0] });
  await call("physics.setMotor", { joint, targetPosition: -1, stiffness: 30, damping: 6 });
  await call("physics.setBodyType", { entity: tumbler, type: "kinematic" });
  await call("scene.setTags", { entity: door, tags: ["door", "front"] });
  await call("scene.setVisible", { entity: post, visible: false });
  await call("three.setMaterial", { entity: post, color: 0x884422 });
  await call("physics.createJoint", { type: "rope", entityA: post, entityB: tumbler, length: 9 });
  await waitSteps(150);
  const removed = session.tracer.history().filter((e) => e.type === "physics.killPlane").map((e) => (e.payload as { entity: string }).entity);
  assertEquals(removed, [stray], "the stray cone fell out of the world and was removed");
  const exported = await mcp.mustCall<{ name: string }>("trace.export", { name: "toolbox-replay" });
  const trace = `${traceDir()}/${exported.name}`;
  const recorded = readTrace(trace).filter((e) => e.type === "world.checkpoint").map((e) => e.payload as { digest: string });
  assert(recorded.length >= 8, `checkpoints every 20 ticks (${recorded.length})`);

  const whole = await Limina.run({ cmd: Limina.execPath, args: ["replay", trace] });
  assertEquals(whole.code, 0, whole.stdout + whole.stderr);
  assert(whole.stdout.includes(`${recorded.length} checkpoints matched`), whole.stdout);
  assertEquals(digestLine(whole.stdout), recorded.at(-1)!.digest);
  const resumed = await Limina.run({ cmd: Limina.execPath, args: ["replay", trace, "--snapshot", world] });
  assertEquals(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert(resumed.stdout.includes("8 calls replayed"), `only the calls after the world file: ${resumed.stdout}`);
  assertEquals(digestLine(resumed.stdout), recorded.at(-1)!.digest);

  // The world file restores into a new session: joints, sensors, prefabs, looks and the kill plane with it.
  const reborn = new WorldSession({ simulate: false });
  assert(await loadWorld(reborn, world));
  assertEquals(reborn.digest(), atSave);
  assertEquals(reborn.prefabs.get("dumbbell")?.entities.length, 2);
  assertEquals(reborn.physics.killPlane(), { y: -15, respawn: false });
  assertEquals(reborn.physics.jointHandles().length, 4, "the door's hinge and each dumbbell's weld");
  session.dispose();
  reborn.dispose();
  await Limina.run({ cmd: "rm", args: [trace, world] });
});
