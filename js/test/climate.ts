// limina: --deterministic
// World time and weather: world.setTime moves the sun (light, sky and
// environment lighting) and the clock keeps moving it at world.setTimeScale;
// world.setWeather thickens fog and haze, dims the sun and sets the wind and
// precipitation; both are world state (digest, snapshots, replay), builders
// only; and a capture shows the sky change with the time of day.
import { assert, assertEquals, test } from "limina/testing";
import { Capturer, createWorldSession, decodeSnapshot, encodeSnapshot, replay, resolveProfile, restoreSession, snapshotSession, type WorldSession } from "limina";
import { refused, value } from "./support/results.ts";
import { decodeCapture, meanDifference, meanLuma, meanRgb, type Region } from "./support/images.ts";

const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const PLAYER = { agentId: "p1", sessionId: "s2", permissions: resolveProfile("player.limited"), profile: "player.limited" };
const DT = 1 / 60;

const call = async <T = Record<string, unknown>>(s: WorldSession, skill: string, input: unknown, who = BUILDER) => value<T>(await s.registry.invoke(skill, input, who));
const steps = (s: WorldSession, n: number) => {
  for (let i = 0; i < n; i++) s.step(DT);
};

interface Time {
  hour: number | null;
  day: number | null;
  scale: number;
  sun: { azimuth: number; elevation: number };
}
interface WeatherOut {
  kind: string;
  intensity: number;
  wind: number[];
  precipitation: string | null;
  fogDensity: number;
  turbidity: number;
  sunIntensity: number;
}

test("world.setTime moves the sun light and the look's sun; night puts the sun light out; the clock leaves an unset world alone", async () => {
  const s = createWorldSession({ simulate: false });
  const before = await call<Time>(s, "world.getTime", {});
  assertEquals(before.hour, null);
  const lightBefore = s.lighting.directional.position.toArray();
  steps(s, 30);
  assertEquals(s.lighting.directional.position.toArray(), lightBefore, "an unset clock never moves the sun");
  const noon = await call<Time>(s, "world.setTime", { hour: 12 });
  assertEquals(noon.hour, 12);
  assertEquals(noon.day, 0);
  assert(Math.abs(noon.sun.elevation - 65) < 1e-3 && Math.abs(noon.sun.azimuth - 180) < 1e-3, JSON.stringify(noon.sun));
  assertEquals(s.lighting.directional.intensity, 3);
  const dir = s.lighting.directional.position.clone().sub(s.lighting.directional.target.position).normalize();
  assert(Math.abs(dir.y - Math.sin((65 * Math.PI) / 180)) < 1e-4 && dir.z < 0, `the light is high toward -Z: ${dir.toArray()}`);
  const settings = await call<{ environment: { sunElevation: number } }>(s, "render.getSettings", {});
  assert(Math.abs(settings.environment.sunElevation - 65) < 1e-3, "the look's sun moved with it");
  const morning = await call<Time>(s, "world.setTime", { hour: 7, day: 3 });
  assertEquals(morning.day, 3);
  assert(morning.sun.elevation > 0 && morning.sun.elevation < 20 && Math.abs(morning.sun.azimuth - 105) < 1e-3, JSON.stringify(morning.sun));
  const night = await call<Time>(s, "world.setTime", { hour: 23 });
  assert(night.sun.elevation < -10, `below the horizon: ${night.sun.elevation}`);
  assertEquals(s.lighting.directional.intensity, 0);
  assertEquals(night.day, 3, "the day is kept when not given");
  refused(await s.registry.invoke("world.setTime", { hour: 24 }, BUILDER), "invalid_input", "hour");
  s.dispose();
});

test("the clock runs at world.setTimeScale in-world seconds per simulated second, and 0 stops it", async () => {
  const s = createWorldSession({ simulate: false });
  await call(s, "world.setTime", { hour: 6 });
  await call(s, "world.setTimeScale", { scale: 3600 });
  steps(s, 60);
  const t = await call<Time>(s, "world.getTime", {});
  assert(Math.abs(t.hour! - 7) < 1e-6, `an hour a second: ${t.hour}`);
  assertEquals(t.scale, 3600);
  assert(Math.abs(t.sun.elevation - 65 * Math.sin(Math.PI / 12)) < 1e-3, `the sun rose with it: ${t.sun.elevation}`);
  // Past midnight the day turns.
  await call(s, "world.setTime", { hour: 23.5 });
  steps(s, 60);
  const next = await call<Time>(s, "world.getTime", {});
  assertEquals(next.day, 1);
  assert(Math.abs(next.hour! - 0.5) < 1e-6, `${next.hour}`);
  await call(s, "world.setTimeScale", { scale: 0 });
  const light = s.lighting.directional.position.toArray();
  steps(s, 60);
  assertEquals((await call<Time>(s, "world.getTime", {})).hour, next.hour);
  assertEquals(s.lighting.directional.position.toArray(), light);
  s.dispose();
});

