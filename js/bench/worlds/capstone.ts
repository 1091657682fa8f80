// The density capstone's world: 200 agents inhabiting dynamic bodies, 56
// more dynamic bodies (256 in all), and static markers up to 2000 entities
// over 200 m × 200 m (the density js/bench/spatial.ts measures: ~30
// entities within an agent's 15 m), with ScriptedProvider agents pursuing
// the nearest thing they perceive.
// Shared by js/test/capstone.ts and js/bench/capstone.ts.

import { createAgentSystems, pursueNearest, ScriptedProvider, WorldSession } from "limina";

export const AGENTS = 200;
export const DYNAMIC_BODIES = 256;
export const ENTITIES = 2000;

export function createCapstone() {
  const session = new WorldSession({ simulate: false });
  const base = { static: false, color: 0xffffff, friction: 0.5, restitution: 0.1 };
  session.entities.create({ shape: "box", size: 220, position: [0, -110, 0], ...base, static: true, dynamic: false });
  const bodies = [];
  for (let i = 0; i < DYNAMIC_BODIES; i++) {
    const x = (i % 16) * 12 - 90;
    const z = Math.floor(i / 16) * 12 - 90;
    bodies.push(session.entities.create({ shape: i < AGENTS ? "sphere" : "box", size: 1, position: [x, 0.5, z], ...base, dynamic: true }));
  }
  for (let i = session.world.entities.size; i < ENTITIES; i++) {
    session.world.spawn({ position: [((i * 7919) % 20000) / 100 - 100, 0.2, ((i * 104729) % 20000) / 100 - 100], tags: ["marker"] });
  }
  const systems = createAgentSystems(session, { scripted: new ScriptedProvider(pursueNearest(0.8)) }, { manual: true });
  for (let i = 0; i < AGENTS; i++) {
    const a = systems.agents.add({
      id: `agt_${i}`,
      type: "player",
      entityId: bodies[i].id,
      perceptionRadius: 15,
      decisionIntervalTicks: 30,
      profile: "player.limited",
      sessionId: `ses_${i}`,
      llm: { provider: "scripted", model: "", systemPrompt: "pursue the nearest entity" },
    });
    // Stagger first decisions across the interval, as agents joining over time would.
    a.lastDecisionTick = (i % 30) - 30;
  }
  return { session, systems };
}
