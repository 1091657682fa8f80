// World snapshots: the digest, snapshot → world file → restore → continue
// equal to the uninterrupted run (digests every step, the same next ent_ ids
// and body handles, recycled eids included), the scene state skills control
// restored, and damaged world files refused.
import * as THREE from "three";
import { FIXED_DT, loadWorld, restoreBytes, saveWorld, snapshotBytes, snapshotSession, worldDigest, WorldSession, worldState } from "limina";
import { assert, assertEquals, assertRejects, assertThrows, test } from "limina/testing";
import { sh } from "./support/shell.ts";

function session(): WorldSession {
  return new WorldSession({ simulate: false, checkpointEvery: 0 });
}

function builder(s: WorldSession) {
  const mcp = s.mcp();
  mcp.initialize({ agentId: "snap", sessionId: "sess_snap", profile: "builder.readWrite" });
  return <T = Record<string, unknown>>(tool: string, input: Record<string, unknown> = {}) => mcp.mustCall<T>(tool, input);
}

/** A world with static and dynamic bodies, tags, materials, lighting, a destroyed entity (its eid recycled) and impulses. */
async function build(s: WorldSession): Promise<void> {
  const call = builder(s);
  await call("three.setLighting", { ambientIntensity: 0.4, directionalColor: 0xffeecc, direction: [3, 8, 2], castShadow: true, shadowMapSize: 1024 });
  await call("scene.createEntity", { shape: "box", size: 20, position: [0, -10, 0], static: true, color: 0x777777 });
  const doomed = (await call<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 0.5, position: [9, 1, 9], dynamic: true })).entity;
  for (let i = 0; i < 12; i++) {
    const { entity } = await call<{ entity: string }>("scene.createEntity", { shape: i % 2 ? "box" : "sphere", size: 0.6, position: [(i % 4) - 1.5, 1 + Math.floor(i / 4), (i % 3) * 0.7], dynamic: true, restitution: 0.4 });
    if (i % 3 === 0) await call("ecs.addComponent", { entity, component: "target" });
    if (i % 4 === 1) await call("physics.applyImpulse", { entity, impulse: [0.6, 0.2, -0.3] });
    if (i === 5) await call("three.setMaterial", { entity, color: 0xff3300, roughness: 0.2, metalness: 0.7, castShadow: true });
  }
  await call("scene.destroyEntity", { entity: doomed });
  const late = (await call<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 0.4, position: [0, 6, 0], dynamic: true })).entity;
  await call("ecs.addComponent", { entity: late, component: "late" });
  await call("camera.set", { position: [4, 5, 6], target: [0, 1, 0], fov: 50 });
}

function steps(s: WorldSession, n: number): void {
  for (let i = 0; i < n; i++) s.step(FIXED_DT);
}

test("the digest covers identity, tags, transforms and physics, and inspector.snapshot reports it", async () => {
  const s = session();
  await build(s);
  const d0 = s.digest();
  assert(/^sha256:[0-9a-f]{64}$/.test(d0), d0);
  assertEquals(s.digest(), d0, "the digest is a pure function of the world");
  const call = builder(s);
  await call("ecs.addComponent", { entity: "ent_3", component: "marked" });
  const d1 = s.digest();
  assert(d1 !== d0, "a tag changes the digest");
  steps(s, 1);
  assert(s.digest() !== d1, "a physics step changes the digest");
  const snap = await call<{ world: { digest: string; tick: number } }>("inspector.snapshot", { limit: 1 });
  assertEquals(snap.world.digest, s.digest());
  assertEquals(snap.world.tick, s.tick);
  s.dispose();
});

test("the digest changes when only a rotation does: a transform without a physics body, turned a quarter", () => {
  const s = session();
  // No physics body: the SoA transform is the only place its rotation is kept.
  const { eid } = s.world.spawn({ position: [1, 2, 3] });
  const before = s.digest();
  const r = s.world.Rotation;
  [r.x[eid], r.y[eid], r.z[eid], r.w[eid]] = [0, Math.SQRT1_2, 0, Math.SQRT1_2];
  const turned = s.digest();
  assert(turned !== before, "a rotation alone changes the digest");
  [r.x[eid], r.y[eid], r.z[eid], r.w[eid]] = [0, 0, 0, 1];
  assertEquals(s.digest(), before, "and turning it back restores it");
  s.dispose();
});

