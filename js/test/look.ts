// The look on lavapipe: the render.* settings skills and material.*, what
// each post pass does to real pixels (AO darkens a contact crease, bloom
// spreads light above its threshold, anti-aliasing lowers the step energy of
// a high-contrast diagonal, fog lowers contrast with distance), the sky
// following the sun, HDRI presets, and the settings and materials surviving
// a snapshot. Captures are small (256×144) so the suite stays quick.
import { assert, assertEquals, test } from "limina/testing";
import * as THREE from "three";
import { applyEngineLook, attachLook, bakeCache, type BakeStore, Capturer, createOffscreenRenderer, createWorldSession, decodePng, Look, LookRenderer, decodeSnapshot, encodeSnapshot, loadHdriAsset, resolveProfile, restoreSession, snapshotSession, TIERS, type WorldSession } from "limina";
import { refused, value } from "./support/results.ts";
import { crop, decodeCapture, edgeEnergy, meanDifference, meanLuma, meanRgb, type Region } from "./support/images.ts";

const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const PLAYER = { agentId: "p1", sessionId: "s2", permissions: resolveProfile("player.limited"), profile: "player.limited" };
const W = 256;
const H = 144;
const OFF = { ao: false, bloom: false, antialias: "none", grade: false, dof: false };

const capturer = await Capturer.create();

async function world(): Promise<WorldSession> {
  const s = createWorldSession({ simulate: false, quality: "balanced" });
  assertEquals(await s.enableCapture(capturer), true);
  return s;
}

const call = async <T = Record<string, unknown>>(s: WorldSession, skill: string, input: unknown, who = BUILDER) => value<T>(await s.registry.invoke(skill, input, who));

/** A floor with a sphere and a cube standing on it, both casting shadows. */
async function stage(s: WorldSession): Promise<{ floor: string; ball: string; cube: string }> {
  const floor = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, -0.1, 0], static: true, color: 0xb0aca4 })).entity;
  await call(s, "three.setTransform", { entity: floor, scale: [30, 0.2, 30] });
  await call(s, "three.setMaterial", { entity: floor, receiveShadow: true, roughness: 0.9 });
  const ball = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "sphere", size: 1, position: [-0.9, 0.5, 0], color: 0xc8302a })).entity;
  const cube = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0.9, 0.5, 0], color: 0xd0d0d0 })).entity;
  for (const e of [ball, cube]) await call(s, "three.setMaterial", { entity: e, castShadow: true, receiveShadow: true });
  await call(s, "three.setLighting", { castShadow: true, direction: [3, 8, 5] });
  return { floor, ball, cube };
}

const CAMERA = { position: [0, 2.2, 5], target: [0, 0.4, 0] };

async function capture(s: WorldSession, camera: unknown = CAMERA) {
  const c = await call<{ png: string }>(s, "render.capture", { width: W, height: H, camera });
  return decodeCapture(c.png);
}

/** The pixel a world point lands on, from CAMERA at W×H. */
function pixelOf(p: [number, number, number], camera = CAMERA): [number, number] {
  const cam = new THREE.PerspectiveCamera(55, W / H, 0.1, 1000);
  cam.position.set(...(camera.position as [number, number, number]));
  cam.lookAt(...(camera.target as [number, number, number]));
  cam.updateMatrixWorld();
  const v = new THREE.Vector3(...p).project(cam);
  return [Math.round(((v.x + 1) / 2) * (W - 1)), Math.round(((1 - v.y) / 2) * (H - 1))];
}

const around = ([x, y]: [number, number], r = 2): Region => ({ x0: x - r, y0: y - r, x1: x + r + 1, y1: y + r + 1 });

test("the look's skills: six typed skills, render.write for the writes (builders only), scene.read for the reads", async () => {
  const s = await world();
  const skills = new Map(s.registry.all().map((k) => [k.name, k]));
  const expected: Record<string, string[]> = {
    "render.setEnvironment": ["render.write"],
    "render.setPost": ["render.write"],
    "render.setQuality": ["render.write"],
    "render.getSettings": ["scene.read"],
    "material.list": ["scene.read"],
    "material.apply": ["render.write"],
  };
  for (const [name, permissions] of Object.entries(expected)) assertEquals(skills.get(name)?.permissions, permissions, name);
  assert(resolveProfile("builder.readWrite").has("render.write"));
  for (const p of ["player.limited", "social.actor", "system.readonly"]) assert(!resolveProfile(p).has("render.write"), p);
  const settings = await call<{ quality: string; environment: { preset: string }; post: { ao: unknown } }>(s, "render.getSettings", {}, PLAYER);
  assertEquals([settings.quality, settings.environment.preset, settings.post.ao !== false], ["balanced", "sky", true]);
  // A player may look but not change the look: refused, nothing changed.
  refused(await s.registry.invoke("render.setPost", { ao: false }, PLAYER), "forbidden", "render.write");
  refused(await s.registry.invoke("render.setQuality", { tier: "low" }, PLAYER), "forbidden", "render.write");
  assertEquals(await call(s, "render.getSettings", {}, PLAYER), settings);
  s.dispose();
});

