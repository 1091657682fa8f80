// The crowd draw (js/src/characters/crowd.ts): the baked clips pose a member
// as the character's own Animator poses its rig (within 5 mm at every joint
// for a single clip; mid walk↔run blend the draw blends the clips' skinning
// matrices where the mixer blends joint rotations, within 6 cm); a member driven by an Animator at its body's
// speed keeps its planted foot still (world speed under 10% of the body's,
// computed from the baked table and the instance's motion); and the whole
// crowd renders in one draw, each member in its own colours where it stands.
import { assert, assertEquals, test } from "limina/testing";
import { Capturer, type Character, CrowdDraw, createWorldSession, decodePng, HUMANOID_BONES, resolveProfile, type WorldSession } from "limina";
import * as THREE from "three";

const STEP = 1 / 60;
const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const FOOT = HUMANOID_BONES.findIndex((b) => b.name === "LeftFoot");

/** Where member `i`'s bones stand in the world: its root × the palette's pose × each bone's bind position. */
function joints(crowd: CrowdDraw, i: number): THREE.Vector3[] {
  const pose = crowd.poseOf(i, new Float32Array(HUMANOID_BONES.length * 16));
  const [x, y, z, yaw, s] = crowd.root.subarray(i * 5, i * 5 + 5);
  const root = new THREE.Matrix4().compose(new THREE.Vector3(x, y, z), new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), yaw), new THREE.Vector3(s, s, s));
  return HUMANOID_BONES.map((b, k) => new THREE.Vector3(...b.at).applyMatrix4(new THREE.Matrix4().fromArray(pose, k * 16)).applyMatrix4(root));
}

async function spawn(s: WorldSession, position: [number, number, number], height: number): Promise<Character> {
  const r = await s.registry.invoke("character.spawn", { position, appearance: { height } }, BUILDER);
  if (!r.ok) throw new Error(r.error.message);
  return s.characters.require((r.value as { entityId: string }).entityId);
}

test("the baked clips pose a member as the Animator poses the character's rig: within 5 mm per clip, 6 cm mid walk↔run blend", async () => {
  const s = createWorldSession({ simulate: false });
  const crowd = new CrowdDraw(1);
  // Not the reference height: a member's scale stands for the clips made for its height.
  const c = await spawn(s, [3, 0, -2], 1.9);
  crowd.paint(0, { height: 1.9 });
  const worst = (): number => {
    c.rig.updateMatrixWorld(true);
    const { Position, Rotation } = s.world;
    crowd.follow(0, Position, Rotation, c.entity.eid, c.animator);
    const ours = joints(crowd, 0);
    let e = 0;
    HUMANOID_BONES.forEach((b, k) => (e = Math.max(e, ours[k].distanceTo(c.rig.getObjectByName(b.name)!.getWorldPosition(new THREE.Vector3())))));
    return e;
  };
  for (const clip of ["idle", "walk", "run", "talk", "wave"]) {
    c.animator.play(clip, true, 0);
    let e = 0;
    // Steps off the bake's sample grid, over more than a cycle.
    for (let k = 0; k < 90; k++) {
      c.animator.update(0.0237, { speed: 0, grounded: true, vertical: 0 });
      e = Math.max(e, worst());
    }
    assert(e < 0.005, `${clip}: a joint ${(e * 1000).toFixed(2)} mm from the rig's`);
    console.log(`  ${clip}: worst joint ${(e * 1000).toFixed(2)} mm from the rig's`);
  }
  // Walking and running blended at 2.7 m/s, after the fades settle.
  for (let k = 0; k < 30; k++) c.animator.update(STEP, { speed: 2.7, grounded: true, vertical: 0 });
  let e = 0;
  for (let k = 0; k < 60; k++) {
    c.animator.update(STEP, { speed: 2.7, grounded: true, vertical: 0 });
    e = Math.max(e, worst());
  }
  assertEquals([crowd.layers[0], crowd.layers[3]].map((k) => crowd.baked.names[k]).sort(), ["run", "walk"]);
  assert(e < 0.06, `walk↔run: a joint ${(e * 1000).toFixed(2)} mm from the rig's`);
  console.log(`  walk↔run at 2.7 m/s: worst joint ${(e * 1000).toFixed(2)} mm from the rig's`);
  crowd.dispose();
  s.dispose();
});

