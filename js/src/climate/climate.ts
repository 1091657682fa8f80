// World time and weather: the world's clock (the hour of its day, how fast
// it runs) and its weather (clear, cloudy, fog, rain, snow, storm; its
// intensity and the wind), two world resources — `world.time` and
// `world.weather` — that drive the look. Time moves the sun (and with it the
// sky and the image-based lighting, which follow the sun) and dims the sun
// light below the horizon; weather thickens the fog and haze, dims the sun,
// and is what the world's precipitation particles and wind (js/src/vfx/)
// read. Neither touches the look until it is set: a world that never calls
// world.setTime keeps the sun where its author put it. While the clock runs
// it owns the sun's direction and intensity, and weather owns the fog
// density and turbidity it last set (a later render.setEnvironment still
// wins until the clock or the weather next changes).
//
// The resources save only their own state: what they did to the look and the
// lighting is world state of its own, saved and restored with it.

import * as THREE from "three";
import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { parseSaved } from "../game/saved.ts";
import type { Lighting } from "../scene/scene-graph.ts";
import { DEFAULT_FOG, type Environment } from "../render/environment.ts";

export const SECONDS_PER_DAY = 86_400;
/** The sun light's intensity at full daylight in clear weather (the scene graph's own). */
export const DAYLIGHT_INTENSITY = 3;
/** How high the sun stands at noon, degrees. */
export const NOON_ELEVATION = 65;

export const WEATHER_KINDS = ["clear", "cloudy", "fog", "rain", "snow", "storm"] as const;
export type WeatherKind = (typeof WEATHER_KINDS)[number];

/** What each kind of weather does at full intensity: fog density × the look's default, sky turbidity, sun light ×, precipitation. */
export const WEATHER_EFFECTS: Readonly<Record<WeatherKind, { fog: number; turbidity: number; sun: number; precipitation: "rain" | "snow" | null }>> = {
  clear: { fog: 1, turbidity: 2.5, sun: 1, precipitation: null },
  cloudy: { fog: 3, turbidity: 6, sun: 0.5, precipitation: null },
  fog: { fog: 40, turbidity: 9, sun: 0.35, precipitation: null },
  rain: { fog: 6, turbidity: 8, sun: 0.3, precipitation: "rain" },
  snow: { fog: 8, turbidity: 7, sun: 0.45, precipitation: "snow" },
  storm: { fog: 10, turbidity: 10, sun: 0.15, precipitation: "rain" },
};

export interface WeatherState {
  kind: WeatherKind;
  /** 0 (barely) to 1 (full). */
  intensity: number;
  /** Where the wind blows toward, degrees clockwise from +Z toward +X. */
  windDirection: number;
  /** Metres per second. */
  windSpeed: number;
  /** The tick the weather was last set at (precipitation starts falling then). */
  since: number;
}

export const CLEAR: Readonly<WeatherState> = Object.freeze({ kind: "clear", intensity: 0, windDirection: 0, windSpeed: 0, since: 0 });

const SavedClock = z.strictObject({ seconds: z.number().min(0).nullable(), scale: z.number().min(0).max(1e5) });
const SavedWeather = z.strictObject({
  kind: z.enum(WEATHER_KINDS),
  intensity: z.number().min(0).max(1),
  windDirection: z.number().min(0).lt(360),
  windSpeed: z.number().min(0).max(100),
  since: z.number().int().min(0),
});

/** Where the sun stands at `hour` (0–24): it rises toward +X at 6:00, stands toward −Z at noon at NOON_ELEVATION, sets toward −X at 18:00. */
export function sunAt(hour: number): { azimuth: number; elevation: number } {
  const angle = ((hour - 6) / 12) * Math.PI;
  const azimuth = (((90 + (hour - 6) * 15) % 360) + 360) % 360;
  return { azimuth: round(azimuth), elevation: round(NOON_ELEVATION * Math.sin(angle)) };
}

