// The registered skills against the catalog (tests/fixtures/skills.json, a
// copy of the spec's skills.json): names, versions, categories,
// permissions, input and output fields, and input defaults.
import { assert, assertEquals, test } from "../src/testing.ts";
import catalog from "../../tests/fixtures/skills.json" with { type: "json" };
import { createWorldSession } from "../src/world-session.ts";

const { registry } = createWorldSession({ simulate: false });

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

test("every catalog skill is registered with its exact contract", () => {
  const tools = new Map(registry.listTools().map((t) => [t.name, t]));
  for (const entry of catalog.skills) {
    const skill = registry.get(entry.name);
    assert(skill, `${entry.name} is not registered`);
    assertEquals([skill.version, skill.category, skill.permissions], [entry.version, entry.category, entry.permissions], entry.name);
    const schema = tools.get(entry.name)!.input_schema as { properties?: Record<string, { default?: unknown }> };
    assertEquals(Object.keys(schema.properties ?? {}), Object.keys(entry.input), `${entry.name} input fields`);
    for (const [field, spec] of Object.entries(entry.input as Record<string, string>)) {
      const want = catalogDefault(spec);
      if (want !== undefined) assertEquals(schema.properties![field].default, want, `${entry.name}.${field} default`);
    }
    const output = skill.output as { shape?: Record<string, unknown> };
    assertEquals(Object.keys(output.shape ?? {}), Object.keys(entry.output), `${entry.name} output fields`);
  }
  assertEquals(catalog.count, 45);
});

test("beyond the catalog: only skills.search", () => {
  const known = new Set(catalog.skills.map((s: { name: string }) => s.name));
  assertEquals(registry.all().map((s) => s.name).filter((n) => !known.has(n)), ["skills.search"]);
  assertEquals(catalog.permissionProfiles["builder.readWrite"].length, 10);
});
