// Combat: each fighter's attacks (a melee swing that hits what overlaps an
// arc in front of it, a ranged shot — a physics raycast, or a projectile
// that flies a fixed distance each tick and sweeps a ray along its path),
// their cooldowns in ticks, and teams that do not hurt their own. The
// world resource `game.combat`.

import * as THREE from "three";
import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../../ecs/world.ts";
import { FIXED_DT } from "../../loop.ts";
import { Vec3 as Vec3Schema } from "../../skills/schemas.ts";
import type { Game } from "../game.ts";
import { EntityRef, Id, Ticks } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";
import { HEALTH } from "./stats.ts";

const Damage = z.number().gt(0).max(1e6);

const Melee = z.strictObject({
  damage: Damage.describe("before resistances and defense; the attack stat adds to it"),
  kind: Id.default("physical"),
  range: z.number().gt(0).max(50).default(1.5),
  arc: z.number().gt(0).max(360).default(90).describe("degrees, centred on where the fighter faces (+z turned by its rotation)"),
  cooldown: Ticks.default(30),
  cleave: z.boolean().default(false).describe("hit everything in the arc (default: the nearest)"),
});
const Ranged = z.strictObject({
  damage: Damage,
  kind: Id.default("physical"),
  range: z.number().gt(0).max(1000).default(30),
  cooldown: Ticks.default(45),
  speed: z.number().min(0).max(500).default(0).describe("metres per second of its projectile; 0 hits at once (a raycast)"),
});
export const Fighter = z.strictObject({ team: Id.optional(), melee: Melee.optional(), ranged: Ranged.optional() });
export type FighterSpec = z.input<typeof Fighter>;
type FighterState = z.output<typeof Fighter> & { cooldowns: { melee: number; ranged: number } };

export interface Projectile {
  entity: string;
  owner: string;
  direction: Vec3;
  speed: number;
  /** Metres left to fly. */
  left: number;
  damage: number;
  kind: string;
}

const Saved = z.strictObject({
  fighters: z.array(z.tuple([EntityRef, Fighter.extend({ cooldowns: z.strictObject({ melee: z.number().int().min(0), ranged: z.number().int().min(0) }) })])),
  projectiles: z.array(z.strictObject({ entity: EntityRef, owner: EntityRef, direction: Vec3Schema, speed: z.number(), left: z.number(), damage: z.number(), kind: Id })),
});
type Saved = z.infer<typeof Saved>;

export interface Hit {
  target: string;
  dealt: number;
  health: number;
}

export class Combat {
  readonly fighters = new Map<string, FighterState>();
  readonly projectiles: Projectile[] = [];

  constructor(private readonly game: Game) {}

  save(): Saved {
    return { fighters: [...this.fighters].map(([e, f]) => [e, { ...f, cooldowns: { ...f.cooldowns } }]), projectiles: this.projectiles.map((p) => ({ ...p, direction: [...p.direction] as Vec3 })) };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.combat");
    fill(this.fighters, s?.fighters.map(([e, f]) => [e, { ...f, cooldowns: { ...f.cooldowns } }]));
    this.projectiles.splice(0, this.projectiles.length, ...(s?.projectiles ?? []).map((p) => ({ ...p, direction: [...p.direction] as Vec3 })));
  }

  prune(alive: (id: string) => boolean): void {
    for (const e of [...this.fighters.keys()]) if (!alive(e)) this.fighters.delete(e);
    for (let k = this.projectiles.length - 1; k >= 0; k--) if (!alive(this.projectiles[k].entity)) this.projectiles.splice(k, 1);
  }

  configure(entity: string, spec: FighterSpec): FighterState {
    const f = Fighter.parse(spec);
    this.game.entities.require(entity);
    checkRoom(this.fighters, entity, "fighters");
    const was = this.fighters.get(entity);
    const state: FighterState = { ...f, team: f.team ?? was?.team, cooldowns: was?.cooldowns ?? { melee: 0, ranged: 0 } };
    this.fighters.set(entity, state);
    return state;
  }

