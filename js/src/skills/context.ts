// WorldContext: what a skill handler can read and change.

import { World } from "../ecs/world.ts";
import { Physics } from "../physics/physics.ts";

/** A named function that (re)builds part of the scene; `dev.reload` can re-run it. */
export type SceneBuilder = (world: WorldContext) => void | Promise<void>;

export interface AgentSummary {
  agentId: string;
  [key: string]: unknown;
}

export interface WorldContext {
  world: World;
  physics: typeof Physics;
  sceneBuilders: Map<string, SceneBuilder>;
  /** The agents living in the world (filled in by the agent systems). */
  agents: { list(): AgentSummary[] };
}

export function createWorldContext(world = new World()): WorldContext {
  return { world, physics: Physics, sceneBuilders: new Map(), agents: { list: () => [] } };
}
