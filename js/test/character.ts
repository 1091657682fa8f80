// character.* and animation.*: the built-in humanoid (its skeleton and
// skinning), the controller (walking, walls, jumping and falling), the
// animation state machine (idle, locomotion, jump, fall, emotes, clips by
// name) and the foot-sliding bound: driven at walking, jogging and running
// speeds, the planted foot moves over the ground at under 10% of the body's
// speed; and a user's glTF rig spawned as a character, its own clips played
// by name and the built-in walk driving its bones by their names.
import { assert, assertEquals, test } from "limina/testing";
import { base64, createWorldSession, resolveProfile, type Vec3, type WorldSession } from "limina";
import * as THREE from "three";
import { refused, value } from "./support/results.ts";
import { riggedGlb } from "./support/rig.ts";

const STEP = 1 / 60;
const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const PLAYER = { agentId: "p1", sessionId: "s2", permissions: resolveProfile("player.limited"), profile: "player.limited" };
const READER = { agentId: "r1", sessionId: "s3", permissions: resolveProfile("system.readonly"), profile: "system.readonly" };
const call = async <T>(s: WorldSession, tool: string, input: unknown, who = BUILDER) => value<T>(await s.registry.invoke(tool, input, who));

async function world() {
  const s = createWorldSession({ simulate: false });
  await call(s, "scene.createEntity", { shape: "box", size: 50, position: [0, -25, 0], static: true });
  s.step(STEP);
  return s;
}

test("the humanoid: ≥ 20 named bones, a skinned mesh whose every vertex's weights sum to 1 and blend across joints", async () => {
  const s = await world();
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [0, 0, 0], appearance: { height: 1.9, shirt: 0x22aa44 } });
  const rig = s.characters.require(entityId).rig;
  let mesh: THREE.SkinnedMesh | null = null;
  rig.traverse((o) => {
    if ((o as THREE.SkinnedMesh).isSkinnedMesh) mesh = o as THREE.SkinnedMesh;
  });
  assert(mesh !== null, "a SkinnedMesh");
  const m = mesh as unknown as THREE.SkinnedMesh;
  const bones = m.skeleton.bones.map((b) => b.name);
  assert(bones.length >= 20, `${bones.length} bones`);
  for (const name of ["Hips", "Spine", "Head", "LeftArm", "RightForeArm", "LeftUpLeg", "RightFoot", "Jaw"]) assert(bones.includes(name), name);
  const w = m.geometry.getAttribute("skinWeight");
  let blended = 0;
  for (let i = 0; i < w.count; i++) {
    const sum = w.getX(i) + w.getY(i) + w.getZ(i) + w.getW(i);
    assert(Math.abs(sum - 1) < 1e-5, `vertex ${i} weights sum to ${sum}`);
    if (Math.max(w.getX(i), w.getY(i), w.getZ(i), w.getW(i)) < 0.95) blended++;
  }
  assert(blended > w.count * 0.1, `smooth weights: ${blended} of ${w.count} vertices blend two bones`);
  const box = new THREE.Box3().setFromObject(rig);
  assert(Math.abs(box.max.y - 1.9) < 0.1, `as tall as asked: ${box.max.y}`);
  assertEquals((await call<{ clips: string[] }>(s, "animation.list", {}, READER)).clips, ["idle", "walk", "run", "jump", "fall", "wave", "talk", "sit"]);
  assertEquals((await call<{ clips: string[] }>(s, "animation.list", { entityId }, READER)).clips.sort(), ["fall", "idle", "jump", "run", "sit", "talk", "walk", "wave"]);
  s.dispose();
});

/** World positions of the two ankles. */
function ankles(rig: THREE.Object3D): [THREE.Vector3, THREE.Vector3] {
  rig.updateMatrixWorld(true);
  return [rig.getObjectByName("LeftFoot")!.getWorldPosition(new THREE.Vector3()), rig.getObjectByName("RightFoot")!.getWorldPosition(new THREE.Vector3())];
}

