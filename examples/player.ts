// Demo: An agent player perceives targets, decides off the frame path and pushes itself toward the nearest.
// An Agent Player: a box that perceives the targets around it, decides off
// the frame path (a ScriptedProvider pursuing the nearest target) and acts
// through physics impulses routed via the skill registry, rendered with a
// chase camera. Reached targets turn green; when all are reached a new round
// scatters them again. It prints its progress once per simulated second.
// Run windowed:  limina demo player --window
// Or offscreen:  limina demo player --deterministic --frames 900 --screenshot player.png
import { createAgentSystems, createEngine, onFixedStep, pursueNearest, ScriptedProvider } from "limina";
import * as THREE from "three";

const engine = await createEngine();
const session = engine.session;
const solid = { dynamic: false, static: true, color: 0x556655, friction: 0.6, restitution: 0 };
const ground = session.entities.create({ shape: "box", size: 40, position: [0, -20, 0], ...solid });
// A sliding box: friction brakes it between pushes, so it can stop at a target.
const player = session.entities.create({ shape: "box", size: 1, position: [0, 0.5, 0], dynamic: true, static: false, color: 0x3399ff, friction: 0.9, restitution: 0 });
const targets = [[6, 0.3, 2], [-4, 0.3, 7], [-8, 0.3, -5], [9, 0.3, -8]].map((p) =>
  session.entities.create({ shape: "box", size: 0.6, position: p as [number, number, number], ...solid, color: 0xff5533, tags: ["target"] })
);

const reached = new Set<string>();
const agents = createAgentSystems(session, {
  scripted: new ScriptedProvider(pursueNearest(4, (id) => reached.has(id) || !session.world.entities.get(id)?.tags.has("target"))),
});
agents.agents.add({
  id: "agt_player",
  type: "player",
  entityId: player.id,
  perceptionRadius: 30,
  decisionIntervalTicks: 10,
  profile: "player.limited",
  sessionId: "ses_player",
  llm: { provider: "scripted", model: "", systemPrompt: "pursue the nearest target" },
});

const pos = () => session.world.position(player.eid);

session.scene.background = new THREE.Color(0x9db8d2);
session.lighting.ambient.intensity = 0.8;
session.lighting.directional.position.set(8, 14, 6);
session.lighting.directional.castShadow = true;
const shadowCamera = session.lighting.directional.shadow.camera as THREE.OrthographicCamera;
shadowCamera.left = shadowCamera.bottom = -16;
shadowCamera.right = shadowCamera.top = 16;
shadowCamera.updateProjectionMatrix();
for (const e of session.world.entities.entries()) {
  const mesh = e.mesh as THREE.Mesh;
  mesh.castShadow = e !== ground;
  mesh.receiveShadow = true;
}
// A chase camera, eased toward a point behind and above the player.
const eye = new THREE.Vector3(0, 9, 12);
onFixedStep(() => {
  const [x, y, z] = pos();
  eye.lerp(new THREE.Vector3(x, y + 8, z + 11), 0.05);
  engine.camera.position.copy(eye);
  engine.camera.lookAt(x, y, z);
});
const TARGET_RED = 0xff5533;
const colorOf = (t: (typeof targets)[number], hex: number) => ((t.mesh as THREE.Mesh).material as THREE.MeshStandardMaterial).color.setHex(hex);
// A fixed-seed generator: every run scatters the same rounds.
let seed = 0x2545f491;
const random = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
};
let round = 1;
let actions = 0;
session.tracer.subscribe((e) => {
  if (e.type === "skill.executed" && e.actorId === "agt_player") actions++;
});
onFixedStep((_dt, step) => {
  const [x, , z] = pos();
  for (const t of targets) {
    if (reached.has(t.id)) continue;
    const [tx, , tz] = session.world.position(t.eid);
    if (Math.hypot(tx - x, tz - z) < 1.0) {
      reached.add(t.id);
      colorOf(t, 0x33cc55);
      console.log(`  step ${step}: reached target ${t.id} (${reached.size}/${targets.length})`);
    }
  }
  if (step % 60 === 0) {
    const next = targets.filter((t) => !reached.has(t.id)).map((t) => Math.hypot(session.world.position(t.eid)[0] - x, session.world.position(t.eid)[2] - z));
    console.log(`t=${step / 60}s player at (${x.toFixed(2)}, ${z.toFixed(2)}), nearest target ${next.length ? Math.min(...next).toFixed(2) + " m" : "none left"}, ${actions} actions`);
  }
  if (reached.size === targets.length) {
    console.log(`round ${round}: all ${targets.length} targets reached by step ${step}`);
    round++;
    reached.clear();
    for (const t of targets) {
      const angle = random() * Math.PI * 2;
      const distance = 5 + random() * 9;
      session.entities.setTransform(t, { position: [x + Math.cos(angle) * distance, 0.3, z + Math.sin(angle) * distance].map((v, i) => (i === 1 ? v : Math.max(-18, Math.min(18, v)))) as [number, number, number] });
      colorOf(t, TARGET_RED);
    }
  }
});
