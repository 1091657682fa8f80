// Matrix samples: material.* (the look's PBR library).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "material.list": { input: {} },
    "material.apply": { input: { entityId: "ent_1", material: "wood" } },
  },
};
