// limina: --deterministic
// VFX: vfx.spawn / vfx.attach / vfx.stop / vfx.list / vfx.presets — emitters
// are world state (limits, ends, entity following, digest, snapshots,
// replay), builders only; GPU particles show in captures on lavapipe, stop
// removes them, the same world at the same tick draws the same particles,
// and the weather's rain and snow fall through the same system.
import { assert, assertEquals, test } from "limina/testing";
import { Capturer, createWorldSession, decodeSnapshot, encodeSnapshot, replay, resolveProfile, restoreSession, snapshotSession, type WorldSession } from "limina";
import { refused, value } from "./support/results.ts";
import { crop, decodeCapture, type DecodedImage, meanDifference } from "./support/images.ts";

const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const PLAYER = { agentId: "p1", sessionId: "s2", permissions: resolveProfile("player.limited"), profile: "player.limited" };
const ACTOR = { agentId: "a1", sessionId: "s3", permissions: resolveProfile("social.actor"), profile: "social.actor" };
const DT = 1 / 60;
const W = 160;
const H = 120;
const CAMERA = { position: [0, 2, 7], target: [0, 1.2, 0] };

const call = async <T = Record<string, unknown>>(s: WorldSession, skill: string, input: unknown, who = BUILDER) => value<T>(await s.registry.invoke(skill, input, who));
const steps = (s: WorldSession, n: number) => {
  for (let i = 0; i < n; i++) s.step(DT);
};

interface Emitter {
  id: string;
  preset: string;
  position: number[];
  entity: string | null;
  count: number;
  seed: number;
  start: number;
  until: number | null;
}
const list = async (s: WorldSession) => (await call<{ emitters: Emitter[]; particles: number }>(s, "vfx.list", {}));

const capturer = await Capturer.create();

/** A world that can capture, with a dark floor. */
async function stage(): Promise<WorldSession> {
  const s = createWorldSession({ simulate: false, quality: "low" });
  assert(await s.enableCapture(capturer));
  const floor = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, -0.5, 0], static: true, color: 0x404040 })).entity;
  await call(s, "three.setTransform", { entity: floor, scale: [30, 1, 30] });
  return s;
}
const shot = async (s: WorldSession): Promise<DecodedImage> => decodeCapture((await call<{ png: string }>(s, "render.capture", { width: W, height: H, camera: CAMERA })).png);
/** The middle of the frame, where effects at the origin show. */
const middle = (img: DecodedImage) => crop(img, { x0: W / 4, y0: H / 6, x1: (3 * W) / 4, y1: (5 * H) / 6 });

test("vfx.spawn and vfx.attach start emitters with the preset's defaults; a burst and a duration end by themselves, a followed entity's end ends its emitters", async () => {
  const s = createWorldSession({ simulate: false });
  const presets = await call<{ presets: { name: string; count: number; burst: boolean }[] }>(s, "vfx.presets", {});
  assertEquals(presets.presets.map((p) => p.name), ["fire", "smoke", "sparks", "magic", "rain", "snow", "explosion"]);
  const fire = await call<Emitter>(s, "vfx.spawn", { preset: "fire", position: [1, 0, 2] });
  assertEquals([fire.id, fire.preset, fire.position, fire.entity, fire.count, fire.until], ["vfx_1", "fire", [1, 0, 2], null, 3000, null]);
  const torch = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 0.2, position: [3, 1, 0] })).entity;
  const magic = await call<Emitter>(s, "vfx.attach", { preset: "magic", entity: torch, offset: [0, 0.5, 0], count: 500, seed: 7 });
  assertEquals([magic.entity, magic.position, magic.count, magic.seed], [torch, [0, 0.5, 0], 500, 7]);
  steps(s, 10);
  const boom = await call<Emitter>(s, "vfx.spawn", { preset: "explosion", position: [0, 1, 0] });
  assertEquals([boom.start, boom.until], [10, 10 + 96], "a burst ends when its longest-lived particle dies (1.6 s)");
  const brief = await call<Emitter>(s, "vfx.spawn", { preset: "sparks", position: [0, 0, 0], duration: 0.5 });
  assertEquals(brief.until, 40);
  assertEquals((await list(s)).particles, 3000 + 500 + 4000 + 1200);
  steps(s, 30);
  assertEquals((await list(s)).emitters.map((e) => e.id), ["vfx_1", "vfx_2", "vfx_3"], "the sparks ended at tick 40");
  steps(s, 66);
  assertEquals((await list(s)).emitters.map((e) => e.id), ["vfx_1", "vfx_2"], "the explosion ended at tick 106");
  await call(s, "scene.destroyEntity", { entity: torch });
  steps(s, 1);
  assertEquals((await list(s)).emitters.map((e) => e.id), ["vfx_1"], "the torch's magic ended with it");
  const ended = s.tracer.history().filter((e) => e.type === "vfx.ended").map((e) => [(e.payload as { id: string }).id, (e.payload as { why: string }).why]);
  assertEquals(ended, [["vfx_4", "ended"], ["vfx_3", "ended"], ["vfx_2", "entity gone"]]);
  s.dispose();
});

