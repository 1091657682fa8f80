// Matrix samples: quest.* — the caller plays ent_1; "errand" is offered to it, "hunt" (public) is
// active for it with two steps to go.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("game.addPlayer", { agentId: "caller", entity: "ent_1" });
    await w.must("quest.define", { id: "errand", title: "An errand", objectives: [{ id: "go", text: "Go there" }] });
    await w.must("quest.define", { id: "hunt", title: "The hunt", public: true, objectives: [{ id: "steps", text: "Take two steps", count: 2 }] });
    await w.must("quest.offer", { quest: "errand", to: "ent_1" });
    await w.play("quest.accept", { quest: "hunt" });
  },
  samples: {
    "quest.define": { input: { id: "relics", title: "Relics", objectives: [{ id: "find", text: "Find 3 relics", when: { has: "relic", count: 3 } }], rewards: [{ setFlag: "rich" }] } },
    "quest.remove": { input: { quest: "errand" } },
    "quest.offer": { input: { quest: "errand", to: "ent_2" } },
    "quest.accept": { input: { quest: "errand" } },
    "quest.decline": { input: { quest: "errand" } },
    "quest.abandon": { input: { quest: "hunt" } },
    "quest.update": { input: { quest: "hunt", objective: "steps", for: "ent_1" } },
    "quest.complete": { input: { quest: "hunt", for: "ent_1" } },
    "quest.fail": { input: { quest: "hunt", for: "ent_1", reason: "too slow" } },
    "quest.list": { input: { entity: "ent_1" } },
    "quest.get": { input: { quest: "hunt", entity: "ent_1" } },
    "quest.track": { input: { quest: "hunt", tracked: false } },
  },
};
