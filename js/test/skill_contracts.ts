// Skill contracts are built once per process: every world session's core
// skills share the same Zod input and output schemas (a family's contracts
// live at its module's top level), while each session keeps its own
// definitions, handlers, registry, policy and world — nothing one session
// registers, replaces, revokes or changes reaches another. The registry
// checks them through Zod's compiled form, which must answer exactly as Zod.
import { PolicyEngine, resolveProfile, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { z } from "zod";

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

// Samples of what a schema accepts and rejects, read off its Zod definition:
// each kind's edge values (bounds and just past them, lengths, every enum
// member), wrong types, objects with each key varied in turn, a key missing,
// an unknown key.
// deno-lint-ignore no-explicit-any
function samples(schema: any, depth = 0): unknown[] {
  const def = schema._zod.def;
  const checks = (def.checks ?? []).map((c: { _zod: { def: Record<string, unknown> } }) => c._zod.def);
  const bound = (kind: string) => checks.find((c: Record<string, unknown>) => c.check === kind);
  const lengths = () => {
    const min = (bound("min_length")?.minimum as number | undefined) ?? (bound("length_equals")?.length as number | undefined) ?? 0;
    const max = (bound("max_length")?.maximum as number | undefined) ?? (bound("length_equals")?.length as number | undefined) ?? min + 2;
    return [...new Set([0, min, max, max + 1, Math.max(0, min - 1)])];
  };
  const deeper = (s: unknown) => (depth > 4 ? [] : samples(s, depth + 1));
  switch (def.type) {
    case "string": {
      const chars = (n: number) => "ab-_.9Z".repeat(Math.ceil(n / 7) + 1).slice(0, n);
      return [...lengths().map(chars), "ent_1", "id with spaces", 7, null, undefined];
    }
    case "number": {
      const lo = bound("greater_than")?.value as number | undefined;
      const hi = bound("less_than")?.value as number | undefined;
      const edges = [lo, hi].filter((v) => v !== undefined).flatMap((v) => [v, v! - 1, v! + 1, v! - 1e-9, v! + 1e-9]);
      return [0, 1, -1, 0.5, 2.5, 1e300, -1e300, 2 ** 53, Infinity, NaN, ...edges, "1", null, undefined, [1]];
    }
    case "boolean":
      return [true, false, "true", 0, null, undefined];
    case "enum":
    case "literal":
      return [...schema._zod.values, "not_a_member", 12345, null, undefined];
    case "null":
      return [null, undefined, 0];
    case "unknown":
    case "any":
      return [1, "x", null, { a: [1] }, undefined];
    case "never":
      return [undefined, 1];
    case "optional":
    case "default":
    case "prefault":
    case "nullable":
    case "nonoptional":
    case "readonly":
    case "catch":
      return [undefined, null, ...deeper(def.innerType)];
    case "pipe":
      return deeper(def.in);
    case "transform":
      return [1, "x", undefined];
    case "array": {
      const element = deeper(def.element);
      return [[], ...lengths().map((n) => Array.from({ length: n }, (_, i) => element[i % Math.max(1, element.length)])), ...element.slice(0, 6).map((e) => [e]), "x", null, undefined];
    }
    case "tuple": {
      const items = def.items.map((s: unknown) => deeper(s));
      const first = items.map((v: unknown[]) => v[0]);
      const varied = items.flatMap((v: unknown[], i: number) => v.slice(1, 8).map((x) => first.map((f: unknown, j: number) => (j === i ? x : f))));
      return [first, first.slice(0, -1), [...first, 0], ...varied, {}, null, undefined];
    }
    case "union":
      return def.options.flatMap((o: unknown) => deeper(o).slice(0, 12));
    case "record":
      return [{}, ...deeper(def.valueType).slice(0, 6).map((v) => ({ k: v })), [], null, undefined];
    case "object": {
      const keys = Object.keys(def.shape);
      const each = keys.map((k) => deeper(def.shape[k]));
      // The base takes each key's first sample its own schema accepts, so varying one key at a time reaches deep into a valid whole.
      const base: Record<string, unknown> = {};
      keys.forEach((k, i) => {
        const ok = each[i].find((v) => v !== undefined && def.shape[k].safeParse(v).success);
        if (ok !== undefined) base[k] = ok;
      });
      const varied = keys.flatMap((k, i) => each[i].slice(0, 10).map((v) => (v === undefined ? Object.fromEntries(Object.entries(base).filter(([key]) => key !== k)) : { ...base, [k]: v })));
      return [base, {}, { ...base, unknownKey: 1 }, ...varied, [], "x", null, undefined];
    }
    default:
      return [undefined, null, 1, "x", {}];
  }
}

test("every skill's compiled contract gives Zod's own verdict, value (defaults, key order) and error on accepted and rejected samples", async () => {
  const s = new WorldSession({ simulate: false });
  let accepted = 0;
  let rejected = 0;
  const outputs = [...new Set(s.registry.all().map((skill) => skill.output))];
  for (const skill of s.registry.all()) {
    for (const input of [...(skill.examples ?? []).map((e) => e.input), ...samples(skill.input)]) {
      const zod = skill.input.safeParse(input ?? {});
      const got = s.registry.validate(skill.name, input);
      const want = zod.success ? { ok: true, value: JSON.stringify(zod.data) } : { ok: false, message: `${skill.name}: ${z.prettifyError(zod.error)}` };
      assertEquals(got.ok ? { ok: true, value: JSON.stringify(got.value) } : { ok: false, message: got.message }, want, `${skill.name} input ${JSON.stringify(input)}`);
      if (zod.success) accepted++;
      else rejected++;
    }
  }
  // Outputs go through the same check after the handler: a stand-in skill returns each sample.
  let sample: unknown;
  for (const [i, output] of outputs.entries()) {
    s.registry.register({ name: `test.output${String.fromCharCode(97 + (i % 26))}${"x".repeat(Math.floor(i / 26))}`, version: "1.0.0", description: "returns a sample", category: "system", input: z.object({}), output, permissions: [], handler: () => sample });
  }
  for (const [i, output] of outputs.entries()) {
    const name = `test.output${String.fromCharCode(97 + (i % 26))}${"x".repeat(Math.floor(i / 26))}`;
    for (sample of samples(output)) {
      const zod = output.safeParse(sample);
      const got = await s.registry.invoke(name, {}, base("agent", "sess"));
      const want = zod.success ? JSON.stringify(zod.data) : `${name} returned output that does not match its schema: ${z.prettifyError(zod.error)}`;
      assertEquals(got.ok ? JSON.stringify(got.value) : got.error.message, want, `${name} output ${JSON.stringify(sample)}`);
      if (zod.success) accepted++;
      else rejected++;
    }
  }
  assert(accepted > 4000 && rejected > 6000, `${accepted} accepted, ${rejected} rejected samples`);
  s.dispose();
});