test("vfx.stop stops one emitter, an entity's, or all; bad calls are refused and change nothing", async () => {
  const s = createWorldSession({ simulate: false });
  const a = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 0, 0] })).entity;
  await call(s, "vfx.spawn", { preset: "smoke", position: [0, 0, 0] });
  await call(s, "vfx.attach", { preset: "fire", entity: a });
  await call(s, "vfx.attach", { preset: "sparks", entity: a });
  await call(s, "vfx.spawn", { preset: "snow", position: [0, 10, 0] });
  const digest = s.digest();
  refused(await s.registry.invoke("vfx.stop", { id: "vfx_99" }, BUILDER), "not_found", "vfx_99");
  refused(await s.registry.invoke("vfx.attach", { preset: "fire", entity: "ent_404" }, BUILDER), "not_found", "ent_404");
  for (let i = 0; i < 3; i++) await call(s, "vfx.spawn", { preset: "rain", position: [0, 0, 0], count: 250_000 });
  const full = s.digest();
  refused(await s.registry.invoke("vfx.spawn", { preset: "rain", position: [0, 0, 0], count: 250_000 }, BUILDER), "invalid_input", "1000000");
  assertEquals(s.digest(), full, "a refused spawn changes nothing");
  refused(await s.registry.invoke("vfx.spawn", { preset: "plasma", position: [0, 0, 0] }, BUILDER), "invalid_input", "preset");
  await call(s, "vfx.stop", { id: "vfx_5" });
  await call(s, "vfx.stop", { id: "vfx_6" });
  await call(s, "vfx.stop", { id: "vfx_7" });
  assert(s.digest() !== digest, "spawning and stopping moved the id counter");
  assertEquals((await call<{ stopped: string[] }>(s, "vfx.stop", { entity: a })).stopped, ["vfx_2", "vfx_3"]);
  assertEquals((await call<{ stopped: string[] }>(s, "vfx.stop", { id: "vfx_1" })).stopped, ["vfx_1"]);
  assertEquals((await call<{ stopped: string[] }>(s, "vfx.stop", {})).stopped, ["vfx_4"]);
  assertEquals((await list(s)).emitters, []);
  s.dispose();
});

test("players and actors cannot spawn, attach or stop effects, and a denied call changes nothing; they can list them", async () => {
  const s = createWorldSession({ simulate: false });
  const e = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 0, 0] })).entity;
  await call(s, "vfx.spawn", { preset: "fire", position: [0, 0, 0] });
  const digest = s.digest();
  for (const who of [PLAYER, ACTOR]) {
    for (const [skill, input] of [["vfx.spawn", { preset: "explosion", position: [0, 0, 0] }], ["vfx.attach", { preset: "magic", entity: e }], ["vfx.stop", {}], ["vfx.stop", { id: "vfx_1" }]] as const) {
      refused(await s.registry.invoke(skill, input, who), "forbidden", "render.write");
      assertEquals(s.digest(), digest, `${who.profile} ${skill} changed nothing`);
    }
    assertEquals((await call<{ emitters: Emitter[] }>(s, "vfx.list", {}, who)).emitters.length, 1);
  }
  s.dispose();
});

