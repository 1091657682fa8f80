// The world digest: sha256 over what makes two worlds the same world — the
// EntityTable's identity (ids, eids, generations, tags, counter, version),
// every live entity's SoA transform bytes (in creation order) and the
// physics state (each body's handle, binding, pose, motion and sleep flag),
// then whatever else the world's systems hash (characters, navigation).
// Replay compares it at checkpoints; a restored world must give the digest
// that was saved.

import type { PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import { sha256 } from "../../../crates/limina-trace/js/world-file.ts";
import type { World } from "../ecs/world.ts";

const utf8 = new TextEncoder();

/** `"sha256:…"` of the world's identity, transforms and physics state, and of `more` (other systems' state bytes). */
export function worldDigest(world: World, physics: PhysicsWorld, ...more: Uint8Array[]): string {
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
  // Systems with nothing to hash add nothing, so a world without them keeps the digest it always had.
  more = more.filter((b) => b.length > 0);
  const extra = more.reduce((n, b) => n + 4 + b.length, 0);
  const bytes = new Uint8Array(4 + identity.length + transforms.byteLength + body.length + extra);
  new DataView(bytes.buffer).setUint32(0, identity.length, true);
  bytes.set(identity, 4);
  bytes.set(new Uint8Array(transforms.buffer), 4 + identity.length);
  let at = 4 + identity.length + transforms.byteLength;
  bytes.set(body, at);
  at += body.length;
  for (const b of more) {
    new DataView(bytes.buffer).setUint32(at, b.length, true);
    bytes.set(b, at + 4);
    at += 4 + b.length;
  }
  return sha256(bytes);
}
