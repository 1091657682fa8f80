// Streamed terrain tiles: geomipmapped meshes of a region's heights around
// a focus. Each tile is drawn at a level of detail chosen by its distance
// from the focus (level L takes every 2^L-th sample); edges between levels
// are hidden by skirts, so no cracks show. Meshes are built on demand within
// a per-frame budget and cached: until a tile's wanted level is built, the
// level it has stays up, so no frame waits for a tile. The coarsest level of
// every tile is built at once when the region appears. Cells are split along
// the diagonal the heightfield collider uses, so the drawn ground is the
// ground bodies meet. Pure three.js over the region's typed arrays (no ops):
// the browser page bundles it too.

import * as THREE from "three";
import type { Region, Terrain, TerrainChange } from "./terrain.ts";
import { biomeColors } from "./material.ts";

export interface TileOptions {
  /**
   * Distance (in tile sides, to the tile's nearest point) within which a tile is drawn at full detail; each
   * doubling drops a level, so a cell keeps about the same size on screen at every distance.
   */
  detailTiles?: number;
  /** Milliseconds of mesh building per frame (at least one mesh is built when one is wanted). */
  budgetMs?: number;
  /** How far skirts hang below a tile's edge, in metres. */
  skirt?: number;
}

interface TileEntry {
  tx: number;
  tz: number;
  /** Built meshes by level (dropped when the heights under them change). */
  meshes: Map<number, THREE.Mesh>;
  shown: number;
}

/** How many levels a tile of `r` samples has (the coarsest has 3×3 vertices... at least 2 cells). */
export function levelsOf(r: number): number {
  return Math.max(1, Math.log2(r - 1));
}

/**
 * The geometry of tile (tx, tz) at `level`: positions relative to the tile's centre, normals
 * from the full-resolution heights, vertex colours from the biomes, and skirts.
 */
export function tileGeometry(region: Region, tx: number, tz: number, level: number, skirt: number, colorOf: (i: number) => [number, number, number]): THREE.BufferGeometry {
  const { samples: n, tileSamples: r, spacing } = region.layout;
  const step = 1 << level;
  const cells = (r - 1) / step;
  const v = cells + 1;
  const x0 = tx * (r - 1);
  const z0 = tz * (r - 1);
  const half = ((r - 1) * spacing) / 2;
  const h = region.heights;
  const count = v * v + 4 * v;
  const pos = new Float32Array(count * 3);
  const nor = new Float32Array(count * 3);
  const col = new Float32Array(count * 3);
  const put = (k: number, sx: number, sz: number, drop: number) => {
    const i = sz * n + sx;
    pos[k * 3] = (sx - x0) * spacing - half;
    pos[k * 3 + 1] = h[i] - drop;
    pos[k * 3 + 2] = (sz - z0) * spacing - half;
    const l = h[sz * n + Math.max(0, sx - 1)], rr = h[sz * n + Math.min(n - 1, sx + 1)];
    const d = h[Math.max(0, sz - 1) * n + sx], u = h[Math.min(n - 1, sz + 1) * n + sx];
    const nx = (l - rr) / (2 * spacing), nz = (d - u) / (2 * spacing);
    const len = Math.hypot(nx, 1, nz);
    nor[k * 3] = nx / len;
    nor[k * 3 + 1] = 1 / len;
    nor[k * 3 + 2] = nz / len;
    const [cr, cg, cb] = colorOf(i);
    col[k * 3] = cr;
    col[k * 3 + 1] = cg;
    col[k * 3 + 2] = cb;
  };
  for (let j = 0; j < v; j++) for (let i = 0; i < v; i++) put(j * v + i, x0 + i * step, z0 + j * step, 0);
  // Skirt vertices: the four edges again, dropped.
  const edge: number[][] = [[], [], [], []];
  let k = v * v;
  for (let i = 0; i < v; i++) {
    const sides: [number, number][] = [[i, 0], [i, v - 1], [0, i], [v - 1, i]];
    sides.forEach(([a, b], e) => {
      put(k, x0 + a * step, z0 + b * step, skirt);
      edge[e].push(k++);
    });
  }
  const index: number[] = [];
  for (let j = 0; j < cells; j++) {
    for (let i = 0; i < cells; i++) {
      const p00 = j * v + i, p10 = p00 + 1, p01 = p00 + v, p11 = p01 + 1;
      // Split from (x0, z1) to (x1, z0), as the collider is; counter-clockwise seen from above.
      index.push(p00, p01, p10, p01, p11, p10);
    }
  }
  // Skirt quads hang from each edge (both windings, so they show from either side).
  const top = (e: number, i: number) => (e === 0 ? i : e === 1 ? (v - 1) * v + i : e === 2 ? i * v : i * v + v - 1);
  for (let e = 0; e < 4; e++) {
    for (let i = 0; i < cells; i++) {
      const a = top(e, i), b = top(e, i + 1), c = edge[e][i], d = edge[e][i + 1];
      index.push(a, c, b, b, c, d, a, b, c, b, d, c);
    }
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(pos, 3));
  g.setAttribute("normal", new THREE.BufferAttribute(nor, 3));
  g.setAttribute("color", new THREE.BufferAttribute(col, 3));
  g.setIndex(count > 65535 ? new THREE.Uint32BufferAttribute(index, 1) : new THREE.Uint16BufferAttribute(index, 1));
  g.computeBoundingSphere();
  g.computeBoundingBox();
  return g;
}

