// Counts the edge pixels an unlit white triangle leaves partly covered on a
// black background: zero without multisampling, many with it.
import * as THREE from "three";

export async function partlyCoveredPixels(renderer: THREE.WebGPURenderer, readPixels: () => Promise<Uint8Array>): Promise<number> {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x000000);
  const geometry = new THREE.BufferGeometry().setAttribute("position", new THREE.Float32BufferAttribute([-0.9, -0.7, 0, 0.8, -0.3, 0, -0.2, 0.85, 0], 3));
  scene.add(new THREE.Mesh(geometry, new THREE.MeshBasicMaterial({ color: 0xffffff })));
  const camera = new THREE.OrthographicCamera(-1, 1, 1, -1, 0.1, 10);
  camera.position.z = 1;
  const toneMapping = renderer.toneMapping;
  renderer.toneMapping = THREE.NoToneMapping;
  renderer.render(scene, camera);
  renderer.toneMapping = toneMapping;
  const px = await readPixels();
  let partial = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i] > 8 && px[i] < 247) partial++;
  return partial;
}
