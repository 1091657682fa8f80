// Matrix samples: world.* and terrain.* (a 64 m region made by `prepare`).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  prepare: async (w) => {
    await w.must("world.generateRegion", { seed: 1, size: 64, resolution: 17, tileSize: 32 });
  },
  samples: {
    "world.generateRegion": { input: { seed: 2, size: 64, resolution: 17, tileSize: 32 } },
    "terrain.sampleHeight": { input: { x: 0, z: 0 } },
    "terrain.sampleHeights": { input: { points: [[0, 0], [5, 5]] } },
    "terrain.sampleBiome": { input: { x: 0, z: 0 } },
    "terrain.deform": { input: { center: [0, 0], radius: 5, delta: 1 } },
    "terrain.paint": { input: { center: [0, 0], radius: 5, biome: "snow" } },
    "world.addWater": { input: { level: 0 } },
    "world.populateBiome": { input: {} },
    "world.streamFollow": { input: { entityId: "ent_1" } },
  },
};
