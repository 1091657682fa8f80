// The density capstone's world: agents inhabiting dynamic bodies, 56 more
// dynamic bodies, and static markers up to the entity count over a square,
// with ScriptedProvider agents pursuing the nearest thing they perceive.
// The standard scenario is 200 agents, 256 dynamic bodies and 2000 entities
// over 200 m × 200 m (the density js/bench/spatial.ts measures: ~30
// entities within an agent's 15 m); `packed` puts the same into 48 m × 48 m
// (~600 within 15 m), `agents1000` has 1000 agents in the standard square.
// Shared by js/test/capstone.ts and js/bench/capstone.ts.

import { createAgentSystems, type DecideRequest, type MCPRequest, pursueNearest, ScriptedProvider, stepsRun, WorldSession } from "limina";

export interface CapstoneScenario {
  agents: number;
  dynamicBodies: number;
  entities: number;
  /** The square's side, in metres. */
  extent: number;
}

export const SCENARIOS = {
  standard: { agents: 200, dynamicBodies: 256, entities: 2000, extent: 200 },
  packed: { agents: 200, dynamicBodies: 256, entities: 2000, extent: 48 },
  agents1000: { agents: 1000, dynamicBodies: 1056, entities: 2000, extent: 200 },
} satisfies Record<string, CapstoneScenario>;

export const { agents: AGENTS, dynamicBodies: DYNAMIC_BODIES, entities: ENTITIES } = SCENARIOS.standard;

/** `policy`: what every agent's ScriptedProvider decides with (the bench wraps it to time it). */
export function createCapstone(
  scenario: CapstoneScenario = SCENARIOS.standard,
  policy: (req: DecideRequest) => MCPRequest[] = pursueNearest(0.8),
) {
  const { agents, dynamicBodies, entities, extent } = scenario;
  const session = new WorldSession({ simulate: false });
  const base = { static: false, color: 0xffffff, friction: 0.5, restitution: 0.1 };
  session.entities.create({ shape: "box", size: extent + 20, position: [0, -(extent + 20) / 2, 0], ...base, static: true, dynamic: false });
  // The bodies on a square grid over the middle 90% of the square.
  const cols = Math.ceil(Math.sqrt(dynamicBodies));
  const spacing = (extent * 0.9) / (cols - 1);
  const bodies = [];
  for (let i = 0; i < dynamicBodies; i++) {
    const x = (i % cols) * spacing - extent * 0.45;
    const z = Math.floor(i / cols) * spacing - extent * 0.45;
    bodies.push(session.entities.create({ shape: i < agents ? "sphere" : "box", size: 1, position: [x, 0.5, z], ...base, dynamic: true }));
  }
  const scale = extent / 200;
  for (let i = session.world.entities.size; i < entities; i++) {
    session.world.spawn({ position: [(((i * 7919) % 20000) / 100 - 100) * scale, 0.2, (((i * 104729) % 20000) / 100 - 100) * scale], tags: ["marker"] });
  }
  const systems = createAgentSystems(session, { scripted: new ScriptedProvider(policy) }, { manual: true });
  const now = stepsRun();
  for (let i = 0; i < agents; i++) {
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
    // Stagger first decisions across the interval from now (the step count
    // runs on across worlds), as agents joining over time would.
    a.lastDecisionTick = now + (i % 30) - 30;
  }
  return { session, systems };
}
