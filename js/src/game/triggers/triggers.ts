// Trigger zones: boxes and spheres, fixed in the world or carried by an
// entity, that notice entities entering, staying in and leaving them. Each
// fixed step one batched native radius query (limina-ecs, the same answer
// as its JS oracle) finds the candidates near every enabled zone, an exact
// containment test on each entity's position decides, and the zone's
// effects run for each entry, exit and stay period — in a fixed order, so
// replays see the same. The world resource `game.triggers`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../../ecs/world.ts";
import { Vec3 as Vec3Schema, WorldVec3 } from "../../skills/schemas.ts";
import type { Game } from "../game.ts";
import { EffectList, EntityRef, Id, Ticks } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

const Extent = z.number().gt(0).max(10_000);

export const TriggerFields = z.strictObject({
  shape: z.enum(["box", "sphere"]),
  position: WorldVec3.optional().describe("its centre in the world (or its offset from `attach`)"),
  attach: EntityRef.optional().describe("an entity it moves with; position is then an offset"),
  halfExtents: z.tuple([Extent, Extent, Extent]).optional().describe("box: half its size on each axis (axis-aligned)"),
  radius: Extent.optional().describe("sphere: its radius"),
  filter: z
    .strictObject({
      tag: z.string().min(1).max(64).optional().describe("only entities with this tag"),
      entities: z.array(EntityRef).max(64).optional().describe("only these entities"),
      players: z.boolean().optional().describe("only entities agents play (game.addPlayer)"),
    })
    .default({})
    .describe("which entities it notices (default: every entity but the one it is attached to)"),
  onEnter: EffectList.default([]).describe("effects when an entity enters (it is the actor)"),
  onExit: EffectList.default([]).describe("effects when an entity leaves"),
  onStay: EffectList.default([]).describe("effects every `every` ticks an entity stays inside"),
  every: Ticks.min(1).default(60).describe("ticks between onStay effects"),
  once: z.boolean().default(false).describe("disable itself after its first entry"),
  enabled: z.boolean().default(true),
});

/** What a zone's fields must also satisfy together. */
export function triggerChecks(t: { shape: "box" | "sphere"; halfExtents?: unknown; radius?: unknown; position?: unknown; attach?: unknown }, ctx: z.RefinementCtx): void {
  const sized = t.shape === "box" ? t.halfExtents !== undefined && t.radius === undefined : t.radius !== undefined && t.halfExtents === undefined;
  if (!sized) ctx.addIssue({ code: "custom", message: "a box takes halfExtents, a sphere takes radius" });
  if (t.position === undefined && t.attach === undefined) ctx.addIssue({ code: "custom", message: "give a position, an attach entity, or both" });
}

export const TriggerSpec = TriggerFields.superRefine(triggerChecks);
export type TriggerSpec = z.input<typeof TriggerSpec>;

export interface Trigger extends z.output<typeof TriggerFields> {
  /** Entities inside now, in the order they entered, with the ticks each has stayed. */
  inside: [string, number][];
  entries: number;
}

const Saved = z.array(z.tuple([Id, z.looseObject({ inside: z.array(z.tuple([EntityRef, z.number().int().min(0)])), entries: z.number().int().min(0) })]));
type Saved = [string, Record<string, unknown>][];

