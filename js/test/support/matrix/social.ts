// Matrix samples: social.* (the caller inhabits ent_1, so it has a body to act through).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "social.approach": { input: { target: "ent_2" } },
    "social.say": { input: { text: "hi" } },
  },
};
