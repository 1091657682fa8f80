// Every skill under each of the 4 profiles: allowed exactly when the profile
// grants all its permissions; a denial changes nothing in the world.
import { assert, assertEquals, test } from "../src/testing.ts";
import * as THREE from "../build/three.bundle.mjs";
import { PROFILES, resolveProfile } from "../src/skills/profiles.ts";
import { createWorldSession } from "../src/world-session.ts";
import type { WorldContext } from "../src/skills/context.ts";
import { PolicyEngine } from "../src/policy/engine.ts";

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
  "ui.panel": { kind: "label", anchor: { kind: "world", entity: "ent_1" }, text: "hi" },
  "ui.label": { anchor: { kind: "world", point: [0, 2, 0] }, text: "hi" },
  "ui.textBox": { anchor: { kind: "screen", corner: "top-left" }, title: "t", text: "b" },
  "ui.speechBubble": { anchor: { kind: "world", entity: "ent_1" }, text: "hi" },
  "ui.thoughtBubble": { anchor: { kind: "world", entity: "ent_1" }, text: "hmm" },
  "ui.callout": { anchor: { kind: "world", point: [1, 1, 1] }, text: "look", leader: { target: { entity: "ent_2" } } },
  "ui.hudPanel": { anchor: { kind: "screen", corner: "top-right" }, lines: ["a", "b"] },
  "ui.update": { handle: "ui_1", text: "new" },
  "ui.remove": { handle: "ui_1" },
  "audio.play": { freq: 440, secs: 0.2 },
  "audio.ambient": {},
  "audio.playAt": { freq: 220, secs: 0.5, position: [0, 0, 0] },
  "audio.speak": { text: "hello", position: [0, 1, 0] },
  "audio.stop": { handle: "snd_1" },
  "audio.setVolume": { handle: "snd_1", volume: 0.5 },
  "audio.setBusVolume": { bus: "sfx", volume: 0.3 },
  "package.list": {},
  "package.load": { ref: "demo@1.0.0", agentId: "a", sessionId: "s", profile: "player.limited" },
  "social.approach": { target: [1, 0, 1] },
  "social.say": { text: "hello" },
};

/** Everything a skill could change: ECS + identity, bodies and their motion, the scene graph, the lights. */
function digest(w: WorldContext): string {
  const bodies = [...w.world.entities.entries()].filter((e) => e.body !== undefined).map((e) => w.physics.bodyState(e.body!));
  const scene: unknown[] = [];
  w.scene.traverse((o: THREE.Object3D) => {
    const m = (o as THREE.Mesh).material as THREE.MeshStandardMaterial | undefined;
    scene.push([o.type, o.name, o.position.toArray(), o.quaternion.toArray(), o.scale.toArray(), m?.color?.getHex(), (o as THREE.Light).intensity]);
  });
  return JSON.stringify([w.world.snapshot(), [...w.world.entities.entries()].map((e) => [...e.tags]), w.physics.bodyCount(), bodies, scene]);
}

async function prepare() {
  const s = createWorldSession({ simulate: false });
  const admin = { agentId: "admin", sessionId: "admin", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
  await s.registry.invoke("scene.createEntity", { position: [0, 1, 0], dynamic: true }, admin);
  await s.registry.invoke("scene.createEntity", { position: [0, -5, 0], size: 8, static: true }, admin);
  await s.registry.invoke("ecs.addComponent", { entity: "ent_2", component: "fixture" }, admin);
  s.world.sceneBuilders.set("fixture", (w) => void w.world.spawn({ tags: ["built"] }));
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
  for (const profile of Object.keys(PROFILES)) {
    const granted = resolveProfile(profile);
    for (const [name, sample] of Object.entries(SAMPLES)) {
      const s = await prepare();
      const skill = s.registry.get(name)!;
      const input = JSON.parse(JSON.stringify(sample).replaceAll("__first__", s.tracer.history()[0].id));
      const allowed = skill.permissions.every((p: string) => granted.has(p));
      const before = digest(s.world);
      const events = s.tracer.size;
      const r = await s.registry.invoke(name, input, { agentId: "caller", sessionId: "matrix", permissions: granted, profile });
      const where = `${name} under ${profile}`;
      if (allowed) {
        assert(r.error?.code !== "forbidden", `${where} must be allowed: ${r.error?.message}`);
        assert(r.error?.code !== "invalid_input", `${where}: the sample must be valid: ${r.error?.message}`);
      } else {
        denials++;
        assertEquals(r.error?.code, "forbidden", where);
        const missing = skill.permissions.find((p: string) => !granted.has(p));
        assertEquals(r.error?.message, `missing permission: ${missing}`, where);
        assertEquals(digest(s.world), before, `${where}: a denial must change nothing`);
        assertEquals(s.tracer.history().slice(events).map((e) => e.type), ["security.permission.denied"], where);
      }
      checked++;
    }
  }
  assertEquals(checked, 4 * Object.keys(SAMPLES).length);
  assert(denials > 20, `the matrix exercises denials (${denials})`);
});

test("the same holds with the policy engine attached", async () => {
  for (const profile of Object.keys(PROFILES)) {
    const granted = resolveProfile(profile);
    for (const name of ["scene.createEntity", "physics.applyImpulse", "social.say", "inspector.snapshot"]) {
      const s = await prepare();
      s.registry.attachPolicy(new PolicyEngine(s.tracer));
      const skill = s.registry.get(name)!;
      const allowed = skill.permissions.every((p: string) => granted.has(p));
      const before = digest(s.world);
      const r = await s.registry.invoke(name, SAMPLES[name], { agentId: "caller", sessionId: "m", permissions: granted, profile });
      assertEquals(r.error?.code === "forbidden", !allowed, `${name} under ${profile}`);
      if (!allowed) assertEquals(digest(s.world), before);
    }
  }
});
