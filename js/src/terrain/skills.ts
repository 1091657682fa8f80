// world.* and terrain.* skills over the session's Terrain: generating a
// region, sampling it, deforming and painting it, water, vegetation and the
// focus of streamed tiles. Writes need `world.write` (builders); samples
// need `scene.read`.

import { z } from "zod";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "../skills/registry.ts";
import { WORLD_EXTENT } from "../skills/schemas.ts";
import { ALGORITHM_VERSION as TERRAIN_ALGORITHM, type ScatterKind } from "../../../crates/limina-terrain/js/terrain.ts";
import { BIOMES, type Terrain } from "./terrain.ts";

const Coord = z.number().min(-WORLD_EXTENT).max(WORLD_EXTENT);
const Point2 = z.tuple([Coord, Coord]);
const Radius = z.number().gt(0).max(10_000);

const Erosion = z.strictObject({
  droplets: z.number().int().min(0).max(10_000_000).optional(),
  thermal: z.number().int().min(0).max(500).optional(),
  talus: z.number().min(0).max(100).optional(),
  inertia: z.number().min(0).max(1).optional(),
  capacity: z.number().min(0).max(1000).optional(),
  minCapacity: z.number().min(0).max(1000).optional(),
  deposit: z.number().min(0).max(1).optional(),
  erode: z.number().min(0).max(1).optional(),
  evaporate: z.number().min(0).max(1).optional(),
  gravity: z.number().min(0).max(100).optional(),
  maxSteps: z.number().int().min(1).max(256).optional(),
  radius: z.number().int().min(1).max(8).optional(),
});

const Climate = z.strictObject({
  temperature: z.number().min(-80).max(80).optional(),
  lapseRate: z.number().min(0).max(10).optional(),
  latitudeGradient: z.number().min(0).max(10).optional(),
  moisture: z.number().min(0).max(1).optional(),
  rockSlope: z.number().min(0).max(100).optional(),
});

const PRESET_HEIGHT = { island: 220, mountains: 400, hills: 60, plains: 20 } as const;

const worldGenerateRegionInput = z.strictObject({
  seed: z.number().int().min(0).max(0xffffffff),
  center: Point2.default([0, 0]),
  size: z.number().gt(0).max(65_536).default(512),
  resolution: z.number().int().min(17).max(513).refine((r) => Number.isInteger(Math.log2(r - 1)), { message: "resolution must be 2^k + 1 (17, 33, 65, 129, 257 or 513)" }).default(129),
  tileSize: z.number().min(4).max(8192).default(128),
  preset: z.enum(["island", "mountains", "hills", "plains"]).default("island"),
  heightScale: z.number().gt(0).max(10_000).optional(),
  erosion: z.union([z.boolean(), Erosion]).default(false),
  seaLevel: z.number().min(-10_000).max(10_000).default(0),
  climate: Climate.default({}),
  algorithm: z.number().int().min(1).max(TERRAIN_ALGORITHM).default(TERRAIN_ALGORITHM),
});
const worldGenerateRegionOutput = z.object({
  tiles: z.number().int(),
  samples: z.number().int(),
  spacing: z.number(),
  origin: z.tuple([z.number(), z.number()]),
  minHeight: z.number(),
  maxHeight: z.number(),
  digest: z.string(),
  colliders: z.number().int(),
  cache: z.string(),
  lake: z.object({ center: z.tuple([z.number(), z.number()]), radius: z.number() }).nullable(),
});
const terrainSampleHeightInput = z.strictObject({ x: Coord, z: Coord });
const terrainSampleHeightOutput = z.object({ inside: z.boolean(), height: z.number().nullable() });
const terrainSampleHeightsInput = z.strictObject({ points: z.array(Point2).min(1).max(4096) });
const terrainSampleHeightsOutput = z.object({ heights: z.array(z.number().nullable()) });
const terrainSampleBiomeInput = z.strictObject({ x: Coord, z: Coord });
const terrainSampleBiomeOutput = z.object({ inside: z.boolean(), biome: z.string().nullable(), painted: z.boolean(), temperature: z.number().nullable(), moisture: z.number().nullable(), height: z.number().nullable() });
const terrainDeformInput = z.strictObject({ center: Point2, radius: Radius, delta: z.number().min(-10_000).max(10_000), mode: z.enum(["raise", "lower", "flatten", "smooth"]).default("raise") });
const terrainDeformOutput = z.object({ samples: z.number().int(), heightAtCenter: z.number().nullable() });
const terrainPaintInput = z.strictObject({ center: Point2, radius: Radius, biome: z.enum(BIOMES as [string, ...string[]]) });
const terrainPaintOutput = z.object({ samples: z.number().int() });
const worldAddWaterInput = z
  .strictObject({ level: z.number().min(-10_000).max(10_000).optional(), region: z.strictObject({ center: Point2, radius: Radius }).optional() })
  .refine((w) => w.level !== undefined || w.region !== undefined, { message: "give a level, a region, or both" });
