// A world as its state stream describes it (js/src/mcp/state-sync.ts): each
// entity's transform, tags and look, and the world's look — kept by a relay
// to greet browsers that join, and by the page to draw. Runs anywhere
// (limina, a browser): no engine ops.
//
// A character's animation comes whole once, then as changes stamped with the
// animation clock (stream-animation.ts advances animators through them). A mirror
// that keeps `history` (a relay's, which has no animators) holds each
// character's last whole state, the clock it was at and every change since,
// so the snapshot it greets a browser with lets the page catch up exactly;
// the world's next snapshot (every second) starts that history afresh.

import type { ClockedChange } from "../characters/characters.ts";

/** An entity as the stream carries it: `transform` is [px,py,pz,rx,ry,rz,rw,sx,sy,sz]. */
export interface MirrorEntity {
  transform: number[];
  tags: string[];
  look: unknown;
  /** A character's appearance (`{appearance, model?}`), and its whole animation state as it came. */
  character?: unknown;
  animation?: unknown;
  /** With history: the animation clock `animation` was at (absent: the snapshot's clock), and the changes since. */
  animationAt?: number;
  animationChanges?: ClockedChange[];
}

type Entry = { entity: string } & MirrorEntity;

/** What one delta changed, by entity id. */
export interface MirrorChange {
  created: string[];
  moved: string[];
  restyled: string[];
  destroyed: string[];
  /** Characters whose whole animation state came again (their animator was loaded). */
  reloaded: string[];
  /** Characters' animation changes, by entity id (stamped with the clock, in order). */
  animationChanges: Record<string, ClockedChange[]>;
  world: boolean;
}


const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/** The float32 values a stream column holds (standard padded base64 of their bytes). */
export function decodeFloats(b64: string): Float32Array {
  const clean = b64.replace(/=+$/, "");
  const bytes = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const v = DECODE[clean.charCodeAt(i)];
    if (v === undefined || v < 0) throw new Error(`not base64: ${JSON.stringify(clean[i])}`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = (acc >> bits) & 0xff;
    }
  }
  return new Float32Array(bytes.buffer, 0, Math.floor(o / 4));
}

/** An entity as a snapshot or creation carries it (transforms copied: deltas change them in place, and a player applies the same snapshot again). */
function entityOf(e: Entry): MirrorEntity {
  const history = e.animationChanges === undefined ? {} : { animationAt: e.animationAt, animationChanges: [...e.animationChanges] };
  return { transform: [...e.transform], tags: e.tags, look: e.look ?? null, ...(e.character === undefined ? {} : { character: e.character, animation: e.animation, ...history }) };
}

export class StateMirror {
  readonly entities = new Map<string, MirrorEntity>();
  world: unknown = null;
  tick = -1;
  layout = "";
  clients = 0;
  /** The animation clock of the last message (null: the stream carries no animation). */
  animationClock: number | null = null;

  /** `history`: keep each character's animation changes since its whole state (a relay's mirror). */
  constructor(private readonly history = false) {}

  applySnapshot(p: Record<string, unknown>): void {
    this.entities.clear();
    this.animationClock = typeof p.animationClock === "number" ? p.animationClock : null;
    for (const e of p.entities as Entry[]) {
      const entity = entityOf(e);
      if (this.history && entity.character !== undefined) {
        entity.animationAt ??= this.animationClock ?? 0;
        entity.animationChanges ??= [];
      }
      this.entities.set(e.entity, entity);
    }
    this.world = p.world ?? null;
    this.tick = p.tick as number;
    this.layout = (p.layout as string) ?? "";
    if (typeof p.clients === "number") this.clients = p.clients;
  }

  applyDelta(p: Record<string, any>): MirrorChange {
    const change: MirrorChange = { created: [], moved: [], restyled: [], destroyed: [], reloaded: [], animationChanges: p.animationChanges ?? {}, world: false };
    if (typeof p.animationClock === "number") this.animationClock = p.animationClock;
    const clock = this.animationClock ?? 0;
    const moved = decodeFloats(p.moved.positions);
    (p.moved.ids as string[]).forEach((id, i) => {
      const e = this.entities.get(id);
      if (!e) return;
      for (let k = 0; k < 3; k++) e.transform[k] = moved[i * 3 + k];
      change.moved.push(id);
    });
    const turned = decodeFloats(p.turned.transforms);
    (p.turned.ids as string[]).forEach((id, i) => {
      const e = this.entities.get(id);
      if (!e) return;
      const [px, py, pz, ry, rw] = turned.subarray(i * 5, i * 5 + 5);
      e.transform.splice(0, 7, px, py, pz, 0, ry, 0, rw);
      change.moved.push(id);
    });
    const changed = decodeFloats(p.changed.transforms);
    (p.changed.ids as string[]).forEach((id, i) => {
      const e = this.entities.get(id);
      if (!e) return;
      e.transform = Array.from(changed.subarray(i * 10, i * 10 + 10));
      change.moved.push(id);
    });
    for (const c of p.created as Entry[]) {
      const entity = entityOf(c);
      if (this.history && entity.character !== undefined) Object.assign(entity, { animationAt: clock, animationChanges: [] });
      this.entities.set(c.entity, entity);
      change.created.push(c.entity);
    }
    for (const r of (p.restyled ?? []) as Entry[]) {
      const e = this.entities.get(r.entity);
      if (!e) continue;
      e.tags = r.tags;
      e.look = r.look;
      change.restyled.push(r.entity);
    }
    for (const id of p.destroyed as string[]) if (this.entities.delete(id)) change.destroyed.push(id);
    for (const [id, animation] of Object.entries((p.animations ?? {}) as Record<string, unknown>)) {
      const e = this.entities.get(id);
      if (!e) continue;
      e.animation = animation;
      if (this.history) Object.assign(e, { animationAt: clock, animationChanges: [] });
      change.reloaded.push(id);
    }
    if (this.history) {
      for (const [id, changes] of Object.entries(change.animationChanges)) this.entities.get(id)?.animationChanges?.push(...changes);
    }
    if (p.world !== undefined) {
      this.world = p.world;
      change.world = true;
    }
    this.tick = p.tick;
    return change;
  }

  /** The whole state as a `state/snapshot`'s params. */
  snapshot(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const entities = [...this.entities].map(([entity, e]) => ({ entity, ...e }));
    const clock = this.animationClock === null ? {} : { animationClock: this.animationClock };
    return { tick: this.tick, layout: this.layout, aoi: null, clients: this.clients, world: this.world, ...clock, ...extra, entities };
  }
}