/** The streamed, level-of-detail meshes of a terrain, in a group added to a scene. */
export class TerrainTiles {
  readonly group = new THREE.Group();
  private tiles: TileEntry[] = [];
  private region: Region | null = null;
  private readonly detail: number;
  private readonly budgetMs: number;
  private readonly skirt: number;
  private readonly unsubscribe: () => void;
  /** Meshes built so far (for tests and benchmarks). */
  built = 0;

  constructor(private readonly terrain: Terrain, private readonly material: THREE.Material, options: TileOptions = {}) {
    this.detail = options.detailTiles ?? 0.25;
    this.budgetMs = options.budgetMs ?? 4;
    this.skirt = options.skirt ?? 8;
    this.group.name = "terrain";
    this.unsubscribe = terrain.onChange((c) => this.changed(c));
    if (terrain.region) this.reset();
  }

  private changed(c: TerrainChange): void {
    if (c.type === "region") this.reset();
    else if (c.type === "heights" && this.region) {
      const r = this.region.layout.tileSamples - 1;
      for (const t of this.tiles) {
        const x0 = t.tx * r, z0 = t.tz * r;
        // A tile's normals read one sample beyond it, so neighbours' edits count too.
        if (c.rect[0] > x0 + r + 1 || c.rect[2] < x0 - 1 || c.rect[1] > z0 + r + 1 || c.rect[3] < z0 - 1) continue;
        this.rebuild(t);
      }
    }
  }

  private colorOf = (i: number): [number, number, number] => {
    const region = this.region!;
    const b = region.paint[i] !== 255 ? region.paint[i] : region.biomes[i];
    return biomeColors[b] ?? [1, 0, 1];
  };

  private reset(): void {
    for (const t of this.tiles) for (const m of t.meshes.values()) this.drop(m);
    this.tiles = [];
    this.region = this.terrain.region;
    if (!this.region) return;
    const { tiles, tileSamples } = this.region.layout;
    const coarsest = levelsOf(tileSamples) - 1;
    for (let tz = 0; tz < tiles; tz++) {
      for (let tx = 0; tx < tiles; tx++) {
        const t: TileEntry = { tx, tz, meshes: new Map(), shown: coarsest };
        this.tiles.push(t);
        this.show(t, this.build(t, coarsest));
      }
    }
  }