test("world.setWeather thickens the fog and haze, dims the sun, sets the wind and the precipitation; clear undoes it", async () => {
  const s = createWorldSession({ simulate: false });
  const clear = await call<WeatherOut>(s, "world.getWeather", {});
  assertEquals([clear.kind, clear.precipitation, clear.sunIntensity], ["clear", null, 3]);
  const rain = await call<WeatherOut>(s, "world.setWeather", { kind: "rain", windDirection: 90, windSpeed: 4 });
  assertEquals([rain.kind, rain.intensity, rain.precipitation], ["rain", 1, "rain"]);
  assert(Math.abs(rain.fogDensity - 0.015) < 1e-9, `fog ×6: ${rain.fogDensity}`);
  assertEquals(rain.turbidity, 8);
  assert(Math.abs(rain.sunIntensity - 0.9) < 1e-9, `dimmed sun: ${rain.sunIntensity}`);
  assertEquals(rain.wind, [4, 0, 0]);
  const env = s.look.environment.settings();
  assertEquals([env.fog.density, env.turbidity], [rain.fogDensity, 8], "the look holds it");
  const light = await call<WeatherOut>(s, "world.setWeather", { kind: "snow", intensity: 0.5 });
  assertEquals([light.precipitation, light.intensity], ["snow", 0.5]);
  assert(Math.abs(light.fogDensity - 0.0025 * 4.5) < 1e-9, `half the snow's fog: ${light.fogDensity}`);
  // Time and weather together: a cloudy noon is dimmer than a clear one, a cloudy night dark.
  await call(s, "world.setTime", { hour: 12 });
  const cloudy = await call<WeatherOut>(s, "world.setWeather", { kind: "cloudy" });
  assertEquals(cloudy.sunIntensity, 1.5);
  const back = await call<WeatherOut>(s, "world.setWeather", { kind: "clear" });
  assertEquals([back.intensity, back.precipitation, back.sunIntensity, back.fogDensity], [0, null, 3, 0.0025]);
  refused(await s.registry.invoke("world.setWeather", { kind: "hail" }, BUILDER), "invalid_input", "kind");
  s.dispose();
});

test("players cannot set the time, the time scale or the weather, and a denied call changes nothing; they can read both", async () => {
  const s = createWorldSession({ simulate: false });
  await call(s, "world.setTime", { hour: 9 });
  const digest = s.digest();
  for (const [skill, input] of [["world.setTime", { hour: 20 }], ["world.setTimeScale", { scale: 100 }], ["world.setWeather", { kind: "storm" }]] as const) {
    refused(await s.registry.invoke(skill, input, PLAYER), "forbidden", "world.write");
    assertEquals(s.digest(), digest, `${skill} denied changed nothing`);
  }
  assertEquals((await call<Time>(s, "world.getTime", {}, PLAYER)).hour, 9);
  assertEquals((await call<WeatherOut>(s, "world.getWeather", {}, PLAYER)).kind, "clear");
  s.dispose();
});

/** A world with time running fast, weather set, stepped. */
async function dusk(s: WorldSession): Promise<void> {
  await call(s, "world.setTime", { hour: 17 });
  await call(s, "world.setTimeScale", { scale: 600 });
  await call(s, "world.setWeather", { kind: "storm", intensity: 0.7, windDirection: 45, windSpeed: 9 });
  steps(s, 90);
}