export class Triggers {
  readonly all = new Map<string, Trigger>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return [...this.all].map(([id, t]) => [id, { ...t, inside: t.inside.map(([e, n]) => [e, n]) }]);
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.triggers");
    const out: [string, Trigger][] = [];
    for (const [id, t] of s ?? []) {
      const { inside, entries, ...spec } = t;
      const parsed = TriggerSpec.safeParse(spec);
      if (!parsed.success) throw engineError("invalid_input", `saved game.triggers ${id} is malformed: ${parsed.error.issues[0].message}`);
      out.push([id, { ...parsed.data, inside, entries }]);
    }
    fill(this.all, out);
  }

  prune(alive: (id: string) => boolean): void {
    for (const [id, t] of [...this.all]) {
      if (t.attach !== undefined && !alive(t.attach)) {
        this.all.delete(id);
        continue;
      }
      t.inside = t.inside.filter(([e]) => alive(e));
    }
  }

  create(id: string, spec: TriggerSpec): Trigger {
    const parsed = TriggerSpec.parse(spec);
    checkRoom(this.all, id, "triggers");
    if (parsed.attach !== undefined) this.game.entities.require(parsed.attach);
    const t: Trigger = { ...parsed, inside: [], entries: 0 };
    this.all.set(id, t);
    this.game.signal("trigger.created", { trigger: id, shape: t.shape });
    return t;
  }

  require(id: string): Trigger {
    const t = this.all.get(id);
    if (!t) throw engineError("not_found", `no trigger ${JSON.stringify(id)} (trigger.create makes one)`);
    return t;
  }

  remove(id: string): boolean {
    const had = this.all.delete(id);
    if (had) this.game.signal("trigger.removed", { trigger: id });
    return had;
  }

  /** Enables or disables a zone; a disabled zone forgets who was inside (they enter anew when it is enabled). */
  setEnabled(id: string, enabled: boolean): void {
    const t = this.require(id);
    if (t.enabled === enabled) return;
    t.enabled = enabled;
    if (!enabled) t.inside = [];
    this.game.signal(enabled ? "trigger.enabled" : "trigger.disabled", { trigger: id });
  }

  /** Where a zone's centre is now. */
  centre(t: Trigger): Vec3 {
    const offset = t.position ?? [0, 0, 0];
    if (t.attach === undefined) return offset;
    const p = this.game.position(t.attach);
    return [p[0] + offset[0], p[1] + offset[1], p[2] + offset[2]];
  }

  /** The radius that bounds the zone (what the native query searches). */
  private reach(t: Trigger): number {
    return t.shape === "sphere" ? t.radius! : Math.hypot(...t.halfExtents!);
  }

  /** One fixed step: who is inside every enabled zone now, then entries, stays and exits in zone order. */
  step(): void {
    const zones = [...this.all].filter(([, t]) => t.enabled && (t.attach === undefined || this.game.alive(t.attach)));
    if (zones.length === 0) return;
    const { entities, spatial } = this.game.services;
    const world = entities.world;
    const queries = new Float64Array(zones.length * 5);
    const centres = zones.map(([, t]) => this.centre(t));
    zones.forEach(([, t], k) => {
      const self = t.attach === undefined ? -1 : world.entities.get(t.attach)!.eid;
      queries.set([...centres[k], this.reach(t), self], k * 5);
    });
    const results = spatial.queryBatch(queries);
    const players = new Set(this.game.state.players.values());
    // Read every zone's answer before any effect runs: effects may move or destroy entities.
    const found: string[][] = zones.map(([, t], k) => {
      const ids: string[] = [];
      const [cx, cy, cz] = centres[k];
      for (let i = results.offsets[k]; i < results.offsets[k + 1]; i++) {
        const eid = results.eids[i];
        const entry = world.entities.getByEid(eid);
        if (!entry) continue;
        if (t.shape === "box") {
          const [hx, hy, hz] = t.halfExtents!;
          const p = world.position(eid);
          if (Math.abs(p[0] - cx) > hx || Math.abs(p[1] - cy) > hy || Math.abs(p[2] - cz) > hz) continue;
        }
        if (this.accepts(t, entry.id, entry.tags, players)) ids.push(entry.id);
      }
      return ids;
    });
    zones.forEach(([id, t], k) => {
      if (!this.all.has(id) || !t.enabled) return;
      const now = new Set(found[k]);
      const before = new Map(t.inside);
      const left = t.inside.filter(([e]) => !now.has(e));
      t.inside = t.inside.filter(([e]) => now.has(e)).map(([e, n]) => [e, n + 1] as [string, number]);
      const entered = found[k].filter((e) => !before.has(e));
      for (const e of entered) t.inside.push([e, 0]);
      for (const e of entered) {
        if (!t.enabled) break;
        t.entries++;
        this.game.signal("trigger.entered", { trigger: id, actor: e });
        this.game.apply(t.onEnter, { actor: e, target: t.attach });
        if (t.once) this.setEnabled(id, false);
      }
      for (const [e] of left) {
        this.game.signal("trigger.exited", { trigger: id, actor: e });
        this.game.apply(t.onExit, { actor: e, target: t.attach });
      }
      if (t.onStay.length > 0) {
        for (const [e, n] of [...t.inside]) {
          if (n === 0 || n % t.every !== 0 || !this.game.alive(e)) continue;
          this.game.signal("trigger.stayed", { trigger: id, actor: e, ticks: n });
          this.game.apply(t.onStay, { actor: e, target: t.attach });
        }
      }
    });
  }

  private accepts(t: Trigger, id: string, tags: Set<string>, players: Set<string>): boolean {
    const f = t.filter;
    if (f.tag !== undefined && !tags.has(f.tag)) return false;
    if (f.entities !== undefined && !f.entities.includes(id)) return false;
    if (f.players && !players.has(id)) return false;
    return true;
  }
}
