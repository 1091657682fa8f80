// The crowd walk, shared by the demo, its test and its benchmark: a plaza
// with planters and a fountain, a navmesh baked over them, and skinned
// humanoids — each its own height, build and colours — walking between
// random points through the crowd, every walk a nav.moveTo by the plaza's
// host (arrivals are nav.arrived events; each then picks a new goal). Not a
// demo by itself: crowd_walk.ts runs it.
import type { Appearance, Mcp, Vec3, WorldSession } from "limina";
import * as THREE from "three";

export const PLAZA = 18;

/** xorshift32: every run is the same crowd. */
export class Rng {
  constructor(private s: number) {}
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 0x100000000;
  }
}

const SHIRTS = [0xc8553d, 0x2a9d8f, 0xe9c46a, 0x5e60ce, 0xf4a261, 0x43aa8b, 0xd62828, 0x277da1, 0x9d4edd, 0x90be6d];
const SKINS = [0xf1c27d, 0xe0ac69, 0xc68642, 0x8d5524, 0xffdbac];
const PANTS = [0x30343c, 0x3d405b, 0x4a4e69, 0x6b4226, 0x22333b];

/** The plaza: floor, planters and a fountain (static colliders the navmesh goes round), lit. */
export async function buildPlaza(host: Mcp, session: WorldSession): Promise<void> {
  session.scene.background = new THREE.Color(0xbcd3e6);
  session.scene.fog = new THREE.Fog(0xbcd3e6, 40, 100);
  const sun = session.lighting.directional;
  sun.position.set(12, 25, 8);
  sun.intensity = 2.6;
  sun.castShadow = true;
  const shadow = sun.shadow.camera as THREE.OrthographicCamera;
  shadow.left = shadow.bottom = -PLAZA - 4;
  shadow.right = shadow.top = PLAZA + 4;
  shadow.updateProjectionMatrix();
  session.lighting.ambient.intensity = 1.2;
  await host.mustCall("scene.createEntity", { shape: "box", size: 2 * PLAZA + 8, color: 0x9a958b, position: [0, -(PLAZA + 4), 0], static: true });
  for (const [x, z] of [[-9, -9], [9, -9], [-9, 9], [9, 9], [0, -13], [0, 13]]) {
    const { entity } = await host.mustCall<{ entity: string }>("scene.createEntity", { shape: "box", size: 2.2, color: 0x6f8f4e, position: [x, 0.3, z], static: true });
    await host.mustCall("three.setTransform", { entity, scale: [1, 0.55, 1] });
  }
  await host.mustCall("scene.createEntity", { shape: "sphere", collider: "sphere", size: 4, color: 0xa7c4d6, position: [0, 0, 0], static: true });
  await host.mustCall("nav.build", { agentRadius: 0.35, bounds: { min: [-PLAZA - 2, -1, -PLAZA - 2], max: [PLAZA + 2, 4, PLAZA + 2] } });
}

/** A random point on the plaza. */
export function somewhere(rng: Rng): Vec3 {
  return [(rng.next() * 2 - 1) * (PLAZA - 1), 0, (rng.next() * 2 - 1) * (PLAZA - 1)];
}

export interface Walkers {
  ids: string[];
  appearances: Appearance[];
  /** Sends whoever arrived (or failed) somewhere new; call every step or so. */
  keepWalking(): Promise<void>;
  arrivals(): number;
}

/**
 * `n` humanoids, each sent walking; they keep walking to new goals as they arrive. `drawnByCrowd`:
 * spawned through the module API as skeletons for a CrowdDraw (character.spawn gives each its mesh).
 */
export async function spawnWalkers(host: Mcp, session: WorldSession, n: number, seed = 0x0ddba11, drawnByCrowd = false): Promise<Walkers> {
  const rng = new Rng(seed);
  const ids: string[] = [];
  const appearances: Appearance[] = [];
  for (let i = 0; i < n; i++) {
    const r = 3 + (PLAZA - 4) * Math.sqrt((i + 0.5) / n);
    const a = i * 2.399963;
    const appearance = {
      height: 1.6 + rng.next() * 0.3,
      build: 0.9 + rng.next() * 0.25,
      shirt: SHIRTS[i % SHIRTS.length],
      skin: SKINS[(i * 7) % SKINS.length],
      pants: PANTS[(i * 3) % PANTS.length],
    };
    appearances.push(appearance);
    // On the navmesh: never inside a planter.
    const at = session.nav.nearest([Math.cos(a) * r, 0, Math.sin(a) * r]) ?? [Math.cos(a) * r, 0, Math.sin(a) * r];
    if (drawnByCrowd) ids.push((await session.characters.spawn({ position: at, appearance, drawnByCrowd })).entity.id);
    else ids.push((await host.mustCall<{ entityId: string }>("character.spawn", { position: at, appearance })).entityId);
  }
  const send = async (id: string) => {
    for (let tries = 0; tries < 5; tries++) {
      const r = await host.callTool({ tool: "nav.moveTo", input: { entityId: id, target: somewhere(rng), speed: 1.1 + rng.next() * 0.9 } });
      if (r.success) return;
    }
  };
  for (const id of ids) await send(id);
  let seen = 0;
  let arrived = 0;
  return {
    ids,
    appearances,
    arrivals: () => arrived,
    async keepWalking() {
      // Only the events since the last look (the recent window is read back from the world log's text).
      const fresh = session.tracer.page({ afterSeq: seen - 1, limit: session.tracer.size - seen }).events;
      seen = session.tracer.size;
      for (const e of fresh) {
        if (e.type !== "nav.arrived" && e.type !== "nav.failed") continue;
        if (e.type === "nav.arrived") arrived++;
        await send((e.payload as { entityId: string }).entityId);
      }
    },
  };
}
