// The colliders of an entity's body: by default the ones matching its shape
// (a box for a box, a cylinder for a cylinder, a ring of convex pieces for a
// torus, a triangle mesh for a static model and its convex hull for a
// moving one), or an override — one collider type, or several colliders (a
// compound body) — each sized from the visible geometry unless given its
// own dimensions. Everything is scaled by the entity's scale.
//
// A collider type is one entry in COLLIDER_BUILDERS: a new kind of collider
// is one more entry.

import * as THREE from "three";
import type { BodyKind, ColliderDesc, ShapeDesc } from "../../../crates/limina-physics/js/physics.ts";
import type { EntityShape } from "./shapes.ts";

type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

/** A collider as callers give it: a type and, optionally, its own dimensions and pose on the body (entity units, before scale). */
export interface ColliderSpec {
  type: string;
  size?: number | Vec3;
  radius?: number;
  height?: number;
  offset?: Vec3;
  rotation?: Quat;
  sensor?: boolean;
  /** heightfield: `rows` × `cols` heights, row-major from -z to +z, each row from -x to +x. */
  heights?: number[];
  rows?: number;
  cols?: number;
}

/** The visible geometry colliders are fitted to: vertices (x, y, z triples), triangles (index triples) and bounds, in the entity's frame. */
export interface GeometrySource {
  vertices: Float32Array;
  triangles: Uint32Array;
  min: Vec3;
  max: Vec3;
}

export class ColliderError extends Error {}

/** The geometry of every mesh under `object`, in `object`'s own frame. */
export function geometrySource(object: THREE.Object3D): GeometrySource {
  object.updateMatrixWorld(true);
  const toRoot = new THREE.Matrix4().copy(object.matrixWorld).invert();
  const parts: { positions: Float32Array; index: ArrayLike<number> | null; count: number }[] = [];
  const m = new THREE.Matrix4();
  const v = new THREE.Vector3();
  object.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh) return;
    const pos = mesh.geometry.getAttribute("position") as THREE.BufferAttribute | undefined;
    if (!pos) return;
    m.multiplyMatrices(toRoot, mesh.matrixWorld);
    const positions = new Float32Array(pos.count * 3);
    for (let i = 0; i < pos.count; i++) {
      v.fromBufferAttribute(pos, i).applyMatrix4(m);
      positions.set([v.x, v.y, v.z], i * 3);
    }
    parts.push({ positions, index: mesh.geometry.index?.array ?? null, count: pos.count });
  });
  const nv = parts.reduce((n, p) => n + p.positions.length, 0);
  const nt = parts.reduce((n, p) => n + (p.index ? p.index.length : p.count - (p.count % 3)), 0);
  const vertices = new Float32Array(nv);
  const triangles = new Uint32Array(nt);
  let vo = 0;
  let to = 0;
  for (const p of parts) {
    const base = vo / 3;
    vertices.set(p.positions, vo);
    vo += p.positions.length;
    const n = p.index ? p.index.length : p.count - (p.count % 3);
    for (let i = 0; i < n; i++) triangles[to + i] = base + (p.index ? p.index[i] : i);
    to += n;
  }
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < nv; i += 3) {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], vertices[i + k]);
      max[k] = Math.max(max[k], vertices[i + k]);
    }
  }
  if (nv === 0) throw new ColliderError("the model has no mesh to fit a collider to");
  return { vertices, triangles, min, max };
}

/** Most vertices a convex hull is built from; larger models are sampled evenly. */
const HULL_VERTICES = 4096;

function scaled(vertices: Float32Array, s: Vec3, limit = Infinity): Float32Array {
  const n = vertices.length / 3;
  const stride = Math.max(1, Math.ceil(n / limit));
  const out = new Float32Array(Math.ceil(n / stride) * 3);
  for (let i = 0, o = 0; i < n; i += stride, o += 3) {
    out[o] = vertices[i * 3] * s[0];
    out[o + 1] = vertices[i * 3 + 1] * s[1];
    out[o + 2] = vertices[i * 3 + 2] * s[2];
  }
  return out;
}

const uniform = (s: Vec3) => s[0] === s[1] && s[1] === s[2];

interface BuildContext {
  shape: EntityShape;
  geometry: () => GeometrySource;
  scale: Vec3;
  kind: BodyKind;
}

function hull(ctx: BuildContext): ShapeDesc {
  return { type: "convexHull", vertices: scaled(ctx.geometry().vertices, ctx.scale, HULL_VERTICES) };
}

