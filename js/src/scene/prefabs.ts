// Prefabs: a named group of entities (and joints between them), defined once
// in the prefab's own frame and placed many times, moved, turned and
// uniformly scaled. Definitions and the instance counter are world state: a
// world resource ("scene.prefabs"), so snapshots save them and the world
// digest covers them.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { JointDesc } from "../../../crates/limina-physics/js/physics.ts";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { Quat, Vec3 } from "../ecs/world.ts";
import type { CreateEntityOptions, Entities } from "./entities.ts";
import { normalizeShape, ShapeError } from "./shapes.ts";
import { jointId } from "./describe.ts";

/** A joint between two of a prefab's entities, by index (`a`, `b`), its anchor and axis in the prefab's frame. */
export type PrefabJoint = Omit<JointDesc, "bodyA" | "bodyB"> & { a: number; b: number };

export interface PrefabDefinition {
  name: string;
  /** Entity specs (scene.createEntity inputs) in the prefab's frame. */
  entities: CreateEntityOptions[];
  joints: PrefabJoint[];
}

export interface PrefabsSnapshot {
  definitions: PrefabDefinition[];
  nextInstance: number;
}

export interface Placement {
  position: Vec3;
  rotation: Quat;
  scale: number;
  tags?: string[];
}

/** Most entities one prefab holds. */
export const MAX_PREFAB_ENTITIES = 256;
/** Most prefabs one world defines. */
export const MAX_PREFABS = 1024;

function rotate([qx, qy, qz, qw]: Quat, [x, y, z]: Vec3): Vec3 {
  // v + 2w(q×v) + 2q×(q×v)
  const tx = 2 * (qy * z - qz * y), ty = 2 * (qz * x - qx * z), tz = 2 * (qx * y - qy * x);
  return [x + qw * tx + (qy * tz - qz * ty), y + qw * ty + (qz * tx - qx * tz), z + qw * tz + (qx * ty - qy * tx)];
}

function multiply([ax, ay, az, aw]: Quat, [bx, by, bz, bw]: Quat): Quat {
  return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz];
}

/** Where a point of the prefab's frame lands in the world. */
function place(p: Placement, local: Vec3): Vec3 {
  const r = rotate(p.rotation, [local[0] * p.scale, local[1] * p.scale, local[2] * p.scale]);
  return [p.position[0] + r[0], p.position[1] + r[1], p.position[2] + r[2]];
}

export class Prefabs {
  private readonly definitions = new Map<string, PrefabDefinition>();
  private nextInstance = 1;

  constructor(private readonly entities: Entities) {}

  get(name: string): PrefabDefinition | undefined {
    return this.definitions.get(name);
  }

  list(): PrefabDefinition[] {
    return [...this.definitions.values()];
  }

  /**
   * Defines (or, with `replace`, redefines) a prefab, checking every entity's shape and every
   * joint's ends first: a refused definition changes nothing.
   */
  define(def: PrefabDefinition, replace = false): void {
    if (this.definitions.has(def.name) && !replace) throw engineError("invalid_input", `a prefab named ${def.name} exists (pass replace: true to redefine it)`);
    if (!this.definitions.has(def.name) && this.definitions.size >= MAX_PREFABS) throw engineError("capacity_exceeded", `a world holds at most ${MAX_PREFABS} prefabs`);
    if (def.entities.length === 0 || def.entities.length > MAX_PREFAB_ENTITIES) throw engineError("invalid_input", `a prefab holds 1 to ${MAX_PREFAB_ENTITIES} entities, got ${def.entities.length}`);
    def.entities.forEach((e, i) => {
      try {
        normalizeShape(e);
      } catch (err) {
        if (err instanceof ShapeError) throw engineError("invalid_input", `entities[${i}]: ${err.message}`);
        throw err;
      }
    });
    def.joints.forEach((j, i) => {
      for (const end of [j.a, j.b]) {
        const e = def.entities[end];
        if (!e) throw engineError("invalid_input", `joints[${i}] joins entity ${end}, but the prefab has ${def.entities.length} (0-based)`);
        if (!(e.dynamic || e.static || e.kinematic || e.sensor)) throw engineError("invalid_input", `joints[${i}] joins entity ${end}, which has no body (make it dynamic, static or kinematic)`);
      }
      if (j.a === j.b) throw engineError("invalid_input", `joints[${i}] joins entity ${j.a} to itself`);
    });
    this.definitions.set(def.name, JSON.parse(JSON.stringify(def)));
  }

  remove(name: string): boolean {
    return this.definitions.delete(name);
  }

  /**
   * Places an instance: every entity moved into place (its models loaded by `load` first), then
   * the joints. On any failure what was made is destroyed again and the instance counter is kept.
   */
  async instantiate(
    name: string,
    at: Placement,
    make: (spec: CreateEntityOptions) => Promise<EntityEntry>,
  ): Promise<{ instance: string; entities: string[]; joints: string[] }> {
    const def = this.definitions.get(name);
    if (!def) throw engineError("not_found", `no prefab named ${JSON.stringify(name)} (scene.definePrefab defines one)`);
    const instance = `ins_${this.nextInstance}`;
    const made: EntityEntry[] = [];
    try {
      for (const spec of def.entities) {
        const local = spec.position ?? [0, 0, 0];
        const scale = spec.scale ?? [1, 1, 1];
        made.push(await make({
          ...spec,
          position: place(at, local),
          rotation: multiply(at.rotation, spec.rotation ?? [0, 0, 0, 1]),
          scale: [scale[0] * at.scale, scale[1] * at.scale, scale[2] * at.scale],
          tags: [...new Set([...(spec.tags ?? []), `prefab:${name}`, `instance:${instance}`, ...(at.tags ?? [])])],
        }));
      }
      const joints = def.joints.map((j) => {
        const { a, b, anchor, axis, length, ...rest } = j;
        const desc: JointDesc = {
          ...rest,
          bodyA: made[a].body!,
          bodyB: made[b].body!,
          ...(anchor ? { anchor: place(at, anchor) } : {}),
          ...(axis ? { axis: rotate(at.rotation, axis) } : {}),
          ...(length !== undefined ? { length: length * at.scale } : {}),
        };
        return jointId(this.entities.physics.createJoint(desc));
      });
      this.nextInstance++;
      return { instance, entities: made.map((e) => e.id), joints };
    } catch (e) {
      for (const entry of made) this.entities.destroy(entry.id);
      throw e;
    }
  }

  /** The definitions and the instance counter, as a world resource saves them. */
  save(): PrefabsSnapshot {
    return { definitions: [...this.definitions.values()], nextInstance: this.nextInstance };
  }

  /** Puts saved definitions back (null: none, the counter from 1); a malformed save changes nothing. */
  load(snap: PrefabsSnapshot | null): void {
    const saved = snap ?? { definitions: [], nextInstance: 1 };
    const ok = Array.isArray(saved.definitions) && Number.isInteger(saved.nextInstance) && saved.nextInstance >= 1 &&
      saved.definitions.every((d) => typeof d?.name === "string" && Array.isArray(d.entities) && Array.isArray(d.joints));
    if (!ok) throw engineError("invalid_input", "saved prefabs must have definitions (each a name, entities and joints) and nextInstance ≥ 1");
    this.definitions.clear();
    for (const d of saved.definitions) this.definitions.set(d.name, JSON.parse(JSON.stringify(d)));
    this.nextInstance = saved.nextInstance;
  }
}
