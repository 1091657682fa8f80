// The JS face of limina-terrain. A region's parameters are what the world
// log records; its heights, climate and biome maps are JS-owned typed
// arrays (row-major by z) that the ops fill and change in place.

export type Preset = "island" | "mountains" | "hills" | "plains";
export type DeformMode = "raise" | "lower" | "flatten" | "smooth";
export type ScatterKind = "tree" | "rock" | "bush" | "grass";

/** Droplet and thermal erosion (see crates/limina-terrain/src/erosion.rs for the model). */
export interface ErosionParams {
  droplets?: number;
  inertia?: number;
  capacity?: number;
  minCapacity?: number;
  deposit?: number;
  erode?: number;
  evaporate?: number;
  gravity?: number;
  maxSteps?: number;
  radius?: number;
  /** Thermal erosion iterations. */
  thermal?: number;
  /** The slope (rise over run) above which thermal erosion moves material. */
  talus?: number;
}

/** Everything a region's heights depend on. */
export interface RegionParams {
  seed: number;
  center: [number, number];
  size: number;
  resolution: number;
  tileSize: number;
  preset: Preset;
  heightScale: number;
  seaLevel: number;
  erosion: ErosionParams;
  /**
   * The generation algorithm's version, 1 to ALGORITHM_VERSION (the latest when absent). A new
   * version gives the same parameters other heights; old ones stay selectable, so a saved region
   * that records its version keeps its heights.
   */
  algorithm?: number;
}

export interface ClimateParams {
  temperature?: number;
  lapseRate?: number;
  latitudeGradient?: number;
  moisture?: number;
  rockSlope?: number;
}

/** Where a region's samples lie: `samples`² of them, sample (i, k) at origin + (i, k)·spacing. */
export interface Layout {
  tiles: number;
  samples: number;
  spacing: number;
  origin: [number, number];
  tileSamples: number;
  extent: number;
  /** The island preset's lake basin: centre [x, z] and radius. */
  lake: [[number, number], number] | null;
  /** sha256 of the parameters and the algorithm's version (the tile cache's key). */
  key: string;
}

export interface Generated {
  heights: Float32Array;
  digest: string;
  minHeight: number;
  maxHeight: number;
  /** The tile cache: `hit`, `stored`, `off`, or `unavailable: <why>`. */
  cache: string;
}

interface TerrainOps {
  op_terrain_layout(params: RegionParams): Layout;
  op_terrain_generate(params: RegionParams, threads: number): Promise<{ heights: Uint8Array; digest: string; minHeight: number; maxHeight: number; cache: string }>;
  op_terrain_generate_now(params: RegionParams, threads: number): Uint8Array;
  op_terrain_generate_sync(params: RegionParams): { heights: Uint8Array; digest: string; minHeight: number; maxHeight: number; cache: string };
  op_terrain_digest(heights: Float32Array): string;
  op_terrain_classify(region: RegionParams, climate: ClimateParams, heights: Float32Array, temperature: Float32Array, moisture: Float32Array, biomes: Uint8Array, z0: number, z1: number): void;
  op_terrain_deform(region: RegionParams, heights: Float32Array, cx: number, cz: number, radius: number, delta: number, mode: string, touched: Float64Array): void;
  op_terrain_scatter(region: RegionParams, heights: Float32Array, biomes: Uint8Array, kind: string, density: number, limit: number): Uint8Array;
  op_terrain_biomes(): string[];
  op_terrain_algorithm_version(): number;
}

const ops = Limina.ops as unknown as TerrainOps;

const asFloats = (bytes: Uint8Array) => new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);

/** Validates the parameters (an `invalid_input` error names what is wrong) and lays the region out. */
export function regionLayout(params: RegionParams): Layout {
  return ops.op_terrain_layout(params);
}

/** Generates the heights on a blocking thread, through the on-disk tile cache. `threads` 0: the shared pool. */
export async function generateRegion(params: RegionParams, threads = 0): Promise<Generated> {
  const out = await ops.op_terrain_generate(params, threads);
  return { ...out, heights: asFloats(out.heights) };
}

/** Generates the heights now, through the tile cache, blocking this thread (and the loop) until done. */
export function generateRegionNow(params: RegionParams): Generated {
  const out = ops.op_terrain_generate_sync(params);
  return { ...out, heights: asFloats(out.heights) };
}

/** Generates the heights now, on this thread, bypassing the cache (for benchmarks). */
export function generateHeightsNow(params: RegionParams, threads = 0): Float32Array {
  return asFloats(ops.op_terrain_generate_now(params, threads));
}

/** `"sha256:…"` of heights as little-endian float32 bytes. */
export function heightsDigest(heights: Float32Array): string {
  return ops.op_terrain_digest(heights);
}

/** Fills the temperature, moisture and biome maps for rows z0..z1 (default all). */
export function classifyRegion(region: RegionParams, climate: ClimateParams, heights: Float32Array, temperature: Float32Array, moisture: Float32Array, biomes: Uint8Array, z0 = 0, z1 = 1 << 30): void {
  ops.op_terrain_classify(region, climate, heights, temperature, moisture, biomes, z0, z1);
}

const touched = new Float64Array(4);

/** Deforms the heights in place; returns the changed samples' [x0, z0, x1, z1] (x1 < x0: none). */
export function deformHeights(region: RegionParams, heights: Float32Array, center: [number, number], radius: number, delta: number, mode: DeformMode): [number, number, number, number] {
  ops.op_terrain_deform(region, heights, center[0], center[1], radius, delta, mode, touched);
  return [touched[0], touched[1], touched[2], touched[3]];
}

/** Floats per scattered instance: x, y, z, scale, yaw. */
export const SCATTER_STRIDE = 5;

/** Poisson-disk instances of `kind` over the region, by biome; at most `limit`. */
export function scatter(region: RegionParams, heights: Float32Array, biomes: Uint8Array, kind: ScatterKind, density: number, limit: number): Float32Array {
  return asFloats(ops.op_terrain_scatter(region, heights, biomes, kind, density, limit));
}

/** The latest generation algorithm's version (2: erosion in blocks of 32 cells, each droplet running on up to 4 cells beyond its block; 1: blocks of 64). */
export const ALGORITHM_VERSION: number = ops.op_terrain_algorithm_version();

/** The biome names, by the ids the biome map holds. */
export const BIOMES: readonly string[] = Object.freeze(ops.op_terrain_biomes());
