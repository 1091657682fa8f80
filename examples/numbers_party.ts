// Demo: 200 number-people wander a plaza, meet and chat: real agents, a live trace HUD and a perf overlay.
// The numbers party: 200 humanoid number-people wander a plaza, spot
// someone free, walk up and chat in babbling blips, then part — each one a
// real agent (numbers_party_core.ts): perceived by one batched native
// spatial query per tick, deciding off the frame path, acting only through
// traced skills (nav.moveTo through the navmesh crowd, which keeps them off
// each other; audio.playAt for every blip, heard from the camera;
// ui.speechBubble for each line said). The crowd is one instanced,
// GPU-skinned draw, its feet matched to its speed. An
// ambience bed plays under the chatter. An agent-ops HUD streams the agents'
// world-log events as they are written, beside a perf overlay (render fps,
// simulation steps per second, sim-step p95: under --deterministic the loop
// runs as fast as it can and offscreen renders only what a screenshot needs,
// so the two rates differ). The camera flies round the plaza; drag (or the arrow keys) to steer
// it, scroll to zoom. Once a second it prints what the party did and how fast.
// Run windowed:  limina demo numbers_party --window        (or --fullscreen)
// Bounded:       limina demo numbers_party --window --frames 600
// Offscreen:     limina demo numbers_party --frames 300 --screenshot party.png
import { createEngine, onFixedStep, onFrame, steerOrbit } from "limina";
import { percentile } from "limina/bench";
import * as THREE from "three";
import { AGENTS, createHud, createParty, dressPlaza, type Party, PLAZA_RADIUS } from "./numbers_party_core.ts";

// Registered before the engine's own frame system, so each frame draws the crowd where it is now.
let party: Party | null = null;
onFrame(() => party?.draw());

const engine = await createEngine();
const { session } = engine;
dressPlaza(session);
party = await createParty(session, { frameHeight: () => engine.output.height });
console.log(`numbers_party: ${AGENTS} number-people on a ${PLAZA_RADIUS} m plaza, each an agent deciding six times a second`);

// The party's host starts the ambience bed and keeps the HUD, through skills like everyone else.
const host = session.mcp();
host.initialize({ agentId: "party_host", sessionId: "sess_party_host", profile: "builder.readWrite" });
const bed = await host.callTool({ tool: "audio.ambient", input: { volume: 0.25 } });
if (!bed.success) console.log(`no ambience: ${bed.error?.code}: ${bed.error?.message}`);

const hud = await createHud(host, session);

const orbit = { target: new THREE.Vector3(0, 0.8, 0), distance: 20, azimuth: 0.4, elevation: 0.5 };
let lastReport = performance.now();
let lastFrames = 0;
let lastSteps = 0;
let lastMoves = 0;
onFixedStep((dt, step) => {
  // A slow flythrough: round the plaza, in and out, up and down.
  const t = step * dt;
  orbit.azimuth += 0.07 * dt;
  orbit.distance += (16 + 5 * Math.sin(t * 0.11) - orbit.distance) * 0.02;
  orbit.elevation += (0.42 + 0.16 * Math.sin(t * 0.07) - orbit.elevation) * 0.02;
  steerOrbit(engine.camera, orbit, engine.input);
  if (step % 12 === 0) hud.feed();
  if (step % 60 === 0 && party) {
    const now = performance.now();
    const s = party.stats();
    const frames = engine.renderedFrames();
    const fps = ((frames - lastFrames) * 1000) / (now - lastReport);
    const stepsPerSecond = ((step - lastSteps) * 1000) / (now - lastReport);
    const times = party.stepTimes().sort((a, b) => a - b);
    const p95 = percentile(times, 95);
    hud.perf({ fps, stepsPerSecond, simStepP95Ms: p95 }, s);
    console.log(
      `t=${t.toFixed(0)}s: ${s.chatting / 2} pairs chatting, ${s.approaching} walking up to someone, ${s.chats} chats so far; ${s.moves} moves traced (+${s.moves - lastMoves}), ${s.blips} chatter blips, ${s.bubbles} speech bubbles; render ${fps.toFixed(1)} fps, sim ${stepsPerSecond.toFixed(0)} steps/s, sim-step p95 ${p95.toFixed(2)} ms`,
    );
    lastReport = now;
    lastFrames = frames;
    lastSteps = step;
    lastMoves = s.moves;
  }
});
