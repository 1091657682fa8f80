// Matrix samples: stats.*, damage.*, status.*, combat.*, ability.* — the caller plays ent_1 (hurt,
// armed, facing +z, with a ready heal and a cooling zap); a poisoned foe with health stands 1 m in front.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("game.addPlayer", { agentId: "caller", entity: "ent_1" });
    await w.must("stats.define", { entity: "ent_1", stat: "health", value: 80, max: 100 });
    await w.must("stats.define", { entity: "ent_1", stat: "mana", value: 50, max: 50 });
    await w.must("stats.addModifier", { entity: "ent_1", id: "blessing", stat: "health", add: 5 });
    await w.must("combat.configure", { entity: "ent_1", team: "heroes", melee: { damage: 5 }, ranged: { damage: 4 } });
    const { entity: foe } = await w.must<{ entity: string }>("scene.createEntity", { position: [0, 1, 1], size: 1, static: true });
    w.name("foe", foe);
    await w.must("stats.define", { entity: foe, stat: "health", max: 50 });
    await w.must("combat.setTeam", { entity: foe, team: "foes" });
    await w.must("status.define", { id: "poison", name: "Poison", ticks: 300, every: 60, effects: [{ damage: 2, kind: "poison" }] });
    await w.must("status.apply", { entity: foe, status: "poison" });
    await w.must("ability.define", { id: "heal", name: "Heal", cost: { stat: "mana", amount: 5 }, effects: [{ heal: 10 }] });
    await w.must("ability.define", { id: "zap", name: "Zap", cooldown: 120, effects: [{ setFlag: "zapped" }] });
    await w.must("ability.grant", { entity: "ent_1", ability: "heal" });
    await w.must("ability.grant", { entity: "ent_1", ability: "zap" });
    await w.play("ability.use", { ability: "zap" });
  },
  samples: {
    "stats.define": { input: { entity: "ent_2", stat: "health", max: 10 } },
    "stats.get": { input: { entity: "ent_1" } },
    "stats.set": { input: { entity: "ent_1", stat: "health", value: 50 } },
    "stats.modify": { input: { entity: "ent_1", stat: "mana", by: -10 } },
    "stats.list": { input: { stat: "health" } },
    "stats.remove": { input: { entity: "ent_1", stat: "mana" } },
    "stats.addModifier": { input: { entity: "ent_1", id: "ring", stat: "attack", add: 3 } },
    "stats.removeModifier": { input: { entity: "ent_1", id: "blessing" } },
    "damage.apply": { input: (w) => ({ target: w.ref("foe"), amount: 7, kind: "fire", source: "ent_1" }) },
    "damage.heal": { input: { target: "ent_1", amount: 5 } },
    "damage.setResistance": { input: { entity: "ent_1", kind: "fire", factor: 0.5 } },
    "status.define": { input: { id: "haste", name: "Haste", ticks: 120, modifiers: [{ stat: "speed", mul: 1.5 }] } },
    "status.apply": { input: { entity: "ent_1", status: "poison", ticks: 60 } },
    "status.remove": { input: (w) => ({ entity: w.ref("foe"), status: "poison" }) },
    "status.clear": { input: (w) => ({ entity: w.ref("foe") }) },
    "status.list": { input: (w) => ({ entity: w.ref("foe") }) },
    "status.get": { input: { status: "poison" } },
    "combat.configure": { input: { entity: "ent_2", team: "walls", melee: { damage: 1, range: 1 } } },
    "combat.setTeam": { input: { entity: "ent_1", team: "rogues" } },
    "combat.melee": { input: {} },
    "combat.ranged": { input: {} },
    "combat.get": { input: { entity: "ent_1" } },
    "combat.projectiles": { input: {} },
    "ability.define": { input: { id: "blink", name: "Blink", effects: [{ teleport: [0, 1, 2] }] } },
    "ability.grant": { input: (w) => ({ entity: w.ref("foe"), ability: "heal" }) },
    "ability.revoke": { input: { entity: "ent_1", ability: "heal" } },
    "ability.use": { input: { ability: "heal" } },
    "ability.list": { input: { entity: "ent_1" } },
    "ability.get": { input: { ability: "heal" } },
    "ability.reset": { input: { entity: "ent_1" } },
  },
};