test("a capture shows the particles (GPU compute on lavapipe), stopping removes them, and each preset draws", async () => {
  const s = await stage();
  const none = await shot(s);
  const fire = await call<Emitter>(s, "vfx.spawn", { preset: "fire", position: [0, 0.2, 0] });
  steps(s, 30);
  const burning = await shot(s);
  const d = meanDifference(middle(none), middle(burning));
  assert(d > 3, `the fire shows: mean difference ${d.toFixed(2)}`);
  assertEquals(s.particles.lastDrawn, { fields: 1, particles: 3000, splatted: 0 });
  await call(s, "vfx.stop", { id: fire.id });
  const stopped = await shot(s);
  assertEquals(s.particles.lastDrawn, { fields: 0, particles: 0, splatted: 0 });
  assert(meanDifference(none, stopped) < 0.05, `stopped: nothing left (${meanDifference(none, stopped).toFixed(3)})`);
  for (const preset of ["smoke", "sparks", "magic", "explosion"]) {
    const e = await call<Emitter>(s, "vfx.spawn", { preset, position: [0, 0.5, 0] });
    steps(s, 30);
    const img = await shot(s);
    const diff = meanDifference(middle(none), middle(img));
    assert(diff > 0.5, `${preset} shows: mean difference ${diff.toFixed(2)}`);
    await call(s, "vfx.stop", { id: e.id });
  }
  s.dispose();
});

test("the same world at the same tick draws the same particles; a snapshot restores the emitters, the digest and what is drawn", async () => {
  const build = async () => {
    const s = await stage();
    const post = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 0.3, position: [-1, 0.15, 0], static: true })).entity;
    await call(s, "vfx.attach", { preset: "sparks", entity: post, offset: [0, 0.3, 0] });
    await call(s, "vfx.spawn", { preset: "magic", position: [1, 0.3, 0], seed: 42 });
    steps(s, 40);
    return s;
  };
  const a = await build();
  const b = await build();
  assertEquals(a.digest(), b.digest());
  const snap = encodeSnapshot(snapshotSession(a));
  const imgA = await shot(a);
  const imgB = await shot(b);
  assertEquals(meanDifference(imgA, imgB), 0, "two runs draw the same particles");
  const r = createWorldSession({ simulate: false, quality: "low" });
  assert(await r.enableCapture(capturer));
  await restoreSession(r, decodeSnapshot(snap));
  assertEquals(r.digest(), a.digest());
  assertEquals(await list(r), await list(a));
  const restored = meanDifference(await shot(r), imgA);
  assert(restored < 0.01, `the restored world draws the same particles (mean difference ${restored})`);
  steps(a, 20);
  steps(r, 20);
  assertEquals(r.digest(), a.digest());
  // A different seed draws differently.
  await call(b, "vfx.stop", { id: "vfx_2" });
  await call(b, "vfx.spawn", { preset: "magic", position: [1, 0.3, 0], seed: 43 });
  await call(a, "vfx.stop", { id: "vfx_2" });
  await call(a, "vfx.spawn", { preset: "magic", position: [1, 0.3, 0], seed: 42 });
  steps(a, 30);
  steps(b, 30);
  assert(meanDifference(await shot(a), await shot(b)) > 0, "another seed, other particles");
  for (const s of [a, b, r]) s.dispose();
});

test("the weather's rain and snow fall through the same particles around the camera", async () => {
  const s = await stage();
  const clear = await shot(s);
  await call(s, "world.setWeather", { kind: "rain", intensity: 1, windSpeed: 3 });
  steps(s, 60);
  const rain = await shot(s);
  assertEquals(s.particles.lastDrawn.fields, 1);
  assertEquals(s.particles.lastDrawn.particles, 12000);
  // The rain adds streaks over the fog-thickened frame: compare with the same weather's fog and no drops.
  await call(s, "world.setWeather", { kind: "snow", intensity: 0.5 });
  steps(s, 60);
  const snow = await shot(s);
  assertEquals(s.particles.lastDrawn.particles, 5000);
  assert(meanDifference(rain, snow) > 0.5, "rain and snow differ");
  await call(s, "world.setWeather", { kind: "clear" });
  const after = await shot(s);
  assertEquals(s.particles.lastDrawn.particles, 0);
  assert(meanDifference(clear, rain) > 0.5, `rain shows: ${meanDifference(clear, rain).toFixed(2)}`);
  assert(meanDifference(clear, after) < 0.05, `clear again: ${meanDifference(clear, after).toFixed(3)}`);
  s.dispose();
});

