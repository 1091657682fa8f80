// WorldContext: what a skill handler can read and change — the ECS world,
// the Three.js scene graph, native physics and the spatial index.

import * as THREE from "../../build/three.bundle.mjs";
import { World } from "../ecs/world.ts";
import { Physics } from "../physics/physics.ts";
import { NativeSpatialQuery } from "../spatial/native.ts";

/** A named function that (re)builds part of the scene; `dev.reload` can re-run it. */
export type SceneBuilder = (world: WorldContext) => void | Promise<void>;

export interface AgentSummary {
  agentId: string;
  [key: string]: unknown;
}

export interface Lighting {
  ambient: THREE.AmbientLight;
  directional: THREE.DirectionalLight;
}

export interface WorldContext {
  world: World;
  physics: typeof Physics;
  /** The real Three.js scene graph (rendered when a renderer is attached). */
  scene: THREE.Scene;
  lighting: Lighting;
  spatial: NativeSpatialQuery;
  /** Grid cell size for radius queries, in metres. */
  spatialCellSize: number;
  sceneBuilders: Map<string, SceneBuilder>;
  /** The agents living in the world (filled in by the agent systems). */
  agents: { list(): AgentSummary[] };
  /** An agent's current perception, when the agent systems have built one. */
  perceptionOf(agentId: string): unknown | null;
}

/**
 * A fresh world. Physics is the process's one native PhysicsWorld, cleared
 * here so the world starts empty.
 */
export function createWorldContext(world = new World()): WorldContext {
  Physics.clear();
  const scene = new THREE.Scene();
  const ambient = new THREE.AmbientLight(0x404060, 1.2);
  const directional = new THREE.DirectionalLight(0xffffff, 3);
  directional.position.set(5, 9, 6);
  scene.add(ambient, directional, directional.target);
  return {
    world,
    physics: Physics,
    scene,
    lighting: { ambient, directional },
    spatial: new NativeSpatialQuery(),
    spatialCellSize: 8,
    sceneBuilders: new Map(),
    agents: { list: () => [] },
    perceptionOf: () => null,
  };
}
