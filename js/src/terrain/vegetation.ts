// Scattered vegetation and props, drawn at the cost of what the eye can
// resolve rather than of what the region holds. Every level is a plain
// (non-instanced) vertex buffer with the instances baked in, one draw per
// cell or block: software rasterisers run each instance of an instanced draw
// as a draw of its own, and the cost that remains is per triangle.
// - Trees nearer than `treeDetail`: full meshes, merged per 64 m cell, built
//   when a cell comes near and dropped when it is far again; the only
//   vegetation that casts shadows.
// - Farther trees: a crossed pair of crown triangles each, merged per cell
//   next to the near ones and per block of 4×4 cells beyond; a block thins
//   its trees (a fixed, hashed order) past `treeThinning` metres. Diffuse
//   shading only, no shadow lookups.
// - Rocks and bushes: merged per cell within their distance.
// - Grass: merged per 32 m cell within `distance.grass`, its clumps in a
//   hashed order so a cell draws a prefix of them, full density near the
//   camera fading to none at the edge.
// Cells are culled by distance and by the camera's frustum before any draw,
// and the vegetation draws before the terrain, whose costlier shading is
// then skipped wherever a plant hides the ground.
// Pure three.js over the terrain's scatter (no ops): the browser page
// bundles it too.

import * as THREE from "three";
import { transformNormalToView, vec3 } from "three/tsl";
import { SCATTER_STRIDE, type ScatterKind } from "../../../crates/limina-terrain/js/terrain.ts";
import type { Terrain, TerrainChange } from "./terrain.ts";

export interface VegetationOptions {
  /** The side of a culling cell of trees, rocks and bushes, in metres (grass cells are half as wide). */
  cell?: number;
  /** Farthest distance each kind is drawn at, in metres. */
  distance?: Partial<Record<ScatterKind, number>>;
  /** Trees nearer than this are full meshes; farther, impostors. */
  treeDetail?: number;
  /** Blocks of impostors farther than this draw a share of their trees (treeThinning / distance, at least 40%). */
  treeThinning?: number;
  /** Grass is at full density within this distance, thinning to none at `distance.grass`. */
  grassFull?: number;
}

/** Blades in one grass clump. */
export const BLADES_PER_CLUMP = 3;

/** Tree cells per side of a block of far impostors. */
const BLOCK = 4;
/** The least share of its trees a far block draws. */
const LEAST_SHARE = 0.4;

/** How a tree was drawn in the last update. */
export type TreeLevel = "mesh" | "impostor";

/** What the last update drew, after distance and frustum culling. */
export interface VegetationDrawn {
  /** Instances of every kind drawn (grass counted in clumps). */
  instances: number;
  /** Grass blades drawn. */
  blades: number;
  /** Draw calls: cells and blocks drawn. */
  cells: number;
  /** Trees drawn at each level. */
  trees: Record<TreeLevel, number>;
  rocks: number;
  bushes: number;
  /** Triangles of vegetation drawn. */
  triangles: number;
}

interface Part {
  pos: number[];
  col: number[];
}

function add(p: Part, g: THREE.BufferGeometry, rgb: [number, number, number], jitter = 0, seed = 1): void {
  const ng = g.index ? g.toNonIndexed() : g;
  const a = ng.getAttribute("position");
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
  }
}

/** A flat-shaded, non-indexed geometry of the parts (what `bake` copies per instance). */
function finish(p: Part): THREE.BufferGeometry {
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(p.pos, 3));
  g.setAttribute("color", new THREE.Float32BufferAttribute(p.col, 3));
  g.computeVertexNormals();
  g.computeBoundingSphere();
  return g;
}

const lin = (hex: number): [number, number, number] => {
  const c = new THREE.Color(hex);
  return [c.r, c.g, c.b];
};

