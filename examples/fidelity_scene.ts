// Demo: Real shadow maps, a textured glTF, ACES tone mapping and MSAA, with a spinning caster.
// The fidelity scene, rendered: a directional sun casting real shadow maps
// onto a receiving floor, a textured glTF model from assets/, ACES Filmic
// tone mapping, 4× MSAA, and a spinning bar whose shadow sweeps the floor —
// all authored through scene.* and three.* skills (fidelity_scene_core.ts).
// In the window, drag (or the arrow keys) to orbit and scroll to zoom.
// Run windowed:  limina demo fidelity_scene --window
// Or offscreen:  limina demo fidelity_scene --frames 90 --screenshot fidelity.png
import { createEngine, onFixedStep, steerOrbit } from "limina";
import * as THREE from "three";
import { buildFidelityScene, SPIN_RATE } from "./fidelity_scene_core.ts";

const engine = await createEngine({ antialias: true });
engine.renderer.toneMapping = THREE.ACESFilmicToneMapping;
engine.renderer.toneMappingExposure = 1.1;
const scene = await buildFidelityScene(engine.session);
engine.session.scene.background = new THREE.Color(0x8fa9c4);
const orbit = { target: new THREE.Vector3(0.3, 0.6, 0.4), distance: 7.6, azimuth: -0.73, elevation: 0.4 };
onFixedStep((dt, step) => {
  scene.spinTo(step * dt * SPIN_RATE);
  steerOrbit(engine.camera, orbit, engine.input);
});