test("bad input is refused precisely and changes nothing", async () => {
  const s = await world();
  const before = await call(s, "render.getSettings", {});
  for (const [skill, input] of [
    ["render.setEnvironment", { sunElevation: 95 }],
    ["render.setEnvironment", { exposure: 0 }],
    ["render.setEnvironment", { preset: "moon" }],
    ["render.setEnvironment", { fog: { density: -1 } }],
    ["render.setEnvironment", { sunAzimuth: Number.NaN }],
    ["render.setPost", { bloom: { strength: 9 } }],
    ["render.setPost", { antialias: "msaa16" }],
    ["render.setPost", { grade: { lut: "sepia" } }],
    ["render.setQuality", { tier: "ultra" }],
    ["material.apply", { entityId: "ent_1", material: "cheese" }],
  ] as const) {
    refused(await s.registry.invoke(skill, input, BUILDER), "invalid_input", "");
  }
  refused(await s.registry.invoke("material.apply", { entityId: "ent_404", material: "wood" }, BUILDER), "not_found", "ent_404");
  refused(await s.registry.invoke("render.setEnvironment", { hdri: "no_such_hdri" }, BUILDER), "not_found", "no_such_hdri");
  refused(await s.registry.invoke("render.setEnvironment", { hdri: "crate" }, BUILDER), "invalid_input", "not an hdri");
  assertEquals(await call(s, "render.getSettings", {}), before);
  s.dispose();
});

test("the default capture shows a sky with a vertical gradient, bluer and darker up high, not a flat clear colour", async () => {
  const s = await world();
  const img = await capture(s, { position: [0, 1, 0], target: [0, 1.6, -5] });
  // The horizon is about row 90; rows above it are sky.
  const rows = [0, 15, 30, 45, 60, 75].map((y) => meanRgb(img, { x0: 0, y0: y, x1: W, y1: y + 4 }));
  const lumas = rows.map(([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b);
  assert(lumas[0] < lumas[5] - 15, `darker up high than toward the horizon: ${lumas.map(Math.round)}`);
  for (let i = 1; i < rows.length; i++) assert(lumas[i] > lumas[i - 1], `brightening toward the horizon: ${lumas.map(Math.round)}`);
  const [r, , b] = rows[0];
  assert(b > r + 20, `blue up high: ${rows[0].map(Math.round)}`);
  // Each row is even across: a sky, not noise.
  for (const y of [10, 60]) {
    const left = meanLuma(img, { x0: 0, y0: y, x1: 40, y1: y + 4 });
    const right = meanLuma(img, { x0: W - 40, y0: y, x1: W, y1: y + 4 });
    assert(Math.abs(left - right) < 25, `row ${y} even across: ${left} ${right}`);
  }
  s.dispose();
});

test("post stack: everything off and AO + bloom + AA on give measurably different frames", async () => {
  const s = await world();
  await stage(s);
  await call(s, "render.setPost", OFF);
  const off = await capture(s);
  await call(s, "render.setPost", { ao: true, bloom: true, antialias: "fxaa" });
  const on = await capture(s);
  const d = meanDifference(off, on);
  assert(d > 0.25, `mean difference ${d.toFixed(2)}`);
  // Most of it where the objects meet the floor (AO) and along their edges (AA).
  const objects: Region = { x0: pixelOf([-1.5, 0, 0])[0], y0: pixelOf([0, 1.1, 0])[1], x1: pixelOf([1.5, 0, 0])[0], y1: pixelOf([0, 0, 0.6])[1] };
  const local = meanDifference(crop(off, objects), crop(on, objects));
  assert(local > 2, `around the objects: ${local.toFixed(2)}`);
  s.dispose();
});

test("the sun: two elevations give different frames, the sky dims and warms as the sun sets, and the sun light follows", async () => {
  const s = await world();
  await stage(s);
  await call(s, "render.setPost", OFF);
  const camera = { position: [0, 2, 6], target: [0, 2.4, -4] };
  const high = await call<{ sunElevation: number; sunAzimuth: number }>(s, "render.setEnvironment", { sunElevation: 60, sunAzimuth: 30 });
  assertEquals([high.sunElevation, high.sunAzimuth], [60, 30]);
  const noon = await capture(s, camera);
  const dir = s.lighting.directional.position.clone().sub(s.lighting.directional.target.position).normalize();
  assert(Math.abs(dir.y - Math.sin(Math.PI / 3)) < 1e-4, `the light moved with the sun: ${dir.toArray()}`);
  await call(s, "render.setEnvironment", { sunElevation: 4 });
  const evening = await capture(s, camera);
  assert(meanDifference(noon, evening) > 8, `mean difference ${meanDifference(noon, evening).toFixed(1)}`);
  const skyBand: Region = { x0: 0, y0: 0, x1: W, y1: 30 };
  const [nr, , nb] = meanRgb(noon, skyBand);
  const [er, , eb] = meanRgb(evening, skyBand);
  assert(meanLuma(evening, skyBand) < meanLuma(noon, skyBand) - 10, `dimmer sky: ${meanLuma(noon, skyBand)} → ${meanLuma(evening, skyBand)}`);
  assert(er / eb > nr / nb, `warmer sky: r/b ${(nr / nb).toFixed(2)} → ${(er / eb).toFixed(2)}`);
  // Moving the light by code moves the sky too.
  s.lighting.directional.position.set(0, 10, 10);
  const moved = await capture(s, camera);
  assertEquals((await call<{ environment: { sunElevation: number } }>(s, "render.getSettings", {})).environment.sunElevation, 45);
  assert(meanDifference(moved, evening) > 8, "the sky followed the light");
  s.dispose();
});

test("ambient occlusion darkens the contact crease under the cube and leaves open floor alone", async () => {
  const s = await world();
  await stage(s);
  await call(s, "render.setPost", { ...OFF, ao: { intensity: 1, radius: 0.5 } });
  const withAo = await capture(s);
  await call(s, "render.setPost", { ao: false });
  const without = await capture(s);
  // The floor just in front of the cube's base, and open floor far from anything.
  const crease = around(pixelOf([0.9, 0.02, 0.56]));
  const open = around(pixelOf([-3, 0, 2.5]));
  const dCrease = meanLuma(without, crease) - meanLuma(withAo, crease);
  const dOpen = Math.abs(meanLuma(without, open) - meanLuma(withAo, open));
  assert(dCrease > 6, `the crease darkens by ${dCrease.toFixed(1)}`);
  assert(dOpen < dCrease / 3, `open floor barely changes: ${dOpen.toFixed(1)} vs ${dCrease.toFixed(1)}`);
  s.dispose();
});

test("bloom spreads light above its threshold onto its surroundings, and nothing below it", async () => {
  const s = await world();
  const { ball } = await stage(s);
  const mesh = s.entities.require(ball).mesh as THREE.Mesh;
  const m = mesh.material as THREE.MeshStandardMaterial;
  m.emissive.setRGB(1, 0.9, 0.7);
  m.emissiveIntensity = 12;
  const near = around(pixelOf([-0.9, 0.5, 0]).map((v, i) => (i === 1 ? v - 22 : v)) as [number, number], 2); // just above the ball
  await call(s, "render.setPost", OFF);
  const plain = await capture(s);
  await call(s, "render.setPost", { bloom: { strength: 1, threshold: 1, radius: 0.5 } });
  const bloomed = await capture(s);
  const gain = meanLuma(bloomed, near) - meanLuma(plain, near);
  assert(gain > 8, `light spread above the ball: +${gain.toFixed(1)}`);
  // Above everything on screen: with the threshold over the ball's radiance, nothing spreads.
  await call(s, "render.setPost", { bloom: { threshold: 80 } });
  const dull = await capture(s);
  const rest = meanLuma(dull, near) - meanLuma(plain, near);
  assert(rest < gain / 4, `a threshold above the light spreads (almost) nothing: +${rest.toFixed(1)} vs +${gain.toFixed(1)}`);
  s.dispose();
});

test("anti-aliasing lowers the step energy along a high-contrast diagonal: FXAA, SMAA and TAA each", async () => {
  const s = await world();
  await call(s, "render.setEnvironment", { fog: false });
  // A dark bar, tilted 30°, against the bright sky.
  const bar = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 0, 0], color: 0x101010 })).entity;
  await call(s, "three.setTransform", { entity: bar, scale: [0.6, 6, 0.6], rotationEuler: [0, 0, 0.52] });
  const camera = { position: [0, 0, 6], target: [0, 0, 0] };
  const region: Region = { x0: 60, y0: 10, x1: 196, y1: 134 };
  await call(s, "render.setPost", OFF);
  const aliased = edgeEnergy(await capture(s, camera), region);
  for (const antialias of ["fxaa", "smaa", "taa"]) {
    await call(s, "render.setPost", { antialias });
    const smooth = edgeEnergy(await capture(s, camera), region);
    assert(smooth < aliased * 0.9, `${antialias}: edge energy ${smooth.toFixed(0)} vs ${aliased.toFixed(0)} without`);
  }
  s.dispose();
});

