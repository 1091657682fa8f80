// The crowd draw (js/src/characters/crowd.ts): the baked clips pose a member
// as the character's own Animator poses its rig (within 5 mm at every joint
// for a single clip; mid walk↔run blend the draw blends the clips' skinning
// matrices where the mixer blends joint rotations, within 6 cm); a member driven by an Animator at its body's
// speed keeps its planted foot still (world speed under 10% of the body's,
// computed from the baked table and the instance's motion); a member goes a
// level farther beyond each LOD distance and back inside it, with
// hysteresis; and the crowd renders in one draw per level, near members from
// the full mesh, farther ones from the coarse, the farthest from the far
// silhouette, each in its own colours where it stands.
import { assert, assertEquals, test } from "limina/testing";
import { Capturer, type Character, CrowdDraw, createWorldSession, decodePng, HUMANOID_BONES, LOD_BAND, LOD_DISTANCES, lodScale, resolveProfile, type WorldSession } from "limina";
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

test("a member goes a level farther beyond each LOD distance and back inside it, with hysteresis: no flicker at the lines", () => {
  const crowd = new CrowdDraw(1);
  const eye = { x: 0, y: 0, z: 0 };
  const at = (d: number, scale = 1) => {
    crowd.root[0] = d;
    crowd.update(eye, scale);
    return crowd.level[0];
  };
  const [D, F] = LOD_DISTANCES;
  assertEquals(crowd.levels.length, 3);
  assert(D < F, `the coarse level starts nearer than the far one: ${D} m, ${F} m`);
  assertEquals(crowd.level[0], 0, "a new member is drawn full");
  // Walking out: full until (1 + LOD_BAND) × D, coarse beyond, until (1 + LOD_BAND) × F, far beyond;
  // walking back: far until (1 − LOD_BAND) × F, coarse until (1 − LOD_BAND) × D.
  const out = [0.5 * D, 1.09 * D, 1.11 * D, 0.95 * F, 1.09 * F, 1.11 * F, 1.5 * F].map((d) => at(d));
  const back = [1.05 * F, 0.91 * F, 0.89 * F, 1.05 * D, 0.91 * D, 0.89 * D, 0.5 * D].map((d) => at(d));
  assertEquals(out, [0, 0, 1, 1, 1, 2, 2]);
  assertEquals(back, [2, 2, 1, 1, 1, 0, 0]);
  // Jittering across either line itself changes nothing.
  assertEquals([1.02, 0.98, 1.02, 0.98].map((f) => at(f * D)), [0, 0, 0, 0]);
  at(1.5 * F);
  assertEquals([1.02, 0.98, 1.02, 0.98].map((f) => at(f * F)), [2, 2, 2, 2]);
  assertEquals(LOD_BAND, 0.1);
  // A member put far away at once goes to the last level in one update, and back to the first.
  at(0);
  assertEquals([at(3 * F), at(0)], [2, 0]);
  // A view twice as many pixels high (720 lines at the view camera's 55°) keeps each level's size in
  // pixels: every line twice as far.
  assertEquals(lodScale(360, 55), 1);
  assert(Math.abs(lodScale(720, 55) - 2) < 1e-12, `720 lines: ${lodScale(720, 55)}`);
  assert(lodScale(360, 90) < 1, "a wider field of view draws members smaller: the lines come nearer");
  at(0);
  const scaled = [1.5 * D, 2.1 * D, 2.3 * D, 2.1 * F, 2.3 * F, 1.9 * F, 1.9 * D, 1.7 * D].map((d) => at(d, 2));
  assertEquals(scaled, [0, 0, 1, 1, 2, 2, 1, 0]);
  // Without an eye the levels stay as they were.
  at(2 * F);
  crowd.root[0] = 0;
  crowd.update();
  assertEquals(crowd.level[0], 2);
  crowd.dispose();
});

