// world.setTime, world.setTimeScale, world.setWeather (world.write: builders)
// and world.getTime, world.getWeather (scene.read) over the world's Climate.

import { z } from "zod";
import type { SkillDefinition } from "../skills/registry.ts";
import { type Climate, WEATHER_EFFECTS, WEATHER_KINDS, type WeatherKind } from "./climate.ts";

const TimeOutput = z.object({
  hour: z.number().nullable(),
  day: z.number().int().nullable(),
  seconds: z.number().nullable(),
  scale: z.number(),
  sun: z.object({ azimuth: z.number(), elevation: z.number() }),
});

const WeatherOutput = z.object({
  kind: z.enum(WEATHER_KINDS),
  intensity: z.number(),
  windDirection: z.number(),
  windSpeed: z.number(),
  wind: z.tuple([z.number(), z.number(), z.number()]),
  precipitation: z.enum(["rain", "snow"]).nullable(),
  since: z.number().int(),
  fogDensity: z.number(),
  turbidity: z.number(),
  sunIntensity: z.number(),
});

const worldSetTimeInput = z.strictObject({ hour: z.number().min(0).lt(24), day: z.number().int().min(0).max(1_000_000).optional() });
const worldSetTimeScaleInput = z.strictObject({ scale: z.number().min(0).max(100_000) });
const worldGetTimeInput = z.strictObject({});
const worldSetWeatherInput = z.strictObject({
  kind: z.enum(WEATHER_KINDS).optional(),
  intensity: z.number().min(0).max(1).optional(),
  windDirection: z.number().min(-360).max(360).optional(),
  windSpeed: z.number().min(0).max(100).optional(),
});
const worldGetWeatherInput = z.strictObject({});

export function climateSkills({ climate }: { climate: Climate }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "climateSkills" };
  const weatherReport = (): z.input<typeof WeatherOutput> => {
    const w = climate.weather;
    const env = climate.environmentSettings();
    return { ...w.state, wind: w.wind(), precipitation: w.precipitation()?.kind ?? null, fogDensity: env.fog.enabled ? env.fog.density : 0, turbidity: env.turbidity, sunIntensity: climate.sunLightIntensity() };
  };
  return [
    {
      name: "world.setTime",
      version: "1.0.0",
      category: "world",
      description:
        "Set the world's time of day: hour 0–24 (fractions are minutes: 18.5 is 18:30), optionally the day number (default: the current day). The sun moves at once and keeps moving as the clock runs (world.setTimeScale): it rises toward +X at 6:00, stands toward −Z 65° up at noon, sets toward −X at 18:00, and its light fades out below the horizon; the sky and the environment lighting follow it. Until the time is first set, the clock leaves the sun alone. Returns the time and where the sun stands.",
      input: worldSetTimeInput,
      output: TimeOutput,
      permissions: ["world.write"],
      source,
      handler: ({ hour, day }, ctx) => {
        climate.setTime(hour, day);
        const report = climate.report();
        ctx.emit("world.time.set", report);
        return report;
      },
    },
    {
      name: "world.setTimeScale",
      version: "1.0.0",
      category: "world",
      description:
        "Set how fast world time passes: in-world seconds per simulated second (1: real time, the default; 60: an in-world minute a second, a day in 24 minutes; 0: the clock stops). The clock runs only once world.setTime has set the time. Returns the time.",
      input: worldSetTimeScaleInput,
      output: TimeOutput,
      permissions: ["world.write"],
      source,
      handler: ({ scale }, ctx) => {
        climate.setScale(scale);
        const report = climate.report();
        ctx.emit("world.timeScale.set", { scale });
        return report;
      },
    },
    {
      name: "world.getTime",
      version: "1.0.0",
      category: "world",
      description: "The world's time: hour (null until world.setTime), day, in-world seconds since day 0, the time scale and where the sun stands (azimuth, elevation in degrees).",
      input: worldGetTimeInput,
      output: TimeOutput,
      permissions: ["scene.read"],
      source,
      handler: () => climate.report(),
    },
    {
      name: "world.setWeather",
      version: "1.0.0",
      category: "world",
      description:
        `Set the world's weather; omitted fields keep their value. kind: ${WEATHER_KINDS.join(", ")} (a new kind without an intensity comes at full strength); intensity 0–1; wind: windDirection (degrees clockwise from +Z toward +X, where it blows to) and windSpeed (m/s). Weather thickens the fog (${WEATHER_KINDS.map((k) => `${k} ×${WEATHER_EFFECTS[k as WeatherKind].fog}`).join(", ")} at full intensity) and the haze, dims the sun light, makes rain (rain, storm) or snow fall around the camera, and its wind drifts the falling precipitation and every VFX emitter's particles. Returns the weather and what it set.`,
      input: worldSetWeatherInput,
      output: WeatherOutput,
      permissions: ["world.write"],
      source,
      handler: async (input, ctx) => {
        await climate.setWeather(input as { kind?: WeatherKind; intensity?: number; windDirection?: number; windSpeed?: number });
        const report = weatherReport();
        ctx.emit("world.weather.changed", report);
        return report;
      },
    },
    {
      name: "world.getWeather",
      version: "1.0.0",
      category: "world",
      description: "The world's weather: kind, intensity, wind (direction, speed and velocity [x, 0, z] m/s), the precipitation falling (rain, snow or null), the tick it was set, and the fog density, turbidity and sun intensity it leaves.",
      input: worldGetWeatherInput,
      output: WeatherOutput,
      permissions: ["scene.read"],
      source,
      handler: () => weatherReport(),
    },
  ];
}
