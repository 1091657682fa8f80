// An Agent Player: a ball that perceives the targets around it, decides off
// the frame path (a ScriptedProvider pursuing the nearest target) and acts
// through physics impulses routed via the skill registry. Headless, it
// prints its progress once per simulated second.
// Run: limina --deterministic --frames 900 js/src/demos/player.ts
import { createAgentSystems } from "../agents/systems.ts";
import { pursueNearest } from "../agents/policies.ts";
import { ScriptedProvider } from "../agents/providers/scripted.ts";
import { onFixedStep } from "../loop.ts";
import { createEntity } from "../scene/entities.ts";
import { createWorldSession } from "../world-session.ts";

const session = createWorldSession();
const w = session.world;
const solid = { dynamic: false, static: true, color: 0x556655, friction: 0.6, restitution: 0 };
createEntity(w, { shape: "box", size: 40, position: [0, -20, 0], ...solid });
// A sliding box: friction brakes it between pushes, so it can stop at a target.
const player = createEntity(w, { shape: "box", size: 1, position: [0, 0.5, 0], dynamic: true, static: false, color: 0x3399ff, friction: 0.9, restitution: 0 });
const targets = [[6, 0.3, 2], [-4, 0.3, 7], [-8, 0.3, -5], [9, 0.3, -8]].map((p) =>
  createEntity(w, { shape: "box", size: 0.6, position: p as [number, number, number], ...solid, color: 0xff5533, tags: ["target"] })
);

const reached = new Set<string>();
const agents = createAgentSystems(session, {
  scripted: new ScriptedProvider(pursueNearest(4, (id) => reached.has(id) || !w.world.entities.get(id)?.tags.has("target"))),
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

const pos = () => w.world.position(player.eid);
onFixedStep((_dt, step) => {
  const [x, , z] = pos();
  for (const t of targets) {
    if (reached.has(t.id)) continue;
    const [tx, , tz] = w.world.position(t.eid);
    if (Math.hypot(tx - x, tz - z) < 1.0) {
      reached.add(t.id);
      console.log(`  step ${step}: reached target ${t.id} (${reached.size}/${targets.length})`);
    }
  }
  if (step % 60 === 0) {
    const next = targets.filter((t) => !reached.has(t.id)).map((t) => Math.hypot(w.world.position(t.eid)[0] - x, w.world.position(t.eid)[2] - z));
    const actions = session.tracer.history().filter((e) => e.type === "skill.executed" && e.actorId === "agt_player").length;
    console.log(`t=${step / 60}s player at (${x.toFixed(2)}, ${z.toFixed(2)}), nearest target ${next.length ? Math.min(...next).toFixed(2) + " m" : "none left"}, ${actions} actions`);
  }
  if (reached.size === targets.length) {
    console.log(`all ${targets.length} targets reached in ${step} steps`);
    Limina.loop.stop();
  }
});
