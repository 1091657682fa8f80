// Matrix samples: interaction.* — the caller plays ent_1 (at [0, 1, 0]) and holds a key and two gems;
// within its reach stand a locked door (the key opens it), an open door, a closed chest, a lever and a gem pickup.
import type { MatrixFamily, MatrixWorld } from "./family.ts";

const at = async (w: MatrixWorld, key: string, position: number[], spec: Record<string, unknown>) => {
  const { entity } = await w.must<{ entity: string }>("scene.createEntity", { position, size: 0.5, static: true });
  await w.must("interaction.register", { entity, ...spec });
  w.name(key, entity);
};

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("game.addPlayer", { agentId: "caller", entity: "ent_1" });
    await w.must("item.define", { id: "key", name: "Key" });
    await w.must("item.define", { id: "gem", name: "Gem", use: [{ setFlag: "gemUsed" }] });
    await w.must("inventory.add", { entity: "ent_1", item: "key", count: 1 });
    await w.must("inventory.add", { entity: "ent_1", item: "gem", count: 2 });
    await at(w, "door", [1, 1, 0], { kind: "door", locked: true, key: "key" });
    await at(w, "openDoor", [-1, 1, 0], { kind: "door", open: true });
    await at(w, "chest", [0, 1, -1], { kind: "chest" });
    await at(w, "lever", [0, 1, 1], { kind: "lever" });
    w.name("pickup", (await w.must<{ entity: string }>("item.spawn", { item: "gem", position: [1, 1, 1] })).entity);
  },
  samples: {
    "interaction.register": { input: { entity: "ent_2", kind: "sign", text: "welcome" } },
    "interaction.unregister": { input: (w) => ({ entity: w.ref("lever") }) },
    "interaction.get": { input: (w) => ({ entity: w.ref("door") }) },
    "interaction.list": { input: { near: "ent_1" } },
    "interaction.interact": { input: (w) => ({ target: w.ref("lever") }) },
    "interaction.pickup": { input: (w) => ({ target: w.ref("pickup") }) },
    "interaction.drop": { input: { item: "gem", count: 1 } },
    "interaction.use": { input: { item: "gem" } },
    "interaction.open": { input: (w) => ({ target: w.ref("door") }) },
    "interaction.close": { input: (w) => ({ target: w.ref("openDoor") }) },
    "interaction.toggle": { input: (w) => ({ target: w.ref("lever") }) },
    "interaction.lock": { input: (w) => ({ target: w.ref("chest") }) },
    "interaction.unlock": { input: (w) => ({ target: w.ref("door") }) },
  },
};
