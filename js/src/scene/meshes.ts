// The meshes of a scene object and their materials: what styling,
// snapshots and model statistics walk.

import type * as THREE from "three";

/** Every mesh at or under `object`. */
export function meshesOf(object: THREE.Object3D): THREE.Mesh[] {
  const out: THREE.Mesh[] = [];
  object.traverse((o) => {
    if ((o as THREE.Mesh).isMesh) out.push(o as THREE.Mesh);
  });
  return out;
}

/** A mesh's materials (one, or its array), as the PBR materials the engine styles. */
export function materialsOf(mesh: THREE.Mesh): THREE.MeshStandardMaterial[] {
  return (Array.isArray(mesh.material) ? mesh.material : [mesh.material]) as THREE.MeshStandardMaterial[];
}
