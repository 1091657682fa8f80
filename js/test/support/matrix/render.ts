// Matrix samples: render.*.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "render.capture": { input: { width: 32, height: 24 } },
  },
};
