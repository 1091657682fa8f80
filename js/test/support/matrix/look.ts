// Matrix samples: the look's render.* settings and material.* (render settings and
// dressed materials are world state: the world digest covers them).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "render.setEnvironment": { input: { sunElevation: 20, fog: false } },
    "render.setPost": { input: { ao: false, bloom: { strength: 1 } } },
    "render.setQuality": { input: { tier: "cinematic" } },
    "render.getSettings": { input: {} },
    "material.list": { input: {} },
    "material.apply": { input: { entityId: "ent_1", material: "wood" } },
  },
};
