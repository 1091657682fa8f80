// The spectator page, in the browser. It draws a
// world with the engine's own modules — the scene graph and its lights,
// the look (sky, environment, fog, tone mapping, post stack), the entity
// meshes and named materials — bundled for the browser by js/build.mjs, on
// Three.js's WebGPURenderer (its WebGL2 backend where the browser has no
// WebGPU). Live, it follows a world server or a relay over WebSocket as a
// spectator (state/subscribe, with an area of interest); with the server's
// token a person joins: takes an avatar, walks it and speaks through the
// same skills agents use.

import * as THREE from "three";
import { applyEngineLook, Look, LookRenderer, type LookSettings } from "../render/look.ts";
import { decodeHdri, type LoadedHdri } from "../render/environment.ts";
import { createMaterial, isMaterialName } from "../render/materials.ts";
import { steerOrbit, type Orbit } from "../render/orbit-camera.ts";
import { placeCamera, type CameraPose } from "../render/view-camera.ts";
import { applyLighting, createSceneGraph, type SavedLighting } from "../scene/scene-graph.ts";
import type { EntityLook } from "../scene/describe.ts";
import { primitiveMesh } from "../scene/shapes.ts";
import { Animator } from "../characters/animator.ts";
import { humanoidClips } from "../characters/clips.ts";
import { type Appearance, createHumanoid, DEFAULT_APPEARANCE } from "../characters/humanoid.ts";
import { type MirrorEntity, StateMirror } from "./mirror.ts";
import { StreamAnimation } from "./stream-animation.ts";
import { Player } from "./player.ts";

interface WorldHeader {
  look: LookSettings;
  lighting: SavedLighting;
  view: CameraPose;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);

// ---- drawing ---------------------------------------------------------------

const canvas = $<HTMLCanvasElement>("view");
// WebGPU only where the browser has an adapter (a browser may expose navigator.gpu and have none).
const webgpu = !params.has("webgl") && "gpu" in navigator && (await navigator.gpu.requestAdapter().catch(() => null)) !== null;
const renderer = new THREE.WebGPURenderer({ canvas, antialias: false, forceWebGL: !webgpu });
const { scene, lighting } = createSceneGraph();
const hdriLoader = async (id: string): Promise<LoadedHdri> => decodeHdri(await (await fetch(`hdri/${id.replace(/^hdri_/, "")}.exr`)).arrayBuffer());
const look = new Look(scene, lighting.directional, hdriLoader, "low");
const camera = new THREE.PerspectiveCamera(55, 1, 0.1, 2000);
let lookRenderer: LookRenderer | null = null;
const objects = new Map<string, THREE.Object3D>();
/** Each drawn character's animator, following the stream's animation (stream-animation.ts). */
const animation = new StreamAnimation();
const mirror = new StateMirror();
const orbit: Orbit = { target: new THREE.Vector3(), distance: 15, azimuth: 0.7, elevation: 0.5 };
/** Until the person moves the camera, it is the world's view camera (what native captures show). */
let userCamera = false;
let following: string | null = null;
let selected: string | null = null;
let dirty = true;
/** Nothing is drawn before a world's look is applied: a frame of the default sky would only be baked again, over many frames. */
let shown = false;
let frames = 0;
let fps = 0;
let status = "starting";

const marker = new THREE.OctahedronGeometry(0.3);
const markerMaterial = new THREE.MeshStandardMaterial({ color: 0x9aa4b2, roughness: 0.6 });

function objectFor(id: string, e: MirrorEntity | undefined): { object: THREE.Object3D; animator?: Animator } {
  const l = (e?.look ?? null) as EntityLook | null;
  const character = e?.character as { appearance: Appearance; model?: string } | undefined;
  let object: THREE.Object3D;
  let animator: Animator | undefined;
  if (character && character.model === undefined) {
    // The engine's own humanoid (characters/humanoid.ts), skinned, with its clips and animator.
    const humanoid = createHumanoid(character.appearance);
    humanoid.root.traverse((o) => (o.castShadow = o.receiveShadow = true));
    animator = new Animator(humanoid.root, humanoidClips(character.appearance.height ?? DEFAULT_APPEARANCE.height), humanoid.scale);
    object = humanoid.root;
  } else if (l && l.shape !== "mesh") {
    // The engine's own primitive (scene/shapes.ts): the geometry and material native rendering draws.
    const mesh = primitiveMesh(l, l.color ?? 0xffffff, l.roughness, l.metalness);
    if (l.material && isMaterialName(l.material)) mesh.material = createMaterial(l.material, { tint: l.color ?? 0xffffff });
    mesh.castShadow = mesh.receiveShadow = true;
    mesh.visible = l.visible;
    object = mesh;
  } else {
    // No shape (a module's own scene object, a bare ECS entity) or a model the page does not load (a glTF rig too): a marker.
    object = new THREE.Mesh(marker, markerMaterial);
  }
  object.name = id;
  return { object, animator };
}

