// Demo: The particle presets side by side (fire, smoke, sparks, magic, an explosion) with snow falling in the wind, at a chosen time of day.
// The particle presets side by side — fire, smoke, sparks, magic and an
// explosion on a stone floor, with snow falling in the wind — at a time of
// day (the first argument, hours; default 17.5: a low evening sun), the
// clock running a minute a second.
// Run: limina examples/vfx_gallery.ts --window
// Or:  limina --frames 40 --quality balanced --screenshot vfx.png examples/vfx_gallery.ts 17.5
import { createEngine, onFixedStep, resolveProfile } from "limina";

const hour = Limina.args.length > 0 ? Number(Limina.args[0]) : 17.5;
const engine = await createEngine();
const { session } = engine;
const builder = { agentId: "gallery", sessionId: "gallery", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const call = async <T = Record<string, unknown>>(skill: string, input: unknown): Promise<T> => {
  const r = await session.registry.invoke(skill, input, builder);
  if (!r.ok) throw new Error(`${skill}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
};
const floor = (await call<{ entity: string }>("scene.createEntity", { shape: "box", size: 1, position: [0, -0.1, 0], static: true, color: 0x8a867e })).entity;
await call("three.setTransform", { entity: floor, scale: [40, 0.2, 40] });
await call("material.apply", { entityId: floor, material: "stone", uvScale: 0.5 });
await call("world.setTime", { hour });
await call("world.setTimeScale", { scale: 60 });
await call("world.setWeather", { kind: "snow", intensity: 0.4, windDirection: 90, windSpeed: 1.5 });
const presets = ["fire", "smoke", "sparks", "magic", "explosion"] as const;
for (const [i, preset] of presets.entries()) {
  const x = (i - 2) * 2.2;
  const pedestal = (await call<{ entity: string }>("scene.createEntity", { shape: "box", size: 0.5, position: [x, 0.25, 0], static: true, color: 0x3a3835 })).entity;
  await call("vfx.attach", { preset, entity: pedestal, offset: [0, preset === "explosion" ? 1 : 0.35, 0] });
}
// The explosion goes off again every two seconds.
let next = 120;
onFixedStep(() => {
  if (session.tick < next) return;
  next += 120;
  void call("vfx.spawn", { preset: "explosion", position: [4.4, 1.25, 0] });
});
await call("camera.set", { position: [0, 2.6, 7.5], target: [0, 1, 0], fov: 55 });
