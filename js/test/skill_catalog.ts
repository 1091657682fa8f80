// The registered skills against the catalog (tests/fixtures/skills.json, a
// copy of the spec's skills.json): every catalog skill is registered and listed
// (tools/list over the registry and over MCP), each with the catalog's name, version, category, permissions, input
// and output fields and input defaults, plus camera.set/get, skills.search and
// the walking families (character.*, animation.*, nav.*, camera rigs) beyond
// the catalog (render.capture, also beyond it, only where capture is
// enabled: render_capture.ts); every listed tool really works.
import { createWorldSession, type MCPResponse, traceDir } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import catalog from "../../tests/fixtures/skills.json" with { type: "json" };

/** Bodies that walk (docs/navigation.md): beyond the catalog, with their permissions. */
const WALKING_PERMISSIONS: Record<string, string[]> = {
  "character.spawn": ["character.define"],
  "character.move": ["character.act"],
  "character.jump": ["character.act"],
  "character.lookAt": ["character.act"],
  "character.list": ["scene.read"],
  "animation.play": ["character.act"],
  "animation.getState": ["scene.read"],
  "animation.list": ["scene.read"],
  "nav.build": ["nav.define"],
  "nav.findPath": ["scene.read"],
  "nav.isReachable": ["scene.read"],
  "nav.moveTo": ["character.act"],
  "nav.stop": ["character.act"],
  "camera.follow": ["scene.write"],
  "camera.thirdPerson": ["scene.write"],
  "camera.firstPerson": ["scene.write"],
  "camera.orbit": ["scene.write"],
  "camera.shake": ["scene.write"],
};
const WALKING = Object.keys(WALKING_PERMISSIONS);

/** Skills beyond the catalog. */
const BEYOND = ["camera.set", "camera.get", "skills.search", ...WALKING];

/** The registry's skills, in registration (catalog) order. */
const REGISTERED = [
  "scene.createEntity",
  "scene.destroyEntity",
  "scene.queryEntities",
  "ecs.updateComponent",
  "ecs.addComponent",
  "ecs.removeComponent",
  "three.setTransform",
  "three.setMaterial",
  "three.setLighting",
  "three.loadGLTF",
  "camera.set",
  "camera.get",
  "physics.applyImpulse",
  "physics.raycast",
  "physics.collisionEvents",
  "agent.emitEvent",
  "agent.getPerception",
  "skills.list",
  "skills.describe",
  "skills.search",
  "trace.tail",
  "trace.explainEvent",
  "trace.export",
  "inspector.snapshot",
  "dev.reload",
  "audit.explain",
  "audit.query",
  "audit.usage",
  "ui.panel",
  "ui.label",
  "ui.textBox",
  "ui.speechBubble",
  "ui.thoughtBubble",
  "ui.callout",
  "ui.hudPanel",
  "ui.update",
  "ui.remove",
  "audio.play",
  "audio.ambient",
  "audio.playAt",
  "audio.speak",
  "audio.stop",
  "audio.setVolume",
  "audio.setBusVolume",
  "social.approach",
  "social.say",
  "package.list",
  "package.load",
  ...WALKING,
];

const session = createWorldSession({ simulate: false });
const { registry } = session;
const mcp = session.mcp();
mcp.initialize({ agentId: "catalog", sessionId: "sess_catalog", profile: "builder.readWrite" });

type CatalogEntry = (typeof catalog.skills)[number];
const catalogByName = new Map<string, CatalogEntry>(catalog.skills.map((s: CatalogEntry) => [s.name, s]));

/** The default a catalog field spec names after "=", when it is a plain literal. */
function catalogDefault(spec: string): unknown {
  const m = /(?<![<>])=([^=]+)$/.exec(spec);
  if (!m) return undefined;
  const raw = m[1].trim();
  if (/^0x[0-9a-f]+$/i.test(raw)) return parseInt(raw, 16);
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // a bare enum member
  }
}