/** Drives a character at `speed` along +x and measures the planted foot's ground speed. */
async function footSlide(s: WorldSession, speed: number): Promise<{ mean: number; planted: number; clip: string }> {
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [-20, 0, -20 + speed * 5] });
  for (let i = 0; i < 20; i++) s.step(STEP);
  await call(s, "character.move", { entityId, direction: [1, 0], speed }, PLAYER);
  // Up to speed and settled into the gait.
  for (let i = 0; i < 90; i++) s.step(STEP);
  const rig = s.characters.require(entityId).rig;
  let prev = ankles(rig);
  let sum = 0;
  let planted = 0;
  for (let i = 0; i < 240; i++) {
    s.step(STEP);
    const now = ankles(rig);
    // The planted foot is the lower one.
    const k = now[0].y <= now[1].y ? 0 : 1;
    if (now[k].y < 0.13) {
      sum += Math.hypot(now[k].x - prev[k].x, now[k].z - prev[k].z) / STEP;
      planted++;
    }
    prev = now;
  }
  const state = await call<{ state: string; clip: string }>(s, "animation.getState", { entityId }, READER);
  assertEquals(state.state, "locomotion");
  return { mean: sum / Math.max(1, planted), planted, clip: state.clip };
}

test("feet do not slide: at walking, jogging and running speeds the planted foot moves at under 10% of the body's speed", async () => {
  const s = await world();
  for (const [speed, clip] of [[1.2, "walk"], [1.6, "walk"], [4.5, "run"], [5.5, "run"]] as const) {
    const r = await footSlide(s, speed);
    assertEquals(r.clip, clip, `${speed} m/s plays ${clip}`);
    assert(r.planted > 60, `a foot is planted most of the time at ${speed} m/s: ${r.planted} of 240 steps`);
    assert(r.mean < 0.1 * speed, `at ${speed} m/s the planted foot moves at ${r.mean.toFixed(3)} m/s (${((100 * r.mean) / speed).toFixed(1)}%)`);
    console.log(`  ${speed} m/s (${clip}): planted foot ${r.mean.toFixed(3)} m/s = ${((100 * r.mean) / speed).toFixed(1)}% of the body's speed`);
  }
  s.dispose();
});

test("the state machine: idle, locomotion, jump, fall, emotes by name; moving ends an emote", async () => {
  const s = await world();
  s.physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [2, 2, 2] }, position: [10, 2, 0] });
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [10, 4.05, 0] });
  const state = async () => (await call<{ state: string; clip: string }>(s, "animation.getState", { entityId }, READER));
  for (let i = 0; i < 10; i++) s.step(STEP);
  assertEquals((await state()).state, "idle", "standing on the block");
  // Walk off the edge: falling, then landing.
  await call(s, "character.move", { entityId, direction: [1, 0], speed: 3 }, PLAYER);
  const seen: string[] = [];
  for (let i = 0; i < 150; i++) {
    s.step(STEP);
    const st = (await state()).state;
    if (seen.at(-1) !== st) seen.push(st);
  }
  assert(seen.includes("fall"), `fell off: ${seen}`);
  assertEquals(seen.at(-1), "locomotion", `and walked on: ${seen}`);
  await call(s, "nav.stop", { entityId }, PLAYER);
  for (let i = 0; i < 30; i++) s.step(STEP);
  assertEquals((await state()).state, "idle");
  assertEquals(await call(s, "character.jump", { entityId, speed: 5 }, PLAYER), { jumped: true });
  s.step(STEP);
  s.step(STEP);
  assertEquals((await state()).state, "jump");
  assertEquals(await call(s, "character.jump", { entityId }, PLAYER), { jumped: false }, "no jumping in mid-air");
  for (let i = 0; i < 90; i++) s.step(STEP);
  assertEquals((await state()).state, "idle", "landed");
  await call(s, "animation.play", { entityId, clip: "wave" }, PLAYER);
  for (let i = 0; i < 20; i++) s.step(STEP);
  assertEquals(await state().then((x) => [x.state, x.clip]), ["emote", "wave"]);
  const at = s.world.position(s.world.entities.get(entityId)!.eid);
  const facing = await call<{ facing: [number, number] }>(s, "character.lookAt", { entityId, target: [at[0], 0, at[2] + 10] }, PLAYER);
  assert(Math.abs(facing.facing[1] - 1) < 0.01, JSON.stringify(facing));
  await call(s, "character.move", { entityId, direction: [0, 1], speed: 1.4 }, PLAYER);
  for (let i = 0; i < 30; i++) s.step(STEP);
  assertEquals((await state()).state, "locomotion", "walking ends the emote");
  refused(await s.registry.invoke("animation.play", { entityId, clip: "moonwalk" }, PLAYER), "not_found", "moonwalk");
  refused(await s.registry.invoke("character.move", { entityId: "ent_999", direction: [1, 0] }, PLAYER), "not_found", "ent_999");
  refused(await s.registry.invoke("character.spawn", { position: [0, 0, 0] }, PLAYER), "forbidden", "character.define");
  refused(await s.registry.invoke("character.jump", { entityId }, READER), "forbidden", "character.act");
  s.dispose();
});