/** A conifer: a five-sided trunk and three stacked seven-sided cones (open: seen from above), about 6 m tall at scale 1; 31 triangles. */
export function treeGeometry(): THREE.BufferGeometry {
  const p: Part = { pos: [], col: [] };
  add(p, new THREE.CylinderGeometry(0.18, 0.28, 2.4, 5, 1, true).translate(0, 1.2, 0), lin(0x5a3d22));
  add(p, new THREE.ConeGeometry(1.7, 2.6, 7, 1, true).translate(0, 2.6, 0), lin(0x1f4d1f));
  add(p, new THREE.ConeGeometry(1.3, 2.2, 7, 1, true).translate(0, 3.9, 0), lin(0x245a22));
  add(p, new THREE.ConeGeometry(0.85, 1.8, 7, 1, true).translate(0, 5.1, 0), lin(0x2b6628));
  return finish(p);
}

/** The tree's impostor: its crown's silhouette as two crossed vertical triangles, from the trunk up to the tip; 2 triangles. */
export function treeImpostorGeometry(): THREE.BufferGeometry {
  const p: Part = { pos: [], col: [] };
  const base = lin(0x1f4d1f), tip = lin(0x2b6628);
  for (const [dx, dz] of [[1, 0], [0, 1]]) {
    const w = 1.6;
    p.pos.push(-w * dx, 0.9, -w * dz, w * dx, 0.9, w * dz, 0, 6.0, 0);
    p.col.push(...base, ...base, ...tip);
  }
  const g = finish(p);
  // Lit like the canopy seen from afar (from above), not like a flat card edge-on to the sun.
  const n = g.getAttribute("normal");
  for (let i = 0; i < n.count; i++) n.setXYZ(i, 0, 1, 0);
  return g;
}

export function rockGeometry(): THREE.BufferGeometry {
  const p: Part = { pos: [], col: [] };
  add(p, new THREE.IcosahedronGeometry(0.6, 1).scale(1, 0.65, 0.85), lin(0x77716a), 0.35, 3.1);
  return finish(p);
}

