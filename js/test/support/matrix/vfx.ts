// Matrix samples: vfx.* (particle emitters).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    const e = await w.must<{ id: string }>("vfx.spawn", { preset: "smoke", position: [0, 1, 0] });
    w.name("emitter", e.id);
  },
  samples: {
    "vfx.spawn": { input: { preset: "fire", position: [1, 0, 1] } },
    "vfx.attach": { input: { preset: "magic", entity: "ent_1", offset: [0, 1, 0] } },
    "vfx.stop": { input: (w) => ({ id: w.ref("emitter") }) },
    "vfx.list": { input: {} },
    "vfx.presets": { input: {} },
  },
};
