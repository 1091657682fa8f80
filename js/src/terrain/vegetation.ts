// Scattered vegetation and props drawn as instanced meshes: procedural
// trees, rocks, bushes and grass clumps, grouped in square cells so whole
// cells are culled by distance (and by the camera's frustum, per cell);
// trees switch to a cheap crossed-quad impostor beyond `treeDetail` metres.
// Pure three.js over the terrain's scatter (no ops): the browser page
// bundles it too.

import * as THREE from "three";
import type { ScatterKind } from "../../../crates/limina-terrain/js/terrain.ts";
import type { Terrain, TerrainChange } from "./terrain.ts";

const STRIDE = 5;

export interface VegetationOptions {
  /** The side of a culling cell, in metres. */
  cell?: number;
  /** Farthest distance each kind is drawn at, in metres. */
  distance?: Partial<Record<ScatterKind, number>>;
  /** Trees nearer than this are full meshes; farther, impostors. */
  treeDetail?: number;
}

/** Blades in one grass clump (what a grass instance draws). */
export const BLADES_PER_CLUMP = 3;

interface Part {
  pos: number[];
  col: number[];
  idx: number[];
}

function part(): Part {
  return { pos: [], col: [], idx: [] };
}

function add(p: Part, g: THREE.BufferGeometry, rgb: [number, number, number], jitter = 0, seed = 1): void {
  const ng = g.index ? g.toNonIndexed() : g;
  const a = ng.getAttribute("position");
  const base = p.pos.length / 3;
  for (let i = 0; i < a.count; i++) {
    let x = a.getX(i), y = a.getY(i), z = a.getZ(i);
    if (jitter > 0) {
      // Deterministic lumps: a hash of the vertex's rounded position.
      const h = Math.sin((Math.round(x * 100) * 12.9898 + Math.round(y * 100) * 78.233 + Math.round(z * 100) * 37.719) * seed) * 43758.5453;
      const k = 1 + (h - Math.floor(h) - 0.5) * jitter;
      x *= k;
      y *= k;
      z *= k;
    }
    p.pos.push(x, y, z);
    p.col.push(...rgb);
    p.idx.push(base + i);
  }
}

function finish(p: Part): THREE.BufferGeometry {
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(p.pos, 3));
  g.setAttribute("color", new THREE.Float32BufferAttribute(p.col, 3));
  g.setIndex(p.idx);
  g.computeVertexNormals();
  g.computeBoundingSphere();
  return g;
}

const lin = (hex: number): [number, number, number] => {
  const c = new THREE.Color(hex);
  return [c.r, c.g, c.b];
};

/** A conifer: a trunk and three stacked cones, about 6 m tall at scale 1. */
export function treeGeometry(): THREE.BufferGeometry {
  const p = part();
  add(p, new THREE.CylinderGeometry(0.18, 0.28, 2.4, 6).translate(0, 1.2, 0), lin(0x5a3d22));
  add(p, new THREE.ConeGeometry(1.7, 2.6, 8).translate(0, 2.6, 0), lin(0x1f4d1f));
  add(p, new THREE.ConeGeometry(1.3, 2.2, 8).translate(0, 3.9, 0), lin(0x245a22));
  add(p, new THREE.ConeGeometry(0.85, 1.8, 8).translate(0, 5.1, 0), lin(0x2b6628));
  return finish(p);
}

/** The tree's impostor: two crossed vertical quads, crown over trunk. */
export function treeImpostorGeometry(): THREE.BufferGeometry {
  const p = part();
  for (const angle of [0, Math.PI / 2]) {
    add(p, new THREE.PlaneGeometry(0.4, 2.0).translate(0, 1.0, 0).rotateY(angle), lin(0x5a3d22));
    add(p, new THREE.PlaneGeometry(3.2, 4.6).translate(0, 3.6, 0).rotateY(angle), lin(0x22531f));
  }
  const g = finish(p);
  // Lit like the canopy seen from afar (from above), not like a flat card edge-on to the sun.
  const n = g.getAttribute("normal");
  for (let i = 0; i < n.count; i++) n.setXYZ(i, 0, 1, 0);
  return g;
}

export function rockGeometry(): THREE.BufferGeometry {
  const p = part();
  add(p, new THREE.IcosahedronGeometry(0.6, 1).scale(1, 0.65, 0.85), lin(0x77716a), 0.35, 3.1);
  return finish(p);
}

export function bushGeometry(): THREE.BufferGeometry {
  const p = part();
  add(p, new THREE.IcosahedronGeometry(0.7, 0).scale(1, 0.7, 1).translate(0, 0.45, 0), lin(0x335c1e), 0.3, 1.7);
  return finish(p);
}