test("the session's digest, which keeps each entity's part from the last one, equals the digest from scratch after every kind of change", async () => {
  const s = session();
  await build(s);
  const call = builder(s);
  let last = "";
  const same = (what: string, changes = true) => {
    const kept = s.digest();
    assertEquals(kept, worldDigest(s.world, s.physics, worldState(s)), `after ${what}`);
    if (changes) assert(kept !== last, `${what} changes the digest`);
    last = kept;
  };
  same("building");
  same("nothing", false);
  const entry = (id: string) => s.world.entities.get(id)!;
  const material = (id: string) => ((entry(id).mesh as { material: { color: { setHex(c: number): void }; roughness: number } }).material);
  await call("ecs.addComponent", { entity: "ent_4", component: "marked" });
  same("a tag added");
  await call("ecs.removeComponent", { entity: "ent_4", component: "marked" });
  same("the tag removed");
  await call("scene.setTags", { entity: "ent_6", tags: ["b", "a"] });
  same("tags replaced");
  await call("scene.setTags", { entity: "ent_6", tags: ["a", "b"] });
  same("the same tags in another order");
  entry("ent_6").tags.add("module");
  same("a tag module code adds to the set");
  await call("three.setMaterial", { entity: "ent_7", color: 0x00ff00, roughness: 0.3 });
  same("a material set");
  material("ent_7").color.setHex(0x0000ff);
  same("a colour module code sets on the material");
  material("ent_7").roughness = 0.65;
  same("a roughness set on the material");
  await call("material.apply", { entityId: "ent_8", material: "wood", tint: 0xddccbb });
  same("a library material");
  await call("scene.setVisible", { entity: "ent_9", visible: false });
  same("hidden");
  (entry("ent_9").mesh as { visible: boolean }).visible = true;
  same("shown by module code");
  (entry("ent_10").mesh as { castShadow: boolean }).castShadow = true;
  same("a shadow cast");
  // Each value a scene object's meshes are written from, changed by module code on the three.js objects.
  const mesh = (id: string) => entry(id).mesh as THREE.Mesh;
  const standard = (id: string) => mesh(id).material as THREE.MeshStandardMaterial;
  mesh("ent_10").receiveShadow = true;
  same("a shadow received");
  standard("ent_10").metalness = 0.4;
  same("a metalness set on the material");
  standard("ent_10").color.g = 0.5;
  same("one colour component set");
  standard("ent_10").color.g = 0.5000001;
  same("a component changed below what the hex colour shows", false);
  standard("ent_10").color = new THREE.Color(0x335577);
  same("the colour replaced");
  mesh("ent_10").material = [standard("ent_10"), new THREE.MeshStandardMaterial({ color: 0x446688 })];
  same("a second material");
  (mesh("ent_10").material as THREE.Material[]).pop();
  same("back to one material, in an array", false);
  mesh("ent_10").material = new THREE.MeshBasicMaterial({ color: 0x335577 });
  same("a material without roughness or metalness");
  (mesh("ent_10").material as THREE.MeshBasicMaterial & { roughness?: number }).roughness = 0.9;
  same("a roughness given to that material");
  (mesh("ent_10").material as THREE.MeshBasicMaterial & { roughness?: unknown }).roughness = { level: 1 };
  same("a roughness that is an object (its part is made afresh each time)");
  ((mesh("ent_10").material as THREE.MeshBasicMaterial & { roughness?: { level: number } }).roughness!).level = 2;
  same("that object changed in place");
  mesh("ent_10").material = new THREE.MeshStandardMaterial({ color: 0x335577 });
  same("a standard material again");
  mesh("ent_10").add(new THREE.Mesh(new THREE.BoxGeometry(), new THREE.MeshStandardMaterial()));
  same("a child mesh added");
  (mesh("ent_10").children[0] as THREE.Mesh).castShadow = true;
  same("the child's shadow");
  mesh("ent_10").add(new THREE.Object3D());
  same("a child that is no mesh", false);
  mesh("ent_10").remove(mesh("ent_10").children[0]);
  same("the child mesh removed");
  (standard("ent_8").userData.look as { tint: number }).tint = 0x112233;
  same("a library material's tint changed in place");
  THREE.ColorManagement.enabled = false;
  try {
    same("colour management off (hex colours convert otherwise)");
  } finally {
    THREE.ColorManagement.enabled = true;
  }
  same("and back on");
  mesh("ent_10").clear();
  same("its last child gone (a snapshot restores none)", false);
  const style = entry("ent_10").style as Record<string, unknown>;
  style.color = 0x123456;
  same("its style changed in place");
  style.extra = undefined;
  same("an undefined field in its style (not serialised)", false);
  style.extra = -0;
  same("that field -0 (serialised as 0)");
  style.extra = 0;
  same("that field 0", false);
  style.extra = Number.NaN;
  same("that field NaN (serialised as null)");
  style.extra = null;
  same("that field null", false);
  delete style.extra;
  same("that field deleted", false);
  const { color, ...others } = style;
  assert(Object.keys(style)[0] === "color" && Object.keys(others).length > 0, "colour first");
  entry("ent_10").style = { ...others, color };
  same("its style replaced by an equal one with its colour last");
  entry("ent_10").style = { ...others, color, near: 5, far: 5 };
  same("two fields of equal values added");
  entry("ent_10").style = { ...others, color, far: 5, near: 5 };
  same("those two fields swapped");
  await call("scene.createEntity", { shape: "capsule", size: 0.5, position: [2, 3, 1], dynamic: true, color: 0x884422 });
  same("an entity created");
  await call("scene.destroyEntity", { entity: "ent_11" });
  same("an entity destroyed");
  await call("three.setLighting", { ambientIntensity: 0.7 });
  same("the lighting");
  steps(s, 3);
  same("steps");
  const restored = session();
  await restoreBytes(restored, snapshotBytes(s));
  assertEquals(restored.digest(), worldDigest(restored.world, restored.physics, worldState(restored)), "a restored world");
  assertEquals(restored.digest(), s.digest(), "the restored world is the same world");
  s.dispose();
  restored.dispose();
});

