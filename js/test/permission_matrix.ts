// Every skill under each of the 4 profiles (and an unknown one, which grants
// nothing): allowed exactly when the profile grants all its permissions; a
// denial changes nothing in the world.
import { assert, assertEquals, test } from "limina/testing";
import * as THREE from "three";
import { Capturer, createWorldSession, type InvokeResult, PolicyEngine, PROFILES, resolveProfile, traceDir, type WorldSession } from "limina";

/** The four catalog profiles, and one no catalog defines (it grants nothing). */
const MATRIX_PROFILES = [...Object.keys(PROFILES), "nobody.unknown"];

const codeOf = (r: InvokeResult) => (r.ok ? undefined : r.error.code);
const messageOf = (r: InvokeResult) => (r.ok ? undefined : r.error.message);

/** A valid input for every skill, against the world `prepare` builds (ent_1 dynamic, ent_2 static). */
const SAMPLES: Record<string, Record<string, unknown>> = {
  "scene.createEntity": { shape: "sphere", position: [0, 2, 0], dynamic: true },
  "scene.destroyEntity": { entity: "ent_1" },
  "scene.queryEntities": { near: [0, 0, 0], radius: 10 },
  "ecs.updateComponent": { entity: "ent_1", component: "position", value: [1, 2, 3] },
  "ecs.addComponent": { entity: "ent_1", component: "target" },
  "ecs.removeComponent": { entity: "ent_2", component: "fixture" },
  "three.setTransform": { entity: "ent_1", rotationEuler: [0, 1, 0] },
  "three.setMaterial": { entity: "ent_1", color: 0xff0000 },
  "three.setLighting": { ambientIntensity: 2 },
  "three.loadGLTF": { assetId: "crate" },
  "camera.set": { position: [0, 3, 6], target: [0, 1, 0], fov: 45 },
  "camera.get": {},
  "physics.applyImpulse": { entity: "ent_1", impulse: [0, 5, 0] },
  "physics.raycast": { origin: [0, 10, 0], direction: [0, -1, 0] },
  "physics.collisionEvents": {},
  "agent.emitEvent": { type: "ping" },
  "agent.getPerception": {},
  "skills.list": {},
  "skills.describe": { name: "scene.createEntity" },
  "skills.search": { query: "entity" },
  "trace.tail": { limit: 5 },
  "trace.explainEvent": { eventId: "__first__" },
  "trace.export": { name: "permission-matrix" },
  "inspector.snapshot": { limit: 10 },
  "dev.reload": { target: "scene", name: "fixture" },
  "audit.explain": { eventId: "__first__" },
  "audit.query": {},
  "audit.usage": {},
  "render.capture": { width: 32, height: 24 },
  "audio.play": { freq: 440, secs: 0.1 },
  "audio.ambient": {},
  "audio.playAt": { freq: 440, secs: 0.1, position: [0, 0, -1] },
  "audio.speak": { text: "hi", position: [0, 0, -1] },
  "audio.stop": { handle: "snd_1" },
  "audio.setVolume": { handle: "snd_1", volume: 0.5 },
  "audio.setBusVolume": { bus: "sfx", volume: 1 },
  "package.list": {},
  "package.load": { ref: "nothing@1.0.0", agentId: "agt_matrix", sessionId: "sess_matrix", profile: "system.readonly" },
  "ui.panel": { kind: "label", anchor: { type: "world", entity: "ent_1" }, text: "hi" },
  "ui.label": { anchor: { type: "world", position: [0, 2, 0] }, text: "hi" },
  "ui.textBox": { anchor: { type: "screen" }, title: "t", text: "body" },
  "ui.speechBubble": { anchor: { type: "world", entity: "ent_1", offset: [0, 1, 0] }, text: "hello" },
  "ui.thoughtBubble": { anchor: { type: "world", entity: "ent_1", offset: [0, 1, 0] }, text: "hmm" },
  "ui.callout": { anchor: { type: "world", position: [1, 2, 0] }, text: "here", leader: { target: "ent_2" } },
  "ui.hudPanel": { anchor: { type: "screen", corner: "topRight" }, text: "hud" },
  "ui.update": { handle: "ui_1", text: "x" },
  "ui.remove": { handle: "ui_1" },
  "social.approach": { target: "ent_2" },
  "social.say": { text: "hi" },
  "nav.build": { agentRadius: 0.3 },
  "nav.findPath": { from: [1, -1, 1], to: [-2, -1, -2] },
  "nav.isReachable": { from: [1, -1, 1], to: [-2, -1, -2] },
  "nav.moveTo": { entityId: "ent_3", target: [-2, -1, -2] },
  "nav.stop": { entityId: "ent_3" },
  "character.spawn": { position: [0, -1, 2] },
  "character.move": { entityId: "ent_3", direction: [1, 0] },
  "character.jump": { entityId: "ent_3" },
  "character.lookAt": { entityId: "ent_3", target: [0, 0, 5] },
  "character.list": {},
  "animation.play": { entityId: "ent_3", clip: "wave" },
  "animation.getState": { entityId: "ent_3" },
  "animation.list": {},
  "camera.follow": { entityId: "ent_3" },
  "camera.thirdPerson": { entityId: "ent_3" },
  "camera.firstPerson": { entityId: "ent_3" },
  "camera.orbit": { target: [0, 0, 0] },
  "camera.shake": {},
};

/** Permissions a skill's handler requires beyond its static ones for the sample input, and its refusal. */
const DYNAMIC: Record<string, { needs: string[]; message: string }> = {
  "dev.reload": { needs: ["scene.write"], message: "re-running a scene builder needs scene.write" },
};