  setTeam(entity: string, team: string | null): void {
    this.game.entities.require(entity);
    const f = this.fighters.get(entity) ?? { cooldowns: { melee: 0, ranged: 0 } };
    checkRoom(this.fighters, entity, "fighters");
    this.fighters.set(entity, { ...f, team: team ?? undefined });
  }

  get(entity: string): FighterState | undefined {
    return this.fighters.get(entity);
  }

  private hostile(a: string, b: string): boolean {
    const ta = this.fighters.get(a)?.team;
    return a !== b && (ta === undefined || ta !== this.fighters.get(b)?.team);
  }

  /** Where `entity` faces: +z turned by its rotation, flattened to the ground plane. */
  private facing(entity: string): Vec3 {
    const { world } = this.game.entities;
    const q = world.rotation(this.game.entities.require(entity).eid);
    const v = new THREE.Vector3(0, 0, 1).applyQuaternion(new THREE.Quaternion(q[0], q[1], q[2], q[3]));
    const n = Math.hypot(v.x, v.z);
    return n < 1e-9 ? [0, 0, 1] : [v.x / n, 0, v.z / n];
  }

  private ready<K extends "melee" | "ranged">(entity: string, kind: K): { f: FighterState; attack: NonNullable<FighterState[K]> } {
    const f = this.fighters.get(entity);
    const attack = f?.[kind] as FighterState[K] | undefined;
    if (!f || !attack) throw engineError("invalid_input", `${entity} has no ${kind} attack (combat.configure gives it one)`);
    if (f.cooldowns[kind] > 0) throw engineError("invalid_input", `${entity}'s ${kind} attack is cooling down for ${f.cooldowns[kind]} more ticks`);
    return { f, attack: attack as NonNullable<FighterState[K]> };
  }

  private power(entity: string, base: number): number {
    return Math.max(0, base + (this.game.stats.value(entity, "attack") ?? 0));
  }

  /** A melee swing: hits the nearest hostile entity with health in its arc and reach (all of them with cleave), or a given one there. */
  melee(actor: string, target?: string): Hit[] {
    const { f, attack } = this.ready(actor, "melee");
    const at = this.game.position(actor);
    const face = this.facing(actor);
    const half = (attack.arc / 2) * (Math.PI / 180);
    const inArc = (id: string): number | null => {
      if (!this.hostile(actor, id) || !this.game.stats.get(id, HEALTH)) return null;
      const p = this.game.position(id);
      const d = [p[0] - at[0], 0, p[2] - at[2]];
      const dist = Math.hypot(p[0] - at[0], p[1] - at[1], p[2] - at[2]);
      if (dist > attack.range) return null;
      const flat = Math.hypot(d[0], d[2]);
      if (flat > 1e-6 && Math.acos(Math.max(-1, Math.min(1, (d[0] * face[0] + d[2] * face[2]) / flat))) > half + 1e-9) return null;
      return dist;
    };
    let victims: string[];
    if (target !== undefined) {
      this.game.entities.require(target);
      if (inArc(target) === null) throw engineError("invalid_input", `${target} is not a hostile with health within ${attack.range} m and ${attack.arc}° in front of ${actor}`);
      victims = [target];
    } else {
      const { spatial, entities } = this.game.services;
      const near = spatial.near(at, attack.range, entities.require(actor).eid);
      victims = near.map((h) => entities.world.entities.getByEid(h.eid)!.id).filter((id) => inArc(id) !== null);
      if (!attack.cleave) victims = victims.slice(0, 1);
    }
    f.cooldowns.melee = attack.cooldown;
    this.game.signal("combat.attacked", { actor, kind: "melee", hits: victims.length });
    return victims.map((v) => ({ target: v, ...this.game.stats.damage(v, this.power(actor, attack.damage), attack.kind, actor) }));
  }

