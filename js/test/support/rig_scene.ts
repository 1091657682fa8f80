// A user's rig walking, for js/test/character.ts, run in a child process
// whose LIMINA_ASSETS_DIR holds the rig (support/rig.ts) as asset "rig":
// character.spawn {model: "rig"}, its clips listed, its own clip played by
// name, then walked by nav.moveTo on the built-in walk clip bound to its
// bones by name. Prints what it saw as one JSON line.
import { createWorldSession, resolveProfile, type WorldSession } from "limina";
import * as THREE from "three";

const STEP = 1 / 60;
const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

async function call<T = Record<string, unknown>>(s: WorldSession, tool: string, input: unknown): Promise<T> {
  const r = await s.registry.invoke(tool, input, BUILDER);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

const s = createWorldSession({ simulate: false, checkpointEvery: 0 });
await call(s, "scene.createEntity", { shape: "box", size: 40, position: [0, -20, 0], static: true });
s.step(STEP);
await call(s, "nav.build", {});
const { entityId } = await call<{ entityId: string }>(s, "character.spawn", { position: [-4, 0, 0], model: "rig" });
const rig = s.characters.get(entityId)!.rig;
/** How far (radians) a bone of the user's rig is turned from its rest pose. */
const turned = (bone: string) => (rig.getObjectByName(bone) as THREE.Bone).quaternion.angleTo(new THREE.Quaternion());
const skinned = (() => {
  let found = false;
  rig.traverse((o) => (found ||= (o as THREE.SkinnedMesh).isSkinnedMesh === true));
  return found;
})();

for (let i = 0; i < 10; i++) s.step(STEP);
const clips = (await call<{ clips: string[] }>(s, "animation.list", { entityId })).clips;
const idle = await call<{ state: string; clip: string }>(s, "animation.getState", { entityId });

await call(s, "animation.play", { entityId, clip: "dance" });
let spine = 0;
for (let i = 0; i < 36; i++) {
  s.step(STEP);
  spine = Math.max(spine, turned("Spine"));
}
const dancing = await call<{ state: string; clip: string }>(s, "animation.getState", { entityId });

await call(s, "nav.moveTo", { entityId, target: [4, 0, 0], speed: 1.3 });
let leg = 0;
let walking: { state: string; clip: string } | null = null;
let arrived = false;
for (let i = 0; i < 60 * 15 && !arrived; i++) {
  s.step(STEP);
  leg = Math.max(leg, turned("LeftUpLeg"));
  if (i === 40) walking = await call(s, "animation.getState", { entityId });
  arrived = s.tracer.tail().some((e) => e.type === "nav.arrived");
}
const at = s.world.position(s.world.entities.get(entityId)!.eid);
console.log(JSON.stringify({ skinned, clips, idle, dancing, spine, walking, leg, arrived, at }));
s.dispose();