test("fog lowers contrast with distance: a far dark post fades into the haze, a near one keeps its contrast", async () => {
  const s = await world();
  await stage(s);
  await call(s, "render.setPost", OFF);
  // A near dark post on the right, 10 m away; a far one on the left, 126 m away; both against the sky.
  const near = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [2.5, 3, -4], color: 0x080808 })).entity;
  await call(s, "three.setTransform", { entity: near, scale: [0.8, 6, 0.8] });
  const far = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [-40, 8, -120], color: 0x080808 })).entity;
  await call(s, "three.setTransform", { entity: far, scale: [16, 16, 4] });
  const camera = { position: [0, 2, 6], target: [-1, 2.5, -10] };
  /** Sky just above a post's top minus the post just below it. */
  const contrast = (img: ReturnType<typeof decodeCapture>, top: [number, number, number], up: number) =>
    meanLuma(img, around(pixelOf([top[0], top[1] + up, top[2]], camera), 1)) - meanLuma(img, around(pixelOf([top[0], top[1] - up, top[2]], camera), 1));
  await call(s, "render.setEnvironment", { fog: false });
  const clear = await capture(s, camera);
  await call(s, "render.setEnvironment", { fog: { density: 0.01, heightFalloff: 0 } });
  const foggy = await capture(s, camera);
  const nearClear = contrast(clear, [2.5, 6, -4], 0.4);
  const nearFoggy = contrast(foggy, [2.5, 6, -4], 0.4);
  const farClear = contrast(clear, [-40, 16, -120], 5);
  const farFoggy = contrast(foggy, [-40, 16, -120], 5);
  assert(farClear > 60, `the far post stands out without fog: ${farClear.toFixed(0)}`);
  assert(farFoggy < farClear * 0.5, `the far post fades into the fog: contrast ${farClear.toFixed(0)} → ${farFoggy.toFixed(0)}`);
  assert(nearFoggy > nearClear * 0.6, `the near post keeps most of its contrast: ${nearClear.toFixed(0)} → ${nearFoggy.toFixed(0)}`);
  s.dispose();
});

