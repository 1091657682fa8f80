// Golden images: the demos and a look test scene rendered offscreen on
// lavapipe with --deterministic at 256×144 and the balanced tier, compared
// with the committed references in js/test/golden/ by SSIM (support/images.ts:
// 8×8 windows, stride 4, on luma). Identical renders score 1; the threshold,
// 0.95, admits what legitimately varies between runs (a frame-rate readout in
// a HUD) and fails on a changed look. Changing the look is a deliberate
// reference update: LIMINA_UPDATE_GOLDEN=1 rewrites the references, and the
// new PNGs are reviewed and committed with the change.
import { assert, test } from "limina/testing";
import { Capturer, createWorldSession, type DecodedImage, env, readPng, resolveProfile, writePng } from "limina";
import { runDemo } from "./support/demos.ts";
import { decodeCapture, ssim } from "./support/images.ts";

/** The least SSIM a render may score against its reference. */
const THRESHOLD = 0.95;
const SIZE = "256x144";
const UPDATE = env("LIMINA_UPDATE_GOLDEN") === "1";

function compare(name: string, frame: DecodedImage): void {
  const path = `js/test/golden/${name}.png`;
  if (UPDATE) {
    writePng(path, frame.width, frame.height, frame.data);
    console.log(`  wrote ${path}`);
    return;
  }
  const reference = readPng(path);
  const score = ssim(frame, reference);
  console.log(`  ${name}: SSIM ${score.toFixed(4)}`);
  if (score < THRESHOLD) writePng(`/tmp/limina-golden-${name}.png`, frame.width, frame.height, frame.data);
  assert(score >= THRESHOLD, `${name}: SSIM ${score.toFixed(4)} < ${THRESHOLD} against ${path} (this render: /tmp/limina-golden-${name}.png)`);
}

for (const [name, frames] of [["fidelity_scene", 150], ["billiards", 120], ["numbers_party", 600], ["hedgehog_dance", 150]] as const) {
  test(`${name} matches its golden image`, async () => {
    const run = await runDemo(name, { frames, size: SIZE, deterministic: true, args: ["--quality", "balanced"] });
    compare(name, run.frame);
  });
}

test("the look scene (sky, sun shadows, AO, bloom, library materials) matches its golden image", async () => {
  const BUILDER = { agentId: "b", sessionId: "s", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
  const s = createWorldSession({ simulate: false, quality: "balanced" });
  await s.enableCapture(await Capturer.create());
  const call = async (skill: string, input: unknown) => {
    const r = await s.registry.invoke(skill, input, BUILDER);
    if (!r.ok) throw new Error(`${skill}: ${r.error.code}: ${r.error.message}`);
    return r.value as Record<string, string>;
  };
  const floor = (await call("scene.createEntity", { shape: "box", size: 1, position: [0, -0.1, 0], static: true })).entity;
  await call("three.setTransform", { entity: floor, scale: [24, 0.2, 24] });
  await call("material.apply", { entityId: floor, material: "tiles" });
  await call("three.setMaterial", { entity: floor, receiveShadow: true });
  const things: [string, string, [number, number, number]][] = [["sphere", "metal", [-1.6, 0.5, 0]], ["box", "brick", [0, 0.5, -0.6]], ["sphere", "plastic", [1.5, 0.5, 0.4]], ["box", "wood", [-0.4, 0.5, 1.4]]];
  for (const [shape, material, position] of things) {
    const e = (await call("scene.createEntity", { shape, size: 1, position })).entity;
    await call("material.apply", { entityId: e, material, tint: material === "plastic" ? 0x3070e0 : 0xffffff });
    await call("three.setMaterial", { entity: e, castShadow: true, receiveShadow: true });
  }
  await call("three.setLighting", { castShadow: true, direction: [4, 6, 3] });
  await call("render.setEnvironment", { sunElevation: 35, sunAzimuth: 40 });
  const c = await call("render.capture", { width: 256, height: 144, camera: { position: [0, 2.4, 5.5], target: [0, 0.4, 0] } });
  compare("look_scene", decodeCapture(c.png));
  s.dispose();
});
