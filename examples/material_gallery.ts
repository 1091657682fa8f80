// Demo: The material library on boxes and spheres under the default look, each dressed with material.apply.
// The material library on boxes and spheres, under the default look: each
// entity is dressed with material.apply, in material.list's order.
// Run: limina examples/material_gallery.ts --window
// Or:  limina examples/material_gallery.ts --frames 2 --screenshot materials.png
import { createEngine, resolveProfile } from "limina";

const engine = await createEngine();
const { session } = engine;
const builder = { agentId: "gallery", sessionId: "gallery", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const call = async <T = Record<string, unknown>>(skill: string, input: unknown): Promise<T> => {
  const r = await session.registry.invoke(skill, input, builder);
  if (!r.ok) throw new Error(`${skill}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
};
const floor = (await call<{ entity: string }>("scene.createEntity", { shape: "box", size: 1, position: [0, -0.1, 0], static: true, color: 0x9a968e })).entity;
await call("three.setTransform", { entity: floor, scale: [30, 0.2, 30] });
await call("three.setMaterial", { entity: floor, receiveShadow: true });
await call("three.setLighting", { castShadow: true, direction: [4, 7, 5], ambientIntensity: 0.2 });
const { materials } = await call<{ materials: { name: string }[] }>("material.list", {});
for (const [i, { name }] of materials.entries()) {
  const e = (await call<{ entity: string }>("scene.createEntity", { shape: i % 2 ? "sphere" : "box", size: 0.8, position: [(i % 5) * 1.15 - 2.3, 0.4, Math.floor(i / 5) * 1.15 - 1.15] })).entity;
  await call("material.apply", { entityId: e, material: name });
  await call("three.setMaterial", { entity: e, castShadow: true, receiveShadow: true });
}
await call("camera.set", { position: [0, 3.6, 5.2], target: [0, 0.2, 0], fov: 50 });
