// Demo: In-world UI: a label, speech and thought bubbles, a text box, a callout and a HUD panel.
// In-world UI: every container kind authored through ui.* skills — a label
// tracking a bobbing entity, a speech bubble with its tail aimed at the
// speaker, a thought bubble with puffs, a titled text box, a callout with a
// leader line — and a screen-anchored agent-ops HUD fed by the world log.
// The camera orbits: world panels billboard toward it while the HUD stays
// pinned to its corner.
// Run windowed:  limina demo ui_showcase --window
// Or offscreen:  limina demo ui_showcase --frames 240 --screenshot ui.png
import { createEngine, type InvokeBase, onFixedStep, resolveProfile } from "limina";
import * as THREE from "three";

const engine = await createEngine();
const { session } = engine;
const me: InvokeBase = { agentId: "ui_showcase", sessionId: "ses_ui_showcase", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

async function call<T = Record<string, unknown>>(tool: string, input: unknown): Promise<T> {
  const r = await session.registry.invoke(tool, input, me);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

// The HUD follows the world log: every executed skill and UI event, newest last.
const pending: string[] = [];
session.tracer.subscribe((e) => {
  if (e.type === "skill.executed") pending.push(`#${Limina.loop.steps()} ${e.actorId} ${(e.payload as { skill?: string }).skill ?? ""}`);
  else if (e.type.startsWith("ui.")) pending.push(`#${Limina.loop.steps()} ${e.type} ${(e.payload as { handle?: string }).handle ?? ""}`);
});

session.scene.background = new THREE.Color(0x1d2733);
await call("three.setLighting", { ambientIntensity: 0.9, directionalIntensity: 2 });
await call("scene.createEntity", { shape: "box", size: 30, position: [0, -15, 0], color: 0x3b4a3a, static: true });
const speaker = (await call<{ entity: string }>("scene.createEntity", { shape: "box", size: 1, position: [-3, 0.5, 0], color: 0x3399ff })).entity;
const thinker = (await call<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 1, position: [3, 0.5, 0], color: 0xff8844 })).entity;
const crate = (await call<{ entity: string }>("scene.createEntity", { shape: "box", size: 0.8, position: [0.5, 0.4, 3], color: 0xc8a050 })).entity;
const bobber = (await call<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 0.6, position: [0, 1.2, -3], color: 0x66dd88 })).entity;

await call("ui.label", { anchor: { type: "world", entity: bobber, offset: [0, 0.7, 0] }, text: "bobbing label" });
await call("ui.speechBubble", { anchor: { type: "world", entity: speaker, offset: [0.6, 1.6, 0], align: "bottom" }, text: "Speech bubbles aim their tail at whoever speaks.", maxWidth: 220, lifecycle: { fadeIn: 0.4, typewriter: 30 } });
await call("ui.thoughtBubble", { anchor: { type: "world", entity: thinker, offset: [0.4, 1.9, 0], align: "bottom" }, text: "…and thoughts trail puffs back to the thinker.", maxWidth: 200 });
await call("ui.textBox", { anchor: { type: "world", position: [0, 3.6, -2] }, title: "Text box", text: "A title bar over a word-wrapped body, drawn on the GPU as glyph quads from a distance-field atlas.", maxWidth: 300 });
await call("ui.callout", { anchor: { type: "world", position: [2.2, 2.4, 3] }, text: "a callout: its leader line ends at the crate", maxWidth: 170, leader: { target: crate } });
const hud = (await call<{ handle: string }>("ui.hudPanel", { anchor: { type: "screen", corner: "topLeft", offset: [12, 12] }, title: "agent ops", lines: [], maxWidth: 300, style: { titleColor: "#ffe08a", fontSize: 12 }, lifecycle: { feed: { maxLines: 5 } } })).handle;
const status = (await call<{ handle: string }>("ui.hudPanel", { anchor: { type: "screen", corner: "bottomRight", offset: [12, 12] }, text: "camera orbiting", style: { fill: "#00000099" } })).handle;

let angle = 0;
onFixedStep((dt, step) => {
  angle += dt * 0.35;
  engine.camera.position.set(Math.sin(angle) * 8, 4 + Math.sin(angle * 0.7), Math.cos(angle) * 8);
  engine.camera.lookAt(0, 1.2, 0);
  const y = 1.2 + Math.sin(step / 30) * 0.4;
  session.entities.setTransform(session.entities.require(bobber), { position: [0, y, -3] });
  // A few times a second, not every step: each update re-composites the panel.
  if (step % 15 === 0) {
    if (pending.length > 0) session.ui.update(hud, { lines: pending.splice(0) });
    session.ui.update(status, { text: `camera orbiting · ${(THREE.MathUtils.radToDeg(angle) % 360).toFixed(0)}°` });
  }
  if (step % 120 === 0) console.log(`step ${step}: ${session.ui.handles().length} UI containers, camera at ${(THREE.MathUtils.radToDeg(angle) % 360).toFixed(0)}°`);
});
