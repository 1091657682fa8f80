// Matrix samples: progression.* — ent_1 has some xp and one unlock.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("progression.addXp", { entity: "ent_1", amount: 50 });
    await w.must("progression.unlock", { entity: "ent_1", unlock: "doubleJump" });
  },
  samples: {
    "progression.define": { input: { levels: [10, 30, 60], rewards: { "2": { unlocks: ["dash"] } } } },
    "progression.curve": { input: {} },
    "progression.addXp": { input: { entity: "ent_1", amount: 60 } },
    "progression.get": { input: { entity: "ent_1" } },
    "progression.unlock": { input: { entity: "ent_1", unlock: "glide" } },
    "progression.lock": { input: { entity: "ent_1", unlock: "doubleJump" } },
  },
};
