// Demo: Shadows under a physical sky, a textured glTF and the engine's default look (fog, AO, bloom, grade).
// The fidelity scene, rendered: a sun casting shadows fitted to the view
// onto a receiving floor under the physical sky, a textured glTF model from
// assets/, the engine's default look (sky-lit environment, fog, AO, bloom,
// grade, anti-aliasing), and a spinning bar whose shadow sweeps the floor —
// all authored through scene.* and three.* skills (fidelity_scene_core.ts).
// In the window, drag (or the arrow keys) to orbit and scroll to zoom.
// Run windowed:  limina demo fidelity_scene --window
// Or offscreen:  limina demo fidelity_scene --frames 90 --screenshot fidelity.png
import { createEngine, onFixedStep, steerOrbit } from "limina";
import * as THREE from "three";
import { buildFidelityScene, SPIN_RATE } from "./fidelity_scene_core.ts";

const engine = await createEngine({ antialias: true });
const scene = await buildFidelityScene(engine.session);
const orbit = { target: new THREE.Vector3(0.3, 0.6, 0.4), distance: 7.6, azimuth: -0.73, elevation: 0.4 };
onFixedStep((dt, step) => {
  scene.spinTo(step * dt * SPIN_RATE);
  steerOrbit(engine.camera, orbit, engine.input);
});
