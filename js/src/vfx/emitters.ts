// A world's particle emitters: the world resource `vfx`. Emitters are world
// state — their preset, where they stand or which entity they follow, how
// many particles they keep, their random seed and the tick they started —
// so snapshots, world files, replay and the digest cover them. The particles
// themselves are presentation, simulated on the GPU by whoever draws the
// world (particles.ts), as a function of this state and the world's ticks.

import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { parseSaved } from "../game/saved.ts";
import type { Tracer } from "../observability/tracer.ts";
import { burstLife, PRESETS, VFX_PRESETS, type VfxPreset } from "./presets.ts";

/** World steps per second (the host's fixed step): emitter times are ticks. */
export const TICKS_PER_SECOND = 60;
/** The most particles one emitter may keep. */
export const MAX_EMITTER_PARTICLES = 250_000;
/** The most particles all of a world's emitters may keep together. */
export const MAX_WORLD_PARTICLES = 1_000_000;
/** The most emitters a world may hold. */
export const MAX_EMITTERS = 256;

const Vec3 = z.tuple([z.number(), z.number(), z.number()]);

export const EmitterState = z.strictObject({
  id: z.string(),
  preset: z.enum(VFX_PRESETS),
  /** Where it stands; for an attached emitter, its offset from the entity. */
  position: Vec3,
  /** The entity it follows, or null. */
  entity: z.string().nullable(),
  count: z.number().int().min(1).max(MAX_EMITTER_PARTICLES),
  seed: z.number().int().min(0).max(0xffffffff),
  /** Multiplies the preset's particle sizes and the region they are born in. */
  scale: z.number().gt(0).max(100),
  /** Tints the preset's colours (0xRRGGBB), or null. */
  color: z.number().int().min(0).max(0xffffff).nullable(),
  /** The tick it started at. */
  start: z.number().int().min(0),
  /** The tick it ends at by itself, or null (until vfx.stop). */
  until: z.number().int().min(0).nullable(),
});
export type EmitterState = z.infer<typeof EmitterState>;

const Saved = z.strictObject({ next: z.number().int().min(1), emitters: z.array(EmitterState).max(MAX_EMITTERS) });
type Saved = z.infer<typeof Saved>;

export interface EmitterOptions {
  preset: VfxPreset;
  position?: [number, number, number];
  entity?: string | null;
  count?: number;
  seed?: number;
  scale?: number;
  color?: number | null;
  /** Seconds until it ends by itself (a burst's default: its particles' longest life); omitted: until stopped. */
  duration?: number;
}

/** The world's emitters, in the order they started. */
export class VfxEmitters {
  private emitters = new Map<string, EmitterState>();
  private next = 1;

  constructor(private readonly services: { tick(): number; tracer: Tracer; entityExists(id: string): boolean }) {}

  save(): Saved {
    return { next: this.next, emitters: [...this.emitters.values()].map((e) => ({ ...e, position: [...e.position] as [number, number, number] })) };
  }

  load(saved: Saved | null): void {
    const s: Saved = saved === null ? { next: 1, emitters: [] } : parseSaved(Saved, saved, "vfx");
    this.emitters = new Map(s.emitters.map((e) => [e.id, { ...e }]));
    this.next = s.next;
  }

  /** Starts an emitter; refused (changing nothing) past the world's limits or for an unknown entity. */
  spawn(o: EmitterOptions): EmitterState {
    const spec = PRESETS[o.preset];
    const count = o.count ?? spec.count;
    if (this.emitters.size >= MAX_EMITTERS) throw engineError("invalid_input", `a world holds at most ${MAX_EMITTERS} emitters: vfx.stop some first`);
    const live = this.particles();
    if (live + count > MAX_WORLD_PARTICLES) throw engineError("invalid_input", `${count} more particles would make ${live + count}, over the world's ${MAX_WORLD_PARTICLES}`);
    const entity = o.entity ?? null;
    if (entity !== null && !this.services.entityExists(entity)) throw engineError("not_found", `unknown entity ${JSON.stringify(entity)}`);
    const start = this.services.tick();
    const seconds = o.duration ?? (spec.burst ? burstLife(o.preset) : null);
    const n = this.next;
    const e: EmitterState = {
      id: `vfx_${n}`,
      preset: o.preset,
      position: o.position ?? [0, 0, 0],
      entity,
      count,
      // The default seed is the emitter's number scrambled: distinct emitters look distinct, and the same world the same.
      seed: o.seed ?? Math.imul(n, 0x9e3779b1) >>> 0,
      scale: o.scale ?? 1,
      color: o.color ?? null,
      start,
      until: seconds === null ? null : start + Math.max(1, Math.round(seconds * TICKS_PER_SECOND)),
    };
    this.next = n + 1;
    this.emitters.set(e.id, e);
    return { ...e };
  }

  /** Stops emitters by id or by the entity they follow (all when neither); returns the ids stopped. */
  stop(by: { id?: string; entity?: string }): string[] {
    if (by.id !== undefined && !this.emitters.has(by.id)) throw engineError("not_found", `no emitter ${JSON.stringify(by.id)} (vfx.list lists them)`);
    const ids = [...this.emitters.values()].filter((e) => (by.id === undefined || e.id === by.id) && (by.entity === undefined || e.entity === by.entity)).map((e) => e.id);
    for (const id of ids) this.emitters.delete(id);
    return ids;
  }

  list(): EmitterState[] {
    return [...this.emitters.values()].map((e) => ({ ...e, position: [...e.position] as [number, number, number] }));
  }

  /** The live emitters themselves (read-only; per frame, without copies). */
  live(): IterableIterator<Readonly<EmitterState>> {
    return this.emitters.values();
  }

  get size(): number {
    return this.emitters.size;
  }

  /** Particles all emitters keep. */
  particles(): number {
    let n = 0;
    for (const e of this.emitters.values()) n += e.count;
    return n;
  }

  /** One fixed step: emitters whose time is up, or whose entity is gone, end. */
  step(): void {
    if (this.emitters.size === 0) return;
    const tick = this.services.tick();
    for (const e of [...this.emitters.values()]) {
      const why = e.until !== null && tick >= e.until ? "ended" : e.entity !== null && !this.services.entityExists(e.entity) ? "entity gone" : null;
      if (why === null) continue;
      this.emitters.delete(e.id);
      this.services.tracer.emit("vfx.ended", { id: e.id, preset: e.preset, why });
    }
  }
}