  /** Rebuilds a tile's shown level at once (its heights changed: the old mesh would be wrong) and forgets the rest. */
  private rebuild(t: TileEntry): void {
    for (const [level, m] of t.meshes) if (level !== t.shown) (this.drop(m), t.meshes.delete(level));
    const old = t.meshes.get(t.shown)!;
    t.meshes.delete(t.shown);
    this.drop(old);
    this.show(t, this.build(t, t.shown));
  }

  private build(t: TileEntry, level: number): THREE.Mesh {
    const region = this.region!;
    const mesh = new THREE.Mesh(tileGeometry(region, t.tx, t.tz, level, this.skirt, this.colorOf), this.material);
    const [cx, cz] = this.terrain.tileCenter(region.layout, t.tx, t.tz);
    mesh.position.set(cx, 0, cz);
    mesh.name = `terrain_${t.tx}_${t.tz}_L${level}`;
    mesh.receiveShadow = true;
    mesh.castShadow = true;
    mesh.updateMatrixWorld();
    t.meshes.set(level, mesh);
    this.built++;
    return mesh;
  }

  private show(t: TileEntry, mesh: THREE.Mesh): void {
    for (const m of t.meshes.values()) if (m !== mesh) m.removeFromParent();
    if (mesh.parent !== this.group) this.group.add(mesh);
    t.shown = Number(mesh.name.slice(mesh.name.lastIndexOf("L") + 1));
  }

  private drop(m: THREE.Mesh): void {
    m.removeFromParent();
    m.geometry.dispose();
  }

  /** The level tile t should have for a focus at (fx, fz). */
  wantedLevel(t: TileEntry, fx: number, fz: number): number {
    const region = this.region!;
    const side = (region.layout.tileSamples - 1) * region.layout.spacing;
    const [cx, cz] = this.terrain.tileCenter(region.layout, t.tx, t.tz);
    // From the focus to the tile's nearest point, in tile sides.
    const d = Math.hypot(Math.max(0, Math.abs(cx - fx) - side / 2), Math.max(0, Math.abs(cz - fz) - side / 2)) / side;
    const level = d <= this.detail ? 0 : Math.floor(Math.log2(d / this.detail)) + 1;
    return Math.min(level, levelsOf(region.layout.tileSamples) - 1);
  }

  /**
   * Moves the focus: shows every tile's wanted level that is built and builds the missing ones,
   * nearest first, within the frame's budget. Returns how many tiles still wait for a level.
   */
  update(fx: number, fz: number): number {
    if (!this.region) return 0;
    const wanting: [number, TileEntry, number][] = [];
    for (const t of this.tiles) {
      const want = this.wantedLevel(t, fx, fz);
      const ready = t.meshes.get(want);
      if (ready) {
        if (t.shown !== want) this.show(t, ready);
      } else {
        const [cx, cz] = this.terrain.tileCenter(this.region.layout, t.tx, t.tz);
        wanting.push([Math.hypot(cx - fx, cz - fz), t, want]);
      }
      // Far levels no longer near the wanted one are freed.
      for (const [level, m] of t.meshes) if (Math.abs(level - want) > 1 && level !== t.shown) (this.drop(m), t.meshes.delete(level));
    }
    wanting.sort((a, b) => a[0] - b[0]);
    const start = performance.now();
    let left = wanting.length;
    for (const [, t, want] of wanting) {
      if (left < wanting.length && performance.now() - start >= this.budgetMs) break;
      this.show(t, this.build(t, want));
      left--;
    }
    return left;
  }

  /** The level each tile shows, row-major by tile z. */
  levels(): number[] {
    return this.tiles.map((t) => t.shown);
  }

  /** The mesh tile (tx, tz) shows. */
  meshOf(tx: number, tz: number): THREE.Mesh | undefined {
    const t = this.tiles.find((e) => e.tx === tx && e.tz === tz);
    return t?.meshes.get(t.shown);
  }

  dispose(): void {
    this.unsubscribe();
    for (const t of this.tiles) for (const m of t.meshes.values()) this.drop(m);
    this.tiles = [];
    this.group.removeFromParent();
  }
}
