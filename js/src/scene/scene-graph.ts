// The Three.js scene graph a world session renders: the scene and its one
// ambient + one directional light (what `three.setLighting` controls).

import * as THREE from "three";
import type { Vec3 } from "../ecs/world.ts";
import { Revision } from "../render/look.ts";

export interface Lighting {
  ambient: THREE.AmbientLight;
  directional: THREE.DirectionalLight;
}

export function createSceneGraph(): { scene: THREE.Scene; lighting: Lighting } {
  const scene = new THREE.Scene();
  const ambient = new THREE.AmbientLight(0x404060, 1.2);
  const directional = new THREE.DirectionalLight(0xffffff, 3);
  directional.position.set(5, 9, 6);
  scene.add(ambient, directional, directional.target);
  return { scene, lighting: { ambient, directional } };
}

/** The lighting as snapshots save it, digests hash it and the state stream sends it. */
export interface SavedLighting {
  ambient: { color: number; intensity: number };
  directional: {
    color: number;
    intensity: number;
    position: Vec3;
    castShadow: boolean;
    shadow: { mapSize: number; extent: number; near: number; far: number; bias: number };
  };
}

/** The lighting as snapshots save it and digests hash it. */
export function saveLighting({ ambient, directional }: Lighting): SavedLighting {
  const cam = directional.shadow.camera as THREE.OrthographicCamera;
  const p = directional.position;
  return {
    ambient: { color: ambient.color.getHex(), intensity: ambient.intensity },
    directional: {
      color: directional.color.getHex(),
      intensity: directional.intensity,
      position: [p.x, p.y, p.z],
      castShadow: directional.castShadow,
      shadow: { mapSize: directional.shadow.mapSize.x, extent: cam.right, near: cam.near, far: cam.far, bias: directional.shadow.bias },
    },
  };
}

/** A revision that moves whenever `saveLighting` may read differently (it reads what that does: code may set any of it). */
export function lightingRevision({ ambient, directional }: Lighting): Revision {
  return new Revision((out) => {
    const cam = directional.shadow.camera as THREE.OrthographicCamera;
    const { color: a } = ambient;
    const { color: d, position: p, shadow } = directional;
    out.push(a.r, a.g, a.b, ambient.intensity, d.r, d.g, d.b, directional.intensity, p.x, p.y, p.z, directional.castShadow);
    out.push(shadow.mapSize.x, cam.right, cam.near, cam.far, shadow.bias);
  });
}

/** Sets the lights as `l` describes them. */
export function applyLighting({ ambient, directional }: Lighting, l: SavedLighting): void {
  ambient.color.setHex(l.ambient.color);
  ambient.intensity = l.ambient.intensity;
  directional.color.setHex(l.directional.color);
  directional.intensity = l.directional.intensity;
  directional.position.set(...l.directional.position);
  directional.target.position.set(0, 0, 0);
  directional.castShadow = l.directional.castShadow;
  const s = l.directional.shadow;
  directional.shadow.mapSize.set(s.mapSize, s.mapSize);
  const cam = directional.shadow.camera as THREE.OrthographicCamera;
  cam.left = cam.bottom = -s.extent;
  cam.right = cam.top = s.extent;
  cam.near = s.near;
  cam.far = s.far;
  cam.updateProjectionMatrix();
  directional.shadow.bias = s.bias;
}