test("a character walks into a box and pushes it; walls stop it", async () => {
  const s = await world();
  const { entity: crate } = await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 0.6, position: [2, 0.3, 0], dynamic: true, friction: 0.2 });
  s.physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [0.2, 2, 5] }, position: [-4, 2, 0] });
  const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [0, 0, 0] });
  for (let i = 0; i < 10; i++) s.step(STEP);
  await call(s, "character.move", { entityId, direction: [1, 0], speed: 1.5 }, PLAYER);
  for (let i = 0; i < 120; i++) s.step(STEP);
  const box: Vec3 = s.world.position(s.world.entities.get(crate)!.eid);
  assert(box[0] > 2.5, `pushed along: ${box}`);
  await call(s, "character.move", { entityId, direction: [-1, 0], speed: 3 }, PLAYER);
  for (let i = 0; i < 180; i++) s.step(STEP);
  const at = s.world.position(s.world.entities.get(entityId)!.eid);
  assert(at[0] > -3.8 - 0.3 && at[0] < -3.3, `stopped by the wall: ${at}`);
  s.dispose();
});

test("a user's glTF rig: character.spawn {model} loads it skinned, its clips play by name, the built-in walk drives its bones by name", async () => {
  const dir = (await Limina.run({ cmd: "mktemp", args: ["-d", "/tmp/limina-rig-XXXXXX"] })).stdout.trim();
  const manifest = JSON.stringify({ assets: { rig: { kind: "gltf", path: "rig.glb" } } });
  const made = await Limina.run({ cmd: "bash", args: ["-c", `base64 -d > "$0/rig.glb" && printf '%s' "$1" > "$0/manifest.json"`, dir, manifest], stdin: base64(riggedGlb()) });
  assertEquals(made.code, 0, made.stderr);
  const run = await Limina.run({ cmd: Limina.execPath, args: ["js/test/support/rig_scene.ts"], env: { LIMINA_ASSETS_DIR: dir } });
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
  assertEquals(run.code, 0, run.stderr);
  const seen = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
  assert(seen.skinned, "the rig's body is a skinned mesh");
  // Its own clips by name ("Armature|Dance" → dance; its Idle replaces the built-in one), and the built-in ones it lacks.
  for (const clip of ["dance", "idle", "walk", "run", "wave", "sit"]) assert(seen.clips.includes(clip), `${clip} in ${seen.clips}`);
  assertEquals(seen.clips.filter((c: string) => c === "idle").length, 1);
  assertEquals([seen.idle.state, seen.idle.clip], ["idle", "idle"]);
  assertEquals([seen.dancing.state, seen.dancing.clip], ["emote", "dance"]);
  assert(seen.spine > 0.2, `the dance turned the rig's Spine by ${seen.spine} rad`);
  assertEquals([seen.walking.state, seen.walking.clip], ["locomotion", "walk"]);
  assert(seen.leg > 0.2, `the built-in walk swung the rig's LeftUpLeg by ${seen.leg} rad`);
  assert(seen.arrived && Math.hypot(seen.at[0] - 4, seen.at[2]) < 0.3, `arrived: ${seen.at}`);
});
