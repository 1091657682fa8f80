// Demo: The billiards break, rendered: 16 balls on native Rapier physics, with shadows (--window, or --frames N --screenshot F).
// The billiards break, rendered: static rails, a racked break of dynamic
// spheres stepped by native Rapier, each ball's position and quaternion
// read back into the SoA so the balls visibly roll, drawn by Three.js's
// WebGPURenderer with shadow-casting light in a billiard hall (an HDRI).
// Run offscreen: limina demo billiards --frames 240 --screenshot billiards.png
import { createEngine } from "limina";
import * as THREE from "three";
import { BALL_RADIUS, breakShot, setupBilliards, TABLE } from "./billiards_core.ts";

const engine = await createEngine({ simulate: true });
const { scene, lighting } = engine.session;
const table = setupBilliards(engine.session.world, engine.session.physics);

// Give every entity of the table a visible object.
const cloth = new THREE.Mesh(new THREE.BoxGeometry(TABLE.halfLength * 2, 0.1, TABLE.halfWidth * 2), new THREE.MeshStandardMaterial({ color: 0x0b6b2e, roughness: 0.9 }));
cloth.position.set(0, -0.05, 0);
cloth.receiveShadow = true;
scene.add(cloth);
const railMaterial = new THREE.MeshStandardMaterial({ color: 0x5a3a1a, roughness: 0.6 });
for (const [x, z, hx, hz] of [[0, TABLE.halfWidth + 0.05, TABLE.halfLength + 0.1, 0.05], [0, -TABLE.halfWidth - 0.05, TABLE.halfLength + 0.1, 0.05], [TABLE.halfLength + 0.05, 0, 0.05, TABLE.halfWidth + 0.1], [-TABLE.halfLength - 0.05, 0, 0.05, TABLE.halfWidth + 0.1]]) {
  const rail = new THREE.Mesh(new THREE.BoxGeometry(hx * 2, TABLE.railHeight * 2, hz * 2), railMaterial);
  rail.position.set(x, TABLE.railHeight / 2, z);
  rail.castShadow = rail.receiveShadow = true;
  scene.add(rail);
}
// Cue ball white; 1–8 solids; 9–15 the same hues, lighter (no stripe texture yet).
const solids = [0xf5c400, 0x1e40ff, 0xe01b1b, 0x6a1b9a, 0xff7a00, 0x0a7a2a, 0x7a1010, 0x111111];
const colorOf = (n: number) => (n === 0 ? 0xffffff : n <= 8 ? solids[n - 1] : new THREE.Color(solids[n - 9]).lerp(new THREE.Color(0xffffff), 0.45).getHex());
for (const ball of table.balls) {
  const mesh = new THREE.Mesh(new THREE.SphereGeometry(BALL_RADIUS, 24, 16), new THREE.MeshStandardMaterial({ color: colorOf(ball.number), roughness: 0.25, metalness: 0.05 }));
  mesh.castShadow = true;
  scene.add(mesh);
  ball.entry.mesh = mesh;
}
lighting.ambient.intensity = 0.4;
lighting.directional.position.set(1.5, 4, 1);
lighting.directional.intensity = 3;
lighting.directional.castShadow = true;
const cam = lighting.directional.shadow.camera as THREE.OrthographicCamera;
cam.left = cam.bottom = -2;
cam.right = cam.top = 2;
engine.camera.position.set(0, 2.2, 1.9);
engine.camera.lookAt(0, 0, 0);
breakShot(table);
// A billiard hall: the warehouse HDRI surrounds and lights the table (loaded after the break is
// set up, so the break's first step is the same however long the load takes).
const { environment } = engine.session.look;
await environment.set({ ...environment.settings(), preset: "warehouse", exposure: 0.9 });
