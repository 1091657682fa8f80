// Matrix samples: physics.*.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "physics.applyImpulse": { input: { entity: "ent_1", impulse: [0, 5, 0] } },
    "physics.raycast": { input: { origin: [0, 10, 0], direction: [0, -1, 0] } },
    "physics.collisionEvents": { input: {} },
  },
};
