// The world digest: sha256 over what makes two worlds the same world — the
// EntityTable's identity (ids, eids, generations, tags, counter, version),
// every live entity's SoA transform bytes (in creation order), the physics
// state (each body's handle, binding, pose, motion, sleep flag and colliders,
// the joints, gravity and the kill plane) and the rest of the world skills
// change: each entity's scene object (meshes, materials, shadows) and how the
// engine made it (shape, style, body description), the lighting, the world
// resources (prefabs, game state) and the render settings (environment, post
// stack; not the quality tier, which the engine may pick for its adapter:
// snapshots keep it, replay re-applies it).
// Replay compares it at checkpoints; a restored world must give the digest
// that was saved; a denied call must leave it as it was. Not hashed:
// presentation (the view camera and UI containers, which module code also
// steers — an orbit control, a HUD — unrecorded by the world log) and the
// agents' own state (their walks, queues and decisions).

import type * as THREE from "three";
import type { PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import { sha256 } from "../../../crates/limina-trace/js/world-file.ts";
import type { World } from "../ecs/world.ts";
import type { WorldSession } from "../world-session.ts";
import { saveLighting } from "../scene/scene-graph.ts";
import { saveMeshes } from "./snapshot.ts";

const utf8 = new TextEncoder();

/** `"sha256:…"` of the world's identity, transforms and physics state, then `state` (any JSON) when given. */
export function worldDigest(world: World, physics: PhysicsWorld, state?: unknown): string {
  const table = world.entities;
  const entries: unknown[] = new Array(table.size);
  const transforms = new Float32Array(table.size * 10);
  const { Position: p, Rotation: r, Scale: s } = world;
  let n = 0;
  for (const e of table.entries()) {
    entries[n] = [e.id, e.eid, e.generation, [...e.tags]];
    const k = e.eid;
    const i = n++ * 10;
    transforms[i] = p.x[k];
    transforms[i + 1] = p.y[k];
    transforms[i + 2] = p.z[k];
    transforms[i + 3] = r.x[k];
    transforms[i + 4] = r.y[k];
    transforms[i + 5] = r.z[k];
    transforms[i + 6] = r.w[k];
    transforms[i + 7] = s.x[k];
    transforms[i + 8] = s.y[k];
    transforms[i + 9] = s.z[k];
  }
  const identity = utf8.encode(JSON.stringify({ nextId: table.nextIdNumber, version: table.version, entries }));
  const body = physics.digestBytes();
  const rest = state === undefined ? new Uint8Array(0) : utf8.encode(JSON.stringify(state));
  const bytes = new Uint8Array(4 + identity.length + transforms.byteLength + body.length + rest.length);
  new DataView(bytes.buffer).setUint32(0, identity.length, true);
  bytes.set(identity, 4);
  bytes.set(new Uint8Array(transforms.buffer), 4 + identity.length);
  bytes.set(body, 4 + identity.length + transforms.byteLength);
  bytes.set(rest, 4 + identity.length + transforms.byteLength + body.length);
  return sha256(bytes);
}

/** The world state a session holds beyond the ECS and physics (the `state` its digest hashes), less the resources in `exclude`. */
export function worldState(session: WorldSession, exclude: readonly string[] = []): unknown {
  const objects: unknown[] = [];
  for (const e of session.world.entities.entries()) {
    const object = e.mesh as THREE.Object3D | undefined;
    if (!object) continue;
    const geometry = (object as THREE.Mesh).geometry as (THREE.BufferGeometry & { parameters?: unknown }) | undefined;
    objects.push([e.id, object.visible, geometry ? [geometry.type, geometry.parameters ?? null] : null, saveMeshes(object), e.shape ?? null, e.style ?? null, e.bodySpec ?? null]);
  }
  return { objects, lighting: saveLighting(session.lighting), resources: session.resources.digestState(exclude), look: { ...session.look.settings(), quality: undefined } };
}