test("HDRI presets light and surround the scene; choosing the sky again brings the sun back", async () => {
  const s = await world();
  await stage(s);
  await call(s, "render.setPost", OFF);
  const sky = await capture(s);
  const env = await call<{ preset: string; hdri: string | null }>(s, "render.setEnvironment", { preset: "sunset" });
  assertEquals([env.preset, env.hdri], ["sunset", null]);
  const sunset = await capture(s);
  assert(meanDifference(sky, sunset) > 5, `the HDRI changes the frame: ${meanDifference(sky, sunset).toFixed(1)}`);
  const byAsset = await call<{ hdri: string | null }>(s, "render.setEnvironment", { hdri: "hdri_studio" });
  assertEquals(byAsset.hdri, "hdri_studio");
  const studio = await capture(s);
  assert(meanDifference(studio, sunset) > 5, "a different HDRI, a different frame");
  await call(s, "render.setEnvironment", { preset: "sky" });
  assert(meanDifference(await capture(s), sky) < 1, "the sky again");
  s.dispose();
});

test("quality tiers: low, balanced and cinematic each render, and say what they set", async () => {
  const s = await world();
  await stage(s);
  const frames = [];
  for (const tier of ["low", "balanced", "cinematic"] as const) {
    const r = await call<{ tier: string; spec: { shadowMapSize: number; aoSamples: number } }>(s, "render.setQuality", { tier });
    assertEquals(r.tier, tier);
    frames.push(await capture(s));
    assertEquals(s.lighting.directional.shadow.mapSize.x, r.spec.shadowMapSize, "the sun's shadow map follows the tier");
  }
  // Low runs no AO: the contact crease in front of the cube is lighter than at balanced.
  const crease = around(pixelOf([0.9, 0.02, 0.56]));
  assert(meanLuma(frames[0], crease) > meanLuma(frames[1], crease) + 4, `AO at balanced, none at low: ${meanLuma(frames[0], crease).toFixed(0)} vs ${meanLuma(frames[1], crease).toFixed(0)}`);
  s.dispose();
});

/** A scene of its own with a look at tier low: the sun casting shadows, a grey ground and a red ball on it. */
function sunlitScene(): { scene: THREE.Scene; sun: THREE.DirectionalLight; look: Look } {
  const scene = new THREE.Scene();
  const sun = new THREE.DirectionalLight(0xffffff, 3);
  sun.position.set(3, 8, 5);
  sun.castShadow = true;
  scene.add(sun, sun.target);
  const look = new Look(scene, sun, loadHdriAsset, "low");
  attachLook(scene, look);
  const ground = new THREE.Mesh(new THREE.BoxGeometry(20, 0.2, 20), new THREE.MeshStandardMaterial({ color: 0x808080 }));
  ground.position.y = -0.1;
  ground.receiveShadow = true;
  const ball = new THREE.Mesh(new THREE.SphereGeometry(0.5, 24, 12), new THREE.MeshStandardMaterial({ color: 0xc8302a }));
  ball.position.y = 0.5;
  ball.castShadow = true;
  scene.add(ground, ball);
  return { scene, sun, look };
}

/**
 * Two 96×64 offscreen renderers (two GPU devices) with the engine's look, made once for the tests that
 * draw a scene on two devices and for those that draw on one (a new device compiles every pipeline again):
 * each test makes its own LookRenderers (their bakes and counts), scenes and error listeners, so what they
 * share is the devices' compiled pipelines and, on the first, the engine's disk cache of bakes (a warm run
 * loads its skies instead of filtering them, as a capture renderer does). The second keeps none: what it
 * bakes is always filtered on its device, the reference the first device's maps (stored or loaded) and the
 * disk cache's loads are compared with.
 */
let devicePair: Promise<Awaited<ReturnType<typeof createOffscreenRenderer>>[]> | null = null;
const twoDevices = () =>
  (devicePair ??= (async () => {
    const pair = [await createOffscreenRenderer(96, 64, { antialias: false }), await createOffscreenRenderer(96, 64, { antialias: false })];
    applyEngineLook(pair[0].renderer, { decodePng, bakes: bakeCache });
    applyEngineLook(pair[1].renderer, { decodePng });
    return pair;
  })());

test("switching tiers back and forth raises no GPU validation error: the sun's shadow map changes size under draws of both kinds of frame", async () => {
  // A device the two-device tests share: its listener is this test's, and so are the errors it sees.
  const [out] = await twoDevices();
  const errors: string[] = [];
  const device = (out.renderer.backend as unknown as { device: GPUDevice }).device;
  device.addEventListener("uncapturederror", (e) => errors.push((e as GPUUncapturedErrorEvent).error.message));
  const { scene, sun, look } = sunlitScene();
  const camera = new THREE.PerspectiveCamera(50, 96 / 64, 0.1, 100);
  camera.position.set(0, 1.5, 4);
  camera.lookAt(0, 0.3, 0);
  const looks = new LookRenderer(out.renderer, false);
  const frames = new Map<string, Uint8Array>();
  for (const tier of ["low", "balanced", "low", "cinematic", "low", "balanced"] as const) {
    look.quality = tier;
    looks.render(look, scene, camera);
    const pixels = await out.readPixels();
    assertEquals(errors, [], `after ${tier}`);
    assertEquals(sun.shadow.mapSize.x, TIERS[tier].shadowMapSize);
    // The same tier draws the same frame again, shadow included.
    const before = frames.get(tier);
    if (before) assertEquals(meanDifference({ width: 96, height: 64, data: before }, { width: 96, height: 64, data: pixels }), 0, `${tier} again`);
    frames.set(tier, pixels);
  }
});

