// Whole entities: an ECS entity with SoA transform, an EntityTable id, a
// Three.js object in the scene graph and, optionally, a Rapier body (one or
// more colliders) in the session's physics world — created, moved, restyled,
// synced and destroyed together. Each entity remembers how it was made (its
// shape, its style, its body's description), which is what it describes
// itself with (scene/describe.ts) and what snapshots save.

import * as THREE from "three";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { BodyKind, CollisionEvent, Groups, PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import type { EntityEntry } from "../ecs/entity-table.ts";
import type { WorldResource } from "../ecs/resources.ts";
import type { Quat, Vec3, World } from "../ecs/world.ts";
import { ColliderError, type ColliderSpec, collidersFor, geometrySource } from "./colliders.ts";
import { materialsOf, meshesOf } from "./meshes.ts";
import { type EntityShape, normalizeShape, primitiveMesh, ShapeError, type ShapeInput } from "./shapes.ts";

/** Collision groups as callers give them: group numbers 0–31 (default: every group). */
export interface GroupsSpec {
  belongsTo?: number[];
  collidesWith?: number[];
}

export interface CreateEntityOptions extends ShapeInput {
  /** Surface colour as 0xRRGGBB (default white; a model keeps its own colours unless given one). */
  color?: number;
  roughness?: number;
  metalness?: number;
  /** Drawn or not (default true); an invisible entity still collides. */
  visible?: boolean;
  position?: Vec3;
  /** Quaternion [x, y, z, w]. */
  rotation?: Quat;
  scale?: Vec3;
  /** The body: moved by physics (dynamic), never moving (static) or moved only by its transform (kinematic). None: no body. */
  dynamic?: boolean;
  static?: boolean;
  kinematic?: boolean;
  friction?: number;
  restitution?: number;
  density?: number;
  linearDamping?: number;
  angularDamping?: number;
  /** One collider type (or spec) instead of the shape's own. */
  collider?: string | ColliderSpec;
  /** Several colliders: a compound body. */
  colliders?: ColliderSpec[];
  /** Every collider a sensor: reports bodies entering and leaving, stops nothing (a static body unless told otherwise). */
  sensor?: boolean;
  /** Continuous collision detection: fast bodies do not pass through thin ones. */
  ccd?: boolean;
  groups?: GroupsSpec;
  tags?: string[];
}

/** How an entity's body was made: enough to rebuild its colliders (after a rescale) and to describe it. */
export interface BodySpec {
  kind: BodyKind;
  colliders?: ColliderSpec[];
  friction: number;
  restitution: number;
  density: number;
  sensor: boolean;
  ccd: boolean;
  groups?: GroupsSpec;
}

/** How an entity is drawn besides its shape (a library material, if applied, is the mesh's own). `color` null: a model's own colours. */
export interface EntityStyle {
  color: number | null;
  roughness: number | null;
  metalness: number | null;
  visible: boolean;
}

export interface StyleChanges {
  color?: number;
  roughness?: number;
  metalness?: number;
  castShadow?: boolean;
  receiveShadow?: boolean;
  visible?: boolean;
}

/** A collision or sensor event with the entities involved. For sensor events `entityA` is the sensor. */
export interface ContactEvent {
  started: boolean;
  sensor: boolean;
  bodyA: number;
  bodyB: number;
  entityA?: string;
  entityB?: string;
  point: Vec3 | null;
  normal: Vec3 | null;
}

/** Contact events kept for `physics.collisionEvents` between drains; older ones are dropped first. */
const CONTACT_BUFFER = 4096;

const maskOf = (groups: number[] | undefined): number => (groups === undefined ? 0xffffffff : groups.reduce((m, g) => m | (1 << g), 0) >>> 0);

/** Native collision groups from group numbers. */
export function groupMasks(g: GroupsSpec | undefined): Groups | undefined {
  return g === undefined ? undefined : { memberships: maskOf(g.belongsTo), filter: maskOf(g.collidesWith) };
}

function disposeObject(object: THREE.Object3D): void {
  object.removeFromParent();
  object.traverse((o: THREE.Object3D) => {
    const mesh = o as THREE.Mesh;
    if (mesh.isMesh) {
      mesh.geometry.dispose();
      for (const m of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) m.dispose();
    }
  });
}

function invalid(e: unknown): never {
  if (e instanceof ShapeError || e instanceof ColliderError) throw engineError("invalid_input", e.message);
  throw e;
}

/** What the world log hears from the simulation: an event type and its payload. */
export type WorldEventSink = (type: string, payload: unknown) => void;

/** The whole-entity service of one world session: its World, scene graph and physics world. */
export class Entities {
  /** Bumped whenever an entity's style, tags or visibility change (the state stream resends its look). */
  styleRevision = 0;
  private readonly styleRevisions = new Map<string, number>();
  private contacts: ContactEvent[] = [];
  private dropped = 0;
  private readonly contactListeners = new Set<(e: ContactEvent) => void>();

  constructor(readonly world: World, readonly scene: THREE.Scene, readonly physics: PhysicsWorld, private readonly emit: WorldEventSink = () => {}) {}

  /** The live entry for `id`, or a `not_found` error naming it. */
  require(id: string): EntityEntry {
    const entry = this.world.entities.get(id);
    if (!entry) throw engineError("not_found", `unknown entity ${JSON.stringify(id)} (never created or already destroyed)`);
    return entry;
  }

  /**
   * Creates the whole entity; on any failure nothing is left behind. A `mesh` shape needs its
   * loaded `model` (see `loadGltf`), which it takes ownership of.
   */
  create(o: CreateEntityOptions, model?: THREE.Object3D, resource?: unknown): EntityEntry {
    let shape: EntityShape;
    try {
      shape = normalizeShape(o);
    } catch (e) {
      invalid(e);
    }
    const kinds = (["dynamic", "static", "kinematic"] as const).filter((k) => o[k]);
    if (kinds.length > 1) throw engineError("invalid_input", `an entity's body is one of dynamic, static or kinematic, got ${kinds.join(" and ")}`);
    if (o.collider !== undefined && o.colliders !== undefined) throw engineError("invalid_input", "give collider or colliders, not both");
    if (shape.shape === "mesh" && !model) throw engineError("invalid_input", `a mesh entity needs its model loaded (asset ${shape.asset})`);
    const kind: BodyKind | undefined = kinds[0] ?? (o.sensor ? "static" : undefined);
    const object = shape.shape === "mesh" ? model! : primitiveMesh(shape, o.color ?? 0xffffff, o.roughness ?? 0.5, o.metalness ?? 0);
    const style: EntityStyle = {
      color: shape.shape === "mesh" ? null : o.color ?? 0xffffff,
      roughness: shape.shape === "mesh" ? null : o.roughness ?? 0.5,
      metalness: shape.shape === "mesh" ? null : o.metalness ?? 0,
      visible: o.visible ?? true,
    };
    if (shape.shape === "mesh") this.applyStyle(object, { color: o.color, roughness: o.roughness, metalness: o.metalness }, style);
    object.visible = style.visible;
    // The body's colliders are worked out before the entity exists: a shape they cannot fit refuses it whole.
    let spec: BodySpec | undefined;
    let colliders;
    if (kind) {
      spec = {
        kind,
        ...(o.colliders ? { colliders: o.colliders } : o.collider !== undefined ? { colliders: [typeof o.collider === "string" ? { type: o.collider } : o.collider] } : {}),
        friction: o.friction ?? 0.5,
        restitution: o.restitution ?? 0,
        density: o.density ?? 1,
        sensor: o.sensor ?? false,
        ccd: o.ccd ?? false,
        ...(o.groups ? { groups: o.groups } : {}),
      };
      try {
        colliders = collidersFor(shape, () => geometrySource(object), spec.colliders, kind, o.scale ?? [1, 1, 1]);
      } catch (e) {
        disposeObject(object);
        invalid(e);
      }
    }
    const entry = this.world.spawn({ position: o.position, rotation: o.rotation, scale: o.scale, tags: o.tags });
    try {
      object.name = entry.id;
      entry.mesh = object;
      entry.resource = resource;
      entry.shape = shape;
      entry.style = style;
      this.scene.add(object);
      this.sync(entry);
      if (kind && spec) {
        entry.bodySpec = spec;
        entry.body = this.physics.createBody({
          kind,
          colliders,
          position: this.world.position(entry.eid),
          rotation: this.world.rotation(entry.eid),
          friction: spec.friction,
          restitution: spec.restitution,
          density: spec.density,
          sensor: spec.sensor,
          ccd: spec.ccd,
          linearDamping: o.linearDamping ?? 0,
          angularDamping: o.angularDamping ?? 0,
          ...(o.groups ? { groups: groupMasks(o.groups) } : {}),
          eid: entry.eid,
        });
      }
      this.touch(entry);
      return entry;
    } catch (e) {
      this.destroy(entry.id);
      throw e;
    }
  }

  /** Adds a loaded scene object (a glTF model) as a new entity with no body. */
  adopt(object: THREE.Object3D, position: Vec3, tags: string[], resource?: unknown, asset?: string): EntityEntry {
    const entry = this.world.spawn({ position, tags });
    object.name = entry.id;
    object.position.set(...position);
    this.scene.add(object);
    entry.mesh = object;
    entry.resource = resource;
    if (asset !== undefined) entry.shape = { shape: "mesh", asset } satisfies EntityShape;
    entry.style = { color: null, roughness: null, metalness: null, visible: true } satisfies EntityStyle;
    this.touch(entry);
    return entry;
  }

  /** Destroys an entity with its scene object and body (and the body's joints); its id is retired for good. */
  destroy(id: string): boolean {
    const entry = this.world.entities.get(id);
    if (!entry) return false;
    if (entry.body !== undefined) this.physics.destroyBody(entry.body);
    if (entry.mesh) disposeObject(entry.mesh as THREE.Object3D);
    this.styleRevisions.delete(id);
    return this.world.destroy(id);
  }

  /** Marks an entity's look (style, tags, visibility) changed, for the state stream. */
  touch(entry: EntityEntry): void {
    this.styleRevisions.set(entry.id, ++this.styleRevision);
  }

  /** The style revision of an entity (0: never changed since it was made). */
  styleRevisionOf(id: string): number {
    return this.styleRevisions.get(id) ?? 0;
  }

  /** Replaces an entity's tags. */
  setTags(entry: EntityEntry, tags: Iterable<string>): void {
    entry.tags.clear();
    for (const t of tags) entry.tags.add(t);
    this.touch(entry);
  }

  private applyStyle(object: THREE.Object3D, c: StyleChanges, style: EntityStyle): number {
    const meshes = meshesOf(object);
    for (const mesh of meshes) {
      if (c.castShadow !== undefined) mesh.castShadow = c.castShadow;
      if (c.receiveShadow !== undefined) mesh.receiveShadow = c.receiveShadow;
      for (const m of materialsOf(mesh)) {
        if (c.color !== undefined && m.color) m.color.setHex(c.color);
        if (c.roughness !== undefined && "roughness" in m) m.roughness = c.roughness;
        if (c.metalness !== undefined && "metalness" in m) m.metalness = c.metalness;
        m.needsUpdate = true;
      }
    }
    if (c.color !== undefined) style.color = c.color;
    if (c.roughness !== undefined) style.roughness = c.roughness;
    if (c.metalness !== undefined) style.metalness = c.metalness;
    return meshes.length;
  }

  /**
   * Changes how an entity is drawn — colour, PBR parameters, shadows, visibility — on every mesh
   * of it; returns how many meshes it has.
   */
  restyle(entry: EntityEntry, changes: StyleChanges): number {
    const object = entry.mesh as THREE.Object3D | undefined;
    if (!object || meshesOf(object).length === 0) throw engineError("handler_error", `entity ${entry.id} has no meshes to style`);
    const style = (entry.style ??= { color: null, roughness: null, metalness: null, visible: object.visible }) as EntityStyle;
    const meshes = this.applyStyle(object, changes, style);
    if (changes.visible !== undefined) object.visible = style.visible = changes.visible;
    this.touch(entry);
    return meshes;
  }

  /** Copies an entity's SoA transform onto its scene object (its Euler `rotation` is recomputed from the quaternion when read). */
  sync(entry: EntityEntry): void {
    const object = entry.mesh as THREE.Object3D | undefined;
    if (!object) return;
    const w = this.world;
    const e = entry.eid;
    object.position.set(w.Position.x[e], w.Position.y[e], w.Position.z[e]);
    setQuaternion(object, w.Rotation.x[e], w.Rotation.y[e], w.Rotation.z[e], w.Rotation.w[e]);
    object.scale.set(w.Scale.x[e], w.Scale.y[e], w.Scale.z[e]);
  }

  /**
   * Sets any of an entity's position, rotation and scale: SoA, scene object and physics body
   * together. A new scale refits the body's colliders to it.
   */
  setTransform(entry: EntityEntry, t: { position?: Vec3; rotation?: Quat; scale?: Vec3 }): void {
    let rotation = t.rotation;
    if (rotation) {
      const len = Math.hypot(...rotation);
      if (!(len > 1e-9)) throw engineError("invalid_input", `rotation quaternion must be non-zero, got ${JSON.stringify(rotation)}`);
      rotation = rotation.map((c) => c / len) as Quat;
    }
    // Colliders first: a scale they cannot take changes nothing.
    if (t.scale && entry.body !== undefined && entry.bodySpec && entry.shape) this.refit(entry, t.scale);
    this.world.writeTransform(entry.eid, t.position, rotation, t.scale);
    this.sync(entry);
    if (entry.body !== undefined && (t.position || rotation)) {
      this.physics.setPose(entry.body, this.world.position(entry.eid), this.world.rotation(entry.eid));
    }
  }

  private refit(entry: EntityEntry, scale: Vec3): void {
    const spec = entry.bodySpec as BodySpec;
    const shape = entry.shape as EntityShape;
    let colliders;
    try {
      colliders = collidersFor(shape, () => geometrySource(entry.mesh as THREE.Object3D), spec.colliders, spec.kind, scale);
    } catch (e) {
      invalid(e);
    }
    this.physics.setColliders(entry.body!, colliders, {
      friction: spec.friction,
      restitution: spec.restitution,
      density: spec.density,
      sensor: spec.sensor,
      ...(spec.groups ? { groups: groupMasks(spec.groups) } : {}),
    });
  }

  /** Changes how an entity's body moves (dynamic, static or kinematic). */
  setBodyType(entry: EntityEntry, kind: BodyKind): void {
    if (entry.body === undefined) throw engineError("handler_error", `entity ${entry.id} has no physics body`);
    this.physics.setBodyType(entry.body, kind);
    if (entry.bodySpec) (entry.bodySpec as BodySpec).kind = kind;
    this.touch(entry);
  }

  /** Calls `fn` with every collision and sensor event as the steps produce them; returns a function that stops it. */
  onContact(fn: (e: ContactEvent) => void): () => void {
    this.contactListeners.add(fn);
    return () => this.contactListeners.delete(fn);
  }

  /** The contact events since the last drain (the latest CONTACT_BUFFER of them), and how many older ones were dropped. */
  drainContacts(): { events: ContactEvent[]; dropped: number } {
    const over = Math.max(0, this.contacts.length - CONTACT_BUFFER);
    const out = { events: this.contacts.slice(over), dropped: this.dropped + over };
    this.contacts = [];
    this.dropped = 0;
    return out;
  }

  /**
   * The undrained contact events as a world resource: snapshots keep them, so a restored world
   * reports what the saved one would have. Not in the digest: draining them is reading.
   */
  contactsResource(): WorldResource<ContactEvent[]> {
    return {
      save: () => this.contacts.slice(-CONTACT_BUFFER),
      load: (saved) => {
        if (saved !== null && !Array.isArray(saved)) throw engineError("invalid_input", "saved contact events must be a list");
        this.contacts = (saved ?? []).slice(-CONTACT_BUFFER);
        this.dropped = 0;
      },
      digestState: () => null,
    };
  }

  private idOf(eid: number | null): string | undefined {
    return eid === null ? undefined : this.world.entities.getByEid(eid)?.id;
  }

  private dispatch(): void {
    for (const f of this.physics.drainFallen()) {
      const entry = f.eid === null ? undefined : this.world.entities.getByEid(f.eid);
      const entity = entry?.body === f.handle ? entry.id : null;
      if (!f.respawned && entry && entity) {
        // The physics world already removed the body (and its joints).
        entry.body = undefined;
        this.destroy(entry.id);
      }
      this.emit("physics.killPlane", { entity, body: f.handle, action: f.respawned ? "respawned" : "removed", position: f.position });
    }
    for (const c of this.physics.drainCollisions()) this.record(c);
  }

  private record(c: CollisionEvent): void {
    const entityA = this.idOf(c.eidA);
    const entityB = this.idOf(c.eidB);
    const e: ContactEvent = {
      started: c.started,
      sensor: c.sensor,
      bodyA: c.a,
      bodyB: c.b,
      ...(entityA ? { entityA } : {}),
      ...(entityB ? { entityB } : {}),
      point: c.point,
      normal: c.normal,
    };
    this.contacts.push(e);
    // Trimmed in batches, so a flood costs amortised O(1) per event.
    if (this.contacts.length > 2 * CONTACT_BUFFER) {
      this.dropped += this.contacts.length - CONTACT_BUFFER;
      this.contacts = this.contacts.slice(-CONTACT_BUFFER);
    }
    if (c.sensor) this.emit(c.started ? "physics.sensor.entered" : "physics.sensor.exited", { sensor: entityA ?? null, entity: entityB ?? null, bodyA: c.a, bodyB: c.b });
    for (const fn of this.contactListeners) fn(e);
  }

  /** One simulation step: physics, the zero-copy write-back, scene sync, then what fell out and what touched. */
  step(dt: number): void {
    const pending = this.physics.step(dt);
    // Only the bodies that moved: the others' scene objects already show their SoA transform.
    const moved = this.physics.writeTransforms(this.world.Position, this.world.Rotation);
    for (let k = 0; k < moved.length; k++) {
      const entry = this.world.entities.getByEid(moved[k]);
      if (entry?.body !== undefined) this.sync(entry);
    }
    if (pending > 0) this.dispatch();
  }
}

const rotationBehind = Symbol("rotation behind quaternion");
type LazyRotation = THREE.Object3D & { [rotationBehind]?: boolean };

/**
 * Sets an object's quaternion without three's change callback, which turns every quaternion set
 * into Euler angles (a rotation matrix and inverse trigonometry), though drawing reads only the
 * quaternion. The object's `rotation` is then recomputed from the quaternion when next read, so
 * whoever reads or writes it (through `object.rotation`) sees the quaternion's angles as before.
 */
function setQuaternion(object: THREE.Object3D, x: number, y: number, z: number, w: number): void {
  const o = object as LazyRotation;
  if (o[rotationBehind] === undefined) readRotationLazily(o);
  const q = o.quaternion as unknown as { _x: number; _y: number; _z: number; _w: number };
  q._x = x;
  q._y = y;
  q._z = z;
  q._w = w;
  o[rotationBehind] = true;
}

function readRotationLazily(o: LazyRotation): void {
  const rotation = o.rotation;
  o[rotationBehind] = false;
  Object.defineProperty(o, "rotation", {
    configurable: true,
    enumerable: true,
    get() {
      if (o[rotationBehind]) {
        o[rotationBehind] = false;
        rotation.setFromQuaternion(o.quaternion, undefined, false);
      }
      return rotation;
    },
  });
}