test("feet do not slide in the crowd: a member moving at its body's speed, posed from the bake, keeps its planted foot under 10% of that speed", async () => {
  const s = createWorldSession({ simulate: false });
  for (const height of [1.6, 1.9]) {
    for (const speed of [1.0, 1.6, 2.7, 4.5]) {
      const crowd = new CrowdDraw(1);
      crowd.paint(0, { height });
      // A character drawn by the crowd: its animator plays clips of names and lengths, no tracks.
      const c = await s.characters.spawn({ position: [0, 0, 0], appearance: { height }, drawnByCrowd: true });
      // The instance's motion: along +z at `speed`, its animation driven by the same speed.
      const position = { x: new Float32Array([0]), y: new Float32Array([0]), z: new Float32Array([0]) };
      const rotation = { y: new Float32Array([0]), w: new Float32Array([1]) };
      let prev: THREE.Vector3[] | null = null;
      let sum = 0;
      let planted = 0;
      for (let k = 0; k < 330; k++) {
        c.animator.update(STEP, { speed, grounded: true, vertical: 0 });
        position.z[0] += speed * STEP;
        crowd.follow(0, position, rotation, 0, c.animator);
        const j = joints(crowd, 0);
        const feet = [j[FOOT], j[FOOT + 4]];
        // Up to speed and settled into the gait first; then the lower foot, when down, is the planted one.
        if (prev && k >= 90) {
          const f = feet[0].y <= feet[1].y ? 0 : 1;
          if (feet[f].y < 0.13 * (height / 1.75)) {
            sum += Math.hypot(feet[f].x - prev[f].x, feet[f].z - prev[f].z) / STEP;
            planted++;
          }
        }
        prev = feet;
      }
      const mean = sum / Math.max(1, planted);
      assert(planted > 60, `a foot is planted most of the time at ${speed} m/s: ${planted} of 240 steps`);
      assert(mean < 0.1 * speed, `${height} m at ${speed} m/s: the planted foot moves at ${mean.toFixed(3)} m/s (${((100 * mean) / speed).toFixed(1)}%)`);
      console.log(`  ${height} m at ${speed} m/s: planted foot ${mean.toFixed(3)} m/s = ${((100 * mean) / speed).toFixed(1)}% of the body's speed`);
      crowd.dispose();
    }
  }
  s.dispose();
});

test("the crowd renders in one draw per pass: each member's shirt colour where it stands, the background between them", async () => {
  const capturer = await Capturer.create();
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x808080);
  scene.add(new THREE.AmbientLight(0xffffff, 1.5), new THREE.DirectionalLight(0xffffff, 2));
  const shirts = [0xe02020, 0x20c040, 0x2040e0, 0xe0c020, 0xc020c0];
  const crowd = new CrowdDraw(shirts.length);
  shirts.forEach((shirt, i) => {
    crowd.paint(i, { shirt, pants: shirt });
    crowd.root.set([(i - 2) * 1.2, 0, 0, 0, 1], i * 5);
    crowd.layers.set([crowd.clip("walk"), i * 0.17, 1, -1, 0, 0], i * 6);
  });
  crowd.update();
  scene.add(crowd.mesh);
  const pose = { position: [0, 1.1, 6] as [number, number, number], target: [0, 1.1, 0] as [number, number, number], fov: 50 };
  const frame = decodePng(await capturer.capture(scene, pose, 160, 90));
  const cam = new THREE.PerspectiveCamera(pose.fov, 160 / 90, 0.1, 100);
  cam.position.set(...pose.position);
  cam.lookAt(new THREE.Vector3(...pose.target));
  cam.updateMatrixWorld();
  const pixel = (p: THREE.Vector3) => {
    const v = p.clone().project(cam);
    const o = (Math.round((1 - v.y) * 45) * frame.width + Math.round((v.x + 1) * 80)) * 4;
    return [frame.data[o], frame.data[o + 1], frame.data[o + 2]];
  };
  const hsl = (rgb: number[]) => new THREE.Color(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255).getHSL({ h: 0, s: 0, l: 0 });
  shirts.forEach((shirt, i) => {
    // The chest of member i, where it stands: its shirt's hue, lit; beside it, the grey background.
    const chest = pixel(new THREE.Vector3((i - 2) * 1.2, 1.3, 0));
    const want = new THREE.Color(shirt).getHSL({ h: 0, s: 0, l: 0 });
    const got = hsl(chest);
    const dh = Math.min(Math.abs(got.h - want.h), 1 - Math.abs(got.h - want.h));
    assert(got.s > 0.4 && dh < 0.05, `member ${i}'s chest ${JSON.stringify(chest)}: hue ${got.h.toFixed(3)} (s ${got.s.toFixed(2)}), its shirt's ${want.h.toFixed(3)}`);
    const gap = pixel(new THREE.Vector3((i - 2) * 1.2 + 0.6, 1.3, 0));
    assert(hsl(gap).s < 0.1, `between members ${i} and ${i + 1}: ${JSON.stringify(gap)}`);
  });
  // The renderer's draw calls with the crowd in the scene and without it: one apart.
  const { renderer } = await (capturer as unknown as { renderer(w: number, h: number): Promise<{ renderer: THREE.WebGPURenderer }> }).renderer(160, 90);
  renderer.info.autoReset = false;
  const calls = async () => {
    renderer.info.reset();
    await capturer.capture(scene, pose, 160, 90);
    return renderer.info.render.drawCalls;
  };
  const withCrowd = await calls();
  crowd.mesh.visible = false;
  const without = await calls();
  assertEquals(withCrowd - without, 1, `draw calls: ${withCrowd} with the crowd, ${without} without`);
  crowd.dispose();
});