test("worlds whose skies draw the same share one bake on a renderer, lit exactly as by a bake of their own; a moved sun re-bakes, moving back finds the map again; unused maps are bounded; another renderer bakes its own", async () => {
  const [out, other] = await twoDevices();
  const camera = new THREE.PerspectiveCamera(50, 96 / 64, 0.1, 100);
  camera.position.set(0, 1.5, 4);
  camera.lookAt(0, 0.3, 0);
  // Keeping one unused map, so a few skies show the bound.
  const looks = new LookRenderer(out.renderer, false, 1);
  const [a, b] = [sunlitScene(), sunlitScene()];
  const draw = async (w: ReturnType<typeof sunlitScene>, r = looks, o = out) => {
    r.render(w.look, w.scene, camera);
    return { width: 96, height: 64, data: await o.readPixels() };
  };
  const frameA = await draw(a);
  assertEquals(looks.bakesDone, 1);
  const frameB = await draw(b);
  assertEquals(looks.bakesDone, 1, "the second world with the same sky bakes nothing");
  assert(b.scene.environment === a.scene.environment, "both worlds light with one map");
  assertEquals(meanDifference(frameA, frameB), 0);
  // Another renderer (another GPU device: a window, a new capture renderer) never takes this one's map, and its own lights alike.
  const elsewhere = new LookRenderer(other.renderer, false);
  const c = sunlitScene();
  assertEquals(meanDifference(await draw(c, elsewhere, other), frameA), 0, "a bake of its own lights the world exactly as the shared one");
  assertEquals(elsewhere.bakesDone, 1);
  assert(c.scene.environment !== a.scene.environment);

  const sky = async (azimuth: number, elevation: number) => {
    b.look.environment.setSun(azimuth, elevation);
    return draw(b);
  };
  const moved = await sky(200, 12);
  assertEquals(looks.bakesDone, 2, "a moved sun re-bakes");
  assert(b.scene.environment !== a.scene.environment);
  assert(meanDifference(moved, frameB) > 0.5, "the moved sun shows");
  assertEquals(meanDifference(await draw(a), frameA), 0, "the other world keeps its map");
  const back = () => {
    b.sun.position.copy(a.sun.position);
    return draw(b);
  };
  await back();
  assertEquals(looks.bakesDone, 2, "the sun back where it was finds the shared map");
  assert(b.scene.environment === a.scene.environment);
  await sky(200, 12);
  assertEquals(looks.bakesDone, 2, "the one unused map kept is found");
  await back();
  await sky(120, 40);
  assertEquals(looks.bakesDone, 3);
  await back();
  await sky(200, 12);
  assertEquals(looks.bakesDone, 4, "the least recently used of two unused maps was let go");
});

