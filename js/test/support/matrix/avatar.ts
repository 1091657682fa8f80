// Matrix samples: avatar.* (a person joining from the browser page takes a body).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "avatar.take": { input: { name: "visitor" } },
  },
};