test("the registry holds exactly the 66 skills; tools/list lists exactly them", () => {
  assertEquals(REGISTERED.length, 66);
  assertEquals(registry.all().map((s) => s.name), REGISTERED);
  assertEquals(registry.size, 66);
  const tools = registry.listTools();
  assertEquals(tools.map((t) => t.name), REGISTERED);
  const wire = mcp.listTools();
  assertEquals(wire.map((t) => t.name), REGISTERED, "MCP tools/list");
  wire.forEach((t, i) => {
    assertEquals(t.description, tools[i].description, t.name);
    assertEquals(t.input_schema, tools[i].inputSchema, `${t.name}: the wire schema is the registry's`);
    assertEquals((t.input_schema as { $schema?: string }).$schema, "http://json-schema.org/draft-07/schema#", t.name);
  });
});

test("every registered skill matches its catalog contract", () => {
  const wire = new Map(mcp.listTools().map((t) => [t.name, t]));
  let compared = 0;
  for (const skill of registry.all()) {
    if (BEYOND.includes(skill.name)) continue; // beyond the catalog: checked below
    const entry = catalogByName.get(skill.name);
    assert(entry, `${skill.name} is not in the catalog`);
    assertEquals([skill.version, skill.category, skill.permissions], [entry.version, entry.category, entry.permissions], entry.name);
    const schema = wire.get(entry.name)!.input_schema as { properties?: Record<string, { default?: unknown }> };
    assertEquals(Object.keys(schema.properties ?? {}), Object.keys(entry.input), `${entry.name} input fields`);
    for (const [field, spec] of Object.entries(entry.input as Record<string, string>)) {
      const want = catalogDefault(spec);
      if (want !== undefined) assertEquals(schema.properties![field].default, want, `${entry.name}.${field} default`);
    }
    const output = skill.output as { shape?: Record<string, unknown> };
    assertEquals(Object.keys(output.shape ?? {}), Object.keys(entry.output), `${entry.name} output fields`);
    compared++;
  }
  assertEquals(compared, 45);
  assertEquals(catalog.count, catalog.skills.length);
});

test("beyond the catalog: only camera.set, camera.get, skills.search and the walking families", () => {
  assertEquals(registry.all().map((s) => s.name).filter((n) => !catalogByName.has(n)), BEYOND);
  for (const [name, permissions] of [["camera.set", ["scene.write"]], ["camera.get", ["scene.read"]]] as const) {
    const camera = registry.get(name)!;
    assertEquals([camera.version, camera.category, camera.permissions], ["1.0.0", "render", permissions], name);
  }
  for (const name of WALKING) {
    const skill = registry.get(name)!;
    assertEquals([skill.version, skill.permissions], ["1.0.0", WALKING_PERMISSIONS[name]], name);
  }
  const search = registry.get("skills.search")!;
  assertEquals([search.version, search.category, search.permissions], ["1.0.0", "system", []]);
  assertEquals(catalog.permissionProfiles["builder.readWrite"].length, 10);
});

test("every skill of the catalog is registered", () => {
  assertEquals(catalog.skills.map((s: CatalogEntry) => s.name).filter((n: string) => !registry.has(n)), []);
});

