// Matrix samples: nav.* (a navmesh and a character on it), and the fixture
// the walking families share.
import type { MatrixFamily, MatrixWorld } from "./family.ts";

/** A navmesh over the base fixture's static box (its top at y = -1) and a character standing on it ("walker"). */
export async function prepareWalker(w: MatrixWorld): Promise<void> {
  await w.must("nav.build", {});
  const { entityId } = await w.must<{ entityId: string }>("character.spawn", { position: [2, -1, 2] });
  w.name("walker", entityId);
}

export const family: MatrixFamily = {
  prepare: prepareWalker,
  samples: {
    // Other parameters than the fixture's bake, so the mesh changes.
    "nav.build": { input: { agentRadius: 0.6 } },
    "nav.findPath": { input: { from: [1, -1, 1], to: [-2, -1, -2] } },
    "nav.isReachable": { input: { from: [1, -1, 1], to: [-2, -1, -2] } },
    "nav.moveTo": { input: (w) => ({ entityId: w.ref("walker"), target: [-2, -1, -2] }) },
    // Stopping a character that stands still changes nothing.
    "nav.stop": { input: (w) => ({ entityId: w.ref("walker") }), changes: false },
  },
};