  /**
   * A ranged attack toward `direction` (default where the fighter faces): a raycast that hits
   * the first physical body in range, or, with a speed, a projectile entity that flies there.
   */
  ranged(actor: string, direction?: Vec3): { hit: Hit | null; struck: string | null; projectile: string | null } {
    const { f, attack } = this.ready(actor, "ranged");
    const dir = normalise(direction ?? this.facing(actor));
    const from = this.muzzle(actor, dir);
    f.cooldowns.ranged = attack.cooldown;
    this.game.signal("combat.attacked", { actor, kind: "ranged" });
    if (attack.speed > 0) {
      const entry = this.game.entities.create({ shape: "sphere", size: 0.2, color: 0xff6633, position: from, dynamic: false, static: false, friction: 0, restitution: 0, tags: ["projectile"] });
      this.projectiles.push({ entity: entry.id, owner: actor, direction: dir, speed: attack.speed, left: attack.range, damage: this.power(actor, attack.damage), kind: attack.kind });
      return { hit: null, struck: null, projectile: entry.id };
    }
    const struck = this.cast(from, dir, attack.range);
    const hit = struck !== null && this.hostile(actor, struck) && this.game.stats.get(struck, HEALTH) ? { target: struck, ...this.game.stats.damage(struck, this.power(actor, attack.damage), attack.kind, actor) } : null;
    return { hit, struck, projectile: null };
  }

  /** Where a shot leaves `actor`: just outside its own bounds along `dir`. */
  private muzzle(actor: string, dir: Vec3): Vec3 {
    const entry = this.game.entities.require(actor);
    const object = entry.mesh as THREE.Object3D | undefined;
    const at = this.game.position(actor);
    let r = 0.5;
    if (object) {
      const sphere = new THREE.Box3().setFromObject(object).getBoundingSphere(new THREE.Sphere());
      if (!sphere.isEmpty()) r = sphere.radius;
    }
    return [at[0] + dir[0] * (r + 0.05), at[1] + dir[1] * (r + 0.05), at[2] + dir[2] * (r + 0.05)];
  }

  /** The entity whose body a ray from `from` along `dir` hits first within `range`, or null. */
  private cast(from: Vec3, dir: Vec3, range: number): string | null {
    const { entities } = this.game.services;
    const hit = entities.physics.raycast(from, dir, range, true);
    if (!hit || hit.eid === null) return null;
    return entities.world.entities.getByEid(hit.eid)?.id ?? null;
  }

  /** One fixed step: cooldowns tick down; projectiles fly, sweeping a ray along this step's path. */
  step(): void {
    for (const f of this.fighters.values()) {
      if (f.cooldowns.melee > 0) f.cooldowns.melee--;
      if (f.cooldowns.ranged > 0) f.cooldowns.ranged--;
    }
    for (const p of [...this.projectiles]) {
      if (!this.game.alive(p.entity)) continue;
      const at = this.game.position(p.entity);
      const stride = Math.min(p.left, p.speed * FIXED_DT);
      const struck = this.cast(at, p.direction, stride + 0.1);
      const done = () => {
        this.projectiles.splice(this.projectiles.indexOf(p), 1);
        this.game.destroy(p.entity);
      };
      if (struck !== null && struck !== p.owner) {
        const alive = this.game.alive(p.owner);
        if ((!alive || this.hostile(p.owner, struck)) && this.game.stats.get(struck, HEALTH)) this.game.stats.damage(struck, p.damage, p.kind, alive ? p.owner : null);
        this.game.signal("combat.projectile.hit", { actor: p.owner, target: struck, projectile: p.entity });
        done();
        continue;
      }
      p.left -= stride;
      this.game.entities.setTransform(this.game.entities.require(p.entity), { position: [at[0] + p.direction[0] * stride, at[1] + p.direction[1] * stride, at[2] + p.direction[2] * stride] });
      if (p.left <= 1e-9) done();
    }
  }
}

function normalise(v: Vec3): Vec3 {
  const n = Math.hypot(...v);
  if (!(n > 1e-9)) throw engineError("invalid_input", "a direction must not be zero");
  return [v[0] / n, v[1] / n, v[2] / n];
}