/** Every level of a renderer's map texture, read back with each row's padding removed. */
async function mapBytes(renderer: THREE.WebGPURenderer, map: THREE.Texture): Promise<Uint8Array> {
  const backend = renderer.backend as unknown as { device: GPUDevice; get(texture: THREE.Texture): { texture: GPUTexture } };
  const { device } = backend;
  const texture = backend.get(map).texture;
  const parts: Uint8Array[] = [];
  for (let level = 0; level < texture.mipLevelCount; level++) {
    const width = texture.width >> level;
    const stride = Math.ceil((width * 8) / 256) * 256;
    const buffer = device.createBuffer({ size: stride * width * 6, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder();
    encoder.copyTextureToBuffer({ texture, mipLevel: level }, { buffer, bytesPerRow: stride, rowsPerImage: width }, [width, width, 6]);
    device.queue.submit([encoder.finish()]);
    await buffer.mapAsync(GPUMapMode.READ);
    const padded = new Uint8Array(buffer.getMappedRange());
    for (let row = 0; row < width * 6; row++) parts.push(padded.slice(row * stride, row * stride + width * 8));
    buffer.destroy();
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

test("the disk cache of bakes: a map stored by one device and loaded by another is the fresh bake bit for bit and lights the same frame; another sky misses; an HDRI asset is kept by its content (a damaged file: tests/bake_cache.rs)", async () => {
  const [, shared] = await twoDevices();
  const camera = new THREE.PerspectiveCamera(50, 96 / 64, 0.1, 100);
  camera.position.set(0, 1.5, 4);
  camera.lookAt(0, 0.3, 0);
  // The engine's store under keys of this run alone, so what earlier runs stored is never found.
  const run = `test ${Math.random()} ${Date.now()}`;
  const keys: string[] = [];
  const store: BakeStore = {
    load: (device, texture, key) => bakeCache.load(device, texture, `${run} ${key}`),
    store: (device, texture, key) => (keys.push(key), bakeCache.store(device, texture, `${run} ${key}`)),
  };
  const draw = async (o: typeof shared, looks: LookRenderer, w: ReturnType<typeof sunlitScene>) => {
    looks.render(w.look, w.scene, camera);
    return { width: 96, height: 64, data: await o.readPixels() };
  };
  // A fresh bake on a device with no store (the second of the suite's shared devices).
  const a = sunlitScene();
  const fresh = await draw(shared, new LookRenderer(shared.renderer, false), a);
  const freshMap = await mapBytes(shared.renderer, a.scene.environment!);
  assertEquals(freshMap.length, 4_193_280, "a 256² rgba16float map of 6 levels");

  // Two new devices with the store: one bakes and stores, the other loads.
  const [out, other] = [await createOffscreenRenderer(96, 64, { antialias: false }), await createOffscreenRenderer(96, 64, { antialias: false })];
  for (const o of [out, other]) applyEngineLook(o.renderer, { decodePng, bakes: store });
  const baking = new LookRenderer(out.renderer, false);
  await draw(out, baking, sunlitScene());
  await baking.stored();
  assertEquals([baking.bakesDone, baking.bakesLoaded, keys.length], [1, 0, 1], "the first bake is filtered and stored");

  const loading = new LookRenderer(other.renderer, false);
  const b = sunlitScene();
  const frame = await draw(other, loading, b);
  assertEquals([loading.bakesDone, loading.bakesLoaded], [1, 1], "another device loads the stored map");
  const loadedMap = await mapBytes(other.renderer, b.scene.environment!);
  assert(loadedMap.length === freshMap.length && loadedMap.every((v, i) => v === freshMap[i]), "the loaded map is the fresh bake, bit for bit");
  assertEquals(meanDifference(frame, fresh), 0, "a frame lit by the loaded map is the one the fresh bake lights");

  // Another sky is another key: baked and stored, not loaded.
  const dusk = sunlitScene();
  dusk.look.environment.setSun(200, 12);
  await draw(other, loading, dusk);
  await loading.stored();
  assertEquals([loading.bakesDone, loading.bakesLoaded, keys.length], [2, 1, 2], "another sky misses");
  assert(keys[0] !== keys[1]);

  // An HDRI asset is kept by its content (its id and its file's sha256): stored by one device, loaded by another, bit for bit.
  const warehouse = async () => {
    const w = sunlitScene();
    await w.look.environment.set({ ...w.look.environment.settings(), preset: "warehouse" });
    return w;
  };
  const h = await warehouse();
  await draw(out, baking, h);
  await baking.stored();
  assertEquals([baking.bakesDone, baking.bakesLoaded, keys.length], [2, 0, 3], "an HDRI's bake is filtered and stored");
  assert(/ hdri hdri_warehouse sha256:[0-9a-f]{64} /.test(keys[2]), `keyed by content: ${keys[2]}`);
  const bakedHdri = await mapBytes(out.renderer, h.scene.environment!);
  const h2 = await warehouse();
  await draw(other, loading, h2);
  assertEquals([loading.bakesDone, loading.bakesLoaded], [3, 2], "another device loads the HDRI's map");
  const loadedHdri = await mapBytes(other.renderer, h2.scene.environment!);
  assert(loadedHdri.length === bakedHdri.length && loadedHdri.every((v, i) => v === bakedHdri[i]), "the loaded HDRI map is the bake, bit for bit");
});

test("one scene drawn by two renderers (two GPU devices) keeps its sun's shadow on both: each frame is the one a single renderer draws, and no device sees a destroyed texture", async () => {
  const [out, other] = await twoDevices();
  const errors: string[] = [];
  for (const o of [out, other]) {
    (o.renderer.backend as unknown as { device: GPUDevice }).device.addEventListener("uncapturederror", (e) => errors.push((e as GPUUncapturedErrorEvent).error.message));
  }
  const camera = new THREE.PerspectiveCamera(50, 96 / 64, 0.1, 100);
  camera.position.set(0, 1.5, 4);
  camera.lookAt(0, 0.3, 0);
  const [looks, elsewhere] = [new LookRenderer(out.renderer, false), new LookRenderer(other.renderer, false)];
  const w = sunlitScene();
  const draw = async (r: LookRenderer, o: typeof out) => {
    r.render(w.look, w.scene, camera);
    return { width: 96, height: 64, data: await o.readPixels() };
  };
  const alone = await draw(looks, out);
  const unlit = sunlitScene();
  unlit.sun.castShadow = false;
  looks.render(unlit.look, unlit.scene, camera);
  assert(meanDifference(alone, { width: 96, height: 64, data: await out.readPixels() }) > 0.2, "the shadow shows in the single renderer's frame");
  const differences: number[] = [];
  for (let round = 0; round < 2; round++) {
    // The second renderer's frame, then the first's again.
    differences.push(meanDifference(await draw(elsewhere, other), alone), meanDifference(await draw(looks, out), alone));
  }
  // Another tier sizes the shadow map anew (the light is disposed): on one renderer, then the other; and back.
  w.look.quality = "balanced";
  const balanced = await draw(looks, out);
  differences.push(meanDifference(await draw(elsewhere, other), balanced));
  w.look.quality = "low";
  differences.push(meanDifference(await draw(elsewhere, other), alone), meanDifference(await draw(looks, out), alone));
  assertEquals({ errors, differences }, { errors: [], differences: [0, 0, 0, 0, 0, 0, 0] });
});

test("the material library: at least 12 named materials; material.apply dresses an entity and changes its pixels", async () => {
  const s = await world();
  const { cube } = await stage(s);
  await call(s, "render.setPost", OFF);
  const list = await call<{ materials: { name: string; description: string }[] }>(s, "material.list", {}, PLAYER);
  assert(list.materials.length >= 12, `${list.materials.length} materials`);
  for (const name of ["wood", "stone", "brick", "concrete", "metal", "painted_metal", "plastic", "rubber", "fabric", "grass", "sand", "snow", "glass"]) {
    assert(list.materials.some((m) => m.name === name && m.description.length > 10), name);
  }
  const plain = await capture(s);
  const face = around(pixelOf([0.9, 0.5, 0.5]), 4);
  for (const material of ["wood", "brick", "metal"]) {
    const r = await call<{ meshes: number }>(s, "material.apply", { entityId: cube, material, tint: 0xffffff, uvScale: 2 });
    assertEquals(r.meshes, 1);
    const dressed = await capture(s);
    assert(meanDifference(plain, dressed) > 0.3, `${material} changes the frame`);
    assert(Math.abs(meanLuma(dressed, face) - meanLuma(plain, face)) > 3 || meanDifference(dressed, plain) > 1, `${material} shows on the cube`);
  }
  refused(await s.registry.invoke("material.apply", { entityId: cube, material: "wood" }, PLAYER), "forbidden", "render.write");
  s.dispose();
});

test("render settings and dressed materials are world state: a snapshot restores them exactly", async () => {
  const s = await world();
  const { cube } = await stage(s);
  await call(s, "render.setEnvironment", { preset: "forest", exposure: 1.3, toneMapping: "agx", fog: { density: 0.01, color: 0x8899aa } });
  await call(s, "render.setPost", { bloom: { strength: 0.7 }, grade: { lut: "warm" }, dof: true, antialias: "smaa" });
  await call(s, "render.setQuality", { tier: "cinematic" });
  await call(s, "material.apply", { entityId: cube, material: "brick", tint: 0xffd0c0, uvScale: 1.5 });
  const settings = await call(s, "render.getSettings", {});
  const bytes = encodeSnapshot(snapshotSession(s));
  const r = await world();
  await restoreSession(r, decodeSnapshot(bytes));
  assertEquals(await call(r, "render.getSettings", {}), settings);
  const material = (r.entities.require(cube).mesh as THREE.Mesh).material as THREE.Material;
  assertEquals(material.userData.look, { material: "brick", tint: 0xffd0c0, uvScale: 1.5, space: "object" });
  s.dispose();
  r.dispose();
});

test("the window's renderer spreads a sky or HDRI re-bake over frames in pieces, keeps the old map until the new one is complete, and ends with the map an at-once bake makes, bit for bit; an exact frame bakes at once", async () => {
  const out = await createOffscreenRenderer(64, 64, { antialias: false });
  applyEngineLook(out.renderer);
  const scene = new THREE.Scene();
  const sun = new THREE.DirectionalLight(0xffffff, 3);
  scene.add(sun, sun.target);
  const look = new Look(scene, sun, loadHdriAsset, "low");
  attachLook(scene, look);
  // Balls from a mirror to fully rough: their pixels read every level of the map, sharp to blurred.
  for (const [x, roughness] of [[-1.2, 0.05], [-0.4, 0.3], [0.4, 0.6], [1.2, 1]]) {
    const ball = new THREE.Mesh(new THREE.SphereGeometry(0.38, 32, 16), new THREE.MeshStandardMaterial({ color: 0xffffff, metalness: 1, roughness }));
    ball.position.x = x;
    scene.add(ball);
  }
  const camera = new THREE.PerspectiveCamera(50, 1, 0.1, 100);
  camera.position.set(0, 0.3, 3);
  camera.lookAt(0, 0, 0);
  const diff = (a: Uint8Array, b: Uint8Array) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]), 0) / a.length;

  /** Every level and face of the map `r` baked for `look`, read back. */
  const levels = async (r: LookRenderer) => {
    const map = (r as unknown as { bakes: WeakMap<Look, { target: THREE.RenderTarget & { texture: { mipmaps: { width: number }[] } } }> }).bakes.get(look)!.target;
    const texels: Uint16Array[] = [];
    for (const [level, { width }] of map.texture.mipmaps.entries()) {
      const copy = new THREE.CubeRenderTarget(width, { type: THREE.HalfFloatType });
      out.renderer.initRenderTarget(copy);
      out.renderer.copyTextureToTexture(map.texture, copy.texture, new THREE.Box3(new THREE.Vector3(), new THREE.Vector3(width, width, 6)), null, level, 0);
      for (let face = 0; face < 6; face++) texels.push((await out.renderer.readRenderTargetPixelsAsync(copy, 0, 0, width, width, 0, face)) as Uint16Array);
      copy.dispose();
    }
    return texels;
  };
  const sameMaps = async (a: LookRenderer, b: LookRenderer) => {
    const [mapA, mapB] = [await levels(a), await levels(b)];
    assertEquals(mapA.length, mapB.length);
    mapA.forEach((texels, i) => assert(texels.every((v, j) => v === mapB[i][j]), `level ${Math.floor(i / 6)} face ${i % 6} matches the at-once bake bit for bit`));
  };

  const window = new LookRenderer(out.renderer, true);
  window.render(look, scene, camera);
  const first = scene.environment;
  assert(first !== null, "the first frame bakes at once");
  const before = await out.readPixels();

  look.environment.setSun(200, 6);
  const done = window.bakesDone;
  // The sun light and the sky move at once; the map lighting the balls stays the old one until the new one is complete.
  window.render(look, scene, camera);
  const oldMap = await out.readPixels();
  let frames = 1;
  while (window.bakesDone === done) {
    window.render(look, scene, camera);
    frames++;
    if (window.bakesDone === done) {
      assertEquals(diff(await out.readPixels(), oldMap), 0, `frame ${frames} of the re-bake still lights with the old map`);
      assert(window.stale, "a frame lit with the old map says so");
    }
    assert(frames < 400, "the re-bake completes");
  }
  assert(frames > 20, `the re-bake spans ${frames} frames, in pieces smaller than a PMREM level`);
  assert(!window.stale, "the frame completing the bake lights with the new map");
  assertEquals(window.lastBakeFrames, frames);
  assert(scene.environment === first, "the new map is copied into the texture in use (materials keep theirs)");
  const amortised = await out.readPixels();
  const once = new LookRenderer(out.renderer, false);
  once.render(look, scene, camera);
  assert(scene.environment !== first, "the at-once renderer baked its own map");
  const atOnce = await out.readPixels();
  // The maps themselves are bit-identical, every level and face.
  await sameMaps(window, once);
  // The frame lighting with it: three's environment node, built for the texture before its copy, samples it a hair apart from a fresh one (measured: mean 0.39 of 255, at most 7).
  const same = diff(amortised, atOnce);
  const moved = diff(before, atOnce);
  assert(same < 0.5 && amortised.every((v, i) => Math.abs(v - atOnce[i]) <= 8), `amortised and at-once bakes light the balls alike (mean |Δ| ${same.toFixed(3)} of 255)`);
  assert(moved > 1, `the sun's move shows (mean |Δ| ${moved.toFixed(2)})`);
  assert(diff(oldMap, atOnce) > 0.5, `the new map shows (mean |Δ| ${diff(oldMap, atOnce).toFixed(2)})`);

  // An HDRI preset is baked over frames the same way, and ends with the at-once map too; chosen while a
  // sky bake is being captured, it restarts the bake rather than finish a cube of both.
  look.environment.setSun(160, 30);
  window.render(look, scene, camera);
  await look.environment.set({ ...look.environment.settings(), preset: "forest" });
  const hdriDone = window.bakesDone;
  let hdriFrames = 0;
  while (window.bakesDone === hdriDone) {
    window.render(look, scene, camera);
    hdriFrames++;
    assert(hdriFrames < 400, "the HDRI bake completes");
  }
  assert(hdriFrames > 20, `the HDRI bake spans ${hdriFrames} frames`);
  once.render(look, scene, camera);
  await sameMaps(window, once);

  // Under an HDRI the map does not show the sun: moving it bakes nothing, not even in an exact frame.
  const hdriSteps = window.bakeSteps;
  look.environment.setSun(120, 40);
  window.render(look, scene, camera, true);
  assert(!window.stale && window.bakeSteps === hdriSteps, `a sun moved under an HDRI bakes nothing (${window.bakeSteps - hdriSteps} bake steps)`);

  // A screenshot's frame (exact) bakes a stale map at once, even in the window: the sky again, with the
  // sun where the at-once renderer already baked it (its map is kept for reuse).
  const sky = { ...look.environment.settings(), preset: "sky" as const, sunAzimuth: 200, sunElevation: 6 };
  await look.environment.set(sky);
  const exactDone = window.bakesDone;
  window.render(look, scene, camera, true);
  assertEquals(window.bakesDone, exactDone + 1, "an exact frame completes the bake at once");
  once.render(look, scene, camera);
  await sameMaps(window, once);

  // The same sky set again (a page restoring a world's look, a player seeking) keeps its map: no re-bake starts.
  window.render(look, scene, camera);
  const steps = window.bakeSteps;
  const kept = scene.environment;
  await look.environment.set(sky);
  window.render(look, scene, camera);
  assert(!window.stale && window.bakeSteps === steps && scene.environment === kept, `the same sky set again bakes nothing (${window.bakeSteps - steps} bake steps, stale ${window.stale})`);
});

test("a bare frame (tier low) from a perspective camera draws the sky after the opaque objects, only where nothing covers it: the same pixels as three's background drawn first, with and without MSAA, a transparent object over the sky included", async () => {
  for (const antialias of [false, true]) {
    // Without MSAA, a device the two-device tests share (the frame's scene and LookRenderer are this test's); with it, one of its own.
    const out = antialias ? await createOffscreenRenderer(96, 64, { antialias }) : (await twoDevices())[0];
    if (antialias) applyEngineLook(out.renderer, { bakes: bakeCache });
    const { scene, look } = sunlitScene();
    const glass = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshStandardMaterial({ color: 0x40a0ff, transparent: true, opacity: 0.5 }));
    glass.position.set(1.2, 1.4, 0);
    scene.add(glass);
    const camera = new THREE.PerspectiveCamera(50, 96 / 64, 0.1, 100);
    camera.position.set(0, 1, 4);
    camera.lookAt(0, 0.8, 0);
    const children = scene.children.length;

    const looks = new LookRenderer(out.renderer, false);
    looks.render(look, scene, camera);
    const dome = await out.readPixels();
    assertEquals(scene.backgroundNode, null, "a bare frame leaves three's background off");
    assertEquals(scene.children.length, children, "the sky dome is in the scene only while it draws");
    // The same frame with three's background (drawn first, over every pixel), and with no sky at all.
    scene.backgroundNode = look.environment.backgroundNode;
    out.renderer.render(scene, camera);
    const first = await out.readPixels();
    scene.backgroundNode = null;
    out.renderer.render(scene, camera);
    const none = await out.readPixels();
    const differing = (a: Uint8Array, b: Uint8Array) => a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0);
    assertEquals(differing(dome, first), 0, `msaa ${antialias}: the dome and three's background give the same pixels`);
    assert(differing(dome, none) > dome.length / 8, `msaa ${antialias}: the sky is drawn (${differing(dome, none)} values differ from no sky)`);
    // An orthographic view keeps three's background, which scales its sphere to the view box.
    const ortho = new THREE.OrthographicCamera(-3, 3, 2, -2, 0.1, 100);
    ortho.position.copy(camera.position);
    ortho.lookAt(0, 0.8, 0);
    looks.render(look, scene, ortho);
    assertEquals(scene.backgroundNode, look.environment.backgroundNode, "an orthographic view draws three's background");
    if (antialias) out.renderer.dispose();
  }
});
