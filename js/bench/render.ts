// Offscreen frame time at 1280×720 on whatever WebGPU adapter this machine
// has: the billiards scene, and 2000 instanced boxes. A frame is render +
// the GPU finishing it (gpuIdle), no readback.
// Run: limina js/bench/render.ts   (final line: JSON figures)
import { createOffscreenRenderer, gpuIdle } from "limina";
import { round, summarize } from "limina/bench";
import * as THREE from "three";

const W = 1280;
const H = 720;
const out = await createOffscreenRenderer(W, H, { antialias: true });
const renderer = out.renderer;
renderer.shadowMap.enabled = true;
renderer.toneMapping = THREE.ACESFilmicToneMapping;
const device: GPUDevice = (renderer.backend as unknown as { device: GPUDevice }).device;

async function time(scene: THREE.Scene, camera: THREE.Camera, frames: number, animate: (f: number) => void) {
  for (let i = 0; i < 5; i++) {
    renderer.render(scene, camera);
    await gpuIdle(device);
  }
  const t: number[] = [];
  for (let f = 0; f < frames; f++) {
    animate(f);
    const a = performance.now();
    renderer.render(scene, camera);
    await gpuIdle(device);
    t.push(performance.now() - a);
  }
  const s = summarize(t);
  return { fps: round(1000 / s.mean, 1), frameP50Ms: round(s.p50, 2), frameP95Ms: round(s.p95, 2) };
}

function lights(scene: THREE.Scene, extent: number) {
  scene.add(new THREE.AmbientLight(0xffffff, 0.4));
  const sun = new THREE.DirectionalLight(0xffffff, 3);
  sun.position.set(extent * 0.4, extent, extent * 0.3);
  sun.castShadow = true;
  const c = sun.shadow.camera as THREE.OrthographicCamera;
  c.left = c.bottom = -extent;
  c.right = c.top = extent;
  scene.add(sun, sun.target);
}

// Billiards: table, rails and 16 balls.
const billiards = new THREE.Scene();
lights(billiards, 2);
const cloth = new THREE.Mesh(new THREE.BoxGeometry(2.54, 0.1, 1.27), new THREE.MeshStandardMaterial({ color: 0x0b6b2e }));
cloth.receiveShadow = true;
billiards.add(cloth);
const balls: THREE.Mesh[] = [];
for (let i = 0; i < 16; i++) {
  const b = new THREE.Mesh(new THREE.SphereGeometry(0.0286, 24, 16), new THREE.MeshStandardMaterial({ color: new THREE.Color().setHSL(i / 16, 0.8, 0.5) }));
  b.castShadow = true;
  billiards.add(b);
  balls.push(b);
}
const cam1 = new THREE.PerspectiveCamera(55, W / H, 0.1, 50);
cam1.position.set(0, 2.2, 1.9);
cam1.lookAt(0, 0, 0);
const billiardsFigures = await time(billiards, cam1, 60, (f) => balls.forEach((b, i) => b.position.set(Math.cos(f * 0.05 + i) * 1.1, 0.08, Math.sin(f * 0.07 + i) * 0.5)));

// 2000 instanced boxes moving every frame.
const crowd = new THREE.Scene();
lights(crowd, 60);
const floor = new THREE.Mesh(new THREE.PlaneGeometry(200, 200), new THREE.MeshStandardMaterial({ color: 0x777777 }));
floor.rotation.x = -Math.PI / 2;
floor.receiveShadow = true;
crowd.add(floor);
const N = 2000;
const boxes = new THREE.InstancedMesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshStandardMaterial({ color: 0x3399ff }), N);
boxes.castShadow = true;
crowd.add(boxes);
const m = new THREE.Matrix4();
const cam2 = new THREE.PerspectiveCamera(55, W / H, 0.1, 500);
cam2.position.set(60, 50, 80);
cam2.lookAt(0, 0, 0);
const crowdFigures = await time(crowd, cam2, 60, (f) => {
  for (let i = 0; i < N; i++) {
    m.setPosition(((i % 50) - 25) * 2 + Math.cos(f * 0.1 + i), 0.5, (Math.floor(i / 50) - 20) * 2 + Math.sin(f * 0.1 + i));
    boxes.setMatrixAt(i, m);
  }
  boxes.instanceMatrix.needsUpdate = true;
});

const figures = { bench: "render", adapter: out.adapter, width: W, height: H, msaaSamples: renderer.samples, billiards: billiardsFigures, instanced2000: crowdFigures };
console.log(`${out.adapter} at ${W}×${H}: billiards ${billiardsFigures.fps} fps (p95 ${billiardsFigures.frameP95Ms} ms), 2000 instanced boxes ${crowdFigures.fps} fps (p95 ${crowdFigures.frameP95Ms} ms)`);
console.log(JSON.stringify(figures));