test("time and weather are world state: the digest covers them, the same calls give the same digest, a snapshot restores them and both worlds go on alike", async () => {
  const a = createWorldSession({ simulate: false });
  const b = createWorldSession({ simulate: false });
  const plain = a.digest();
  await dusk(a);
  await dusk(b);
  assert(a.digest() !== plain, "the digest moved");
  assertEquals(a.digest(), b.digest(), "deterministic");
  const scaled = createWorldSession({ simulate: false });
  await dusk(scaled);
  await call(scaled, "world.setTimeScale", { scale: 601 });
  assert(scaled.digest() !== a.digest(), "the time scale is in the digest");
  scaled.dispose();

  const bytes = encodeSnapshot(snapshotSession(a));
  const r = createWorldSession({ simulate: false });
  await restoreSession(r, decodeSnapshot(bytes));
  assertEquals(r.digest(), a.digest());
  assertEquals(await call(r, "world.getTime", {}), await call(a, "world.getTime", {}));
  assertEquals(await call(r, "world.getWeather", {}), await call(a, "world.getWeather", {}));
  steps(a, 45);
  steps(r, 45);
  assertEquals(r.digest(), a.digest(), "the restored clock runs on alike");
  a.dispose();
  b.dispose();
  r.dispose();
});

test("a log of time and weather calls replays to every recorded digest", async () => {
  const s = createWorldSession({ simulate: false, checkpointEvery: 30 });
  await dusk(s);
  await call(s, "world.setTime", { hour: 5.5 });
  await call(s, "world.setWeather", { kind: "fog", intensity: 0.4 });
  steps(s, 60);
  s.checkpoint();
  const events = s.tracer.history();
  const recorded = events.filter((e) => e.type === "world.checkpoint").length;
  assert(recorded >= 5, `${recorded} checkpoints`);
  const again = createWorldSession({ simulate: false, checkpointEvery: 0 });
  const result = await replay(again, events);
  assert(result.ok, JSON.stringify(result));
  assertEquals(result.checkpoints, recorded);
  assertEquals(result.digest, s.digest());
  s.dispose();
  again.dispose();
});

test("a capture shows the time of day: the noon sky is brighter and bluer than the dusk sky, and night is darker still", async () => {
  const capturer = await Capturer.create();
  const s = createWorldSession({ simulate: false, quality: "low" });
  assert(await s.enableCapture(capturer));
  await call(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 0.5, 0], color: 0xd0d0d0 });
  const camera = { position: [0, 2, 6], target: [0, 2.4, -4] };
  const shot = async (hour: number) => {
    await call(s, "world.setTime", { hour });
    return decodeCapture((await call<{ png: string }>(s, "render.capture", { width: 128, height: 72, camera })).png);
  };
  const noon = await shot(12);
  const evening = await shot(17.6);
  const night = await shot(22);
  const sky: Region = { x0: 0, y0: 0, x1: 128, y1: 20 };
  const [nr, , nb] = meanRgb(noon, sky);
  const [er, , eb] = meanRgb(evening, sky);
  assert(meanDifference(noon, evening) > 8, `noon and dusk differ: ${meanDifference(noon, evening).toFixed(1)}`);
  assert(meanLuma(evening, sky) < meanLuma(noon, sky) - 10, `dusk sky dimmer: ${meanLuma(noon, sky).toFixed(1)} → ${meanLuma(evening, sky).toFixed(1)}`);
  assert(er / eb > nr / nb, `dusk sky warmer: r/b ${(nr / nb).toFixed(2)} → ${(er / eb).toFixed(2)}`);
  assert(meanLuma(night) < meanLuma(evening) - 5, `night darker: ${meanLuma(evening).toFixed(1)} → ${meanLuma(night).toFixed(1)}`);
  s.dispose();
});

test("a world restored from a snapshot with weather set draws as the saved one did (the sky's light follows the dimmed sun)", async () => {
  const capturer = await Capturer.create();
  const s = createWorldSession({ simulate: false, quality: "low" });
  assert(await s.enableCapture(capturer));
  await call(s, "scene.createEntity", { shape: "box", size: 1, position: [0, 0.5, 0], color: 0xd0d0d0 });
  await call(s, "world.setTime", { hour: 15 });
  await call(s, "world.setWeather", { kind: "fog", intensity: 0.8 });
  const camera = { position: [0, 2, 6], target: [0, 1, -4] };
  const shot = async (w: WorldSession) => decodeCapture((await call<{ png: string }>(w, "render.capture", { width: 160, height: 120, camera })).png);
  const saved = await shot(s);
  const r = createWorldSession({ simulate: false, quality: "low" });
  assert(await r.enableCapture(capturer));
  await restoreSession(r, decodeSnapshot(encodeSnapshot(snapshotSession(s))));
  assertEquals(r.digest(), s.digest());
  assertEquals(meanDifference(await shot(r), saved), 0, "the restored frame equals the saved one");
  s.dispose();
  r.dispose();
});
