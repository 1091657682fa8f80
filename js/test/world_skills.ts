// World skills over the real world: SoA, scene graph, physics bodies, events.
import { assert, assertAlmostEquals, assertEquals, assertRejects, assertThrows, test } from "limina/testing";
import * as THREE from "three";
import { createWorldSession, type InvokeResult, readAsset, resolveAsset, resolveProfile, World } from "limina";

const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const READER = { agentId: "r1", sessionId: "s2", permissions: resolveProfile("system.readonly"), profile: "system.readonly" };
const PLAYER = { agentId: "p1", sessionId: "s3", permissions: resolveProfile("player.limited"), profile: "player.limited" };

function session() {
  const s = createWorldSession({ simulate: false });
  const { world, scene, physics, lighting, tracer, agents } = s;
  const call = (tool: string, input: unknown, base = BUILDER) => s.registry.invoke(tool, input, base);
  const create = async (input: Record<string, unknown> = {}) => (value(await call("scene.createEntity", input)) as { entity: string }).entity;
  const entry = (id: string) => world.entities.get(id);
  const object = (id: string) => entry(id)?.mesh as THREE.Object3D;
  const types = (r: InvokeResult) => r.metadata.eventsEmitted;
  const step = (dt: number) => s.step(dt);
  return { world, scene, physics, lighting, tracer, agents, call, create, entry, object, types, step };
}

