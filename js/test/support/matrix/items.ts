// Matrix samples: item.* and inventory.* — the caller plays ent_1 and holds coins, a sword and an
// equipped shield; a crate stands a metre away; "unused" is an item nobody holds.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("game.addPlayer", { agentId: "caller", entity: "ent_1" });
    await w.must("item.define", { id: "coin", name: "Coin" });
    await w.must("item.define", { id: "sword", name: "Sword", slot: "weapon", modifiers: [{ stat: "attack", add: 2 }] });
    await w.must("item.define", { id: "shield", name: "Shield", slot: "offhand" });
    await w.must("item.define", { id: "unused", name: "Unused" });
    for (const [item, count] of [["coin", 5], ["sword", 1], ["shield", 1]] as const) await w.must("inventory.add", { entity: "ent_1", item, count });
    await w.play("inventory.equip", { item: "shield" });
    w.name("crate", (await w.must<{ entity: string }>("scene.createEntity", { position: [1, 1, 0], size: 0.5 })).entity);
  },
  samples: {
    "item.define": { input: { id: "gem", name: "Gem", maxStack: 10 } },
    "item.remove": { input: { item: "unused" } },
    "item.get": { input: { item: "coin" } },
    "item.list": { input: {} },
    "item.spawn": { input: { item: "coin", count: 3, position: [3, 0, 3] } },
    "inventory.add": { input: { entity: "ent_1", item: "coin", count: 2 } },
    "inventory.remove": { input: { entity: "ent_1", item: "coin", count: 2 } },
    "inventory.has": { input: { entity: "ent_1", item: "coin", count: 5 } },
    "inventory.count": { input: { entity: "ent_1", item: "coin" } },
    "inventory.list": { input: { entity: "ent_1" } },
    "inventory.transfer": { input: (w) => ({ to: w.ref("crate"), item: "coin", count: 1 }) },
    "inventory.equip": { input: { item: "sword" } },
    "inventory.unequip": { input: { slot: "offhand" } },
    "inventory.equipped": { input: { entity: "ent_1" } },
    "inventory.clear": { input: { entity: "ent_1" } },
    "inventory.setCapacity": { input: { entity: "ent_1", capacity: 30 } },
  },
};
