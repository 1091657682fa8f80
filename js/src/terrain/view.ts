// A terrain drawn: streamed LOD tiles with the terrain material, water
// surfaces and vegetation, in one group, updated once a frame
// around a focus (the entity world.streamFollow names, else the camera).
// Pure three.js over the terrain's data (no ops).

import * as THREE from "three";
import { createTerrainMaterial, type TerrainMaterialOptions } from "./material.ts";
import type { Terrain } from "./terrain.ts";
import { type TileOptions, TerrainTiles } from "./tiles.ts";
import { TerrainVegetation, type VegetationOptions } from "./vegetation.ts";
import { TerrainWater } from "./water.ts";

export interface TerrainViewOptions {
  tiles?: TileOptions;
  material?: TerrainMaterialOptions;
  vegetation?: VegetationOptions;
  /** Where the followed entity is, by id (null when it is gone): the focus when the terrain follows one. */
  positionOf?: (entity: string) => [number, number, number] | null;
}

export class TerrainView {
  readonly group = new THREE.Group();
  readonly tiles: TerrainTiles;
  readonly water: TerrainWater;
  readonly vegetation: TerrainVegetation;
  readonly material: ReturnType<typeof createTerrainMaterial>;
  /** Tiles still waiting for their wanted level after the last update. */
  pending = 0;

  constructor(private readonly terrain: Terrain, scene: THREE.Object3D, private readonly options: TerrainViewOptions = {}) {
    this.material = createTerrainMaterial({ seaLevel: terrain.region?.params.seaLevel, ...options.material });
    this.tiles = new TerrainTiles(terrain, this.material, options.tiles);
    this.water = new TerrainWater(terrain);
    this.vegetation = new TerrainVegetation(terrain, options.vegetation);
    this.group.name = "terrain-view";
    this.group.add(this.tiles.group, this.water.group, this.vegetation.group);
    scene.add(this.group);
  }

  /** The point tiles stream around: the followed entity, else the camera. */
  focus(camera: THREE.Camera): [number, number, number] {
    const follow = this.terrain.follow;
    const at = follow && this.options.positionOf ? this.options.positionOf(follow) : null;
    if (at) return at;
    const p = camera.getWorldPosition(new THREE.Vector3());
    return [p.x, p.y, p.z];
  }

  /** Streams tiles and culls vegetation for this frame; never waits for a tile. */
  update(camera: THREE.Camera): void {
    const [x, , z] = this.focus(camera);
    if (this.terrain.region) this.material.uniforms.seaLevel.value = this.terrain.region.params.seaLevel;
    this.pending = this.tiles.update(x, z);
    this.vegetation.update(camera);
  }

  dispose(): void {
    this.tiles.dispose();
    this.water.dispose();
    this.vegetation.dispose();
    this.material.dispose();
    this.group.removeFromParent();
  }
}