/** Everything a skill could change: ECS + identity, bodies and their motion, the scene graph, the lights, the view, the UI, walks. */
function digest(w: WorldSession): string {
  const bodies = [...w.world.entities.entries()].filter((e) => e.body !== undefined).map((e) => w.physics.bodyState(e.body!));
  const scene: unknown[] = [];
  w.scene.traverse((o: THREE.Object3D) => {
    const m = (o as THREE.Mesh).material as THREE.MeshStandardMaterial | undefined;
    scene.push([o.type, o.name, o.position.toArray(), o.quaternion.toArray(), o.scale.toArray(), m?.color?.getHex(), (o as THREE.Light).intensity]);
  });
  const ui = w.ui.handles().map((h) => w.ui.inspect(h));
  const walkers = w.characters.list().map((c) => [c.animator.getState().state, c.animator.getState().clip, c.walk]);
  return JSON.stringify([w.world.snapshot(), [...w.world.entities.entries()].map((e) => [...e.tags]), w.physics.bodyCount(), bodies, scene, w.registry.all().map((k) => [k.name, k.version]), w.view.get(), ui, w.locomotion.walking("caller"), w.digest(), walkers, w.cameraRig.current()]);
}

// One offscreen renderer for every world here (this machine has a WebGPU adapter).
const capturer = await Capturer.create();

async function prepare() {
  const s = createWorldSession({ simulate: false });
  assert(await s.enableCapture(capturer), "render.capture enabled");
  const admin = { agentId: "admin", sessionId: "admin", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
  for (const [tool, input] of [
    ["scene.createEntity", { position: [0, 1, 0], dynamic: true }],
    ["scene.createEntity", { position: [0, -5, 0], size: 8, static: true }],
    ["ecs.addComponent", { entity: "ent_2", component: "fixture" }],
    ["nav.build", {}],
    ["character.spawn", { position: [2, -1, 2] }],
  ] as const) {
    const r = await s.registry.invoke(tool, input, admin);
    assert(r.ok, `${tool}: ${messageOf(r)}`);
  }
  s.sceneBuilders.set("fixture", () => void s.world.spawn({ tags: ["built"] }));
  // The caller inhabits ent_1, so social skills have a body to act through.
  s.agents.publish({ list: () => [{ agentId: "caller", entityId: "ent_1" }], perceptionOf: () => null });
  return s;
}

test("every registered skill has a sample input", async () => {
  const s = await prepare();
  const names = s.registry.all().map((k) => k.name);
  assertEquals(names.filter((n) => !(n in SAMPLES)), []);
  assertEquals(Object.keys(SAMPLES).filter((n) => !names.includes(n)), []);
});

test("allowed exactly when the profile grants every permission; denials change nothing", async () => {
  let checked = 0;
  let denials = 0;
  for (const profile of MATRIX_PROFILES) {
    const granted = resolveProfile(profile);
    for (const [name, sample] of Object.entries(SAMPLES)) {
      const s = await prepare();
      const skill = s.registry.get(name)!;
      const input = JSON.parse(JSON.stringify(sample).replaceAll("__first__", s.tracer.history()[0].id));
      const allowedStatically = skill.permissions.every((p: string) => granted.has(p));
      const dynamic = DYNAMIC[name];
      const allowed = allowedStatically && (dynamic?.needs ?? []).every((p) => granted.has(p));
      const before = digest(s);
      const events = s.tracer.size;
      const r = await s.registry.invoke(name, input, { agentId: "caller", sessionId: "matrix", permissions: granted, profile });
      const where = `${name} under ${profile}`;
      if (allowed) {
        assert(r.ok, `${where} must succeed: ${codeOf(r)}: ${messageOf(r)}`);
        if (r.ok && name === "trace.export") await Limina.run({ cmd: "rm", args: ["-f", `${traceDir()}/${(r.value as { name: string }).name}`] });
      } else {
        denials++;
        assertEquals(codeOf(r), "forbidden", where);
        assertEquals(digest(s), before, `${where}: a denial must change nothing`);
        if (allowedStatically) {
          // Refused by the handler before it acts: a failed call, nothing else.
          assertEquals(messageOf(r), dynamic.message, where);
          assertEquals(s.tracer.history().slice(events).map((e) => e.type), ["skill.failed"], where);
        } else {
          const missing = skill.permissions.find((p: string) => !granted.has(p));
          assertEquals(messageOf(r), `missing permission: ${missing}`, where);
          assertEquals(s.tracer.history().slice(events).map((e) => e.type), ["security.permission.denied"], where);
        }
      }
      checked++;
      s.dispose();
    }
  }
  assertEquals(checked, MATRIX_PROFILES.length * Object.keys(SAMPLES).length);
  assert(denials > 20, `the matrix exercises denials (${denials})`);
});

test("the same holds with the policy engine attached", async () => {
  for (const profile of MATRIX_PROFILES) {
    const granted = resolveProfile(profile);
    for (const name of ["scene.createEntity", "ecs.updateComponent", "physics.applyImpulse", "agent.emitEvent", "inspector.snapshot", "skills.list"]) {
      const s = await prepare();
      s.registry.attachPolicy(new PolicyEngine(s.tracer));
      const skill = s.registry.get(name)!;
      const allowed = skill.permissions.every((p: string) => granted.has(p));
      const before = digest(s);
      const r = await s.registry.invoke(name, SAMPLES[name], { agentId: "caller", sessionId: "m", permissions: granted, profile });
      if (allowed) assert(r.ok, `${name} under ${profile}: ${codeOf(r)}: ${messageOf(r)}`);
      else {
        assertEquals(codeOf(r), "forbidden", `${name} under ${profile}`);
        assertEquals(digest(s), before);
        assertEquals(s.tracer.history().slice(-2).map((e) => e.type), ["policy.denied", "security.permission.denied"]);
      }
      s.dispose();
    }
  }
});