/** Half extents and centre of the visible geometry, scaled. */
function bounds(ctx: BuildContext): { half: Vec3; centre: Vec3 } {
  const { min, max } = ctx.geometry();
  const s = ctx.scale;
  return {
    half: [0, 1, 2].map((k) => Math.max(((max[k] - min[k]) / 2) * s[k], 1e-3)) as Vec3,
    centre: [0, 1, 2].map((k) => ((max[k] + min[k]) / 2) * s[k]) as Vec3,
  };
}

type Built = { shape: ShapeDesc; offset?: Vec3; rotation?: Quat };

/** A round collider (capsule, cylinder, cone) from explicit or fitted dimensions. */
function round(type: "capsule" | "cylinder" | "cone", spec: ColliderSpec, ctx: BuildContext): Built {
  const s = ctx.scale;
  let radius: number;
  let halfHeight: number;
  let offset: Vec3 | undefined;
  if (spec.radius !== undefined || spec.height !== undefined || spec.size !== undefined) {
    const size = spec.size === undefined ? undefined : typeof spec.size === "number" ? [spec.size, spec.size, spec.size] : spec.size;
    radius = (spec.radius ?? (size ? size[0] / 2 : 0.5)) * Math.max(s[0], s[2]);
    halfHeight = ((spec.height ?? size?.[1] ?? 1) * s[1]) / 2;
  } else {
    const b = bounds(ctx);
    radius = Math.max(b.half[0], b.half[2]);
    halfHeight = b.half[1];
    offset = b.centre;
  }
  if (type === "capsule") {
    halfHeight -= radius;
    if (halfHeight <= 1e-4) return { shape: { type: "sphere", radius }, offset };
  }
  return { shape: { type, halfHeight, radius }, offset };
}

type Builder = (spec: ColliderSpec, ctx: BuildContext) => Built | Built[];

/** How each collider type is built. */
export const COLLIDER_BUILDERS: Record<string, Builder> = {
  box: (spec, ctx) => {
    if (spec.size === undefined) {
      const b = bounds(ctx);
      return { shape: { type: "box", halfExtents: b.half }, offset: b.centre };
    }
    const size = typeof spec.size === "number" ? [spec.size, spec.size, spec.size] : spec.size;
    return { shape: { type: "box", halfExtents: [0, 1, 2].map((k) => (size[k] / 2) * ctx.scale[k]) as Vec3 } };
  },
  sphere: (spec, ctx) => {
    if (spec.radius === undefined && spec.size === undefined) {
      const b = bounds(ctx);
      return { shape: { type: "sphere", radius: Math.max(...b.half) }, offset: b.centre };
    }
    const r = spec.radius ?? (typeof spec.size === "number" ? spec.size : spec.size![0]) / 2;
    return { shape: { type: "sphere", radius: r * Math.max(...ctx.scale) } };
  },
  capsule: (spec, ctx) => round("capsule", spec, ctx),
  cylinder: (spec, ctx) => round("cylinder", spec, ctx),
  cone: (spec, ctx) => round("cone", spec, ctx),
  convexHull: (_spec, ctx) => ({ shape: hull(ctx) }),
  trimesh: (_spec, ctx) => {
    const g = ctx.geometry();
    return { shape: { type: "trimesh", vertices: scaled(g.vertices, ctx.scale), triangles: g.triangles } };
  },
  heightfield: (spec, ctx) => {
    const { heights, rows, cols } = spec;
    if (heights === undefined || rows === undefined || cols === undefined) throw new ColliderError("a heightfield collider needs heights, rows and cols");
    if (heights.length !== rows * cols) throw new ColliderError(`a heightfield of ${rows}×${cols} takes ${rows * cols} heights, got ${heights.length}`);
    const s = ctx.scale;
    let extent: [number, number];
    if (spec.size === undefined) {
      const { half } = bounds(ctx);
      extent = [half[0] * 2, half[2] * 2];
    } else {
      const size = typeof spec.size === "number" ? [spec.size, spec.size, spec.size] : spec.size;
      if (!(size[0] > 0 && size[2] > 0)) throw new ColliderError(`a heightfield spans a positive size along x and z, got [${size.join(", ")}]`);
      extent = [size[0] * s[0], size[2] * s[2]];
    }
    return { shape: { type: "heightfield", heights: Float32Array.from(heights, (h) => h * s[1]), rows, cols, size: extent } };
  },
};

/** Pieces a torus collider is cut into around its ring. */
const TORUS_PIECES = 12;

/**
 * A torus as a ring of pieces: capsules along the ring's chords (cheap to collide) when it is
 * scaled evenly, convex hulls of the scaled tube otherwise.
 */