/** How much of the sun's direct light reaches the ground at `elevation` degrees: none below −4°, all above 8°. */
export function daylight(elevation: number): number {
  const t = THREE.MathUtils.clamp((elevation + 4) / 12, 0, 1);
  return t * t * (3 - 2 * t);
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** The world's clock: the resource `world.time`. */
export class WorldClock {
  /** In-world seconds since midnight of day 0; null until the time is first set (the clock then does nothing). */
  seconds: number | null = null;
  /** In-world seconds per simulated second (0 stops the clock). */
  scale = 1;

  save(): z.infer<typeof SavedClock> {
    return { seconds: this.seconds, scale: this.scale };
  }

  load(saved: z.infer<typeof SavedClock> | null): void {
    const s = saved === null ? { seconds: null, scale: 1 } : parseSaved(SavedClock, saved, "world.time");
    this.seconds = s.seconds;
    this.scale = s.scale;
  }

  get hour(): number | null {
    return this.seconds === null ? null : (this.seconds % SECONDS_PER_DAY) / 3600;
  }

  get day(): number | null {
    return this.seconds === null ? null : Math.floor(this.seconds / SECONDS_PER_DAY);
  }
}

/** The world's weather: the resource `world.weather`. */
export class Weather {
  state: WeatherState = { ...CLEAR };
  /** Whether weather was ever set in this world (it then owns the fog, the haze and the sun's dimming). */
  set = false;

  save(): { state: WeatherState; set: boolean } {
    return { state: { ...this.state }, set: this.set };
  }

  load(saved: { state: WeatherState; set: boolean } | null): void {
    const s = saved === null ? { state: { ...CLEAR }, set: false } : parseSaved(z.strictObject({ state: SavedWeather, set: z.boolean() }), saved, "world.weather");
    this.state = { ...s.state };
    this.set = s.set;
  }

  /** The wind's velocity, m/s, as [x, 0, z]. */
  wind(): [number, number, number] {
    const a = THREE.MathUtils.degToRad(this.state.windDirection);
    return [round(Math.sin(a) * this.state.windSpeed), 0, round(Math.cos(a) * this.state.windSpeed)];
  }

  /** The precipitation falling now, if any, and how much (0–1). */
  precipitation(): { kind: "rain" | "snow"; intensity: number } | null {
    const kind = WEATHER_EFFECTS[this.state.kind].precipitation;
    return kind === null || this.state.intensity <= 0 ? null : { kind, intensity: this.state.intensity };
  }
}

export interface TimeReport {
  /** null until world.setTime. */
  hour: number | null;
  day: number | null;
  seconds: number | null;
  scale: number;
  sun: { azimuth: number; elevation: number };
}

/** The clock and the weather over a world's look and lighting. */
export class Climate {
  readonly clock = new WorldClock();
  readonly weather = new Weather();

  constructor(private readonly environment: Environment, private readonly lighting: Lighting, private readonly tick: () => number) {}

  /** Sets the time of day (and day number); the sun moves at once. */
  setTime(hour: number, day?: number): void {
    if (!(hour >= 0 && hour < 24)) throw engineError("invalid_input", `hour must be in [0, 24), got ${hour}`);
    const d = day ?? this.clock.day ?? 0;
    this.clock.seconds = d * SECONDS_PER_DAY + hour * 3600;
    this.applySun();
  }

  setScale(scale: number): void {
    if (!(scale >= 0 && scale <= 1e5)) throw engineError("invalid_input", `time scale must be in [0, 100000], got ${scale}`);
    this.clock.scale = scale;
  }

  /** Sets the weather (omitted fields keep theirs); the fog, haze and sun change at once. */
  async setWeather(change: Partial<Omit<WeatherState, "since">>): Promise<void> {
    const next: WeatherState = { ...this.weather.state, ...change, since: this.tick() };
    // A new kind without an intensity comes at full strength (clear at none).
    if (change.kind !== undefined && change.intensity === undefined) next.intensity = change.kind === "clear" ? 0 : 1;
    next.windDirection = round(((next.windDirection % 360) + 360) % 360);
    const fx = WEATHER_EFFECTS[next.kind];
    const k = next.intensity;
    const current = this.environment.settings();
    const fog = { ...current.fog, enabled: true, density: round(DEFAULT_FOG.density * (1 + (fx.fog - 1) * k)) };
    const turbidity = round(WEATHER_EFFECTS.clear.turbidity + (fx.turbidity - WEATHER_EFFECTS.clear.turbidity) * k);
    const before = { state: this.weather.state, set: this.weather.set, intensity: this.lighting.directional.intensity };
    this.weather.state = next;
    this.weather.set = true;
    this.lighting.directional.intensity = this.sunIntensity(current.sunElevation);
    try {
      // Last, so that the sky's ground light follows the dimmed sun.
      await this.environment.set({ ...current, fog, turbidity });
    } catch (e) {
      this.weather.state = before.state;
      this.weather.set = before.set;
      this.lighting.directional.intensity = before.intensity;
      throw e;
    }
  }

  /** One fixed step: the clock runs `dt × scale` in-world seconds and the sun follows. */
  step(dt: number): void {
    if (this.clock.seconds === null || this.clock.scale === 0) return;
    this.clock.seconds += dt * this.clock.scale;
    this.applySun();
  }

  /** The look's environment settings now (what the weather set in them). */
  environmentSettings(): ReturnType<Environment["settings"]> {
    return this.environment.settings();
  }

  /** How lit the world is, 0–1: the sun light against full clear daylight, never below the night sky's 0.12 (1 until the time or the weather is set). */
  light(): number {
    if (this.clock.seconds === null && !this.weather.set) return 1;
    return Math.max(0.12, Math.min(1, this.lighting.directional.intensity / DAYLIGHT_INTENSITY));
  }

  sunLightIntensity(): number {
    return this.lighting.directional.intensity;
  }

  report(): TimeReport {
    const { sunAzimuth, sunElevation } = this.environment.settings();
    const { hour, day, seconds, scale } = this.clock;
    return { hour: hour === null ? null : round(hour), day, seconds: seconds === null ? null : round(seconds), scale, sun: { azimuth: round(sunAzimuth), elevation: round(sunElevation) } };
  }

  /** The sun for the time: where the clock puts it, as bright as the daylight and the weather let it be (intensity first: the sky's ground light follows it). */
  private applySun(): void {
    const hour = this.clock.hour;
    if (hour === null) {
      if (this.weather.set) this.lighting.directional.intensity = this.sunIntensity(this.environment.settings().sunElevation);
      return;
    }
    const sun = sunAt(hour);
    this.lighting.directional.intensity = this.sunIntensity(sun.elevation);
    this.environment.setSun(sun.azimuth, sun.elevation);
  }

  /** The sun light's intensity at `elevation` in this weather (full day when the clock is not set). */
  private sunIntensity(elevation: number): number {
    const fx = WEATHER_EFFECTS[this.weather.state.kind];
    const dimming = this.weather.set ? 1 + (fx.sun - 1) * this.weather.state.intensity : 1;
    const day = this.clock.seconds === null ? 1 : daylight(elevation);
    return round(DAYLIGHT_INTENSITY * day * dimming);
  }
}
