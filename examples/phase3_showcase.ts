// Demo: An arena built by two MCP builder sessions, agents playing in it, the world log exported and verified.
// The Phase-3 showcase: one arena built by two bound MCP builder sessions
// (shadow-casting light, textured glTF models, a physical floor, bumpers
// and a stack of dynamic crates), a read-only observer refused a write,
// three in-world players — agents in Rapier bodies — chasing targets under
// one scheduler budget whose weights (1 : 2 : 3) decide who gets to act,
// every body synced from physics into the scene, and devtools evidence
// printed as it accrues: inspector snapshots and the trace tail every
// 2.5 s, and at 5 s the policy audit and an exported trace whose chain is
// verified.
// Drag (or the arrow keys) to orbit, scroll to zoom.
// Run windowed:  limina demo phase3_showcase --window
// Or offscreen:  limina demo phase3_showcase --frames 420 --screenshot showcase.png
import { createEngine, onFixedStep, steerOrbit } from "limina";
import * as THREE from "three";
import { buildShowcase, PLAYERS } from "./phase3_showcase_core.ts";

// Paused while the builders' awaited calls build the arena: time starts once it stands, so a
// --deterministic run is the same every time, however long the build took.
const engine = await createEngine({ policy: true, paused: true });
const { session } = engine;
session.scene.background = new THREE.Color(0x1d2433);
const show = await buildShowcase(session);
session.paused = false;
console.log(`phase3_showcase: built by two bound builder sessions: ${session.world.entities.size} entities, ${session.physics.bodyCount()} physics bodies`);
console.log(`observer (system.readonly) tried scene.createEntity → ${show.denied.code}: ${show.denied.message}`);

const orbit = { target: new THREE.Vector3(0, 0.5, 0), distance: 21, azimuth: 0.5, elevation: 0.62 };
let busy = false;
onFixedStep((dt) => {
  orbit.azimuth += 0.05 * dt;
  steerOrbit(engine.camera, orbit, engine.input);
  // Devtools evidence every 2.5 s of world time (skipped while the last report is still being gathered).
  const step = session.tick;
  if (step % 150 !== 0 || busy) return;
  busy = true;
  void (async () => {
    const e = await show.evidence();
    const t = (step * dt).toFixed(1);
    const moved = show.crates.filter((c, k) => {
      const p = session.world.position(c.eid);
      return Math.hypot(p[0] - show.crateStart[k][0], p[1] - show.crateStart[k][1], p[2] - show.crateStart[k][2]) > 0.05;
    }).length;
    const inspector = `${e.entities} entities, ${e.agents} agents, ${e.skills} skills, ${e.traceEvents} trace events from ${e.actors} actors`;
    const scheduler = PLAYERS.map((p, k) => `${p.id} weight ${p.weight}: ${e.actions[p.id]} actions, ${e.rejected[p.id]} turned away, ${show.scores[k]} targets`);
    const panel = [`t=${t}s  ${inspector}`, `physics: ${moved} of ${show.crates.length} crates knocked about`, ...PLAYERS.map((p) => `${p.id} (weight ${p.weight}): ${e.actions[p.id]} actions`), `last: ${e.tail[e.tail.length - 1] ?? "none yet"}`];
    console.log(`t=${t}s inspector: ${inspector}; physics: ${moved} of ${show.crates.length} crates knocked about`);
    console.log(`t=${t}s scheduler (1 action/tick shared): ${scheduler.join("; ")}`);
    console.log(`t=${t}s trace tail of ${PLAYERS[PLAYERS.length - 1].id}'s actions: ${e.tail.join(" → ")}`);
    if (step === 300) {
      // Once: these two read or write the whole world log.
      const audit = await show.audit();
      console.log(`t=${t}s audit: ${audit.map((a) => `${a.sessionId} ${a.allowed} allowed/${a.denied} denied`).join(", ")}`);
      const x = await show.exportTrace("phase3-showcase");
      console.log(`t=${t}s exported ${x.events} events to traces/${x.name}; chain verified (${x.verified} events)`);
      panel.push(`audit: observer ${audit.find((a) => a.sessionId === "sess_observer")?.denied ?? 0} denied`, `exported ${x.events} events, chain verified`);
    }
    show.display(panel);
    busy = false;
  })();
});