test("every listed tool works: a minimal valid call under builder.readWrite succeeds", async () => {
  const s = createWorldSession({ simulate: false });
  const m = s.mcp();
  m.initialize({ agentId: "worker", sessionId: "sess_worker", profile: "builder.readWrite" });
  const setup = async (tool: string, input: Record<string, unknown>) => {
    const r = await m.callTool({ tool, input });
    assert(r.success, `${tool}: ${r.error?.code}: ${r.error?.message}`);
    return r.result as Record<string, string>;
  };
  const ball = (await setup("scene.createEntity", { shape: "sphere", position: [0, 2, 0], dynamic: true })).entity;
  const floor = (await setup("scene.createEntity", { size: 10, position: [0, -5, 0], static: true })).entity;
  const doomed = (await setup("scene.createEntity", {})).entity;
  await setup("ecs.addComponent", { entity: floor, component: "floor" });
  let rebuilt = 0;
  s.sceneBuilders.set("arena", () => void rebuilt++);
  const firstEvent = s.tracer.tail()[0].id;
  const walker = (await setup("character.spawn", { position: [2, 0, 2] })).entityId;
  s.step(1 / 60); // a step indexes the new colliders for raycasts

  const MINIMAL: Record<string, Record<string, unknown>> = {
    "scene.createEntity": {},
    "scene.destroyEntity": { entity: doomed },
    "scene.queryEntities": {},
    "ecs.updateComponent": { entity: ball, component: "position", value: [0, 3, 0] },
    "ecs.addComponent": { entity: ball, component: "target" },
    "ecs.removeComponent": { entity: floor, component: "floor" },
    "three.setTransform": { entity: ball, position: [0, 2, 0] },
    "three.setMaterial": { entity: ball, color: 0x00ff00 },
    "three.setLighting": {},
    "three.loadGLTF": { assetId: "crate" },
    "camera.set": { position: [0, 4, 8], target: [0, 0, 0] },
    "camera.get": {},
    "physics.applyImpulse": { entity: ball, impulse: [0, 1, 0] },
    "physics.raycast": { origin: [3, 10, 3], direction: [0, -1, 0] },
    "physics.collisionEvents": {},
    "agent.emitEvent": { type: "ping" },
    "agent.getPerception": {},
    "skills.list": {},
    "skills.describe": { name: "skills.search" },
    "skills.search": { query: "entity" },
    "trace.tail": {},
    "trace.explainEvent": { eventId: firstEvent },
    "trace.export": { name: "skill-catalog" },
    "inspector.snapshot": {},
    "dev.reload": { target: "scene", name: "arena" },
    "audit.explain": { eventId: firstEvent },
    "audit.query": {},
    "audit.usage": {},
    "audio.play": { freq: 440, secs: 0.1 },
    "audio.ambient": {},
    "audio.playAt": { freq: 440, secs: 0.1, position: [0, 0, -1] },
    "audio.speak": { text: "hi", position: [0, 0, -1] },
    "audio.stop": { handle: "snd_1" },
    "audio.setVolume": { handle: "snd_1", volume: 0.5 },
    "audio.setBusVolume": { bus: "sfx", volume: 1 },
    "package.list": {},
    "package.load": { ref: "nothing@1.0.0", agentId: "agt_catalog", sessionId: "sess_catalog", profile: "system.readonly" },
    "ui.panel": { kind: "label", anchor: { type: "world", position: [0, 1, 0] }, text: "hi" },
    "ui.label": { anchor: { type: "world", entity: ball }, text: "ball" },
    "ui.textBox": { anchor: { type: "screen" }, title: "box", text: "body" },
    "ui.speechBubble": { anchor: { type: "world", entity: ball, offset: [0, 1, 0] }, text: "hello" },
    "ui.thoughtBubble": { anchor: { type: "world", entity: ball, offset: [0, 1, 0] }, text: "hmm" },
    "ui.callout": { anchor: { type: "world", position: [1, 1, 0] }, text: "here", leader: { target: ball } },
    "ui.hudPanel": { anchor: { type: "screen", corner: "topRight" }, text: "hud" },
    "ui.update": { handle: "ui_1", text: "changed" },
    "ui.remove": { handle: "ui_2" },
    "social.approach": { target: floor },
    "social.say": { text: "hi" },
    // Registration order builds the navmesh before the walk needs it.
    "character.spawn": { position: [-2, 0, 3] },
    "character.move": { entityId: walker, direction: [1, 0] },
    "character.jump": { entityId: walker },
    "character.lookAt": { entityId: walker, target: [0, 0, 0] },
    "character.list": {},
    "animation.play": { entityId: walker, clip: "wave" },
    "animation.getState": { entityId: walker },
    "animation.list": {},
    "nav.build": {},
    "nav.findPath": { from: [1, 0, 1], to: [-2, 0, -2] },
    "nav.isReachable": { from: [1, 0, 1], to: [-2, 0, -2] },
    "nav.moveTo": { entityId: walker, target: [-2, 0, -2] },
    "nav.stop": { entityId: walker },
    "camera.follow": { entityId: walker },
    "camera.thirdPerson": { entityId: walker },
    "camera.firstPerson": { entityId: walker },
    "camera.orbit": { target: [0, 0, 0] },
    "camera.shake": {},
  };
  // Social skills act as an embodied agent under social.actor: one with a body, over its own MCP session.
  const SOCIAL = ["social.approach", "social.say"];
  s.agents.publish({ list: () => [{ agentId: "actor", entityId: ball }], perceptionOf: () => null });
  const social = s.mcp();
  social.initialize({ agentId: "actor", sessionId: "sess_actor", profile: "social.actor" });
  const tools = m.listTools().map((t) => t.name);
  assertEquals(Object.keys(MINIMAL).sort(), [...tools].sort(), "a minimal input for every listed tool");
  const outcomes: Record<string, MCPResponse> = {};
  for (const tool of tools) {
    const r = await (SOCIAL.includes(tool) ? social : m).callTool({ tool, input: MINIMAL[tool] });
    outcomes[tool] = r;
    assert(r.error?.code !== "unavailable", `${tool} is listed but unavailable: ${r.error?.message}`);
    assert(r.success, `${tool}: ${r.error?.code}: ${r.error?.message}`);
  }
  assertEquals(outcomes["scene.destroyEntity"].result, { removed: true });
  assertEquals((outcomes["physics.raycast"].result as { entity?: string }).entity, floor);
  assertEquals((outcomes["dev.reload"].result as { ok: boolean }).ok, true);
  assertEquals(rebuilt, 1);
  assertEquals((outcomes["trace.explainEvent"].result as { event: { id: string } }).event.id, firstEvent);
  assertEquals((outcomes["skills.list"].result as { tools: unknown[] }).tools.length, 66);
  assertEquals(outcomes["ui.update"].result, { ok: true, changed: true });
  assertEquals(outcomes["ui.remove"].result, { removed: true });
  assertEquals((outcomes["social.say"].result as { speaker: string }).speaker, "actor");
  await Limina.run({ cmd: "rm", args: ["-f", `${traceDir()}/${(outcomes["trace.export"].result as { name: string }).name}`] });
  s.dispose();
});

test("`limina skills` lists exactly the registered skills; --markdown documents each", async () => {
  const plain = await Limina.run({ cmd: Limina.execPath, args: ["skills"] });
  assertEquals(plain.code, 0, plain.stderr);
  const rows = plain.stdout.trimEnd().split("\n").map((l) => l.split("\t"));
  // The CLI lists render.capture too where, as here, a WebGPU adapter exists.
  const capturing = createWorldSession({ simulate: false });
  assertEquals(await capturing.enableCapture(), true, "this machine has a WebGPU adapter");
  const listed = [...REGISTERED, "render.capture"];
  assertEquals(capturing.registry.all().map((s) => s.name), listed);
  assertEquals(rows.map((r) => r[0]), listed);
  for (const [name, version, permissions] of rows) {
    const skill = capturing.registry.get(name)!;
    assertEquals([version, permissions], [skill.version, skill.permissions.join(",") || "-"], name);
  }
  const md = await Limina.run({ cmd: Limina.execPath, args: ["skills", "--markdown"] });
  assertEquals(md.code, 0, md.stderr);
  const headings = md.stdout.split("\n").filter((l) => l.startsWith("## ") && l.includes(".")).map((l) => l.slice(3));
  assertEquals(headings, listed);
  capturing.dispose();
});