function place(id: string): void {
  const e = mirror.entities.get(id);
  const o = objects.get(id);
  if (!e || !o) return;
  const t = e.transform;
  o.position.set(t[0], t[1], t[2]);
  o.quaternion.set(t[3], t[4], t[5], t[6]);
  o.scale.set(t[7], t[8], t[9]);
}

/** Draws `id` anew (created, or restyled: a character's animation goes on where it was). */
function add(id: string): void {
  const kept = animation.animators.get(id)?.save();
  remove(id);
  const { object, animator } = objectFor(id, mirror.entities.get(id));
  objects.set(id, object);
  scene.add(object);
  place(id);
  if (animator) animation.adopt(id, animator, mirror.entities.get(id), kept);
}

function remove(id: string): void {
  const o = objects.get(id);
  if (!o) return;
  o.removeFromParent();
  objects.delete(id);
  animation.delete(id);
}

async function applyWorld(header: unknown): Promise<void> {
  const w = header as WorldHeader | null;
  if (w) {
    applyLighting(lighting, w.lighting);
    // The page keeps its own quality tier: a software rasteriser draws the bare look.
    await look.restore({ ...w.look, quality: look.quality }).catch((e) => console.warn(`look: ${e instanceof Error ? e.message : e}`));
    if (!userCamera) {
      placeCamera(camera, w.view);
      const offset = new THREE.Vector3(...w.view.position).sub(new THREE.Vector3(...w.view.target));
      orbit.target.set(...w.view.target);
      orbit.distance = offset.length();
      orbit.azimuth = Math.atan2(offset.x, offset.z);
      orbit.elevation = Math.asin(offset.y / Math.max(orbit.distance, 1e-6));
    }
  }
  shown = true;
  dirty = true;
}

function rebuild(): void {
  for (const id of [...objects.keys()]) remove(id);
  for (const id of mirror.entities.keys()) add(id);
  dirty = true;
}

/** The whole state, from a `state/snapshot` (live) or a keyframe (the player). */
function applySnapshot(params: Record<string, unknown>): void {
  mirror.applySnapshot(params);
  animation.reset(mirror.animationClock ?? 0);
  rebuild();
  void applyWorld(mirror.world);
}

/** One tick's changes, from a `state/delta` (live) or the player's recording. */
function applyDelta(params: Record<string, unknown>): void {
  const c = mirror.applyDelta(params);
  for (const id of c.destroyed) remove(id);
  // The animators the page had go on to the clock (a restyled one keeps its state as it is redrawn).
  animation.advance(c, mirror.animationClock ?? animation.clock);
  for (const id of [...c.created, ...c.restyled]) add(id);
  for (const id of c.moved) place(id);
  for (const id of c.reloaded) {
    const animator = animation.animators.get(id);
    if (animator) animation.adopt(id, animator, mirror.entities.get(id));
  }
  if (c.world) void applyWorld(mirror.world);
  dirty = true;
}

// ---- input: the orbit and follow cameras, picking ----------------------------