test("rain and snow have a closed form: a field drawn late draws what one drawn every few ticks draws, wind included, and a restored world the same", async () => {
  const weather = async (s: WorldSession, preset: string) => {
    await call(s, "world.setWeather", { kind: "clear", windDirection: 30, windSpeed: 3 });
    await call(s, "vfx.spawn", { preset, position: [0, 4, -2], count: 30_000, seed: 11, scale: 0.5 });
  };
  for (const kind of ["snow", "rain"]) {
    const often = await stage();
    await weather(often, kind);
    for (let i = 0; i < 3; i++) {
      steps(often, 23);
      await shot(often);
    }
    const a = await shot(often);
    const late = await stage();
    await weather(late, kind);
    steps(late, 69);
    const b = await shot(late);
    // A simulated field would differ: its particles are stepped from wherever the first draw met them.
    assertEquals(meanDifference(a, b), 0, `${kind}: drawn at ticks 23, 46 and 69 or at 69 only, the same frame`);
    const snap = encodeSnapshot(snapshotSession(often));
    const r = createWorldSession({ simulate: false, quality: "low" });
    assert(await r.enableCapture(capturer));
    await restoreSession(r, decodeSnapshot(snap));
    assertEquals(meanDifference(await shot(r), a), 0, `${kind}: the restored world draws the same particles`);
    steps(often, 1);
    const next = await shot(often);
    assert(meanDifference(a, next) > 0.05, `${kind}: a tick later the particles have moved (${meanDifference(a, next).toFixed(3)})`);
    for (const s of [often, late, r]) s.dispose();
  }
});

test("a log of vfx calls replays to every recorded digest", async () => {
  const s = createWorldSession({ simulate: false, checkpointEvery: 20 });
  const e = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 0, 0] })).entity;
  await call(s, "vfx.spawn", { preset: "fire", position: [0, 0, 0] });
  await call(s, "vfx.attach", { preset: "smoke", entity: e, offset: [0, 1, 0] });
  steps(s, 25);
  await call(s, "vfx.spawn", { preset: "explosion", position: [2, 1, 0] });
  steps(s, 110);
  await call(s, "vfx.stop", { id: "vfx_1" });
  steps(s, 10);
  s.checkpoint();
  const events = s.tracer.history();
  const recorded = events.filter((ev) => ev.type === "world.checkpoint").length;
  assert(recorded >= 7, `${recorded} checkpoints`);
  const again = createWorldSession({ simulate: false, checkpointEvery: 0 });
  const result = await replay(again, events);
  assert(result.ok, JSON.stringify(result));
  assertEquals(result.checkpoints, recorded);
  assertEquals(await list(again), await list(s));
  s.dispose();
  again.dispose();
});

test("a malformed saved vfx, world.time or world.weather is refused before anything changes", async () => {
  const s = createWorldSession({ simulate: false });
  await call(s, "vfx.spawn", { preset: "fire", position: [0, 0, 0] });
  await call(s, "world.setTime", { hour: 8 });
  const saved = s.resources.save() as Record<string, unknown>;
  const digest = s.digest();
  for (const [name, bad, where] of [
    ["vfx", { next: 2, emitters: [{ id: "vfx_1", preset: "plasma" }] }, "saved vfx is malformed at emitters.0"],
    ["world.time", { seconds: -5, scale: 1 }, "saved world.time is malformed at seconds"],
    ["world.weather", { state: { kind: "clear" }, set: true }, "saved world.weather is malformed at state"],
  ] as const) {
    let message = "";
    try {
      s.resources.load({ ...saved, [name]: bad });
    } catch (e) {
      message = (e as Error).message;
    }
    assert(message.includes(where), `${name}: ${message}`);
    assertEquals(s.digest(), digest, `${name}: nothing changed`);
  }
  s.dispose();
});

