// Matrix samples: trigger.* and event.* — a zone around ent_1, a disabled one, and a listener that
// sets a flag when a "ping" event happens.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("trigger.create", { trigger: "zone", shape: "sphere", position: [0, 1, 0], radius: 2 });
    await w.must("trigger.create", { trigger: "off", shape: "box", position: [5, 0, 5], halfExtents: [1, 1, 1], enabled: false });
    await w.must("event.listen", { id: "pinged", on: "ping", effects: [{ setFlag: "pinged" }] });
  },
  samples: {
    "trigger.create": { input: { trigger: "gate", shape: "box", position: [0, 0, 3], halfExtents: [1, 2, 0.5], onEnter: [{ addCounter: "through" }] } },
    "trigger.remove": { input: { trigger: "zone" } },
    "trigger.enable": { input: { trigger: "off" } },
    "trigger.disable": { input: { trigger: "zone" } },
    "trigger.get": { input: { trigger: "zone" } },
    "trigger.list": { input: {} },
    "trigger.occupants": { input: { trigger: "zone" } },
    "event.emit": { input: { type: "ping", data: { loud: true } } },
    "event.listen": { input: { id: "heard", on: "pong", effects: [{ addCounter: "pongs" }] } },
    "event.unlisten": { input: { id: "pinged" } },
    "event.listeners": { input: {} },
  },
};
