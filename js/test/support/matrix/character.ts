// Matrix samples: character.* and animation.* (a character on a navmesh: nav.ts).
import type { MatrixFamily } from "./family.ts";
import { prepareWalker } from "./nav.ts";

export const family: MatrixFamily = {
  prepare: prepareWalker,
  samples: {
    "character.spawn": { input: { position: [0, -1, 2] } },
    "character.move": { input: (w) => ({ entityId: w.ref("walker"), direction: [1, 0] }) },
    // Never stepped, it has not landed: there is no ground to jump from, and nothing changes.
    "character.jump": { input: (w) => ({ entityId: w.ref("walker") }), changes: false },
    "character.lookAt": { input: (w) => ({ entityId: w.ref("walker"), target: [0, 0, 5] }) },
    "character.list": { input: {} },
    // Animation is world state (the "characters" resource: snapshots, replay and the digest carry it).
    "animation.play": { input: (w) => ({ entityId: w.ref("walker"), clip: "wave" }) },
    "animation.getState": { input: (w) => ({ entityId: w.ref("walker") }) },
    "animation.list": { input: {} },
  },
};