/** The value of a call that must succeed. */
function value(r: InvokeResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

function expectError(r: InvokeResult, code: string, message: string): void {
  assert(!r.ok, `expected ${code}, got success: ${JSON.stringify(r.ok && r.value)}`);
  assertEquals(r.error.code, code, r.error.message);
  assert(r.error.message.includes(message), `${r.error.message} should mention ${message}`);
}

test("scene.createEntity: mesh in the scene graph, SoA transform, entity id, optional body", async () => {
  const { call, entry, object, world, scene, physics, types } = session();
  const r = await call("scene.createEntity", { shape: "sphere", size: 2, color: 0xff0000, position: [1, 5, -2], dynamic: true, restitution: 0.5 });
  const id = (value(r) as { entity: string }).entity;
  assertEquals(types(r), ["scene.entity.created", "skill.executed"]);
  const e = entry(id)!;
  assertEquals(world.position(e.eid), [1, 5, -2]);
  const mesh = object(id) as THREE.Mesh;
  assert(mesh.parent === scene, "in the scene graph");
  assert(mesh.geometry instanceof THREE.SphereGeometry && mesh.geometry.parameters.radius === 1);
  assertEquals((mesh.material as THREE.MeshStandardMaterial).color.getHex(), 0xff0000);
  const body = physics.bodyState(e.body!);
  assertEquals([body.kind, body.eid], ["dynamic", e.eid]);
  const plain = (value(await call("scene.createEntity", {})) as { entity: string }).entity;
  assertEquals(entry(plain)!.body, undefined, "no body unless asked");
  assert(object(plain) instanceof THREE.Mesh && (object(plain) as THREE.Mesh).geometry instanceof THREE.BoxGeometry);
});

test("scene.createEntity: invalid input, forbidden, capacity", async () => {
  const { call, world, scene, physics } = session();
  for (const [input, msg] of [
    [{ size: 0 }, "size"],
    [{ size: 1e5 }, "size"],
    [{ color: 0x1000000 }, "color"],
    [{ position: [0, 0] }, "position"],
    [{ friction: 11 }, "friction"],
    [{ dynamic: true, static: true }, "one of dynamic, static or kinematic"],
    [{ shape: "hexagon" }, "shape"],
    [{ colour: 1 }, "colour"],
  ] as const) {
    expectError(await call("scene.createEntity", input), "invalid_input", msg);
  }
  expectError(await call("scene.createEntity", {}, READER), "forbidden", "missing permission: scene.write");
  assertEquals(world.entities.size, 0);
  for (let i = 0; i < World.capacity; i++) world.spawn();
  const children = scene.children.length;
  expectError(await call("scene.createEntity", { dynamic: true }), "capacity_exceeded", "MAX_ENTITIES");
  assertEquals(scene.children.length, children, "no mesh left behind");
  assertEquals(physics.bodyCount(), 0, "no body left behind");
});

test("scene.destroyEntity frees mesh, body and id for good", async () => {
  const { call, create, entry, physics } = session();
  const id = await create({ dynamic: true });
  const e = entry(id)!;
  const mesh = e.mesh as THREE.Mesh;
  const r = await call("scene.destroyEntity", { entity: id });
  assertEquals(value(r), { removed: true });
  assertEquals(entry(id), undefined);
  assertEquals(mesh.parent, null);
  assertEquals(physics.bodyCount(), 0);
  assertEquals(value(await call("scene.destroyEntity", { entity: id })), { removed: false });
  expectError(await call("scene.destroyEntity", {}), "invalid_input", "entity");
  expectError(await call("scene.destroyEntity", { entity: id }, READER), "forbidden", "scene.write");
  const next = await create();
  assert(next !== id, "ids are never reused");
});

test("scene.queryEntities: by radius (native index) and tag, with distances", async () => {
  const { call, create } = session();
  const a = await create({ position: [1, 0, 0] });
  const b = await create({ position: [0, 3, 0] });
  const c = await create({ position: [10, 0, 0] });
  await call("ecs.addComponent", { entity: c, component: "target" });
  const near = value(await call("scene.queryEntities", { near: [0, 0, 0], radius: 5 }, READER)) as { entities: { entity: string; distance: number }[] };
  assertEquals(near.entities.map((e) => [e.entity, e.distance]), [[a, 1], [b, 3]]);
  const tagged = value(await call("scene.queryEntities", { tag: "target" }, READER)) as { entities: { entity: string; position: number[]; distance: number }[] };
  assertEquals(tagged.entities, [{ entity: c, position: [10, 0, 0], distance: 10, tags: ["target"] }]);
  const both = value(await call("scene.queryEntities", { near: [9, 0, 0], radius: 2, tag: "target" }, READER)) as { entities: unknown[] };
  assertEquals(both.entities.length, 1);
  const all = value(await call("scene.queryEntities", {}, READER)) as { entities: unknown[] };
  assertEquals(all.entities.length, 3);
  expectError(await call("scene.queryEntities", { radius: -1 }), "invalid_input", "radius");
  expectError(await call("scene.queryEntities", {}, { ...READER, permissions: new Set<string>() }), "forbidden", "scene.read");
});

test("ecs.updateComponent writes SoA, scene object and physics body", async () => {
  const { call, create, entry, object, world, physics } = session();
  const id = await create({ dynamic: true });
  const e = entry(id)!;
  value(await call("ecs.updateComponent", { entity: id, component: "position", value: [4, 5, 6] }));
  assertEquals(world.position(e.eid), [4, 5, 6]);
  assertEquals(object(id).position.toArray(), [4, 5, 6]);
  assertEquals(physics.bodyState(e.body!).position, [4, 5, 6]);
  value(await call("ecs.updateComponent", { entity: id, component: "rotation", value: [0, 0, 2, 0] }));
  assertEquals(world.rotation(e.eid), [0, 0, 1, 0], "normalised");
  assertEquals(physics.bodyState(e.body!).rotation, [0, 0, 1, 0]);
  value(await call("ecs.updateComponent", { entity: id, component: "scale", value: [2, 2, 2] }));
  assertEquals(object(id).scale.toArray(), [2, 2, 2]);
  expectError(await call("ecs.updateComponent", { entity: id, component: "rotation", value: [0, 0, 1] }), "invalid_input", "rotation needs exactly 4");
  expectError(await call("ecs.updateComponent", { entity: id, component: "position", value: [0, 0, 1, 1] }), "invalid_input", "position needs exactly 3");
  expectError(await call("ecs.updateComponent", { entity: id, component: "rotation", value: [0, 0, 0, 0] }), "invalid_input", "non-zero");
  expectError(await call("ecs.updateComponent", { entity: "ent_999", component: "scale", value: [1, 1, 1] }), "not_found", "ent_999");
  expectError(await call("ecs.updateComponent", { entity: id, component: "scale", value: [1, 1, 1] }, READER), "forbidden", "ecs.modify");
  assertEquals(object(id).scale.toArray(), [2, 2, 2], "denied: unchanged");
});

test("ecs.addComponent / removeComponent manage tags and emit events", async () => {
  const { call, create, entry, types } = session();
  const id = await create();
  const add = await call("ecs.addComponent", { entity: id, component: "hostile" });
  assertEquals(types(add), ["ecs.component.added", "skill.executed"]);
  assert(entry(id)!.tags.has("hostile"));
  assertEquals(types(await call("ecs.addComponent", { entity: id, component: "hostile" })), ["skill.executed"], "no change, no event");
  const rm = await call("ecs.removeComponent", { entity: id, component: "hostile" });
  assertEquals([value(rm), types(rm)], [{ ok: true }, ["ecs.component.removed", "skill.executed"]]);
  assertEquals(value(await call("ecs.removeComponent", { entity: id, component: "hostile" })), { ok: false });
  expectError(await call("ecs.addComponent", { entity: id, component: "" }), "invalid_input", "component");
  expectError(await call("ecs.addComponent", { entity: "ent_0", component: "x" }), "not_found", "ent_0");
  expectError(await call("ecs.addComponent", { entity: id, component: "x" }, PLAYER), "forbidden", "ecs.modify");
  assert(!entry(id)!.tags.has("x"));
});

test("three.setTransform: Euler rotation, keeps the body in sync", async () => {
  const { call, create, entry, object, physics } = session();
  const id = await create({ static: true });
  const r = await call("three.setTransform", { entity: id, position: [1, 2, 3], rotationEuler: [0, Math.PI / 2, 0], scale: [1, 2, 1] });
  value(r);
  const q = object(id).quaternion;
  assertAlmostEquals(q.y, Math.SQRT1_2, 1e-6);
  assertAlmostEquals(q.w, Math.SQRT1_2, 1e-6);
  const body = physics.bodyState(entry(id)!.body!);
  assertEquals(body.position, [1, 2, 3]);
  assertAlmostEquals(body.rotation[1], Math.SQRT1_2, 1e-6);
  expectError(await call("three.setTransform", { entity: id }), "invalid_input", "at least one");
  expectError(await call("three.setTransform", { entity: "ent_404", position: [0, 0, 0] }), "not_found", "ent_404");
  expectError(await call("three.setTransform", { entity: id, position: [9, 9, 9] }, PLAYER), "forbidden", "scene.write");
  assertEquals(object(id).position.toArray(), [1, 2, 3]);
});

test("three.setMaterial styles every mesh and emits three.material.updated", async () => {
  const { call, create, object } = session();
  const id = await create({ color: 0xffffff });
  const r = await call("three.setMaterial", { entity: id, color: 0x00ff00, roughness: 0.2, metalness: 0.9, castShadow: true, receiveShadow: true });
  assertEquals(r.metadata.eventsEmitted, ["three.material.updated", "skill.executed"]);
  const mesh = object(id) as THREE.Mesh;
  const m = mesh.material as THREE.MeshStandardMaterial;
  assertEquals([m.color.getHex(), m.roughness, m.metalness, mesh.castShadow, mesh.receiveShadow], [0x00ff00, 0.2, 0.9, true, true]);
  const gltf = (value(await call("three.loadGLTF", { assetId: "crate" })) as { entity: string }).entity;
  await call("three.setMaterial", { entity: gltf, color: 0x123456, castShadow: true });
  const meshes: THREE.Mesh[] = [];
  object(gltf).traverse((o: THREE.Object3D) => (o as THREE.Mesh).isMesh && meshes.push(o as THREE.Mesh));
  assertEquals(meshes.length, 3);
  assert(meshes.every((x) => x.castShadow && (x.material as THREE.MeshStandardMaterial).color.getHex() === 0x123456), "across every mesh");
  expectError(await call("three.setMaterial", { entity: id, roughness: 2 }), "invalid_input", "roughness");
  expectError(await call("three.setMaterial", { entity: id }), "invalid_input", "at least one");
  expectError(await call("three.setMaterial", { entity: "ent_77", color: 1 }), "not_found", "ent_77");
  expectError(await call("three.setMaterial", { entity: id, color: 1 }, READER), "forbidden", "scene.write");
  assertEquals(m.color.getHex(), 0x00ff00);
});

test("three.setLighting sets one ambient + one directional light with shadow parameters", async () => {
  const { call, scene, lighting } = session();
  const lightsBefore = scene.children.filter((o: THREE.Object3D) => (o as THREE.Light).isLight).length;
  value(await call("three.setLighting", { ambientColor: 0x101010, ambientIntensity: 0.5, direction: [1, 2, 3], castShadow: true, shadowMapSize: 1024, shadowCameraExtent: 30, shadowBias: -0.001 }));
  const { ambient, directional } = lighting;
  assertEquals([ambient.color.getHex(), ambient.intensity], [0x101010, 0.5]);
  assertEquals(directional.position.toArray(), [1, 2, 3]);
  assertEquals([directional.castShadow, directional.shadow.mapSize.x, directional.shadow.bias], [true, 1024, -0.001]);
  assertEquals((directional.shadow.camera as THREE.OrthographicCamera).right, 30);
  assertEquals(scene.children.filter((o: THREE.Object3D) => (o as THREE.Light).isLight).length, lightsBefore, "still one of each");
  expectError(await call("three.setLighting", { shadowMapSize: 100 }), "invalid_input", "shadowMapSize");
  expectError(await call("three.setLighting", { shadowBias: 0.5 }), "invalid_input", "shadowBias");
  expectError(await call("three.setLighting", { direction: [0, 0, 0] }), "invalid_input", "non-zero");
  expectError(await call("three.setLighting", { ambientIntensity: 9 }, READER), "forbidden", "scene.write");
  assertEquals(ambient.intensity, 0.5);
});

test("three.loadGLTF: a sandboxed asset id, parsed by GLTFLoader, metadata from the real scene", async () => {
  const { call, entry, object, world, scene } = session();
  const r = await call("three.loadGLTF", { assetId: "crate", position: [1, 0, 2] });
  const { entity, resource } = value(r) as { entity: string; resource: Record<string, unknown> };
  assertEquals(resource, { kind: "gltf", assetId: "crate", source: "models/crate.glb", bytes: 4116, rootName: "Crate", objectCount: 5, meshCount: 3, materialCount: 2, textureCount: 0 });
  assert(object(entity).parent === scene);
  assertEquals(object(entity).position.toArray(), [1, 0, 2]);
  assertEquals(entry(entity)!.resource, resource);
  expectError(await call("three.loadGLTF", { assetId: "../../etc/passwd" }), "invalid_input", "asset id");
  expectError(await call("three.loadGLTF", { assetId: "missing-model" }), "not_found", "unknown asset");
  expectError(await call("three.loadGLTF", {}), "invalid_input", "assetId");
  expectError(await call("three.loadGLTF", { assetId: "crate" }, READER), "forbidden", "scene.write");
  assertEquals(world.entities.size, 1, "failures created nothing");
});

test("the sandboxed asset store behind three.loadGLTF", async () => {
  const info = await resolveAsset("crate");
  assertEquals([info.id, info.kind, info.source], ["crate", "gltf", "models/crate.glb"]);
  assert(info.description.length > 0);
  const bytes = await readAsset("crate");
  assertEquals(bytes.byteLength, 4116);
  assertEquals(new TextDecoder().decode(bytes.subarray(0, 4)), "glTF", "a binary glTF");
  await assertRejects(resolveAsset("missing-model"), { code: "not_found", message: "unknown asset" });
  await assertRejects(readAsset("../../etc/passwd"), { code: "invalid_input" });
});

test("physics.applyImpulse / raycast / collisionEvents over real bodies", async () => {
  const { call, create, entry, world, physics, step } = session();
  const floor = await create({ size: 20, position: [0, -10, 0], static: true });
  const ball = await create({ shape: "sphere", size: 1, position: [0, 3, 0], dynamic: true });
  value(await call("physics.applyImpulse", { entity: ball, impulse: [0, 0, 2] }));
  assert(physics.bodyState(entry(ball)!.body!).linearVelocity[2] > 0);
  for (let i = 0; i < 120; i++) step(1 / 60);
  assert(world.position(entry(ball)!.eid)[2] > 0.5, "it moved, and the SoA shows it");
  const down = value(await call("physics.raycast", { origin: [5, 10, 5], direction: [0, -1, 0] }, PLAYER)) as Record<string, unknown>;
  assertEquals([down.hit, down.entity], [true, floor]);
  assertAlmostEquals(down.distance as number, 10, 1e-4);
  assertEquals(value(await call("physics.raycast", { origin: [0, 50, 0], direction: [0, 1, 0] }, PLAYER)), { hit: false });
  const ev = value(await call("physics.collisionEvents", {}, PLAYER)) as { events: { started: boolean; entityA?: string; entityB?: string }[] };
  const start = ev.events.find((e) => e.started)!;
  assertEquals([start.entityA, start.entityB].sort(), [floor, ball].sort());
  assertEquals((value(await call("physics.collisionEvents", {}, PLAYER)) as { events: unknown[] }).events, [], "drained");
  const plain = await create();
  expectError(await call("physics.applyImpulse", { entity: plain, impulse: [1, 0, 0] }), "handler_error", "no physics body");
  expectError(await call("physics.applyImpulse", { entity: "ent_321", impulse: [1, 0, 0] }), "not_found", "ent_321");
  expectError(await call("physics.applyImpulse", { entity: ball, impulse: [1, 0] }), "invalid_input", "impulse");
  expectError(await call("physics.raycast", { origin: [0, 0, 0], direction: [0, 0, 0] }), "invalid_input", "non-zero");
  expectError(await call("physics.applyImpulse", { entity: ball, impulse: [1, 0, 0] }, READER), "forbidden", "physics.write");
  expectError(await call("physics.collisionEvents", {}, { ...READER, permissions: new Set<string>() }), "forbidden", "physics.read");
});

test("agent.emitEvent and agent.getPerception", async () => {
  const { call, agents, tracer } = session();
  const r = await call("agent.emitEvent", { type: "hello", payload: { to: "everyone" } }, PLAYER);
  const id = (value(r) as { eventId: string }).eventId;
  const ev = tracer.get(id)!;
  assertEquals([ev.type, ev.actorId, ev.payload], ["agent.signal.hello", "p1", { to: "everyone" }]);
  expectError(await call("agent.emitEvent", { type: "bad type!" }, PLAYER), "invalid_input", "type");
  expectError(await call("agent.emitEvent", { type: "x" }, READER), "forbidden", "agent.write");
  assertEquals(value(await call("agent.getPerception", {}, PLAYER)), { perception: null }, "no agent systems yet");
  const perception = { selfId: "p1", nearby: [], recentEvents: [], tick: 3 };
  const withdraw = agents.publish({ list: () => [{ agentId: "p1" }], perceptionOf: (agentId) => (agentId === "p1" ? perception : null) });
  assertEquals(value(await call("agent.getPerception", {}, PLAYER)), { perception });
  assertEquals(value(await call("agent.getPerception", {}, READER)), { perception: null }, "only the caller's own");
  withdraw();
  assertEquals(value(await call("agent.getPerception", {}, PLAYER)), { perception: null }, "withdrawn with its systems");
  expectError(await call("agent.getPerception", { extra: 1 }, PLAYER), "invalid_input", "extra");
});

test("unknown entities are not_found, never a generic handler_error", async () => {
  const { call, create } = session();
  const id = await create({ dynamic: true });
  for (const [tool, input] of [
    ["ecs.updateComponent", { entity: "ent_999", component: "scale", value: [1, 1, 1] }],
    ["ecs.addComponent", { entity: "ent_999", component: "x" }],
    ["ecs.removeComponent", { entity: "ent_999", component: "x" }],
    ["three.setTransform", { entity: "ent_999", position: [0, 0, 0] }],
    ["three.setMaterial", { entity: "ent_999", color: 1 }],
    ["physics.applyImpulse", { entity: "ent_999", impulse: [1, 0, 0] }],
  ] as const) {
    expectError(await call(tool, input), "not_found", "ent_999");
  }
  assertEquals(value(await call("scene.destroyEntity", { entity: id })), { removed: true });
  expectError(await call("ecs.addComponent", { entity: id, component: "x" }), "not_found", id);
});
