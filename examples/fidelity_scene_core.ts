// The fidelity scene, shared by the windowed demo and its offscreen test:
// a receiving floor, a shadow-casting directional light with real shadow
// maps, a textured glTF from assets/, and a bar-shaped caster that spins so
// its shadow sweeps the floor. Everything is authored the way an agent
// would: through scene.* and three.* skills over the in-process MCP surface.
// Not a demo by itself: fidelity_scene.ts runs it.

import type { WorldSession } from "limina";

/** Where the sun shines from (the light looks at the origin). */
export const SUN: [number, number, number] = [4, 10, 3];
/** The caster's centre: a bar 3.2 m long, spinning about the vertical. */
export const CASTER_CENTER: [number, number, number] = [0, 1.6, 0];
export const CASTER_LENGTH = 3.2;
/** Radians per second. */
export const SPIN_RATE = 0.9;
export const MODEL_AT: [number, number, number] = [2.6, 0, 1.6];

export interface FidelityScene {
  floor: string;
  caster: string;
  model: string;
  ball: string;
  /** Turns the caster to `angle` radians about the vertical. */
  spinTo(angle: number): void;
  /** Where a point at height `y` above the floor casts its shadow (light from SUN). */
  shadowOf(p: [number, number, number]): [number, number, number];
}

export async function buildFidelityScene(session: WorldSession): Promise<FidelityScene> {
  const mcp = session.mcp();
  mcp.initialize({ agentId: "fidelity_scene", sessionId: "sess_fidelity_scene", profile: "builder.readWrite" });
  const must = <T>(tool: string, input: Record<string, unknown>) => mcp.mustCall<T>(tool, input);
  const create = async (input: Record<string, unknown>) => (await must<{ entity: string }>("scene.createEntity", input)).entity;

  await must("three.setLighting", {
    // A little ambient: the sky lights the scene (the look's image-based lighting).
    ambientColor: 0x8090b0,
    ambientIntensity: 0.15,
    directionalColor: 0xfff1dc,
    directionalIntensity: 3.2,
    direction: SUN,
    castShadow: true,
    shadowMapSize: 2048,
    shadowCameraExtent: 9,
    shadowCameraNear: 1,
    shadowCameraFar: 40,
  });
  // The floor: a static slab whose top face is y = 0.
  const floor = await create({ shape: "box", size: 1, position: [0, -0.1, 0], static: true, color: 0xd8d4cc });
  await must("three.setTransform", { entity: floor, scale: [60, 0.2, 60] });
  await must("three.setMaterial", { entity: floor, roughness: 0.95, metalness: 0, receiveShadow: true });

  const caster = await create({ shape: "box", size: 1, position: CASTER_CENTER, color: 0x2255cc });
  await must("three.setTransform", { entity: caster, scale: [CASTER_LENGTH, 0.35, 0.35] });
  await must("three.setMaterial", { entity: caster, roughness: 0.35, metalness: 0.2, castShadow: true, receiveShadow: true });
  // A post under the caster, so it reads as a turning sign rather than a floating bar.
  const post = await create({ shape: "box", size: 1, position: [0, 0.7, 0], static: true, color: 0x555555 });
  await must("three.setTransform", { entity: post, scale: [0.12, 1.4, 0.12] });
  await must("three.setMaterial", { entity: post, castShadow: true });

  const model = (await must<{ entity: string }>("three.loadGLTF", { assetId: "checker_cube", position: MODEL_AT })).entity;
  await must("three.setTransform", { entity: model, rotationEuler: [0, 0.5, 0], scale: [1.2, 1.2, 1.2] });
  await must("three.setMaterial", { entity: model, castShadow: true, receiveShadow: true });

  const ball = await create({ shape: "sphere", size: 1, position: [-2.4, 0.5, 1.8], color: 0xc8302a });
  await must("three.setMaterial", { entity: ball, roughness: 0.2, metalness: 0.1, castShadow: true });

  const { entities } = session;
  const casterEntry = entities.require(caster);
  return {
    floor,
    caster,
    model,
    ball,
    spinTo(angle: number) {
      entities.setTransform(casterEntry, { rotation: [0, Math.sin(angle / 2), 0, Math.cos(angle / 2)] });
    },
    shadowOf([x, y, z]) {
      const k = y / SUN[1];
      return [x - SUN[0] * k, 0, z - SUN[2] * k];
    },
  };
}
