// Matrix samples: the camera rigs (camera.follow …): they move the view, which the matrix observes.
import type { MatrixFamily } from "./family.ts";
import { prepareWalker } from "./nav.ts";

export const family: MatrixFamily = {
  prepare: prepareWalker,
  samples: {
    "camera.follow": { input: (w) => ({ entityId: w.ref("walker") }) },
    "camera.thirdPerson": { input: (w) => ({ entityId: w.ref("walker") }) },
    "camera.firstPerson": { input: (w) => ({ entityId: w.ref("walker") }) },
    "camera.orbit": { input: { target: [0, 0, 0] } },
    // A shake moves the view from the next step on (the matrix does not step).
    "camera.shake": { input: {}, changes: false },
  },
};
