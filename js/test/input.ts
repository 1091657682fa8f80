// Input without a window, and the orbit camera it steers. (Real window
// input is driven through Xvfb in render_window.ts.)
import { assert, assertEquals, test } from "limina/testing";
import * as THREE from "three";
import { Input, steerOrbit } from "limina";

test("without a window, polling yields nothing and holds nothing", () => {
  const input = new Input();
  assertEquals(input.poll(), []);
  assertEquals([input.down.size, input.pressed.size, input.pointer.buttons, input.wheel], [0, 0, 0, 0]);
});

test("the orbit camera: drag turns it, the wheel zooms, elevation stays above the floor", () => {
  const camera = new THREE.PerspectiveCamera();
  const input = new Input();
  const orbit = { target: new THREE.Vector3(1, 0, 2), distance: 10, azimuth: 0, elevation: 0.5 };
  steerOrbit(camera, orbit, input);
  assert(Math.abs(camera.position.distanceTo(orbit.target) - 10) < 1e-9, "on the orbit");
  assert(Math.abs(camera.position.x - 1) < 1e-9 && camera.position.z > 2, "azimuth 0 looks from +z");

  input.pointer.buttons = 1;
  input.pointer.dx = 100;
  steerOrbit(camera, orbit, input);
  assert(Math.abs(orbit.azimuth + 0.8) < 1e-9, `dragged right 100 px turns −0.8 rad: ${orbit.azimuth}`);
  input.pointer.buttons = 0;

  input.wheel = 2;
  steerOrbit(camera, orbit, input);
  assert(Math.abs(orbit.distance - 8.1) < 1e-9, `two notches in: ${orbit.distance}`);
  input.wheel = 0;

  input.down.add("ArrowDown");
  for (let i = 0; i < 100; i++) steerOrbit(camera, orbit, input);
  assertEquals(orbit.elevation, 0.05, "clamped just above the horizon");
  assert(camera.position.y > orbit.target.y, "the camera stays above its target");
});
