// Skill contracts are built once per process: every world session's core
// skills share the same Zod input and output schemas (a family's contracts
// live at its module's top level), while each session keeps its own
// definitions, handlers, registry, policy and world — nothing one session
// registers, replaces, revokes or changes reaches another.
import { PolicyEngine, resolveProfile, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";

const base = (agentId: string, sessionId: string) => ({ agentId, sessionId, permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" });

test("every core skill of two sessions shares its input and output schemas, and nothing else", () => {
  const a = new WorldSession({ simulate: false });
  const b = new WorldSession({ simulate: false });
  assertEquals(a.registry.all().map((s) => s.name), b.registry.all().map((s) => s.name));
  assert(a.registry.size > 200, `${a.registry.size} core skills`);
  const unshared = [];
  for (const skill of a.registry.all()) {
    const other = b.registry.get(skill.name)!;
    assert(skill !== other && skill.handler !== other.handler, `${skill.name}: each session has its own definition and handler`);
    assert(skill.permissions !== other.permissions, `${skill.name}: its own permission list`);
    if (skill.input !== other.input || skill.output !== other.output) unshared.push(skill.name);
  }
  assertEquals(unshared, [], "skills whose contracts are built again for every session");
  a.dispose();
  b.dispose();
});

test("a skill one session's registry replaces, unregisters or registers stays as it was in the other", async () => {
  const a = new WorldSession({ simulate: false });
  const b = new WorldSession({ simulate: false });
  const original = b.registry.get("scene.createEntity")!;
  a.registry.replace({ ...a.registry.get("scene.createEntity")!, handler: () => ({ entity: "ent_replaced" }) });
  assertEquals(a.registry.unregister("scene.destroyEntity"), true);
  a.registry.register({ ...a.registry.get("scene.queryEntities")!, name: "test.onlyInA" });
  assert(b.registry.get("scene.createEntity") === original, "b's definition is untouched");
  assert(b.registry.has("scene.destroyEntity") && !b.registry.has("test.onlyInA"));
  assertEquals(b.registry.size, a.registry.size);
  assertEquals(b.registry.listTools().some((t) => t.name === "test.onlyInA"), false);
  // b's call runs b's handler over b's world; a's replaced handler touched no world.
  const made = await b.registry.invoke("scene.createEntity", { shape: "box", position: [0, 1, 0] }, base("agent_b", "sess_b"));
  assert(made.ok, JSON.stringify(made));
  const id = (made.value as { entity: string }).entity;
  assert(b.world.entities.get(id) !== undefined && a.world.entities.get(id) === undefined, "the entity is in b's world only");
  const replaced = await a.registry.invoke("scene.createEntity", { shape: "box" }, base("agent_a", "sess_a"));
  assertEquals(replaced.ok && replaced.value, { entity: "ent_replaced" });
  assertEquals(a.world.entities.size, 0);
  a.dispose();
  b.dispose();
});

test("a policy one session attaches, and what it revokes, does not reach the other", async () => {
  const a = new WorldSession({ simulate: false, policy: true });
  const b = new WorldSession({ simulate: false, policy: true });
  const c = new WorldSession({ simulate: false });
  assert(a.registry.policyEngine !== b.registry.policyEngine, "each session has its own policy engine");
  assertEquals(c.registry.policyEngine, null);
  a.policy!.revoke({ sessionId: "sess", cap: "scene.createEntity" }, "not in this world");
  const denied = await a.registry.invoke("scene.createEntity", { shape: "box" }, base("agent", "sess"));
  assertEquals(denied.ok ? "ran" : denied.error.code, "forbidden");
  for (const s of [b, c]) {
    const made = await s.registry.invoke("scene.createEntity", { shape: "box" }, base("agent", "sess"));
    assert(made.ok, JSON.stringify(made));
  }
  // Attaching another engine to one registry leaves the others' as they were.
  const engine = new PolicyEngine(a.tracer);
  a.registry.attachPolicy(engine);
  assert(b.registry.policyEngine === b.policy && c.registry.policyEngine === null);
  // Permissions are checked against each call's own grant in either session.
  const reader = { ...base("reader", "sess_r"), permissions: resolveProfile("system.readonly"), profile: "system.readonly" };
  for (const s of [b, c]) {
    const refused = await s.registry.invoke("scene.createEntity", { shape: "box" }, reader);
    assertEquals(refused.ok ? "ran" : refused.error.code, "forbidden");
  }
  for (const s of [a, b, c]) s.dispose();
});

test("contracts shared across sessions still validate each session's calls on their own", async () => {
  const a = new WorldSession({ simulate: false });
  const b = new WorldSession({ simulate: false });
  const bad = await a.registry.invoke("scene.createEntity", { shape: "hexagon" }, base("agent_a", "sess_a"));
  assertEquals(bad.ok ? "ran" : bad.error.code, "invalid_input");
  const good = await b.registry.invoke("scene.createEntity", { shape: "sphere", radius: 0.5 }, base("agent_b", "sess_b"));
  assert(good.ok, JSON.stringify(good));
  assertEquals([a.world.entities.size, b.world.entities.size], [0, 1]);
  a.dispose();
  b.dispose();
});