/** A clump of BLADES_PER_CLUMP blades, each one triangle. */
export function grassGeometry(): THREE.BufferGeometry {
  const pos: number[] = [];
  const col: number[] = [];
  for (let b = 0; b < BLADES_PER_CLUMP; b++) {
    const a = (b / BLADES_PER_CLUMP) * Math.PI * 2;
    const ox = Math.cos(a) * 0.12, oz = Math.sin(a) * 0.12;
    const lean = 0.18 * (b % 2 === 0 ? 1 : -1);
    pos.push(ox - 0.04 * Math.sin(a), 0, oz + 0.04 * Math.cos(a), ox + 0.04 * Math.sin(a), 0, oz - 0.04 * Math.cos(a), ox + lean * Math.cos(a), 0.55 + 0.1 * b, oz + lean * Math.sin(a));
    col.push(...lin(0x3d6b1c), ...lin(0x3d6b1c), ...lin(0x8fb84a));
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(pos, 3));
  g.setAttribute("color", new THREE.Float32BufferAttribute(col, 3));
  g.computeVertexNormals();
  g.computeBoundingSphere();
  return g;
}

interface Cell {
  kind: ScatterKind;
  center: THREE.Vector3;
  near: THREE.InstancedMesh;
  far: THREE.InstancedMesh | null;
}

/** The instanced vegetation of a terrain, rebuilt when it is repopulated. */
export class TerrainVegetation {
  readonly group = new THREE.Group();
  private cells: Cell[] = [];
  private readonly geometries: Record<ScatterKind, THREE.BufferGeometry>;
  private readonly impostor: THREE.BufferGeometry;
  private readonly material: THREE.MeshStandardMaterial;
  private readonly cellSize: number;
  private readonly distance: Record<ScatterKind, number>;
  private readonly treeDetail: number;
  private readonly unsubscribe: () => void;
  /** What the last update drew: instances and grass blades. */
  drawn = { instances: 0, blades: 0, cells: 0 };

  constructor(private readonly terrain: Terrain, options: VegetationOptions = {}) {
    this.group.name = "vegetation";
    this.cellSize = options.cell ?? 64;
    this.distance = { tree: 2500, rock: 450, bush: 250, grass: 90, ...options.distance };
    this.treeDetail = options.treeDetail ?? 160;
    this.geometries = { tree: treeGeometry(), rock: rockGeometry(), bush: bushGeometry(), grass: grassGeometry() };
    this.impostor = treeImpostorGeometry();
    this.material = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.9, side: THREE.DoubleSide });
    this.unsubscribe = terrain.onChange((c: TerrainChange) => {
      if (c.type === "vegetation" || c.type === "region") this.rebuild();
    });
    this.rebuild();
  }

  private rebuild(): void {
    for (const c of this.cells) {
      c.near.removeFromParent();
      c.near.dispose();
      c.far?.removeFromParent();
      c.far?.dispose();
    }
    this.cells = [];
    const v = this.terrain.vegetation;
    if (!v) return;
    const m = new THREE.Matrix4();
    const q = new THREE.Quaternion();
    const up = new THREE.Vector3(0, 1, 0);
    const p = new THREE.Vector3();
    const s = new THREE.Vector3();
    for (const [kind, list] of Object.entries(v.instances) as [ScatterKind, Float32Array][]) {
      const byCell = new Map<string, number[]>();
      for (let i = 0; i < list.length; i += STRIDE) {
        const key = `${Math.floor(list[i] / this.cellSize)},${Math.floor(list[i + 2] / this.cellSize)}`;
        let at = byCell.get(key);
        if (!at) byCell.set(key, (at = []));
        at.push(i);
      }
      for (const at of byCell.values()) {
        const near = new THREE.InstancedMesh(this.geometries[kind], this.material, at.length);
        const far = kind === "tree" ? new THREE.InstancedMesh(this.impostor, this.material, at.length) : null;
        const center = new THREE.Vector3();
        at.forEach((i, k) => {
          p.set(list[i], list[i + 1], list[i + 2]);
          q.setFromAxisAngle(up, list[i + 4]);
          s.setScalar(list[i + 3]);
          m.compose(p, q, s);
          near.setMatrixAt(k, m);
          far?.setMatrixAt(k, m);
          center.add(p);
        });
        center.divideScalar(at.length);
        for (const mesh of [near, far]) {
          if (!mesh) continue;
          mesh.computeBoundingSphere();
          mesh.castShadow = kind === "tree" || kind === "rock";
          mesh.receiveShadow = true;
          mesh.name = `${kind}_cell`;
          mesh.visible = false;
          this.group.add(mesh);
        }
        this.cells.push({ kind, center, near, far });
      }
    }
  }

  /** Shows the cells within each kind's distance of (x, y, z), trees near as meshes and far as impostors. */
  update(x: number, y: number, z: number): void {
    const at = new THREE.Vector3(x, y, z);
    let instances = 0, blades = 0, cells = 0;
    const reach = this.cellSize * 0.75;
    for (const c of this.cells) {
      const d = Math.max(0, c.center.distanceTo(at) - reach);
      const shown = d <= this.distance[c.kind];
      const detailed = c.kind !== "tree" || d <= this.treeDetail;
      c.near.visible = shown && detailed;
      if (c.far) c.far.visible = shown && !detailed;
      if (shown) {
        instances += c.near.count;
        cells++;
        if (c.kind === "grass") blades += c.near.count * BLADES_PER_CLUMP;
      }
    }
    this.drawn = { instances, blades, cells };
  }

  dispose(): void {
    this.unsubscribe();
    for (const c of this.cells) {
      c.near.dispose();
      c.far?.dispose();
    }
    this.group.removeFromParent();
  }
}
