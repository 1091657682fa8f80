// Water surfaces: the sea and lakes as TSL-shaded planes — colour by depth
// (read from the region's heights in a float texture), animated normals from
// scrolling waves, foam along the shore, and the scene's environment
// reflected by a smooth, Fresnel-weighted surface. Pure three.js over the
// terrain's data (no ops): the browser page bundles it too.

import * as THREE from "three";
import { cameraPosition, clamp, color, float, mix, normalize, positionWorld, sin, smoothstep, texture, time, transformNormalToView, vec2, vec3 } from "three/tsl";
import type { Region, Terrain, TerrainChange, Water } from "./terrain.ts";

/** The region's heights as a float texture (red channel), sampled by world x, z. */
export function heightTexture(region: Region): THREE.DataTexture {
  const n = region.layout.samples;
  const t = new THREE.DataTexture(region.heights, n, n, THREE.RedFormat, THREE.FloatType);
  t.magFilter = THREE.NearestFilter;
  t.minFilter = THREE.NearestFilter;
  t.needsUpdate = true;
  return t;
}

/** The water material over `heights` (a region's height texture), for a surface at `level`. */
export function createWaterMaterial(region: Region, heights: THREE.DataTexture, level: number): THREE.MeshStandardNodeMaterial {
  const { origin, extent, spacing } = region.layout;
  const span = extent + spacing;
  const uv = vec2(positionWorld.x.sub(origin[0]).div(span), positionWorld.z.sub(origin[1]).div(span));
  const ground = texture(heights, uv).r;
  const depth = clamp(float(level).sub(ground), 0, 100);
  const shallow = color(0x2f9c95);
  const deep = color(0x0b2a4a);
  const water = mix(shallow, deep, smoothstep(0, 9, depth));
  // Foam: a band at the shore, broken by moving ripples.
  const t = time;
  const ripple = sin(positionWorld.x.mul(0.9).add(t.mul(1.7))).mul(sin(positionWorld.z.mul(1.1).sub(t.mul(1.3))));
  const foam = smoothstep(0.9, 0.0, depth).mul(ripple.mul(0.35).add(0.75));
  // Waves: the sum of a few travelling sines tilts the normal.
  const wx = sin(positionWorld.x.mul(0.21).add(t.mul(0.8))).mul(0.12).add(sin(positionWorld.x.mul(0.67).add(positionWorld.z.mul(0.31)).add(t.mul(1.9))).mul(0.06));
  const wz = sin(positionWorld.z.mul(0.17).sub(t.mul(0.6))).mul(0.12).add(sin(positionWorld.z.mul(0.83).sub(positionWorld.x.mul(0.27)).add(t.mul(2.3))).mul(0.05));
  const normal = normalize(vec3(wx, 1, wz));
  const view = normalize(cameraPosition.sub(positionWorld));
  const fresnel = float(1).sub(clamp(view.dot(normal), 0, 1)).pow(4).mul(0.9).add(0.05);
  const m = new THREE.MeshStandardNodeMaterial({ transparent: true });
  m.colorNode = mix(water, vec3(0.95, 0.97, 1), foam.clamp(0, 1));
  m.opacityNode = mix(smoothstep(0, 2.5, depth).mul(0.6).add(0.3), float(1), foam.clamp(0, 1)).max(fresnel);
  m.roughnessNode = mix(float(0.06), float(0.5), foam.clamp(0, 1));
  m.metalnessNode = fresnel.mul(0.5);
  m.normalNode = transformNormalToView(normal);
  m.depthWrite = false;
  return m;
}

/** The water surfaces of a terrain, kept in step with its bodies of water. */
export class TerrainWater {
  readonly group = new THREE.Group();
  private heights: THREE.DataTexture | null = null;
  private readonly unsubscribe: () => void;

  constructor(private readonly terrain: Terrain) {
    this.group.name = "water";
    this.unsubscribe = terrain.onChange((c: TerrainChange) => {
      if (c.type === "region" || c.type === "water") this.rebuild();
      else if (c.type === "heights" && this.heights) this.heights.needsUpdate = true;
    });
    this.rebuild();
  }

  private rebuild(): void {
    for (const m of [...this.group.children] as THREE.Mesh[]) {
      m.removeFromParent();
      m.geometry.dispose();
      (m.material as THREE.Material).dispose();
    }
    this.heights?.dispose();
    const region = this.terrain.region;
    this.heights = region ? heightTexture(region) : null;
    if (!region || !this.heights) return;
    for (const w of this.terrain.waters) this.group.add(this.surface(region, this.heights, w));
  }

  private surface(region: Region, heights: THREE.DataTexture, w: Water): THREE.Mesh {
    const { origin, extent } = region.layout;
    const geometry = w.region ? new THREE.CircleGeometry(w.region.radius, 96) : new THREE.PlaneGeometry(extent * 3, extent * 3, 1, 1);
    geometry.rotateX(-Math.PI / 2);
    const mesh = new THREE.Mesh(geometry, createWaterMaterial(region, heights, w.level));
    const [cx, cz] = w.region ? w.region.center : [origin[0] + extent / 2, origin[1] + extent / 2];
    mesh.position.set(cx, w.level, cz);
    mesh.name = w.id;
    mesh.renderOrder = 1;
    return mesh;
  }

  dispose(): void {
    this.unsubscribe();
    this.heights?.dispose();
    this.group.removeFromParent();
  }
}
