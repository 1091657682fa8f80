// The crowd walk: skinned humanoids — each its own height, build and
// colours — crossing a plaza between planters and a fountain along the
// navmesh, avoiding each other, their animation walking as fast as their
// bodies go (crowd_walk_core.ts). The camera circles the plaza (camera.orbit).
// Run windowed:  limina demo crowd_walk --window
// Offscreen:     limina demo crowd_walk --frames 240 --screenshot crowd.png
// Arguments:     the number of walkers (default 40)
import { createEngine, onFixedStep } from "limina";
import { buildPlaza, spawnWalkers } from "./crowd_walk_core.ts";

const n = Number(Limina.args[0] ?? 40);
const engine = await createEngine({ paused: true });
const { session } = engine;
const host = session.mcp();
host.initialize({ agentId: "plaza_host", sessionId: "sess_plaza_host", profile: "builder.readWrite" });
await buildPlaza(host, session);
const walkers = await spawnWalkers(host, session, n);
await host.mustCall("camera.orbit", { target: [0, 0, 0], distance: 20, height: 9, speed: 0.08 });
session.paused = false;
console.log(`crowd_walk: ${n} walkers on the plaza`);
onFixedStep((_dt, step) => {
  void walkers.keepWalking();
  if (step % 120 === 0) console.log(`t=${step / 60}s: ${walkers.arrivals()} arrivals so far`);
});