test("every field a snapshot saves of a mesh and its materials is one the session's digest sees change", async () => {
  const s = session();
  await build(s);
  await builder(s)("material.apply", { entityId: "ent_8", material: "wood", tint: 0xddccbb });
  const mesh = s.world.entities.get("ent_8")!.mesh as THREE.Mesh;
  const material = mesh.material as THREE.MeshStandardMaterial;
  // One change, made by module code on the three.js objects, for each field a saved mesh or material holds.
  const meshChanges: Record<string, () => void> = {
    castShadow: () => void (mesh.castShadow = !mesh.castShadow),
    receiveShadow: () => void (mesh.receiveShadow = !mesh.receiveShadow),
  };
  const materialChanges: Record<string, () => void> = {
    color: () => void (material.color.b = material.color.b > 0.5 ? 0.25 : 0.75),
    roughness: () => void (material.roughness = material.roughness > 0.5 ? 0.25 : 0.75),
    metalness: () => void (material.metalness = material.metalness > 0.5 ? 0.25 : 0.75),
    look: () => void ((material.userData.look as { uvScale: number }).uvScale += 1),
  };
  const saved = snapshotSession(s).snapshot.objects.ent_8.meshes[0];
  assertEquals(Object.keys(saved), [...Object.keys(meshChanges), "materials"], "a saved mesh's fields");
  assertEquals(Object.keys(saved.materials[0]), Object.keys(materialChanges), "a saved material's fields");
  let last = s.digest();
  for (const [field, change] of Object.entries({ ...meshChanges, ...materialChanges })) {
    change();
    const kept = s.digest();
    assertEquals(kept, worldDigest(s.world, s.physics, worldState(s)), `after a change to ${field}`);
    assert(kept !== last, `a change to ${field} changes the digest`);
    last = kept;
  }
  s.dispose();
});

