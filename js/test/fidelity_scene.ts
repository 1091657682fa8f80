// The fidelity scene offscreen on lavapipe: authored through skills, its
// shadow maps darken the floor where the caster's shadow falls, the shadow
// sweeps as the caster spins, the glTF shows its texture, and the frame is
// tone-mapped (ACES Filmic) and multisampled.
import { assert, assertEquals, test } from "limina/testing";
import * as THREE from "three";
import { createEngine } from "limina";
import { partlyCoveredPixels } from "./support/edges.ts";
import { buildFidelityScene, CASTER_CENTER, CASTER_LENGTH, MODEL_AT } from "../../examples/fidelity_scene_core.ts";

const W = 320;
const H = 240;
const engine = await createEngine({ width: W, height: H, antialias: true, simulate: false });
const scene = await buildFidelityScene(engine.session);
engine.camera.position.set(0, 14, 0.01);
engine.camera.lookAt(0, 0, 0);
engine.camera.updateMatrixWorld();

const luminance = (c: number[]) => 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
async function frame() {
  engine.renderFrame();
  const px = await engine.output.readPixels();
  return (p: [number, number, number]) => {
    const v = new THREE.Vector3(...p).project(engine.camera);
    const x = Math.round(((v.x + 1) / 2) * (W - 1));
    const y = Math.round(((1 - v.y) / 2) * (H - 1));
    const o = (y * W + x) * 4;
    return Array.from(px.subarray(o, o + 3)) as number[];
  };
}

// A floor point under the shadow of the caster's arm, 1.2 m out from its centre.
const arm = (angle: number): [number, number, number] => {
  const [cx, cy, cz] = CASTER_CENTER;
  return scene.shadowOf([cx + Math.cos(angle) * 1.2, cy, cz - Math.sin(angle) * 1.2]);
};
const openFloor: [number, number, number] = [-3.5, 0, -3.5];

test("the scene is authored through scene.* and three.* skills, and traced", () => {
  const skills = engine.session.tracer.history()
    .filter((e) => e.type === "skill.executed" && e.actorId === "fidelity_scene")
    .map((e) => (e.payload as { skill: string }).skill);
  for (const name of ["three.setLighting", "scene.createEntity", "three.setTransform", "three.setMaterial", "three.loadGLTF"]) {
    assert(skills.includes(name), `${name} in ${skills.join(", ")}`);
  }
});

test("ACES Filmic tone mapping, 4× MSAA, a shadow-casting light", () => {
  assertEquals(engine.renderer.toneMapping, THREE.ACESFilmicToneMapping);
  assertEquals(engine.renderer.samples, 4);
  assert(engine.renderer.shadowMap.enabled && engine.session.lighting.directional.castShadow, "shadow maps on");
});

test("MSAA resolves edges: a triangle's border pixels are partly covered", async () => {
  const partial = await partlyCoveredPixels(engine.renderer, engine.output.readPixels);
  assert(partial > 100, `${partial} partly covered pixels`);
});

test("the caster's shadow darkens the floor, and sweeps as it spins", async () => {
  scene.spinTo(0);
  const at0 = await frame();
  const lit = luminance(at0(openFloor));
  const shadow0 = luminance(at0(arm(0)));
  const aheadAt0 = luminance(at0(arm(Math.PI / 2)));
  assert(shadow0 < 0.6 * lit, `in shadow ${shadow0.toFixed(0)} vs lit ${lit.toFixed(0)}`);
  assert(aheadAt0 > 0.85 * lit, `where the shadow will be is still lit: ${aheadAt0.toFixed(0)} vs ${lit.toFixed(0)}`);
  scene.spinTo(Math.PI / 2);
  const at90 = await frame();
  const shadow90 = luminance(at90(arm(Math.PI / 2)));
  const behind = luminance(at90(arm(0)));
  assert(shadow90 < 0.6 * lit, `the shadow moved: ${shadow90.toFixed(0)} vs lit ${lit.toFixed(0)}`);
  assert(behind > 0.85 * lit, `and left its old place: ${behind.toFixed(0)} vs ${lit.toFixed(0)}`);
  assert(CASTER_LENGTH / 2 > 1.2, "the sampled arm point lies on the caster");
});

test("the glTF model shows its checker texture", async () => {
  scene.spinTo(0);
  const at = await frame();
  let orange = 0;
  let teal = 0;
  // The model's top face, seen from straight above (1.2 m wide, rotated 0.5 rad).
  for (let i = -3; i <= 3; i++) {
    for (let j = -3; j <= 3; j++) {
      const [r, g, b] = at([MODEL_AT[0] + i * 0.07, 1.2, MODEL_AT[2] + j * 0.07]);
      if (r > 1.3 * g && g > b) orange++;
      else if (g > 1.5 * r && b > 1.5 * r) teal++;
    }
  }
  assert(orange >= 5 && teal >= 5, `orange ${orange}, teal ${teal} of 49 samples`);
});
