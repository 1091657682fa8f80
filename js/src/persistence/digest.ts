// The world digest: sha256 over what makes two worlds the same world — the
// EntityTable's identity (ids, eids, generations, tags, counter, version),
// the world's digest parts (entities' looks, prefabs, …: World.digestParts,
// in name order), every live entity's SoA transform bytes (in creation
// order) and the physics state (each body's handle, binding, pose, motion,
// sleep flag and colliders, the joints, gravity and the kill plane).
// Replay compares it at checkpoints; a restored world must give the digest
// that was saved.

import type { PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import { sha256 } from "../../../crates/limina-trace/js/world-file.ts";
import type { World } from "../ecs/world.ts";

const utf8 = new TextEncoder();

/** `"sha256:…"` of the world's identity, transforms, physics state and digest parts. */
export function worldDigest(world: World, physics: PhysicsWorld): string {
  const table = world.entities;
  const entries: unknown[] = [];
  const transforms = new Float32Array(table.size * 10);
  let i = 0;
  for (const e of table.entries()) {
    entries.push([e.id, e.eid, e.generation, [...e.tags]]);
    const k = e.eid;
    transforms.set([world.Position.x[k], world.Position.y[k], world.Position.z[k]], i);
    transforms.set([world.Rotation.x[k], world.Rotation.y[k], world.Rotation.z[k], world.Rotation.w[k]], i + 3);
    transforms.set([world.Scale.x[k], world.Scale.y[k], world.Scale.z[k]], i + 7);
    i += 10;
  }
  const identity = utf8.encode(JSON.stringify({ nextId: table.nextIdNumber, version: table.version, entries }));
  const body = physics.digestBytes();
  // Each part as its name and its JSON (a part may hand over JSON it already holds, as a string).
  const parts = [...world.digestParts.keys()].sort().flatMap((name) => {
    const value = world.digestParts.get(name)!();
    return [utf8.encode(name), utf8.encode(typeof value === "string" ? value : JSON.stringify(value))];
  });
  const size = 4 + identity.length + transforms.byteLength + body.length + parts.reduce((n, p) => n + 4 + p.length, 0);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, identity.length, true);
  bytes.set(identity, 4);
  let at = 4 + identity.length;
  bytes.set(new Uint8Array(transforms.buffer), at);
  at += transforms.byteLength;
  bytes.set(body, at);
  at += body.length;
  for (const p of parts) {
    view.setUint32(at, p.length, true);
    bytes.set(p, at + 4);
    at += 4 + p.length;
  }
  return sha256(bytes);
}