test("snapshot → world file → restore → continue gives the uninterrupted run's digest at every step, and the same next ids", async () => {
  const original = session();
  await build(original);
  steps(original, 45);
  const path = `/tmp/limina-snapshot-test-${Date.now()}.world`;
  const bytes = await saveWorld(original, path);
  assert(bytes > 1000, `a world file of ${bytes} bytes`);
  const restored = session();
  assert(await loadWorld(restored, path), "the world file was there");
  assert(restored.restored, "the session knows it was restored");
  assertEquals(restored.tick, original.tick);
  assertEquals(restored.digest(), original.digest());
  assertEquals(restored.world.entities.size, original.world.entities.size);
  assertEquals(restored.physics.bodyCount(), original.physics.bodyCount());

  // The scene state skills control came back: materials, shadows, lighting, the view camera.
  const styled = (s: WorldSession) => {
    const mesh = s.world.entities.get("ent_8")!.mesh as { castShadow: boolean; material: { color: { getHex(): number }; roughness: number; metalness: number } };
    return [mesh.castShadow, mesh.material.color.getHex(), mesh.material.roughness, mesh.material.metalness];
  };
  assertEquals(styled(restored), styled(original));
  assertEquals(styled(restored), [true, 0xff3300, 0.2, 0.7]);
  const light = (s: WorldSession) => [s.lighting.ambient.intensity, s.lighting.directional.color.getHex(), s.lighting.directional.castShadow, s.lighting.directional.shadow.mapSize.x];
  assertEquals(light(restored), light(original));
  assertEquals(restored.view.get(), original.view.get());

  // Both go on the same way: steps, a new entity (same id, same recycled eid, same body handle), an impulse.
  for (const s of [original, restored]) {
    const call = builder(s);
    steps(s, 30);
    const made = await call<{ entity: string }>("scene.createEntity", { shape: "box", size: 0.5, position: [0.3, 4, 0.2], dynamic: true });
    await call("physics.applyImpulse", { entity: made.entity, impulse: [-0.5, 0, 0.4] });
    await call("scene.destroyEntity", { entity: "ent_5" });
  }
  assertEquals(restored.world.entities.get("ent_16")?.eid, original.world.entities.get("ent_16")?.eid);
  assertEquals(restored.world.entities.get("ent_16")?.body, original.world.entities.get("ent_16")?.body);
  for (let i = 0; i < 120; i++) {
    original.step(FIXED_DT);
    restored.step(FIXED_DT);
    assertEquals(restored.digest(), original.digest(), `digests equal at tick ${original.tick}`);
  }
  const next = await Promise.all([original, restored].map((s) => builder(s)<{ entity: string }>("scene.createEntity", { shape: "sphere" })));
  assertEquals(next[0].entity, next[1].entity, "the same next ent_ id");
  original.dispose();
  restored.dispose();
  await Limina.run({ cmd: "rm", args: ["-f", path] });
});

test("damaged world files and foreign snapshots are refused and change nothing", async () => {
  const s = session();
  await build(s);
  const path = `/tmp/limina-snapshot-bad-${Date.now()}.world`;
  await saveWorld(s, path);
  const good = await Limina.run({ cmd: "cat", args: [path] });
  assert(good.code === 0);
  // One flipped byte in the body: the content hash names it.
  await sh(`printf 'X' | dd of=${path} bs=1 seek=$(( $(stat -c %s ${path}) - 10 )) conv=notrunc 2>/dev/null`);
  const fresh = session();
  await assertRejects(() => loadWorld(fresh, path), { code: "invalid_input", message: "content hash" });
  await sh(`head -c 300 ${path} > ${path}.cut`);
  await assertRejects(() => loadWorld(fresh, `${path}.cut`), { code: "invalid_input" });
  assertEquals(await loadWorld(fresh, `${path}.missing`), false, "no file: nothing to restore");
  assert(!fresh.restored && fresh.world.entities.size === 0, "a refused file changed nothing");
  await assertRejects(() => restoreBytes(fresh, new Uint8Array([1, 2, 3])), { code: "invalid_input" });
  await assertRejects(() => restoreBytes(s, snapshotBytes(s)), { code: "invalid_input", message: "new world session" });
  // What a snapshot cannot hold yet is refused, not dropped.
  const panel = (await builder(s)<{ handle: string }>("ui.hudPanel", { anchor: { type: "screen", corner: "topRight" }, title: "scores", text: "0" })).handle;
  assertThrows(() => snapshotBytes(s), { code: "unavailable", message: "UI containers" });
  await builder(s)("ui.remove", { handle: panel });
  assert(snapshotBytes(s).length > 0, "saves again once the panel is gone");
  assertEquals([fresh.world.entities.size, fresh.physics.bodyCount(), fresh.restored], [0, 0, false]);
  s.dispose();
  fresh.dispose();
  await Limina.run({ cmd: "rm", args: ["-f", path, `${path}.cut`] });
});