const input = {
  keys: new Set<string>(),
  pointer: { x: 0, y: 0, dx: 0, dy: 0, buttons: 0, pressed: 0, released: 0 },
  wheel: 0,
  isDown(code: string) {
    return this.keys.has(code);
  },
};
let dragged = 0;
canvas.addEventListener("pointerdown", (e) => {
  input.pointer.buttons |= 1 << e.button;
  dragged = 0;
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener("pointermove", (e) => {
  if (input.pointer.buttons & 1) {
    input.pointer.dx += e.movementX;
    input.pointer.dy += e.movementY;
    dragged += Math.abs(e.movementX) + Math.abs(e.movementY);
    userCamera = true;
  }
});
canvas.addEventListener("pointerup", (e) => {
  input.pointer.buttons &= ~(1 << e.button);
  if (e.button === 0 && dragged < 4) pick(e.offsetX, e.offsetY);
});
canvas.addEventListener("wheel", (e) => {
  input.wheel -= Math.sign(e.deltaY);
  userCamera = true;
  e.preventDefault();
}, { passive: false });
addEventListener("keydown", (e) => {
  if ((e.target as HTMLElement).tagName === "INPUT") return;
  input.keys.add(e.code);
  if (e.code.startsWith("Arrow")) userCamera = true;
});
addEventListener("keyup", (e) => input.keys.delete(e.code));

const raycaster = new THREE.Raycaster();
function pick(x: number, y: number): void {
  const ndc = new THREE.Vector2((x / canvas.clientWidth) * 2 - 1, -(y / canvas.clientHeight) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  const hit = raycaster.intersectObjects([...objects.values()], true)[0];
  // A character is a rig of meshes: the entity is the object the page placed.
  let entity: THREE.Object3D | null = hit?.object ?? null;
  while (entity && objects.get(entity.name) !== entity) entity = entity.parent;
  if (joined && hit && entity && ground(entity.name)) {
    walkTo([hit.point.x, hit.point.y, hit.point.z]);
    return;
  }
  select(entity ? entity.name : null);
}

function select(id: string | null): void {
  selected = id;
  if (id === null) following = null;
  inspect();
}

function inspect(): void {
  const panel = $("inspector");
  const e = selected === null ? undefined : mirror.entities.get(selected);
  panel.hidden = !e;
  if (!e) return;
  const t = e.transform.map((v) => Math.round(v * 1000) / 1000);
  $("inspector-body").textContent = JSON.stringify(
    { entity: selected, tags: e.tags, look: e.look, transform: { position: t.slice(0, 3), rotation: t.slice(3, 7), scale: t.slice(7, 10) } },
    null,
    2,
  );
  $("follow").textContent = following === selected ? "Stop following" : "Follow";
}
$("follow").addEventListener("click", () => {
  following = following === selected ? null : selected;
  userCamera = true;
  inspect();
});
$("close-inspector").addEventListener("click", () => select(null));

// ---- the frame -----------------------------------------------------------------

let fpsFrames = 0;
let fpsSince = performance.now();
function frame(): void {
  requestAnimationFrame(frame);
  const moved = input.pointer.dx !== 0 || input.pointer.dy !== 0 || input.wheel !== 0 || [...input.keys].some((k) => k.startsWith("Arrow"));
  if (following) {
    const e = mirror.entities.get(following);
    if (e) orbit.target.set(e.transform[0], e.transform[1], e.transform[2]);
    dirty = true;
  }
  if (userCamera && (moved || following)) {
    steerOrbit(camera, orbit, input);
    input.pointer.dx = input.pointer.dy = 0;
    input.wheel = 0;
    dirty = true;
  }
  steerAvatar();
  if (!dirty || !lookRenderer || !shown) return;
  dirty = false;
  lookRenderer.render(look, scene, camera);
  // An environment re-bake is spread over frames: keep drawing until it is complete.
  if (lookRenderer.stale) dirty = true;
  frames++;
  fpsFrames++;
  const now = performance.now();
  if (now - fpsSince >= 1000) {
    fps = (fpsFrames * 1000) / (now - fpsSince);
    fpsFrames = 0;
    fpsSince = now;
  }
  hud();
}

function hud(): void {
  $("hud-status").textContent = status;
  $("hud-tick").textContent = String(mirror.tick);
  $("hud-clients").textContent = String(mirror.clients);
  $("hud-entities").textContent = String(mirror.entities.size);
  $("hud-fps").textContent = fps.toFixed(1);
  $("hud-backend").textContent = webgpu ? "WebGPU" : "WebGL2";
  if (selected) inspect();
}

function resize(): void {
  const w = canvas.clientWidth || innerWidth;
  const h = canvas.clientHeight || innerHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  dirty = true;
}
addEventListener("resize", resize);

// ---- live: the world server or a relay -------------------------------------------

interface PageConfig {
  /** `player`: the static player `limina export-web` wrote (files, no server). */
  server: "world" | "relay" | "player";
  wsPort: number | null;
  token: boolean;
}

let socket: WebSocket | null = null;
let nextId = 1;
const pending = new Map<number, (reply: { result?: unknown; error?: { code: number; message: string } }) => void>();
let token: string | null = null;
let joined = false;
let avatar: string | null = null;
let retry = 500;
const agentId = sessionStorage.getItem("limina.agent") ?? `web-${Math.random().toString(36).slice(2, 10)}`;
sessionStorage.setItem("limina.agent", agentId);

function request(method: string, p: unknown = {}): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const id = nextId++;
  return new Promise((resolve) => {
    if (!socket || socket.readyState !== WebSocket.OPEN) return resolve({ error: { code: -32003, message: "not connected" } });
    pending.set(id, resolve);
    socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: p }));
  });
}