test("the crowd renders in one draw per level per pass: near members from the full mesh, farther ones from the coarse, the farthest from the far silhouette, each in its shirt's colour where it stands", async () => {
  const capturer = await Capturer.create();
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x808080);
  scene.add(new THREE.AmbientLight(0xffffff, 1.5), new THREE.DirectionalLight(0xffffff, 2));
  const shirts = [0xe02020, 0x20c040, 0x2040e0, 0xe0c020, 0xc020c0];
  // Members 0–2 about 6 m from the eye, 3 12.3 m and 4 13 m.
  const spots: [number, number][] = [[-2.4, 0], [-1.2, 0], [0, 0], [2.4, -6], [4.8, -6]];
  const crowd = new CrowdDraw(shirts.length);
  // Coarse beyond 8.8 m, far beyond 12.76 m.
  crowd.lodDistances = [8, 11.6];
  shirts.forEach((shirt, i) => {
    crowd.paint(i, { shirt, pants: shirt });
    crowd.root.set([spots[i][0], 0, spots[i][1], 0, 1], i * 5);
    crowd.layers.set([crowd.clip("walk"), i * 0.17, 1, -1, 0, 0], i * 6);
  });
  const pose = { position: [0, 1.1, 6] as [number, number, number], target: [0, 1.1, 0] as [number, number, number], fov: 50 };
  const eye = new THREE.Vector3(...pose.position);
  scene.add(crowd.object);
  const [W, H] = [320, 180];
  const cam = new THREE.PerspectiveCamera(pose.fov, W / H, 0.1, 100);
  cam.position.copy(eye);
  cam.lookAt(new THREE.Vector3(...pose.target));
  cam.updateMatrixWorld();
  const { renderer } = await (capturer as unknown as { renderer(w: number, h: number): Promise<{ renderer: THREE.WebGPURenderer }> }).renderer(W, H);
  renderer.info.autoReset = false;
  const render = async () => {
    renderer.info.reset();
    const frame = decodePng(await capturer.capture(scene, pose, W, H));
    return { frame, calls: renderer.info.render.drawCalls, triangles: renderer.info.render.triangles };
  };
  const hsl = (rgb: number[]) => new THREE.Color(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255).getHSL({ h: 0, s: 0, l: 0 });
  const colours = (frame: { width: number; data: Uint8Array }) => {
    const pixel = (p: THREE.Vector3) => {
      const v = p.clone().project(cam);
      const o = (Math.round(((1 - v.y) * H) / 2) * frame.width + Math.round(((v.x + 1) * W) / 2)) * 4;
      return [frame.data[o], frame.data[o + 1], frame.data[o + 2]];
    };
    shirts.forEach((shirt, i) => {
      // The chest of member i, where it stands: its shirt's hue, lit; beside it, the grey background.
      const chest = pixel(new THREE.Vector3(spots[i][0], 1.3, spots[i][1]));
      const want = new THREE.Color(shirt).getHSL({ h: 0, s: 0, l: 0 });
      const got = hsl(chest);
      const dh = Math.min(Math.abs(got.h - want.h), 1 - Math.abs(got.h - want.h));
      assert(got.s > 0.4 && dh < 0.05, `member ${i}'s chest ${JSON.stringify(chest)}: hue ${got.h.toFixed(3)} (s ${got.s.toFixed(2)}), its shirt's ${want.h.toFixed(3)}`);
      const gap = pixel(new THREE.Vector3(spots[i][0] + 0.6, 1.3, spots[i][1]));
      assert(hsl(gap).s < 0.1, `beside member ${i}: ${JSON.stringify(gap)}`);
    });
  };
  const triangles = crowd.levels.map((m) => m.geometry.index!.count / 3);
  assert(triangles[1] * 3 < triangles[0], `the coarse level has under a third of the full one's triangles: ${triangles.join(" and ")}`);
  assert(triangles[2] * 3 < triangles[1] && triangles[2] <= 48, `the far silhouette has at most 48 triangles, under a third of the coarse level's: ${triangles.join(", ")}`);
  // Without an eye, every member is drawn full: one draw.
  crowd.update();
  const full = await render();
  colours(full.frame);
  crowd.object.visible = false;
  const without = await render();
  crowd.object.visible = true;
  assertEquals(full.calls - without.calls, 1, `draw calls: ${full.calls} with the crowd, ${without.calls} without`);
  assertEquals(full.triangles - without.triangles, 5 * triangles[0]);
  // Seen from the eye: the near three full, the fourth coarse, the fifth far; one draw per level, colours still where each stands.
  crowd.update(eye);
  assertEquals([...crowd.level], [0, 0, 0, 1, 2]);
  const mixed = await render();
  colours(mixed.frame);
  assertEquals(mixed.calls - without.calls, 3, `draw calls: ${mixed.calls} with three levels, ${without.calls} without`);
  assertEquals(mixed.triangles - without.triangles, 3 * triangles[0] + triangles[1] + triangles[2]);
  // The near members look the same as when all were full: only the far ones' pixels changed.
  const near = (frame: { width: number; data: Uint8Array }) => {
    let differ = 0;
    for (let y = 0; y < H; y++) for (let x = 0; x < W * 0.55; x++) if (frame.data[(y * W + x) * 4] !== full.frame.data[(y * W + x) * 4]) differ++;
    return differ;
  };
  assertEquals(near(mixed.frame), 0, "the near members' side of the picture is unchanged");
  // All coarse: one draw, of the coarse level only; then all far: one draw, of the far level only.
  crowd.lodDistances = [1, 100];
  crowd.update(eye);
  const coarse = await render();
  colours(coarse.frame);
  assertEquals(coarse.calls - without.calls, 1);
  assertEquals(coarse.triangles - without.triangles, 5 * triangles[1]);
  crowd.lodDistances = [1, 2];
  crowd.update(eye);
  assertEquals([...crowd.level], [2, 2, 2, 2, 2]);
  const far = await render();
  colours(far.frame);
  assertEquals(far.calls - without.calls, 1);
  assertEquals(far.triangles - without.triangles, 5 * triangles[2]);
  crowd.dispose();
});
