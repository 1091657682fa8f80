// The Three.js scene graph a world session renders: the scene and its one
// ambient + one directional light (what `three.setLighting` controls).

import * as THREE from "three";

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