/** The token as a subprotocol (a browser cannot set Authorization; a query string would leak it). */
function protocols(): string[] {
  if (!token) return ["limina.v1"];
  const b64 = btoa(String.fromCharCode(...new TextEncoder().encode(token))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return ["limina.v1", `limina.token.${b64}`];
}

function connect(config: PageConfig): void {
  if (config.wsPort === null) {
    status = "this server has no WebSocket transport (start it with --mcp-ws)";
    hud();
    return;
  }
  status = "connecting";
  const ws = new WebSocket(`ws://${location.hostname}:${config.wsPort}/`, protocols());
  socket = ws;
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data as string);
    if (msg.id !== undefined && pending.has(msg.id)) {
      pending.get(msg.id)!(msg);
      pending.delete(msg.id);
      return;
    }
    if (msg.method === "state/snapshot") {
      applySnapshot(msg.params);
    } else if (msg.method === "state/delta") {
      applyDelta(msg.params);
    } else if (msg.method === "state/clients") {
      mirror.clients = msg.params.clients;
      hud();
    }
  };
  ws.onopen = async () => {
    retry = 500;
    const profile = joined && token ? "social.actor" : "spectator";
    const init = await request("initialize", { agentId, sessionId: `${agentId}-${Date.now()}`, profile });
    if (init.error && joined) {
      // A wrong token (or a server that lets no one act): say why, and go back to watching.
      $("join-status").textContent = `could not join: ${init.error.message}`;
      $("join").hidden = false;
      joined = false;
      token = null;
      ws.close();
      return;
    }
    if (init.error) {
      status = `refused: ${init.error.message}`;
      hud();
      return;
    }
    await request("state/subscribe");
    status = `${joined ? "joined" : "watching"} (${config.server === "relay" ? "relay" : "world server"})`;
    if (joined) await takeAvatar();
    hud();
  };
  ws.onclose = () => {
    for (const resolve of pending.values()) resolve({ error: { code: -32003, message: "connection closed" } });
    pending.clear();
    if (socket !== ws) return;
    status = `reconnecting in ${(retry / 1000).toFixed(1)} s`;
    hud();
    setTimeout(() => connect(config), retry);
    retry = Math.min(retry * 2, 5000);
  };
}

// ---- join: a person in the world, through the skills agents use ------------------

/** Whether an entity is ground to walk on (a click there walks, not selects). */
const ground = (id: string) => {
  const e = mirror.entities.get(id);
  const l = e?.look as EntityLook | null;
  return !!l && (l.shape === "box" || l.shape === "plane") && e!.transform[1] + (l.size[1] * e!.transform[8]) / 2 <= 0.05 && id !== avatar;
};

async function call(name: string, args: Record<string, unknown>): Promise<unknown> {
  const r = await request("tools/call", { name, arguments: args });
  if (r.error) {
    $("join-status").textContent = `${name}: ${r.error.message}`;
    return null;
  }
  return (r.result as { result?: unknown }).result ?? r.result;
}

async function takeAvatar(): Promise<void> {
  const r = (await call("avatar.take", { name: ($<HTMLInputElement>("join-name").value || agentId).slice(0, 32) })) as { entity: string } | null;
  if (!r) return;
  avatar = r.entity;
  following = avatar;
  userCamera = true;
  $("join-status").textContent = `you are ${avatar}: WASD (or click the ground, where the world has a navmesh) to walk, Enter to speak`;
  $("say").hidden = false;
}

/** Walks the avatar to a point on the navmesh (nav.moveTo; refused where the world has none). */
function walkTo(point: [number, number, number]): void {
  if (avatar) void call("nav.moveTo", { entityId: avatar, target: point });
}