const worldAddWaterOutput = z.object({ water: z.string(), level: z.number() });
const worldPopulateBiomeInput = z.strictObject({ density: z.number().min(0).max(1).default(0.6), kinds: z.array(z.enum(["tree", "rock", "bush", "grass"])).min(1).max(4).default(["tree", "rock", "bush", "grass"]) });
const worldPopulateBiomeOutput = z.object({ counts: z.record(z.string(), z.number().int()), colliders: z.number().int() });
const worldStreamFollowInput = z.strictObject({ entityId: z.string().nullable() });
const worldStreamFollowOutput = z.object({ following: z.string().nullable() });

export function terrainSkills({ terrain, entities }: { terrain: Terrain; entities: Entities }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "terrainSkills" };
  const sampleHeight = (x: number, zz: number) => terrain.heightAt(x, zz);
  return [
    {
      name: "world.generateRegion",
      version: "1.1.0",
      category: "world",
      description:
        "Generate terrain: a square region of `size` m around `center` [x, z] from `seed`, in tiles of `tileSize` m with `resolution` samples a side (2^k+1), shaped by `preset` (island, mountains, hills, plains), optionally eroded (`erosion`: true, or {droplets, thermal, …}); replaces any region. Every tile gets a heightfield collider. Returns the tiles, the height range and `digest`, the sha256 of the generated heights (the same on every machine). `algorithm` picks the generator's version (the latest by default; older ones reproduce the heights of regions made with them).",
      input: worldGenerateRegionInput,
      // Calls recorded before 1.1.0 generated with algorithm version 1.
      upgrade: (input, version) => (version === "1.0.0" ? { ...(input as object), algorithm: 1 } : input),
      output: worldGenerateRegionOutput,
      permissions: ["world.write"],
      source,
      handler: (input) => {
        const samples = Math.ceil(input.size / input.tileSize) * (input.resolution - 1) + 1;
        const erosion = input.erosion === true ? { droplets: Math.round(samples * samples * 0.75), thermal: 8 } : input.erosion === false ? {} : input.erosion;
        const region = terrain.generate(
          {
            seed: input.seed,
            center: input.center,
            size: input.size,
            resolution: input.resolution,
            tileSize: input.tileSize,
            preset: input.preset,
            heightScale: input.heightScale ?? PRESET_HEIGHT[input.preset as keyof typeof PRESET_HEIGHT],
            seaLevel: input.seaLevel,
            erosion,
            algorithm: input.algorithm,
          },
          input.climate,
        );
        const { layout } = region;
        return {
          tiles: layout.tiles * layout.tiles,
          samples: layout.samples,
          spacing: layout.spacing,
          origin: layout.origin,
          minHeight: region.minHeight,
          maxHeight: region.maxHeight,
          digest: region.digest,
          colliders: region.colliders.length,
          cache: region.cache,
          lake: layout.lake ? { center: layout.lake[0], radius: layout.lake[1] } : null,
        };
      },
    },
    {
      name: "terrain.sampleHeight",
      version: "1.0.0",
      category: "terrain",
      description: "The ground's height at {x, z} on the generated terrain (the surface its collider and mesh share); `inside` false outside the region.",
      input: terrainSampleHeightInput,
      output: terrainSampleHeightOutput,
      permissions: ["scene.read"],
      source,
      handler: ({ x, z: zz }) => {
        const height = sampleHeight(x, zz);
        return { inside: height !== null, height };
      },
    },
    {
      name: "terrain.sampleHeights",
      version: "1.0.0",
      category: "terrain",
      description: "The batch form of terrain.sampleHeight: heights at up to 4096 [x, z] points (null outside the region).",
      input: terrainSampleHeightsInput,
      output: terrainSampleHeightsOutput,
      permissions: ["scene.read"],
      source,
      handler: ({ points }: { points: [number, number][] }) => ({ heights: points.map(([x, zz]) => sampleHeight(x, zz)) }),
    },
    {
      name: "terrain.sampleBiome",
      version: "1.0.0",
      category: "terrain",
      description: `The biome at {x, z} (${BIOMES.join(", ")}), whether it was painted, the climate there (temperature °C, moisture 0–1) and the height; null outside the region.`,
      input: terrainSampleBiomeInput,
      output: terrainSampleBiomeOutput,
      permissions: ["scene.read"],
      source,
      handler: ({ x, z: zz }) => {
        const b = terrain.biomeAt(x, zz);
        return b ? { inside: true, ...b } : { inside: false, biome: null, painted: false, temperature: null, moisture: null, height: null };
      },
    },
    {
      name: "terrain.deform",
      version: "1.0.0",
      category: "terrain",
      description:
        "Deform the terrain within `radius` m of `center` [x, z], with a smooth falloff: raise or lower by `delta` m at the centre, flatten toward the centre's height + `delta`, or smooth toward the neighbours' mean by `delta` (0–1). Heights, colliders and meshes change together.",
      input: terrainDeformInput,
      output: terrainDeformOutput,
      permissions: ["world.write"],
      source,
      handler: ({ center, radius, delta, mode }) => {
        const [x0, z0, x1, z1] = terrain.deform(center, radius, delta, mode);
        return { samples: x1 < x0 ? 0 : (x1 - x0 + 1) * (z1 - z0 + 1), heightAtCenter: terrain.heightAt(center[0], center[1]) };
      },
    },
    {
      name: "terrain.paint",
      version: "1.0.0",
      category: "terrain",
      description: `Paint a biome (${BIOMES.join(", ")}) within \`radius\` m of \`center\` [x, z]: drawn, sampled and scattered instead of the climate's biome.`,
      input: terrainPaintInput,
      output: terrainPaintOutput,
      permissions: ["world.write"],
      source,
      handler: ({ center, radius, biome }) => ({ samples: terrain.paint(center, radius, biome) }),
    },
    {
      name: "world.addWater",
      version: "1.0.0",
      category: "world",
      description:
        "Add water: the sea at `level`, or a lake over `region` {center [x, z], radius} filled to `level` or, without one, to just below the lowest point of its rim. Bodies below the surface float (buoyancy) and slow down (drag).",
      input: worldAddWaterInput,
      output: worldAddWaterOutput,
      permissions: ["world.write"],
      source,
      handler: ({ level, region }) => {
        const w = terrain.addWater(level, region);
        return { water: w.id, level: w.level };
      },
    },
    {
      name: "world.populateBiome",
      version: "1.0.0",
      category: "world",
      description:
        "Scatter vegetation and props over the terrain by biome (deterministic Poisson disk): `kinds` of tree, rock, bush, grass at `density` (0–1) times each biome's own; replaces earlier scatter. Trunks and rocks get colliders.",
      input: worldPopulateBiomeInput,
      output: worldPopulateBiomeOutput,
      permissions: ["world.write"],
      source,
      handler: ({ density, kinds }) => {
        const v = terrain.populate(density, [...new Set(kinds as ScatterKind[])]);
        const counts: Record<string, number> = {};
        let colliders = 0;
        for (const [kind, list] of Object.entries(v.instances)) {
          counts[kind] = list.length / 5;
          if (kind === "tree" || kind === "rock") colliders += list.length / 5;
        }
        return { counts, colliders };
      },
    },
    {
      name: "world.streamFollow",
      version: "1.0.0",
      category: "world",
      description: "Stream terrain tiles (finer levels of detail) around an entity instead of the view camera; null follows the camera again.",
      input: worldStreamFollowInput,
      output: worldStreamFollowOutput,
      permissions: ["world.write"],
      source,
      handler: ({ entityId }) => {
        if (entityId !== null) entities.require(entityId);
        terrain.setFollow(entityId);
        return { following: entityId };
      },
    },
  ];
}