export function bushGeometry(): THREE.BufferGeometry {
  const p: Part = { pos: [], col: [] };
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

/** The instances `at` (offsets into `list`) of a non-indexed `shape`, moved, turned and scaled into one geometry. */
function bake(shape: THREE.BufferGeometry, list: Float32Array, at: ArrayLike<number>): THREE.BufferGeometry {
  const sp = shape.getAttribute("position").array, sn = shape.getAttribute("normal").array, sc = shape.getAttribute("color").array;
  const n = sp.length;
  const pos = new Float32Array(at.length * n), nrm = new Float32Array(at.length * n), col = new Float32Array(at.length * n);
  for (let k = 0; k < at.length; k++) {
    const i = at[k];
    const x = list[i], y = list[i + 1], z = list[i + 2], s = list[i + 3];
    const c = Math.cos(list[i + 4]), r = Math.sin(list[i + 4]);
    const o = k * n;
    // A turn about +Y (three's makeRotationY): x' = cx + sz, z' = −sx + cz.
    for (let v = 0; v < n; v += 3) {
      const vx = sp[v], vy = sp[v + 1], vz = sp[v + 2];
      pos[o + v] = x + s * (c * vx + r * vz);
      pos[o + v + 1] = y + s * vy;
      pos[o + v + 2] = z + s * (c * vz - r * vx);
      const nx = sn[v], nz = sn[v + 2];
      nrm[o + v] = c * nx + r * nz;
      nrm[o + v + 1] = sn[v + 1];
      nrm[o + v + 2] = c * nz - r * nx;
    }
    col.set(sc, o);
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(pos, 3));
  g.setAttribute("normal", new THREE.BufferAttribute(nrm, 3));
  g.setAttribute("color", new THREE.BufferAttribute(col, 3));
  g.computeBoundingSphere();
  return g;
}

/** A fixed pseudo-random order of instances (a hash of their offsets), so any prefix is an even thinning. */
function hashed(at: number[]): number[] {
  const h = (i: number) => Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return at.map((i) => [h(i), i]).sort((a, b) => a[0] - b[0]).map(([, i]) => i);
}

/** Instances of one kind within one square, and its lazily baked mesh. */
interface Cell {
  center: THREE.Vector3;
  /** Offsets into the kind's scatter list. */
  at: number[];
  mesh: THREE.Mesh | null;
}

/** A tree cell: its near mesh and its own impostors, each baked when needed. */
interface TreeCell extends Cell {
  impostor: THREE.Mesh | null;
  /** How this cell's trees were drawn in the last update (null: not drawn). */
  level: TreeLevel | null;
}

/** BLOCK² tree cells' impostors merged, in hashed order. */
interface Block {
  center: THREE.Vector3;
  reach: number;
  cells: TreeCell[];
  mesh: THREE.Mesh;
  /** The hashed order of its trees, and how many of them the last update drew (0: the block was not drawn whole). */
  order: number[];
  drawn: number;
}

/** Buckets a kind's instances into square cells of `size` metres. */
function cellsOf(list: Float32Array, size: number): Map<number, Cell> {
  const cells = new Map<number, Cell>();
  for (let i = 0; i < list.length; i += SCATTER_STRIDE) {
    const key = keyOf(list[i], list[i + 2], size);
    let c = cells.get(key);
    if (!c) cells.set(key, (c = { center: new THREE.Vector3(), at: [], mesh: null }));
    c.at.push(i);
    c.center.x += list[i];
    c.center.y += list[i + 1];
    c.center.z += list[i + 2];
  }
  for (const c of cells.values()) c.center.divideScalar(c.at.length);
  return cells;
}

/** A cell's key: its column and row (offset to stay positive) in one number. */
const keyOf = (x: number, z: number, size: number) => (Math.floor(x / size) + 32768) * 65536 + (Math.floor(z / size) + 32768);

const sphere = new THREE.Sphere();

/** The vegetation of a terrain, rebuilt when it is repopulated. */
export class TerrainVegetation {
  readonly group = new THREE.Group();
  private trees = new Map<number, TreeCell>();
  private blocks: Block[] = [];
  private props: { kind: "rock" | "bush" | "grass"; size: number; cells: Map<number, Cell> }[] = [];
  private readonly shapes: Record<ScatterKind, THREE.BufferGeometry>;
  private readonly impostor: THREE.BufferGeometry;
  private readonly material: THREE.MeshStandardMaterial;
  /** Impostors: diffuse only and no shadow lookups (a few pixels each, far beyond the sun's shadow reach). */
  private readonly farMaterial: THREE.MeshLambertNodeMaterial;
  private readonly cellSize: number;
  private readonly distance: Record<ScatterKind, number>;
  private readonly treeDetail: number;
  private readonly treeThinning: number;
  private readonly grassFull: number;
  private readonly frustum = new THREE.Frustum();
  private readonly unsubscribe: () => void;
  /** What the last update drew. */
  drawn: VegetationDrawn = TerrainVegetation.nothing();

  constructor(private readonly terrain: Terrain, options: VegetationOptions = {}) {
    this.group.name = "vegetation";
    // Drawn before the terrain, so the ground hidden behind plants is not shaded (its material is the costlier).
    this.group.renderOrder = -1;
    this.cellSize = options.cell ?? 64;
    this.distance = { tree: 2500, rock: 300, bush: 150, grass: 90, ...options.distance };
    this.treeDetail = options.treeDetail ?? 120;
    this.treeThinning = options.treeThinning ?? 600;
    this.grassFull = options.grassFull ?? 40;
    this.shapes = { tree: treeGeometry(), rock: rockGeometry(), bush: bushGeometry(), grass: grassGeometry() };
    this.impostor = treeImpostorGeometry();
    this.material = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.9, side: THREE.DoubleSide });
    this.farMaterial = new THREE.MeshLambertNodeMaterial({ vertexColors: true, side: THREE.DoubleSide });
    // Up on both faces (a double-sided face's back would turn it down, unlit): lit like a canopy seen from afar.
    this.farMaterial.normalNode = transformNormalToView(vec3(0, 1, 0));
    this.unsubscribe = terrain.onChange((c: TerrainChange) => {
      if (c.type === "vegetation" || c.type === "region") this.rebuild();
    });
    this.rebuild();
  }

  private static nothing(): VegetationDrawn {
    return { instances: 0, blades: 0, cells: 0, trees: { mesh: 0, impostor: 0 }, rocks: 0, bushes: 0, triangles: 0 };
  }

  private clear(): void {
    for (const m of [...this.group.children] as THREE.Mesh[]) {
      m.geometry.dispose();
      m.removeFromParent();
    }
    this.trees.clear();
    this.blocks = [];
    this.props = [];
  }

  private rebuild(): void {
    this.clear();
    const v = this.terrain.vegetation;
    if (!v) return;
    const trees = v.instances.tree;
    if (trees) {
      const cells = cellsOf(trees, this.cellSize);
      const blocks = new Map<number, TreeCell[]>();
      for (const [key, c] of cells) {
        const cell: TreeCell = { ...c, impostor: null, level: null };
        this.trees.set(key, cell);
        const b = keyOf(c.center.x, c.center.z, this.cellSize * BLOCK);
        blocks.get(b)?.push(cell) ?? blocks.set(b, [cell]);
      }
      for (const cells of blocks.values()) {
        const order = hashed(cells.flatMap((c) => c.at));
        const mesh = this.mesh(bake(this.impostor, trees, order), "tree_block", false, true);
        const center = mesh.geometry.boundingSphere!.center.clone();
        this.blocks.push({ center, reach: mesh.geometry.boundingSphere!.radius, cells, mesh, order, drawn: 0 });
      }
    }
    for (const kind of ["rock", "bush", "grass"] as const) {
      const list = v.instances[kind];
      const size = kind === "grass" ? this.cellSize / 2 : this.cellSize;
      if (list) this.props.push({ kind, size, cells: cellsOf(list, size) });
    }
  }

  private mesh(geometry: THREE.BufferGeometry, name: string, shadow: boolean, far = false): THREE.Mesh {
    const m = new THREE.Mesh(geometry, far ? this.farMaterial : this.material);
    m.name = name;
    m.castShadow = shadow;
    m.receiveShadow = !far;
    m.visible = false;
    this.group.add(m);
    return m;
  }

  /** Whether a baked mesh's bounds are in the camera's view. */
  private seen(m: THREE.Mesh): boolean {
    return this.frustum.intersectsSphere(sphere.copy(m.geometry.boundingSphere!));
  }

  private drop(m: THREE.Mesh | null): null {
    if (m) {
      m.geometry.dispose();
      m.removeFromParent();
    }
    return null;
  }

  /** Chooses what to draw from `camera`'s place and view: levels by distance, cells out of range or out of view hidden. */
  update(camera: THREE.Camera): void {
    camera.updateMatrixWorld();
    const at = camera.getWorldPosition(new THREE.Vector3());
    this.frustum.setFromProjectionMatrix(new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
    const drawn = TerrainVegetation.nothing();
    const list = this.terrain.vegetation?.instances;
    const cellReach = this.cellSize * 0.75;
    const impostorTris = this.impostor.getAttribute("position").count / 3;
    const treeTris = this.shapes.tree.getAttribute("position").count / 3;
    for (const b of this.blocks) {
      const d = Math.max(0, b.center.distanceTo(at) - b.reach);
      b.drawn = 0;
      b.mesh.visible = false;
      const whole = d > this.treeDetail && d <= this.distance.tree;
      if (whole && this.seen(b.mesh)) {
        const share = d <= this.treeThinning ? 1 : Math.max(LEAST_SHARE, this.treeThinning / d);
        b.drawn = Math.max(1, Math.round(b.order.length * share));
        b.mesh.geometry.setDrawRange(0, b.drawn * impostorTris * 3);
        b.mesh.visible = true;
        drawn.trees.impostor += b.drawn;
        drawn.cells++;
      }
      for (const c of b.cells) {
        c.level = null;
        const dc = Math.max(0, c.center.distanceTo(at) - cellReach);
        const near = !whole && dc <= this.treeDetail;
        const far = !whole && !near && dc <= this.distance.tree;
        // Near meshes stay while their cell is within reach (hysteresis), impostors while their block is split.
        if (near) c.mesh ??= this.mesh(bake(this.shapes.tree, list!.tree!, c.at), "tree_cell", true);
        else if (dc > this.treeDetail * 1.5) c.mesh = this.drop(c.mesh);
        if (far) c.impostor ??= this.mesh(bake(this.impostor, list!.tree!, c.at), "tree_impostor_cell", false, true);
        else if (whole || d > this.distance.tree) c.impostor = this.drop(c.impostor);
        // Shadow casters stay visible outside the view: three culls them per pass, the sun's included.
        if (c.mesh) c.mesh.visible = near;
        if (c.impostor) c.impostor.visible = far && this.seen(c.impostor);
        if (near && this.seen(c.mesh!)) c.level = "mesh";
        else if (c.impostor?.visible) c.level = "impostor";
        if (c.level) {
          drawn.trees[c.level] += c.at.length;
          drawn.cells++;
        }
        if (whole && b.drawn > 0) c.level = "impostor";
      }
    }
    drawn.triangles += drawn.trees.mesh * treeTris + drawn.trees.impostor * impostorTris;
    for (const { kind, cells } of this.props) {
      const reach = kind === "grass" ? cellReach / 2 : cellReach;
      const tris = this.shapes[kind].getAttribute("position").count / 3;
      for (const c of cells.values()) {
        const d = c.center.distanceTo(at);
        const shown = d - reach <= this.distance[kind];
        if (shown) c.mesh ??= this.mesh(bake(this.shapes[kind], list![kind]!, kind === "grass" ? hashed(c.at) : c.at), `${kind}_cell`, kind === "rock");
        else if (d - reach > this.distance[kind] * 1.5) c.mesh = this.drop(c.mesh);
        if (!c.mesh) continue;
        c.mesh.visible = shown && this.seen(c.mesh);
        if (!c.mesh.visible) continue;
        // Grass thins with distance: the first of its hashed clumps.
        const count = kind === "grass" ? Math.round(c.at.length * Math.min(1, Math.max(0, (this.distance.grass - d) / (this.distance.grass - this.grassFull)))) : c.at.length;
        c.mesh.geometry.setDrawRange(0, count * tris * 3);
        if (count === 0) {
          c.mesh.visible = false;
          continue;
        }
        drawn.cells++;
        drawn.triangles += count * tris;
        if (kind === "grass") drawn.blades += count * BLADES_PER_CLUMP;
        else if (kind === "rock") drawn.rocks += count;
        else drawn.bushes += count;
        drawn.instances += count;
      }
    }
    drawn.instances += drawn.trees.mesh + drawn.trees.impostor;
    this.drawn = drawn;
  }

  /**
   * How the tree at `index` (its place in the scatter list) was drawn in the last update: from the near
   * meshes, from impostors (a far block draws only the first of its hashed trees), or not at all.
   */
  treeLevel(index: number): TreeLevel | null {
    const list = this.terrain.vegetation?.instances.tree;
    if (!list || index < 0 || index * SCATTER_STRIDE >= list.length) return null;
    const i = index * SCATTER_STRIDE;
    const cell = this.trees.get(keyOf(list[i], list[i + 2], this.cellSize));
    if (!cell?.level) return null;
    const block = this.blocks.find((b) => b.cells.includes(cell))!;
    if (block.drawn > 0 && block.order.indexOf(i) >= block.drawn) return null;
    return cell.level;
  }

  dispose(): void {
    this.unsubscribe();
    this.clear();
    this.material.dispose();
    this.farMaterial.dispose();
    this.group.removeFromParent();
  }
}
