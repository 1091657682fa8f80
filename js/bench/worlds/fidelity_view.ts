// The fidelity scene as the look benches view it: an offscreen engine at
// width × height with no MSAA and no simulation, the scene built, and the
// camera where both benches look from.
import { createEngine } from "limina";
import { buildFidelityScene } from "../../../examples/fidelity_scene_core.ts";

export async function fidelityView(width: number, height: number) {
  const engine = await createEngine({ width, height, antialias: false, simulate: false });
  const scene = await buildFidelityScene(engine.session);
  engine.camera.position.set(-4.3, 3.6, 5.6);
  engine.camera.lookAt(0.3, 0.6, 0.4);
  const device: GPUDevice = (engine.renderer.backend as unknown as { device: GPUDevice }).device;
  return { engine, scene, session: engine.session, renderer: engine.renderer, device };
}
