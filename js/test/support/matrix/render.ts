// Matrix samples: render.* (capture and the look's settings).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "render.capture": { input: { width: 32, height: 24 } },
    "render.setEnvironment": { input: { sunElevation: 20, fog: false } },
    "render.setPost": { input: { ao: false, bloom: { strength: 1 } } },
    "render.setQuality": { input: { tier: "cinematic" } },
    "render.getSettings": { input: {} },
  },
};
