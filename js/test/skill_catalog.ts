// The registered skills against the catalog (tests/fixtures/skills.json, a
// copy of the spec's skills.json): every catalog skill is registered and listed
// (tools/list over the registry and over MCP), each with the catalog's name, version, category, permissions, input
// and output fields and input defaults, plus camera.set/get and skills.search
// beyond the catalog (render.capture, also beyond it, only where capture is
// enabled: render_capture.ts); every listed tool really works.
import { createWorldSession, type MCPResponse, traceDir } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import catalog from "../../tests/fixtures/skills.json" with { type: "json" };
import type { MatrixFamily } from "./support/matrix/family.ts";

/** Output fields an issue added after the catalog's, in order (issue #33: tokens in/out per LLM player). */
const OUTPUT_BEYOND: Record<string, string[]> = { "audit.usage": ["agents"] };

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
];

/** The skills the permission matrix's family files (js/test/support/matrix/) give samples for. */
async function matrixSampleNames(): Promise<Set<string>> {
  const dir = `${import.meta.url.replace(/^file:\/\//, "").replace(/[^/]*$/, "")}support/matrix/`;
  const files = (await Limina.run({ cmd: "ls", args: [dir] })).stdout.split("\n").filter((f) => f.endsWith(".ts") && f !== "family.ts");
  const names = new Set<string>();
  for (const f of files) for (const n of Object.keys(((await import(`${dir}${f}`)) as { family: MatrixFamily }).family.samples)) names.add(n);
  return names;
}

/** Skills beyond the catalog. */
const BEYOND = ["camera.set", "camera.get", "skills.search"];

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

test("the registry holds the 48 catalog skills in catalog order (each family's others beside them); tools/list lists exactly the registry", () => {
  assertEquals(REGISTERED.length, 48);
  const names = registry.all().map((s) => s.name);
  assertEquals(names.filter((n) => REGISTERED.includes(n)), REGISTERED);
  assertEquals(new Set(names).size, registry.size, "no name twice");
  const tools = registry.listTools();
  assertEquals(tools.map((t) => t.name), names);
  const wire = mcp.listTools();
  assertEquals(wire.map((t) => t.name), names, "MCP tools/list");
  wire.forEach((t, i) => {
    assertEquals(t.description, tools[i].description, t.name);
    assertEquals(t.input_schema, tools[i].inputSchema, `${t.name}: the wire schema is the registry's`);
    assertEquals((t.input_schema as { $schema?: string }).$schema, "http://json-schema.org/draft-07/schema#", t.name);
  });
});

/** Whether `version` is `catalog`'s or a later one of the same major version (a compatible extension). */
function compatible(version: string, catalog: string): boolean {
  const [a, b] = [version, catalog].map((v) => v.split(".").map(Number));
  return a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] >= b[2]));
}

// A catalog skill may be extended compatibly by a later minor version (issue #29 extends
// scene.createEntity, scene.queryEntities, physics.collisionEvents and inspector.snapshot): every
// catalog input field kept with its default, new input fields optional, every output field kept.
test("every registered skill matches its catalog contract, or extends it compatibly", () => {
  const wire = new Map(mcp.listTools().map((t) => [t.name, t]));
  let compared = 0;
  for (const skill of registry.all().filter((s) => REGISTERED.includes(s.name))) {
    if (BEYOND.includes(skill.name)) continue; // beyond the catalog: checked below
    const entry = catalogByName.get(skill.name);
    assert(entry, `${skill.name} is not in the catalog`);
    assert(compatible(skill.version, entry.version), `${entry.name}: version ${skill.version} is not compatible with the catalog's ${entry.version}`);
    assertEquals([skill.category, skill.permissions], [entry.category, entry.permissions], entry.name);
    const extended = skill.version !== entry.version;
    const schema = wire.get(entry.name)!.input_schema as { properties?: Record<string, { default?: unknown }>; required?: string[] };
    const fields = Object.keys(schema.properties ?? {});
    if (extended) {
      assertEquals(fields.filter((f) => f in entry.input).sort(), Object.keys(entry.input).sort(), `${entry.name} input fields`);
      assertEquals(fields.filter((f) => !(f in entry.input) && (schema.required ?? []).includes(f)), [], `${entry.name}: added input fields are optional`);
    } else {
      assertEquals(fields, Object.keys(entry.input), `${entry.name} input fields`);
    }
    for (const [field, spec] of Object.entries(entry.input as Record<string, string>)) {
      const want = catalogDefault(spec);
      if (want !== undefined) assertEquals(schema.properties![field].default, want, `${entry.name}.${field} default`);
    }
    const output = Object.keys((skill.output as { shape?: Record<string, unknown> }).shape ?? {});
    if (extended) assertEquals(output.filter((f) => f in entry.output), Object.keys(entry.output), `${entry.name} output fields`);
    else assertEquals(output, [...Object.keys(entry.output), ...(OUTPUT_BEYOND[entry.name] ?? [])], `${entry.name} output fields`);
    compared++;
  }
  assertEquals(compared, 45);
  assertEquals(catalog.count, catalog.skills.length);
});

test("of the seed skills, only camera.set, camera.get and skills.search are beyond the catalog", () => {
  assertEquals(REGISTERED.filter((n) => !catalogByName.has(n)), BEYOND);
  for (const [name, permissions] of [["camera.set", ["scene.write"]], ["camera.get", ["scene.read"]]] as const) {
    const camera = registry.get(name)!;
    assertEquals([camera.version, camera.category, camera.permissions], ["1.0.0", "render", permissions], name);
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
    "render.setEnvironment": {},
    "render.setPost": {},
    "render.setQuality": { tier: "low" },
    "render.getSettings": {},
    "material.list": {},
    "material.apply": { entityId: ball, material: "wood" },
  };
  // Social skills act as an embodied agent under social.actor: one with a body, over its own MCP session.
  const SOCIAL = ["social.approach", "social.say"];
  s.agents.publish({ list: () => [{ agentId: "actor", entityId: ball }], perceptionOf: () => null });
  const social = s.mcp();
  social.initialize({ agentId: "actor", sessionId: "sess_actor", profile: "social.actor" });
  // The catalog's skills are called here; every other listed skill succeeds with its family's sample in the permission matrix.
  const listed = m.listTools().map((t) => t.name);
  const tools = listed.filter((t) => REGISTERED.includes(t) || t in MINIMAL);
  assertEquals(Object.keys(MINIMAL).sort(), [...tools].sort(), "a minimal input for every catalog tool");
  const sampled = await matrixSampleNames();
  assertEquals(listed.filter((t) => !tools.includes(t) && !sampled.has(t)), [], "every other listed tool has a permission-matrix sample");
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
  assertEquals((outcomes["skills.list"].result as { tools: unknown[] }).tools.length, s.registry.size);
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
  const listed = [...registry.all().map((s) => s.name), "render.capture"];
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

test("every example in the reference is a valid input of its skill", () => {
  let checked = 0;
  for (const skill of registry.all()) {
    for (const e of skill.examples ?? []) {
      const parsed = skill.input.safeParse(e.input);
      assert(parsed.success, `${skill.name} example "${e.note}": ${parsed.success ? "" : parsed.error.message}`);
      checked++;
    }
  }
  assert(checked >= 20, `the toolbox's skills carry examples (${checked})`);
});