/** Walking speed with W A S D, m/s. */
const WALK_SPEED = 1.6;
/** The direction last sent (character.move keeps walking until told otherwise). */
let steering = "0,0";
let steered = 0;
function steerAvatar(): void {
  if (!avatar) return;
  const f = Number(input.isDown("KeyW")) - Number(input.isDown("KeyS"));
  const r = Number(input.isDown("KeyD")) - Number(input.isDown("KeyA"));
  const forward = new THREE.Vector3().subVectors(orbit.target, camera.position).setY(0).normalize();
  const right = new THREE.Vector3().crossVectors(forward, new THREE.Vector3(0, 1, 0));
  const d = forward.multiplyScalar(f).add(right.multiplyScalar(r));
  const direction: [number, number] = f === 0 && r === 0 ? [0, 0] : [Math.round(d.x * 100) / 100, Math.round(d.z * 100) / 100];
  const key = direction.join(",");
  // A new direction (or stopping) goes at once; a held one is re-sent as the camera turns, at most 4 times a second.
  const now = performance.now();
  if (key === steering || (key !== "0,0" && steering !== "0,0" && now - steered < 250)) return;
  steering = key;
  steered = now;
  void call("character.move", { entityId: avatar, direction: key === "0,0" ? [1, 0] : direction, speed: key === "0,0" ? 0 : WALK_SPEED });
}

$("join").addEventListener("click", () => {
  $("join-form").hidden = false;
  $<HTMLInputElement>("join-token").focus();
});
$("join-form").addEventListener("submit", (e) => {
  e.preventDefault();
  token = $<HTMLInputElement>("join-token").value;
  $<HTMLInputElement>("join-token").value = "";
  joined = true;
  $("join-form").hidden = true;
  $("join").hidden = true;
  socket?.close(); // reconnects with the token
});
$("say").addEventListener("submit", (e) => {
  e.preventDefault();
  const box = $<HTMLInputElement>("say-text");
  if (box.value.trim()) void call("social.say", { text: box.value.trim().slice(0, 280) });
  box.value = "";
});

// ---- start -----------------------------------------------------------------------

/** What tests and tools can read and do from outside the page (the DevTools protocol). */
const api = {
  /** `bakes`: environment bake steps the page has run (an at-once bake is one; LookRenderer.bakeSteps). */
  state: () => ({ status, tick: mirror.tick, entities: mirror.entities.size, objects: objects.size, frames, bakes: lookRenderer?.bakeSteps ?? 0, clients: mirror.clients, backend: webgpu ? "webgpu" : "webgl2", avatar, following, selected }),
  /** An entity as the page knows it (transform, tags, look; a character's animation state now), or null. */
  entity: (id: string) => {
    const e = mirror.entities.get(id);
    const animator = animation.animators.get(id);
    return e ? { ...e, ...(animator ? { animation: animator.save() } : {}) } : null;
  },
  request,
  select,
  pick,
  /** A drawn character's pose: its skinned meshes and every bone's rotation (null: not a drawn character). */
  pose: (id: string) => {
    const o = animation.animators.has(id) ? objects.get(id) : undefined;
    if (!o) return null;
    const skinned: THREE.SkinnedMesh[] = [];
    o.traverse((c) => (c as THREE.SkinnedMesh).isSkinnedMesh && skinned.push(c as THREE.SkinnedMesh));
    return { skinned: skinned.length, bones: skinned[0]?.skeleton.bones.map((b) => b.quaternion.toArray()) ?? [] };
  },
  /** The static player (null on a live page): its state, play/pause, seek and speed. */
  player: null as Player | null,
};
(globalThis as unknown as { limina: unknown }).limina = api;

await renderer.init();
applyEngineLook(renderer);
renderer.setPixelRatio(1);
lookRenderer = new LookRenderer(renderer, true);
resize();
requestAnimationFrame(frame);
const config = (await (await fetch("config.json")).json()) as PageConfig;
$("join").hidden = config.server !== "world" || !config.token;
if (config.server === "player") {
  const player = new Player({
    snapshot: applySnapshot,
    delta: applyDelta,
    shown(tick) {
      mirror.tick = tick;
      hud();
    },
  });
  api.player = player;
  player.bindControls();
  status = "verifying the world log";
  hud();
  await player.load();
  status = player.status === "ready" ? "replaying a verified world log" : "refused: the world log failed its check";
  hud();
} else {
  connect(config);
}
