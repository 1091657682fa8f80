// Matrix samples: ui.* (the fixture's label is the container ui.update and ui.remove act on).
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    w.name("label", (await w.must<{ handle: string }>("ui.label", { anchor: { type: "world", position: [0, 3, 0] }, text: "fixture" })).handle);
  },
  samples: {
    "ui.panel": { input: { kind: "label", anchor: { type: "world", entity: "ent_1" }, text: "hi" } },
    "ui.label": { input: { anchor: { type: "world", position: [0, 2, 0] }, text: "hi" } },
    "ui.textBox": { input: { anchor: { type: "screen" }, title: "t", text: "body" } },
    "ui.speechBubble": { input: { anchor: { type: "world", entity: "ent_1", offset: [0, 1, 0] }, text: "hello" } },
    "ui.thoughtBubble": { input: { anchor: { type: "world", entity: "ent_1", offset: [0, 1, 0] }, text: "hmm" } },
    "ui.callout": { input: { anchor: { type: "world", position: [1, 2, 0] }, text: "here", leader: { target: "ent_2" } } },
    "ui.hudPanel": { input: { anchor: { type: "screen", corner: "topRight" }, text: "hud" } },
    "ui.update": { input: (w) => ({ handle: w.ref("label"), text: "x" }) },
    "ui.remove": { input: (w) => ({ handle: w.ref("label") }) },
  },
};
