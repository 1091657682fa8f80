// The terrain of a world session: at most one generated region (its
// parameters, and the heights, climate and biome maps they give), the
// deformations and paint applied since, the bodies of water, the scattered
// vegetation and the entity the streamed tiles follow. The world log and
// snapshots hold the parameters and the edits, never the heights: a
// restore or a replay generates the same heights again (bit for bit) and
// re-applies the edits. Each terrain tile has a Rapier heightfield body,
// built with the region, so rays, bodies and characters meet the ground.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { applyWater, createHeightfield, createProps, type PropShape, refreshQueries, setHeightfield, type WaterBody } from "../../../crates/limina-physics/js/heightfield.ts";
import type { PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import {
  ALGORITHM_VERSION,
  BIOMES,
  classifyRegion,
  type ClimateParams,
  deformHeights,
  type DeformMode,
  generateRegionNow,
  heightsDigest,
  type Layout,
  type RegionParams,
  regionLayout,
  scatter,
  SCATTER_STRIDE,
  type ScatterKind,
} from "../../../crates/limina-terrain/js/terrain.ts";
import { sha256 } from "../../../crates/limina-trace/js/world-file.ts";
import type { WorldResource } from "../ecs/resources.ts";

export { BIOMES };

/** A generated region and its maps (JS-owned, row-major by z, `layout.samples`² each). */
export interface Region {
  params: RegionParams;
  climate: ClimateParams;
  layout: Layout;
  /** Heights in metres: the array itself, shared (read it, do not write it). */
  heights: Float32Array;
  temperature: Float32Array;
  moisture: Float32Array;
  /** Biome ids (see BIOMES) from the climate. */
  biomes: Uint8Array;
  /** Painted biome ids, 255 where nothing was painted. */
  paint: Uint8Array;
  /** The heightfield body of each tile, row-major by tile z. */
  colliders: number[];
  /** sha256 of the heights as generated (before edits). */
  digest: string;
  minHeight: number;
  maxHeight: number;
  /** What the tile cache did: `hit`, `stored`, `off` or `unavailable: <why>`. */
  cache: string;
}

export type TerrainEdit =
  | { kind: "deform"; center: [number, number]; radius: number; delta: number; mode: DeformMode }
  | { kind: "paint"; center: [number, number]; radius: number; biome: string }
  | { kind: "populate"; density: number; kinds: ScatterKind[] };

export interface Water {
  id: string;
  level: number;
  /** A disc of water (a lake); null: the sea, everywhere. */
  region: { center: [number, number]; radius: number } | null;
}

export interface Vegetation {
  density: number;
  kinds: ScatterKind[];
  /** The static body holding the trunks' and rocks' colliders (null: none). */
  props: number | null;
  instances: Partial<Record<ScatterKind, Float32Array>>;
}

/** What a snapshot holds of the terrain (its world resource): parameters and edits, never heights. */
export interface SavedTerrain {
  region: { params: RegionParams; climate: ClimateParams; colliders: number[] } | null;
  edits: TerrainEdit[];
  waters: Water[];
  nextWater: number;
  vegetation: { props: number | null } | null;
  follow: string | null;
}

/** A change listeners hear: the region replaced, samples changed, water or vegetation changed. */
export type TerrainChange =
  | { type: "region" }
  | { type: "heights"; rect: [number, number, number, number] }
  | { type: "water" }
  | { type: "vegetation" }
  | { type: "follow" };

/** Most instances of each kind one populate call may place. */
export const SCATTER_LIMITS: Readonly<Record<ScatterKind, number>> = { tree: 100_000, rock: 50_000, bush: 100_000, grass: 2_000_000 };

/** Buoyancy (× weight when fully under) and drag (per second) of water. */
export const WATER_BUOYANCY = 1.6;
export const WATER_DRAG = 1.2;

export class Terrain implements WorldResource<SavedTerrain> {
  region: Region | null = null;
  edits: TerrainEdit[] = [];
  waters: Water[] = [];
  vegetation: Vegetation | null = null;
  /** The entity streamed tiles follow (null: the view camera). */
  follow: string | null = null;
  private nextWater = 1;
  private readonly listeners = new Set<(change: TerrainChange) => void>();
  private digestCache: { revision: number; value: unknown } | null = null;
  private revision = 0;

  constructor(private readonly physics: PhysicsWorld) {}

  /** Calls `fn` on every change; returns the unsubscribe function. */
  onChange(fn: (change: TerrainChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(change: TerrainChange): void {
    this.revision++;
    for (const fn of this.listeners) fn(change);
  }

  /**
   * Generates a region and replaces the current one: its edits, vegetation and colliders go,
   * the new tiles' heightfield bodies are made in tile order. The loop waits for it (on the
   * rayon pool, through the tile cache), so no step of the world runs between the call and
   * its terrain, and a `--deterministic` run is the same however long generation takes.
   */
  generate(params: RegionParams, climate: ClimateParams = {}): Region {
    const region = regionOf({ ...params, algorithm: params.algorithm ?? ALGORITHM_VERSION }, climate, []);
    if (region.cache.startsWith("unavailable")) console.error(`limina: terrain tile cache ${region.cache}`);
    this.clearRegion();
    region.colliders = this.buildColliders(region);
    refreshQueries(this.physics);
    this.region = region;
    this.changed({ type: "region" });
    return region;
  }

  private clearRegion(): void {
    const old = this.region;
    if (!old) return;
    for (const handle of old.colliders) this.physics.destroyBody(handle);
    if (this.vegetation?.props) this.physics.destroyBody(this.vegetation.props);
    this.region = null;
    this.edits = [];
    this.vegetation = null;
  }

  /** The heights of tile (tx, tz): `tileSamples`² of them, row-major by z, into `out`. */
  tileHeights(region: Region, tx: number, tz: number, out = new Float32Array(region.layout.tileSamples ** 2)): Float32Array {
    const { samples: n, tileSamples: r } = region.layout;
    const x0 = tx * (r - 1);
    const z0 = tz * (r - 1);
    for (let k = 0; k < r; k++) out.set(region.heights.subarray((z0 + k) * n + x0, (z0 + k) * n + x0 + r), k * r);
    return out;
  }

  /** The centre [x, z] of tile (tx, tz) in metres. */
  tileCenter(layout: Layout, tx: number, tz: number): [number, number] {
    const side = (layout.tileSamples - 1) * layout.spacing;
    return [layout.origin[0] + (tx + 0.5) * side, layout.origin[1] + (tz + 0.5) * side];
  }

  private buildColliders(region: Region): number[] {
    const { layout } = region;
    const side = (layout.tileSamples - 1) * layout.spacing;
    const scratch = new Float32Array(layout.tileSamples ** 2);
    const handles: number[] = [];
    for (let tz = 0; tz < layout.tiles; tz++) {
      for (let tx = 0; tx < layout.tiles; tx++) {
        const [cx, cz] = this.tileCenter(layout, tx, tz);
        handles.push(createHeightfield(this.physics, this.tileHeights(region, tx, tz, scratch), layout.tileSamples, layout.tileSamples, [side, side], [cx, 0, cz]));
      }
    }
    return handles;
  }

  /** The region, or a `not_found` error saying none was generated. */
  requireRegion(): Region {
    if (!this.region) throw engineError("not_found", "this world has no terrain: call world.generateRegion first");
    return this.region;
  }

  /** Fractional sample coordinates of world (x, z), or null outside the region. */
  private grid(region: Region, x: number, z: number): [number, number] | null {
    const { origin, spacing, samples } = region.layout;
    const gx = (x - origin[0]) / spacing;
    const gz = (z - origin[1]) / spacing;
    const last = samples - 1;
    if (!(gx >= 0 && gz >= 0 && gx <= last && gz <= last)) return null;
    return [gx, gz];
  }

  /**
   * The ground's height at (x, z), or null outside the region: the two triangles of each cell
   * (split from its (x0, z1) to its (x1, z0) corner) that the collider and the mesh are made of.
   */
  heightAt(x: number, z: number): number | null {
    const region = this.requireRegion();
    const g = this.grid(region, x, z);
    if (!g) return null;
    const n = region.layout.samples;
    const ix = Math.min(Math.floor(g[0]), n - 2);
    const iz = Math.min(Math.floor(g[1]), n - 2);
    const fx = g[0] - ix;
    const fz = g[1] - iz;
    const h = region.heights;
    const i = iz * n + ix;
    const h00 = h[i], h10 = h[i + 1], h01 = h[i + n], h11 = h[i + n + 1];
    return fx + fz <= 1 ? h00 + (h10 - h00) * fx + (h01 - h00) * fz : h11 + (h01 - h11) * (1 - fx) + (h10 - h11) * (1 - fz);
  }

  /** The nearest sample's biome (painted, else from the climate) and climate, with the height. */
  biomeAt(x: number, z: number): { biome: string; painted: boolean; temperature: number; moisture: number; height: number } | null {
    const region = this.requireRegion();
    const g = this.grid(region, x, z);
    if (!g) return null;
    const n = region.layout.samples;
    const i = Math.round(g[1]) * n + Math.round(g[0]);
    const painted = region.paint[i] !== 255;
    return {
      biome: BIOMES[painted ? region.paint[i] : region.biomes[i]],
      painted,
      temperature: region.temperature[i],
      moisture: region.moisture[i],
      height: this.heightAt(x, z)!,
    };
  }

  /** Deforms heights, colliders and (through listeners) meshes together; returns the samples changed. */
  deform(center: [number, number], radius: number, delta: number, mode: DeformMode): [number, number, number, number] {
    const region = this.requireRegion();
    const rect = deformHeights(region.params, region.heights, center, radius, delta, mode);
    this.edits.push({ kind: "deform", center, radius, delta, mode });
    if (rect[2] >= rect[0]) this.afterHeights(region, rect);
    return rect;
  }

  private afterHeights(region: Region, rect: [number, number, number, number]): void {
    const { tiles, tileSamples: r } = region.layout;
    const scratch = new Float32Array(r * r);
    const t0x = Math.max(0, Math.floor((rect[0] - 1) / (r - 1)));
    const t1x = Math.min(tiles - 1, Math.floor(rect[2] / (r - 1)));
    const t0z = Math.max(0, Math.floor((rect[1] - 1) / (r - 1)));
    const t1z = Math.min(tiles - 1, Math.floor(rect[3] / (r - 1)));
    for (let tz = t0z; tz <= t1z; tz++) {
      for (let tx = t0x; tx <= t1x; tx++) setHeightfield(this.physics, region.colliders[tz * tiles + tx], this.tileHeights(region, tx, tz, scratch));
    }
    refreshQueries(this.physics);
    classifyRegion(region.params, region.climate, region.heights, region.temperature, region.moisture, region.biomes, Math.max(0, rect[1] - 1), rect[3] + 2);
    this.changed({ type: "heights", rect });
  }

  /** Paints `biome` within `radius` of `center` (drawn and reported instead of the climate's); returns how many samples. */
  paint(center: [number, number], radius: number, biome: string): number {
    const region = this.requireRegion();
    const id = BIOMES.indexOf(biome);
    if (id < 0) throw engineError("invalid_input", `unknown biome ${JSON.stringify(biome)}; the biomes are ${BIOMES.join(", ")}`);
    const { count, rect } = paintSamples(region, center, radius, id);
    this.edits.push({ kind: "paint", center, radius, biome });
    if (count > 0) this.changed({ type: "heights", rect });
    return count;
  }

  /**
   * Adds a body of water: the sea at `level`, or a lake over a disc, filled to `level` or, when
   * none is given, to just below the lowest ground on the disc's rim (where it would spill).
   */
  addWater(level: number | undefined, region: { center: [number, number]; radius: number } | undefined): Water {
    let at = level;
    if (region && at === undefined) {
      this.requireRegion();
      let rim = Infinity;
      for (let k = 0; k < 64; k++) {
        const a = (k / 64) * 2 * Math.PI;
        const h = this.heightAt(region.center[0] + Math.cos(a) * region.radius, region.center[1] + Math.sin(a) * region.radius);
        if (h !== null) rim = Math.min(rim, h);
      }
      if (!Number.isFinite(rim)) throw engineError("invalid_input", "the lake's rim lies outside the terrain: give its level");
      at = rim - 0.3;
    }
    if (at === undefined) throw engineError("invalid_input", "give a level, a region, or both");
    const water: Water = { id: `wat_${this.nextWater++}`, level: at, region: region ?? null };
    this.waters.push(water);
    this.changed({ type: "water" });
    return water;
  }

  /** The water surface level over (x, z), or null where there is none. */
  waterLevelAt(x: number, z: number): number | null {
    let level: number | null = null;
    for (const w of this.waters) {
      if (w.region) {
        const dx = x - w.region.center[0];
        const dz = z - w.region.center[1];
        if (dx * dx + dz * dz > w.region.radius ** 2) continue;
      }
      level = level === null ? w.level : Math.max(level, w.level);
    }
    return level;
  }

  /**
   * Scatters vegetation and props by biome (Poisson disk, deterministic), replacing any
   * scattered before; trees' trunks and rocks get colliders (one static compound body).
   */
  populate(density: number, kinds: ScatterKind[]): Vegetation {
    const region = this.requireRegion();
    if (this.vegetation?.props) this.physics.destroyBody(this.vegetation.props);
    this.vegetation = null;
    const instances = scatterAll(region, density, kinds);
    const props: PropShape[] = [];
    for (const [kind, list] of Object.entries(instances) as [ScatterKind, Float32Array][]) {
      for (let i = 0; i < list.length; i += SCATTER_STRIDE) {
        const [x, y, z, s] = [list[i], list[i + 1], list[i + 2], list[i + 3]];
        if (kind === "tree") props.push({ type: "capsule", position: [x, y + 2.2 * s, z], halfHeight: 2 * s, radius: 0.25 * s });
        else if (kind === "rock") props.push({ type: "ball", position: [x, y + 0.15 * s, z], radius: 0.55 * s });
      }
    }
    const body = props.length > 0 ? createProps(this.physics, props) : null;
    refreshQueries(this.physics);
    this.vegetation = { density, kinds: [...kinds], props: body, instances };
    this.edits.push({ kind: "populate", density, kinds: [...kinds] });
    this.changed({ type: "vegetation" });
    return this.vegetation;
  }

  /** Sets the entity streamed tiles follow (null: the view camera). */
  setFollow(entity: string | null): void {
    this.follow = entity;
    this.changed({ type: "follow" });
  }

  /** Buoyancy and drag for bodies in water, before the physics step. */
  step(dt: number): void {
    if (this.waters.length === 0) return;
    const bodies: WaterBody[] = this.waters.map((w) => ({ level: w.level, center: w.region?.center ?? [0, 0], radius: w.region?.radius ?? 0 }));
    applyWater(this.physics, bodies, WATER_BUOYANCY, WATER_DRAG, dt);
  }

  /** What the world digest hashes of the terrain: the current heights' and paint's sha256, the parameters, water, vegetation and follow. */
  digestState(): unknown {
    if (this.digestCache?.revision === this.revision) return this.digestCache.value;
    const r = this.region;
    const value = {
      region: r ? { params: r.params, climate: r.climate, colliders: r.colliders, heights: heightsDigest(r.heights), paint: sha256(r.paint) } : null,
      waters: this.waters,
      nextWater: this.nextWater,
      vegetation: this.vegetation ? { density: this.vegetation.density, kinds: this.vegetation.kinds, props: this.vegetation.props } : null,
      follow: this.follow,
    };
    this.digestCache = { revision: this.revision, value };
    return value;
  }

  /** The terrain as a snapshot holds it. */
  save(): SavedTerrain {
    const r = this.region;
    const v = this.vegetation;
    return {
      region: r ? { params: r.params, climate: r.climate, colliders: [...r.colliders] } : null,
      edits: this.edits.map((e) => ({ ...e })),
      waters: this.waters.map((w) => ({ ...w })),
      nextWater: this.nextWater,
      vegetation: v ? { props: v.props } : null,
      follow: this.follow,
    };
  }

  /**
   * Loads a saved terrain (a world resource: snapshots, world files, checkpoints) into a world
   * whose physics comes from the same snapshot, which holds the colliders: generates the heights
   * again, bit for bit, and re-applies the edits in order; `null` empties it. The physics world
   * is not touched here (it is replaced right after); `attach` then brings its raycasts up to date.
   */
  load(saved: SavedTerrain | null): void {
    if (saved === null) {
      Object.assign(this, { region: null, edits: [], waters: [], nextWater: 1, vegetation: null, follow: null });
      this.changed({ type: "region" });
      return;
    }
    if (typeof saved !== "object" || !Array.isArray(saved.edits) || !Array.isArray(saved.waters) || !Number.isInteger(saved.nextWater)) {
      throw engineError("invalid_input", "a saved terrain needs region, edits, waters, nextWater, vegetation and follow");
    }
    if (!saved.region) {
      Object.assign(this, { region: null, edits: [], vegetation: null, waters: saved.waters.map((w) => ({ ...w })), nextWater: saved.nextWater, follow: saved.follow });
      this.changed({ type: "region" });
      return;
    }
    const { params, climate, colliders } = saved.region;
    const region = regionOf(params, climate, colliders);
    this.region = region;
    // Re-applied in order on the data only: the restored physics world already holds the
    // colliders of the edited heights and of the props.
    for (const e of saved.edits) {
      if (e.kind === "deform") {
        deformHeights(params, region.heights, e.center, e.radius, e.delta, e.mode);
        classifyRegion(params, climate, region.heights, region.temperature, region.moisture, region.biomes);
      } else if (e.kind === "paint") paintSamples(region, e.center, e.radius, BIOMES.indexOf(e.biome));
      else this.vegetation = { density: e.density, kinds: e.kinds, props: saved.vegetation?.props ?? null, instances: scatterAll(region, e.density, e.kinds) };
    }
    this.edits = saved.edits.map((e) => ({ ...e }));
    this.waters = saved.waters.map((w) => ({ ...w }));
    this.nextWater = saved.nextWater;
    this.follow = saved.follow;
    this.changed({ type: "region" });
  }

  /** After the physics world was restored under a loaded terrain: raycasts meet its colliders at once. */
  attach(): void {
    if (this.region) refreshQueries(this.physics);
  }
}

/**
 * A region's heights generated (bit for bit, through the tile cache) and classified into climate and
 * biomes. Parameters without an algorithm version were saved before versions were recorded, by version 1
 * (`generate` records one), and keep its heights.
 */
function regionOf(params: RegionParams, climate: ClimateParams, colliders: Region["colliders"]): Region {
  const versioned = { ...params, algorithm: params.algorithm ?? 1 };
  const layout = regionLayout(versioned);
  const generated = generateRegionNow(versioned);
  const n = layout.samples;
  const region: Region = {
    params,
    climate,
    layout,
    heights: generated.heights,
    temperature: new Float32Array(n * n),
    moisture: new Float32Array(n * n),
    biomes: new Uint8Array(n * n),
    paint: new Uint8Array(n * n).fill(255),
    colliders,
    digest: generated.digest,
    minHeight: generated.minHeight,
    maxHeight: generated.maxHeight,
    cache: generated.cache,
  };
  classifyRegion(params, climate, region.heights, region.temperature, region.moisture, region.biomes);
  return region;
}

/** Paints biome `id` on every sample within `radius` of `center`. */
function paintSamples(region: Region, center: [number, number], radius: number, id: number): { count: number; rect: [number, number, number, number] } {
  const { origin, spacing, samples: n } = region.layout;
  const x0 = Math.max(0, Math.floor((center[0] - radius - origin[0]) / spacing));
  const x1 = Math.min(n - 1, Math.ceil((center[0] + radius - origin[0]) / spacing));
  const z0 = Math.max(0, Math.floor((center[1] - radius - origin[1]) / spacing));
  const z1 = Math.min(n - 1, Math.ceil((center[1] + radius - origin[1]) / spacing));
  let count = 0;
  for (let z = z0; z <= z1; z++) {
    for (let x = x0; x <= x1; x++) {
      const dx = origin[0] + x * spacing - center[0];
      const dz = origin[1] + z * spacing - center[1];
      if (dx * dx + dz * dz <= radius * radius) {
        region.paint[z * n + x] = id;
        count++;
      }
    }
  }
  return { count, rect: [x0, z0, x1, z1] };
}

/** The biome drawn at sample i: painted, else the climate's. */
export function biomeOf(region: Region, i: number): number {
  return region.paint[i] !== 255 ? region.paint[i] : region.biomes[i];
}

/** Every kind's instances over the region, by its drawn biomes. */
function scatterAll(region: Region, density: number, kinds: ScatterKind[]): Partial<Record<ScatterKind, Float32Array>> {
  const biomes = new Uint8Array(region.biomes.length);
  for (let i = 0; i < biomes.length; i++) biomes[i] = biomeOf(region, i);
  const out: Partial<Record<ScatterKind, Float32Array>> = {};
  for (const kind of kinds) out[kind] = scatter(region.params, region.heights, biomes, kind, density, SCATTER_LIMITS[kind]);
  return out;
}
