// Matrix samples: agent.*, skills.*, trace.*, inspector.*, dev.*, audit.*, package.*.
import type { MatrixFamily, MatrixWorld } from "./family.ts";

const firstEvent = (w: MatrixWorld) => w.session.tracer.history()[0].id;

export const family: MatrixFamily = {
  prepare(w) {
    w.session.sceneBuilders.set("fixture", () => void w.session.world.spawn({ tags: ["built"] }));
  },
  samples: {
    "agent.emitEvent": { input: { type: "ping" } },
    "agent.getPerception": { input: {} },
    "skills.list": { input: {} },
    "skills.describe": { input: { name: "scene.createEntity" } },
    "skills.search": { input: { query: "entity" } },
    "trace.tail": { input: { limit: 5 } },
    "trace.explainEvent": { input: (w) => ({ eventId: firstEvent(w) }) },
    "trace.export": { input: { name: "permission-matrix" } },
    "inspector.snapshot": { input: { limit: 10 } },
    // Re-running a scene builder (module code, which replay does not re-run) changes the world.
    "dev.reload": { input: { target: "scene", name: "fixture" }, needs: { permissions: ["scene.write"], message: "re-running a scene builder needs scene.write" }, changes: true },
    "audit.explain": { input: (w) => ({ eventId: firstEvent(w) }) },
    "audit.query": { input: {} },
    "audit.usage": { input: {} },
    "package.list": { input: {} },
    "package.load": { input: { ref: "nothing@1.0.0", agentId: "agt_matrix", sessionId: "sess_matrix", profile: "system.readonly" } },
  },
};
