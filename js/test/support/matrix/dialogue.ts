// Matrix samples: dialogue.* and npc.* — the caller plays ent_1, itself an NPC; the keeper (an NPC with
// a dialogue, a memory and a routine) stands a metre away.
import type { MatrixFamily, MatrixWorld } from "./family.ts";

const talking = async (w: MatrixWorld) => void (await w.play("dialogue.start", { npc: w.ref("keeper") }));

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("game.addPlayer", { agentId: "caller", entity: "ent_1" });
    await w.must("npc.define", { entity: "ent_1", name: "Caller" });
    await w.must("dialogue.define", {
      id: "greet",
      start: "hello",
      nodes: {
        hello: { text: "Hello, traveller.", choices: [{ id: "ask", text: "Any work?", next: "work" }, { id: "bye", text: "Farewell." }] },
        work: { text: "Find my relics.", effects: [{ setFlag: "asked" }], choices: [{ id: "ok", text: "I will." }] },
      },
    });
    const { entity } = await w.must<{ entity: string }>("scene.createEntity", { position: [1, 1, 0], size: 1 });
    w.name("keeper", entity);
    await w.must("npc.define", { entity, name: "Keeper", persona: "guards the relics", dialogue: "greet" });
    await w.must("npc.remember", { npc: entity, text: "the caller looked at me", about: "ent_1" });
    await w.must("npc.setRoutine", { npc: entity, waypoints: [{ position: [2, 1, 0], wait: 30 }, { position: [1, 1, 0] }] });
  },
  samples: {
    "dialogue.define": { input: { id: "short", start: "a", nodes: { a: { text: "Hm." } } } },
    "dialogue.remove": { input: { dialogue: "greet" } },
    "dialogue.get": { input: { dialogue: "greet" } },
    "dialogue.list": { input: {} },
    "dialogue.start": { input: (w) => ({ npc: w.ref("keeper") }) },
    "dialogue.choose": { before: talking, input: { choice: "ask" } },
    "dialogue.end": { before: talking, input: {} },
    "dialogue.current": { before: talking, input: { entity: "ent_1" } },
    "npc.define": { input: { entity: "ent_2", name: "Rock", persona: "a rock" } },
    "npc.remove": { input: (w) => ({ npc: w.ref("keeper") }) },
    "npc.get": { input: (w) => ({ npc: w.ref("keeper") }) },
    "npc.list": { input: {} },
    "npc.remember": { input: (w) => ({ npc: w.ref("keeper"), text: "it rained", kind: "event" }) },
    "npc.recall": { input: (w) => ({ npc: w.ref("keeper"), about: "ent_1" }) },
    "npc.forget": { input: (w) => ({ npc: w.ref("keeper") }) },
    "npc.setAttitude": { input: (w) => ({ npc: w.ref("keeper"), toward: "ent_1", value: 40 }) },
    "npc.adjustAttitude": { input: (w) => ({ npc: w.ref("keeper"), toward: "ent_1", by: -15 }) },
    "npc.setRoutine": { input: (w) => ({ npc: w.ref("keeper"), waypoints: [{ position: [0, 1, 3] }], loop: false }) },
    "npc.clearRoutine": { input: (w) => ({ npc: w.ref("keeper") }) },
    "npc.say": { input: { text: "I am here." } },
  },
};
