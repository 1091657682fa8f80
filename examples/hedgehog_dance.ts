// Demo: A procedural hedgehog dances on a disco floor to a track synthesised in JS.
// The hedgehog dance: a procedural hedgehog hops, sways, waves and spins on
// a disco floor, beat-synced to a dance track this module synthesises in JS
// (hedgehog_dance_core.ts) and hands to the native mixer as PCM. Every other
// bar it sings a line through the audio.speak skill, placed at its mouth
// (and shown in a speech bubble; a HUD panel follows bar and beat);
// the listener is the camera, which circles the dance floor, so the music's
// stereo image and the voice turn with the view.
// Drag (or the arrow keys) to orbit, scroll to zoom.
// Run windowed:  limina demo hedgehog_dance --window
// Or offscreen:  limina demo hedgehog_dance --frames 240 --screenshot hedgehog.png
import { audioInfo, createEngine, onFixedStep, SAMPLE_RATE, steerOrbit } from "limina";
import * as THREE from "three";
import {
  BEATS_PER_BAR,
  BPM,
  buildDanceFloor,
  buildHedgehog,
  LOOP_BARS,
  LOOP_SECONDS,
  LOOP_STEPS,
  LYRICS,
  poseAt,
  STEPS_PER_BAR,
  STEPS_PER_BEAT,
  synthTrack,
} from "./hedgehog_dance_core.ts";

const engine = await createEngine();
const { session } = engine;
session.scene.background = new THREE.Color(0x120a24);
session.lighting.ambient.color.setHex(0x9080c0);
session.lighting.ambient.intensity = 0.9;
session.lighting.directional.position.set(3, 8, 5);
session.lighting.directional.intensity = 2.6;
session.lighting.directional.castShadow = true;
const shadow = session.lighting.directional.shadow.camera as THREE.OrthographicCamera;
shadow.left = shadow.bottom = -6;
shadow.right = shadow.top = 6;
shadow.updateProjectionMatrix();

const floor = buildDanceFloor();
session.scene.add(floor.mesh);
const hedgehog = buildHedgehog();
const entry = session.entities.adopt(hedgehog.root, [0, 0, 0], ["hedgehog"]);

const started = performance.now();
const track = synthTrack(SAMPLE_RATE);
console.log(
  `hedgehog_dance: ${BPM} BPM, a ${LOOP_BARS}-bar loop of ${LOOP_SECONDS} s (${track.length / 2} stereo frames) synthesised in ${(performance.now() - started).toFixed(0)} ms; audio: ${audioInfo().backend}`,
);

// The hedgehog sings as itself, through the skill registry (so each line is
// traced): aloud at its mouth, and in a speech bubble over its head. A HUD
// panel shows where the track is and what it sings.
const voice = session.mcp();
voice.initialize({ agentId: "hedgehog", sessionId: "sess_hedgehog", profile: "builder.readWrite" });
const hud = await voice.mustCall<{ handle: string }>("ui.hudPanel", {
  anchor: { type: "screen", corner: "topLeft" },
  title: "hedgehog dance",
  lines: [`${BPM} BPM`],
  width: 250,
});
let singing = "";
let canSing = true;
const mouth = new THREE.Vector3();
async function sing(line: string): Promise<void> {
  hedgehog.root.updateMatrixWorld();
  hedgehog.mouth.getWorldPosition(mouth);
  const at = [mouth.x, mouth.y, mouth.z];
  const r = await voice.callTool({ tool: "audio.speak", input: { text: line, position: at } });
  if (r.success) {
    console.log(`the hedgehog sings "${line}" at its mouth (${at.map((v) => v.toFixed(2)).join(", ")})`);
    singing = `♪ ${line}`;
    await voice.callTool({
      tool: "ui.speechBubble",
      input: { anchor: { type: "world", entity: entry.id, offset: [0, 1.25, 0], align: "bottom", unitsPerPixel: 0.008 }, tail: { offset: [0, 0.8, 0.5] }, text: `♪ ${line} ♪`, maxWidth: 220, lifecycle: { ttl: 3.5, fadeOut: 0.4 } },
    });
  } else {
    canSing = false;
    singing = `no voice: ${r.error?.message}`;
    console.log(`the hedgehog dances on without singing: ${r.error?.code}: ${r.error?.message}`);
  }
}

const orbit = { target: new THREE.Vector3(0, 0.6, 0), distance: 4.2, azimuth: 0.35, elevation: 0.3 };
const ORBIT_RATE = 0.12; // rad/s
const q = new THREE.Quaternion();
const euler = new THREE.Euler();
let first = -1;
onFixedStep((dt, step) => {
  if (first < 0) first = step;
  const s = step - first;
  // The track restarts every loop on the step its last copy ends: the music's clock is the fixed step.
  if (s % LOOP_STEPS === 0) session.audio.playPcm(track.slice(), { channels: 2, bus: "ambience", volume: 0.8 });
  const beat = s / STEPS_PER_BEAT;
  const p = poseAt(beat);
  q.setFromEuler(euler.set(0, p.yaw, p.roll, "YXZ"));
  session.entities.setTransform(entry, { position: [0, p.y, 0], rotation: [q.x, q.y, q.z, q.w], scale: [1 + p.squash / 2, 1 - p.squash, 1 + p.squash / 2] });
  hedgehog.pose(p, beat);
  floor.light(beat);
  if (s % STEPS_PER_BAR === 0) {
    const bar = s / STEPS_PER_BAR;
    const y = session.world.position(entry.eid)[1];
    console.log(`bar ${bar + 1} at step ${step} (${(s / 60).toFixed(3)} s into the track): the hedgehog lands on the downbeat (y=${y.toFixed(3)})`);
    if (bar % 2 === 0 && canSing) void sing(LYRICS[(bar / 2) % LYRICS.length]);
  }
  if (s % STEPS_PER_BEAT === 0) {
    const lines = [`${BPM} BPM · bar ${Math.floor(beat / BEATS_PER_BAR) + 1} · beat ${(beat % BEATS_PER_BAR) + 1}`];
    if (singing) lines.push(singing);
    void voice.callTool({ tool: "ui.update", input: { handle: hud.handle, lines } });
  }
  orbit.azimuth += ORBIT_RATE * dt;
  steerOrbit(engine.camera, orbit, engine.input);
});