/** The largest per-channel difference between two same-sized images, and the share of pixels differing by more than `by`. */
function pixelDifference(a: DecodedImage, b: DecodedImage, by: number): { max: number; over: number } {
  let max = 0;
  let over = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    let d = 0;
    for (let c = 0; c < 3; c++) d = Math.max(d, Math.abs(a.data[i + c] - b.data[i + c]));
    max = Math.max(max, d);
    if (d > by) over++;
  }
  return { max, over: over / (a.data.length / 4) };
}

test("particles splatted without triangles draw what the triangles draw, within a bound, and hide behind geometry", async () => {
  const s = await stage();
  await call(s, "world.setWeather", { kind: "fog", intensity: 0.5 });
  const none = await shot(s);
  await call(s, "vfx.spawn", { preset: "fire", position: [-1, 0.2, 0], count: 2000, seed: 3 });
  await call(s, "vfx.spawn", { preset: "smoke", position: [1, 0.5, 0], count: 800, seed: 4 });
  await call(s, "vfx.spawn", { preset: "snow", position: [0, 6, 0], count: 20_000, seed: 5 });
  steps(s, 90);
  s.particles.drawing = "triangles";
  const triangles = await shot(s);
  assertEquals(s.particles.lastDrawn.splatted, 0);
  s.particles.drawing = "splat";
  const splat = await shot(s);
  assertEquals(s.particles.lastDrawn.splatted, 22_800, "every field splatted");
  // The same dots, colours, fog and depth: only where blended particles overlap does the order-independent
  // blend differ from the triangles' (drawn in buffer order).
  const effect = meanDifference(none, triangles);
  const apart = meanDifference(triangles, splat);
  const px = pixelDifference(triangles, splat, 24);
  assert(effect > 2 && apart < effect / 40, `splat ${apart.toFixed(3)} from the triangles, which differ ${effect.toFixed(3)} from no particles`);
  assert(px.over < 0.002, `${(px.over * 100).toFixed(2)}% of pixels more than 24/255 apart (the most ${px.max})`);
  assertEquals(meanDifference(splat, await shot(s)), 0, "the same frame again");
  await call(s, "vfx.stop", {});
  assertEquals(meanDifference(none, await shot(s)), 0, "nothing left once stopped");
  await call(s, "world.setWeather", { kind: "clear" });
  // A fire on the left, then one on the right instead: the left half returns to the empty frame exactly (the
  // resolve zeroed the sums it read, and the tiles no particle touched show the scene untouched).
  const left = (img: DecodedImage) => crop(img, { x0: 0, y0: 0, x1: W / 2, y1: H });
  const empty = await shot(s);
  const west = await call<Emitter>(s, "vfx.spawn", { preset: "fire", position: [-1.5, 0.2, 0], count: 3000, seed: 6 });
  steps(s, 30);
  assert(meanDifference(left(empty), left(await shot(s))) > 1, "the left fire shows");
  await call(s, "vfx.stop", { id: west.id });
  await call(s, "vfx.spawn", { preset: "fire", position: [2.5, 0.2, 0], count: 3000, seed: 6 });
  steps(s, 30);
  const east = await shot(s);
  assertEquals(s.particles.lastDrawn.splatted, 3000);
  assert(meanDifference(empty, east) > 0.5, "the right fire shows");
  assertEquals(meanDifference(left(empty), left(east)), 0, "nothing left of the left fire");
  await call(s, "vfx.stop", {});
  // A wall between the camera and a fire hides it; a fire before the wall shows.
  const wall = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 1, 3], static: true, color: 0x606060 })).entity;
  await call(s, "three.setTransform", { entity: wall, scale: [3, 4, 0.1] });
  const bare = middle(await shot(s));
  const behind = await call<Emitter>(s, "vfx.spawn", { preset: "fire", position: [0, 0.2, 0], count: 30_000 });
  steps(s, 30);
  const hidden = middle(await shot(s));
  assertEquals(s.particles.lastDrawn.splatted, 30_000);
  assert(meanDifference(bare, hidden) < 0.01, `behind the wall: ${meanDifference(bare, hidden).toFixed(3)}`);
  await call(s, "vfx.stop", { id: behind.id });
  await call(s, "vfx.spawn", { preset: "fire", position: [0, 0.2, 4.5], count: 30_000 });
  steps(s, 30);
  const before = meanDifference(bare, middle(await shot(s)));
  assert(before > 3, `before the wall: ${before.toFixed(2)}`);
  // Left to choose, lavapipe (a software adapter) splats a field of 100k small dots and draws smaller fields as triangles.
  s.particles.drawing = "auto";
  await shot(s);
  assertEquals(s.particles.lastDrawn, { fields: 1, particles: 30_000, splatted: 0 });
  await call(s, "vfx.spawn", { preset: "snow", position: [0, 6, 0], count: 100_000 });
  steps(s, 5);
  await shot(s);
  assertEquals(s.particles.lastDrawn, { fields: 2, particles: 130_000, splatted: 100_000 });
  // Big dots (fire) stay triangles however many: the splat would pay an atomic add for each pixel they cover.
  await call(s, "vfx.spawn", { preset: "fire", position: [0, 0.2, 4.5], count: 100_000 });
  steps(s, 5);
  await shot(s);
  assertEquals(s.particles.lastDrawn, { fields: 3, particles: 230_000, splatted: 100_000 });
  s.dispose();
});

