// Entity shapes: what an entity looks like before its transform — a
// primitive with its dimensions or a glTF model by asset id — in one
// normalised form that clients redraw from (see docs/entities.md), and the
// Three.js geometry of each primitive. Pure (Three.js only), so the browser
// page can bundle it.

import * as THREE from "three";

type Vec3 = [number, number, number];

export const SHAPES = ["box", "sphere", "capsule", "cylinder", "cone", "plane", "torus", "mesh"] as const;
export type ShapeName = (typeof SHAPES)[number];

/**
 * A shape in normalised form, in metres, in the entity's frame (centred on its position;
 * round shapes stand along +Y, a plane faces +Y, a torus lies in the XZ plane).
 */
export type EntityShape =
  | { shape: "box"; size: Vec3 }
  /** A plane's size is [width, 0, depth]. */
  | { shape: "plane"; size: Vec3 }
  | { shape: "sphere"; radius: number }
  /** `height` is the whole height, caps included (at least 2 × radius). */
  | { shape: "capsule"; radius: number; height: number }
  | { shape: "cylinder"; radius: number; height: number }
  /** Base `height / 2` below the centre, apex above. */
  | { shape: "cone"; radius: number; height: number }
  /** `radius` from the centre to the middle of the tube; `tube` the tube's radius. */
  | { shape: "torus"; radius: number; tube: number }
  | { shape: "mesh"; asset: string };

/** What a caller may give: a shape name with `size` (a number or [x, y, z]) and/or its own dimensions. */
export interface ShapeInput {
  shape?: ShapeName;
  size?: number | Vec3;
  radius?: number;
  height?: number;
  tube?: number;
  asset?: string;
}

/** The largest dimension any primitive may have, in metres. */
export const MAX_DIMENSION = 1e4;

export class ShapeError extends Error {}

function dim(name: string, v: number): number {
  if (!(typeof v === "number" && Number.isFinite(v) && v > 0 && v <= MAX_DIMENSION)) {
    throw new ShapeError(`${name} must be a number in (0, ${MAX_DIMENSION}] m, got ${v}`);
  }
  return v;
}

function sizeVec(size: number | Vec3 | undefined, fallback: number): Vec3 {
  if (size === undefined) return [fallback, fallback, fallback];
  return typeof size === "number" ? [size, size, size] : [size[0], size[1], size[2]];
}

function roundAxes(shape: string, size: Vec3): void {
  if (size[0] !== size[2]) throw new ShapeError(`a ${shape}'s size is [diameter, height, diameter]: x and z must be equal, got ${JSON.stringify(size)}`);
}

/**
 * The normalised shape of an input. `size` is the bounding box ([x, y, z] or one number for all
 * three); explicit `radius`, `height` and `tube` win over it. Throws `ShapeError` naming the problem.
 */
export function normalizeShape(i: ShapeInput): EntityShape {
  const shape = i.shape ?? "box";
  const only = (allowed: string[]) => {
    for (const k of ["size", "radius", "height", "tube", "asset"] as const) {
      if (i[k] !== undefined && !allowed.includes(k)) throw new ShapeError(`a ${shape} takes no ${k} (it takes ${allowed.join(", ") || "nothing"})`);
    }
  };
  switch (shape) {
    case "box": {
      only(["size"]);
      const [x, y, z] = sizeVec(i.size, 1);
      return { shape, size: [dim("box size x", x), dim("box size y", y), dim("box size z", z)] };
    }
    case "plane": {
      only(["size"]);
      const [x, , z] = sizeVec(i.size, 1);
      return { shape, size: [dim("plane width (size x)", x), 0, dim("plane depth (size z)", z)] };
    }
    case "sphere": {
      only(["size", "radius"]);
      if (Array.isArray(i.size) && (i.size[0] !== i.size[1] || i.size[1] !== i.size[2])) {
        throw new ShapeError(`a sphere's size is its diameter, one number (or three equal ones), got ${JSON.stringify(i.size)}`);
      }
      return { shape, radius: dim("sphere radius", i.radius ?? sizeVec(i.size, 1)[0] / 2) };
    }
    case "capsule":
    case "cylinder":
    case "cone": {
      only(["size", "radius", "height"]);
      const size = sizeVec(i.size, 1);
      if (Array.isArray(i.size)) roundAxes(shape, size);
      // A capsule from one number is as tall as wide-and-a-half: radius size/4, height size.
      const radius = dim(`${shape} radius`, i.radius ?? (shape === "capsule" && !Array.isArray(i.size) ? size[0] / 4 : size[0] / 2));
      const height = dim(`${shape} height`, i.height ?? size[1]);
      if (shape === "capsule" && height < 2 * radius) throw new ShapeError(`a capsule's height (caps included) must be at least twice its radius: ${height} < 2 × ${radius}`);
      return { shape, radius, height };
    }
    case "torus": {
      only(["size", "radius", "tube"]);
      if (Array.isArray(i.size)) throw new ShapeError("a torus's size is its outer diameter, one number");
      const outer = sizeVec(i.size, 1)[0];
      const radius = dim("torus radius", i.radius ?? outer * 0.375);
      const tube = dim("torus tube", i.tube ?? outer * 0.125);
      if (tube >= radius) throw new ShapeError(`a torus's tube (${tube}) must be thinner than its radius (${radius})`);
      return { shape, radius, tube };
    }
    case "mesh": {
      // A size of 1 is the contract's default for every shape; a model keeps its own size (scale it).
      if (i.size !== undefined && i.size !== 1) throw new ShapeError("a mesh takes no size: it keeps its model's size (scale it with scale)");
      only(["asset", "size"]);
      if (typeof i.asset !== "string" || i.asset.length === 0) throw new ShapeError("a mesh needs the asset id of a loaded glTF model (asset)");
      return { shape, asset: i.asset };
    }
    default:
      throw new ShapeError(`unknown shape ${JSON.stringify(shape)} (one of ${SHAPES.join(", ")})`);
  }
}

/** The geometry of a primitive shape (a mesh shape's geometry is its model's). */
export function geometryFor(s: Exclude<EntityShape, { shape: "mesh" }>): THREE.BufferGeometry {
  switch (s.shape) {
    case "box":
      return new THREE.BoxGeometry(...s.size);
    case "plane":
      return new THREE.PlaneGeometry(s.size[0], s.size[2]).rotateX(-Math.PI / 2);
    case "sphere":
      return new THREE.SphereGeometry(s.radius, 32, 16);
    case "capsule":
      return new THREE.CapsuleGeometry(s.radius, Math.max(s.height - 2 * s.radius, 0), 8, 24);
    case "cylinder":
      return new THREE.CylinderGeometry(s.radius, s.radius, s.height, 32);
    case "cone":
      return new THREE.ConeGeometry(s.radius, s.height, 32);
    case "torus":
      return new THREE.TorusGeometry(s.radius, s.tube, 16, 48).rotateX(Math.PI / 2);
  }
}

/** The mesh of a primitive: its geometry in a standard PBR material of `color`. */
export function primitiveMesh(s: Exclude<EntityShape, { shape: "mesh" }>, color: number, roughness = 0.5, metalness = 0): THREE.Mesh {
  return new THREE.Mesh(geometryFor(s), new THREE.MeshStandardMaterial({ color, roughness, metalness }));
}
