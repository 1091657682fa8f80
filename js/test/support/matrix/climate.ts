// Matrix samples: world time and weather (world.setTime, world.setTimeScale, world.setWeather, and their reads).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "world.setTime": { input: { hour: 18.5 } },
    "world.setTimeScale": { input: { scale: 120 } },
    "world.getTime": { input: {} },
    "world.setWeather": { input: { kind: "rain", windSpeed: 5 } },
    "world.getWeather": { input: {} },
  },
};