test("rain and snow splatted nearest-wins (one atomic a covered pixel) draw close to their triangles, the same frame twice, and hide behind geometry", async () => {
  const s = await stage();
  await call(s, "world.setWeather", { kind: "fog", intensity: 0.3 });
  const none = await shot(s);
  await call(s, "vfx.spawn", { preset: "snow", position: [0, 4, -2], count: 40_000, seed: 12, scale: 0.5 });
  await call(s, "vfx.spawn", { preset: "rain", position: [0, 4, -2], count: 20_000, seed: 13, scale: 0.5 });
  steps(s, 600);
  s.particles.drawing = "triangles";
  const triangles = await shot(s);
  s.particles.drawing = "splat";
  const splat = await shot(s);
  assertEquals(s.particles.lastDrawn.splatted, 60_000);
  // Where dots overlap the nearest one's colour wins instead of a blend: the frames differ there only.
  const effect = meanDifference(none, triangles);
  const apart = meanDifference(triangles, splat);
  const px = pixelDifference(triangles, splat, 24);
  assert(effect > 2 && apart < effect / 20, `nearest-wins ${apart.toFixed(3)} from the triangles, which differ ${effect.toFixed(3)} from no particles`);
  assert(px.over < 0.01, `${(px.over * 100).toFixed(2)}% of pixels more than 24/255 apart (the most ${px.max})`);
  assertEquals(meanDifference(splat, await shot(s)), 0, "the same frame again");
  await call(s, "vfx.stop", {});
  assertEquals(meanDifference(none, await shot(s)), 0, "nothing left once stopped");
  // A field far behind where a wall will stand shows; with the wall up, the frame is the wall's alone.
  await call(s, "vfx.spawn", { preset: "snow", position: [0, 4, -35], count: 50_000, seed: 14 });
  steps(s, 600);
  const far = meanDifference(none, await shot(s));
  assert(far > 0.3, `the far field shows: ${far.toFixed(2)}`);
  const wall = (await call<{ entity: string }>(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 5, -13], static: true, color: 0x606060 })).entity;
  await call(s, "three.setTransform", { entity: wall, scale: [80, 12, 0.1] });
  const hidden = await shot(s);
  assertEquals(s.particles.lastDrawn.splatted, 50_000);
  await call(s, "vfx.stop", {});
  assertEquals(meanDifference(await shot(s), hidden), 0, "behind the wall, nothing shows");
  s.dispose();
});