function torusPieces(radius: number, tube: number, s: Vec3): Built[] {
  const out: Built[] = [];
  const step = (Math.PI * 2) / TORUS_PIECES;
  if (uniform(s)) {
    const [r, t] = [radius * s[0], tube * s[0]];
    const up = new THREE.Vector3(0, 1, 0);
    for (let p = 0; p < TORUS_PIECES; p++) {
      const mid = (p + 0.5) * step;
      const q = new THREE.Quaternion().setFromUnitVectors(up, new THREE.Vector3(-Math.sin(mid), 0, Math.cos(mid)));
      const c = r * Math.cos(step / 2);
      out.push({
        shape: { type: "capsule", halfHeight: r * Math.sin(step / 2), radius: t },
        offset: [c * Math.cos(mid), 0, c * Math.sin(mid)],
        rotation: [q.x, q.y, q.z, q.w],
      });
    }
    return out;
  }
  const tubeSteps = 12;
  for (let p = 0; p < TORUS_PIECES; p++) {
    const pts: number[] = [];
    for (let a = 0; a <= 2; a++) {
      const ring = (p + a / 2) * step;
      for (let k = 0; k < tubeSteps; k++) {
        const u = (k / tubeSteps) * Math.PI * 2;
        const rr = radius + tube * Math.cos(u);
        pts.push(rr * Math.cos(ring) * s[0], tube * Math.sin(u) * s[1], rr * Math.sin(ring) * s[2]);
      }
    }
    out.push({ shape: { type: "convexHull", vertices: new Float32Array(pts) } });
  }
  return out;
}

/** The colliders that match a shape, at a scale, for a body of `kind`. */
function defaults(ctx: BuildContext): Built[] {
  const { shape: sh, scale: s } = ctx;
  switch (sh.shape) {
    case "box":
      return [{ shape: { type: "box", halfExtents: [(sh.size[0] / 2) * s[0], (sh.size[1] / 2) * s[1], (sh.size[2] / 2) * s[2]] } }];
    case "plane": {
      // A thin slab whose top face is the plane.
      const t = 0.05;
      return [{ shape: { type: "box", halfExtents: [(sh.size[0] / 2) * s[0], t, (sh.size[2] / 2) * s[2]] }, offset: [0, -t, 0] }];
    }
    case "sphere":
      return [uniform(s) ? { shape: { type: "sphere", radius: sh.radius * s[0] } } : { shape: hull(ctx) }];
    case "capsule":
    case "cylinder":
    case "cone":
      return [s[0] === s[2] ? round(sh.shape, { type: sh.shape, radius: sh.radius, height: sh.height }, ctx) as Built : { shape: hull(ctx) }];
    case "torus":
      return torusPieces(sh.radius, sh.tube, s);
    case "mesh":
      return [ctx.kind === "dynamic" ? { shape: hull(ctx) } : (COLLIDER_BUILDERS.trimesh({ type: "trimesh" }, ctx) as Built)];
  }
}

/**
 * The colliders of an entity's body: the shape's own when `specs` is undefined, else one per spec.
 * Throws `ColliderError` for an unknown type or a trimesh on a dynamic body.
 */
export function collidersFor(shape: EntityShape, geometry: () => GeometrySource, specs: ColliderSpec[] | undefined, kind: BodyKind, scale: Vec3): ColliderDesc[] {
  let memo: GeometrySource | undefined;
  const ctx: BuildContext = { shape, geometry: () => (memo ??= geometry()), scale, kind };
  if (specs === undefined) return defaults(ctx).map(({ shape, offset, rotation }) => ({ shape, ...(offset ? { offset } : {}), ...(rotation ? { rotation } : {}) }));
  return specs.flatMap((spec) => {
    const build = Object.hasOwn(COLLIDER_BUILDERS, spec.type) ? COLLIDER_BUILDERS[spec.type] : undefined;
    if (!build) throw new ColliderError(`unknown collider type ${JSON.stringify(spec.type)} (one of ${Object.keys(COLLIDER_BUILDERS).join(", ")})`);
    if ((spec.type === "trimesh" || spec.type === "heightfield") && kind === "dynamic") {
      throw new ColliderError(`a ${spec.type} collider is for static and kinematic bodies; give a dynamic body a convexHull (or primitive) collider`);
    }
    const built = build(spec, ctx);
    return (Array.isArray(built) ? built : [built]).map(({ shape, offset }) => {
      const o = spec.offset ? [spec.offset[0] * scale[0], spec.offset[1] * scale[1], spec.offset[2] * scale[2]] as Vec3 : offset;
      return { shape, ...(o ? { offset: o } : {}), ...(spec.rotation ? { rotation: spec.rotation } : {}), ...(spec.sensor !== undefined ? { sensor: spec.sensor } : {}) };
    });
  });
}
