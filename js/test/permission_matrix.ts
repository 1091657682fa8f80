// The permission matrix: every registered skill under each catalog profile
// (and an unknown one, which grants nothing) — allowed exactly when the
// profile's documented permissions include all the skill needs; an allowed
// call has its effect, a denied one changes nothing.
//
// How it is built (follow it when you add skills):
// - CONTRACT is the promise the docs make (docs/concepts.md, "Profiles"):
//   each profile's permissions, written out here and never read from the
//   engine; one test holds resolveProfile to it. A new permission goes into
//   the docs' table and into CONTRACT.
// - Sample inputs live per family in js/test/support/matrix/<family>.ts,
//   each exporting `family: MatrixFamily` (see family.ts): a sample for each
//   skill and an optional `prepare` that builds what the samples need. The
//   directory is listed, so adding a file is all it takes.
// - What a call changes is observed through the world digest
//   (session.digest(): ECS, physics, scene objects, lighting and the world
//   resources — keep your state in a world resource and it is covered), plus
//   what is not world state but a denied call must not touch either:
//   presentation (view camera, UI containers), the caller's walk and the
//   skill catalog.
// - Allowed: the call succeeds and, when the skill needs a world-writing
//   permission (WORLD_WRITE_PERMISSIONS, what replay re-applies), changes
//   what is observed; any other skill changes nothing (a sample's `changes`
//   overrides this, saying why).
// - Denied: `forbidden`, nothing observed changes, and the only event the
//   call leaves is the denial.
import { assert, assertEquals, test } from "limina/testing";
import { Capturer, createWorldSession, type InvokeBase, type InvokeResult, PERMISSIONS, PolicyEngine, resolveProfile, traceDir, WORLD_WRITE_PERMISSIONS, type WorldSession } from "limina";
import type { MatrixFamily, MatrixSample, MatrixWorld } from "./support/matrix/family.ts";

/** What each catalog profile grants, as docs/concepts.md promises it. */
const CONTRACT: Record<string, string[]> = {
  "builder.readWrite": [
    "scene.read", "scene.write", "ecs.read", "ecs.modify", "physics.read", "physics.write", "agent.read", "agent.write", "ui.write", "audio.play",
    "game.read", "game.act", "game.define", "save.write", "world.write", "render.write", "physics.define",
    "nav.define", "character.define", "character.act",
  ],
  "player.limited": ["scene.read", "ecs.read", "physics.read", "physics.write", "agent.read", "agent.write", "game.read", "game.act", "character.act"],
  "social.actor": ["scene.read", "ecs.read", "physics.read", "agent.read", "agent.write", "social.act", "audio.play", "game.read", "game.act", "character.act"],
  "system.readonly": ["scene.read", "ecs.read", "physics.read", "agent.read", "game.read"],
  spectator: [],
};
/** The catalog profiles and one no catalog defines (it grants nothing). */
const MATRIX_PROFILES = [...Object.keys(CONTRACT), "nobody.unknown"];
const granted = (profile: string) => new Set(CONTRACT[profile] ?? []);

const codeOf = (r: InvokeResult) => (r.ok ? undefined : r.error.code);
const messageOf = (r: InvokeResult) => (r.ok ? undefined : r.error.message);

// Every family's samples, found by listing the directory.
const familyDir = `${import.meta.url.replace(/^file:\/\//, "").replace(/[^/]*$/, "")}support/matrix/`;
const listing = await Limina.run({ cmd: "ls", args: [familyDir] });
const FAMILIES = new Map<string, MatrixFamily>();
for (const file of listing.stdout.split("\n").filter((f) => f.endsWith(".ts") && f !== "family.ts").sort()) {
  FAMILIES.set(file.replace(/\.ts$/, ""), ((await import(`${familyDir}${file}`)) as { family: MatrixFamily }).family);
}
const SAMPLES = new Map<string, { family: string; sample: MatrixSample }>();
for (const [family, { samples }] of FAMILIES) {
  for (const [name, sample] of Object.entries(samples)) {
    if (SAMPLES.has(name)) throw new Error(`${name} has samples in both ${SAMPLES.get(name)!.family}.ts and ${family}.ts`);
    SAMPLES.set(name, { family, sample });
  }
}

/** What is not in the digest but a denied call must not touch either: the view, the UI, the caller's walk, the catalog, the quality tier. */
function presentation(s: WorldSession): string {
  const ui = s.ui.handles().map((h) => s.ui.inspect(h));
  return JSON.stringify([s.view.get(), ui, s.locomotion.walking("caller"), s.registry.all().map((k) => [k.name, k.version]), s.look.quality]);
}

// One offscreen renderer for every world here (this machine has a WebGPU adapter).
const capturer = await Capturer.create();
const ADMIN: InvokeBase = { agentId: "admin", sessionId: "admin", permissions: PERMISSIONS, profile: "admin" };

/** A fresh world with the base fixture (ent_1 dynamic and inhabited by the caller, ent_2 static, tagged "fixture"), `family`'s own and `sample`'s. */
async function prepare(family: string, sample?: MatrixSample): Promise<MatrixWorld> {
  const session = createWorldSession({ simulate: false });
  assert(await session.enableCapture(capturer), "render.capture enabled");
  const refs = new Map<string, string>();
  const w: MatrixWorld = {
    session,
    admin: ADMIN,
    async must<T>(tool: string, input: Record<string, unknown>) {
      const r = await session.registry.invoke(tool, input, ADMIN);
      assert(r.ok, `fixture ${tool}: ${codeOf(r)}: ${messageOf(r)}`);
      return (r as { value: T }).value;
    },
    async play<T>(tool: string, input: Record<string, unknown>) {
      const r = await session.registry.invoke(tool, input, { ...ADMIN, agentId: "caller", sessionId: "caller" });
      assert(r.ok, `fixture ${tool} as the caller: ${codeOf(r)}: ${messageOf(r)}`);
      return (r as { value: T }).value;
    },
    name: (key, id) => void refs.set(key, id),
    ref(key) {
      assert(refs.has(key), `no fixture named ${key}`);
      return refs.get(key)!;
    },
  };
  await w.must("scene.createEntity", { position: [0, 1, 0], dynamic: true });
  await w.must("scene.createEntity", { position: [0, -5, 0], size: 8, static: true });
  await w.must("ecs.addComponent", { entity: "ent_2", component: "fixture" });
  session.agents.publish({ list: () => [{ agentId: "caller", entityId: "ent_1" }], perceptionOf: () => null });
  await FAMILIES.get(family)!.prepare?.(w);
  await sample?.before?.(w);
  return w;
}

const inputOf = (sample: MatrixSample, w: MatrixWorld) => (typeof sample.input === "function" ? sample.input(w) : JSON.parse(JSON.stringify(sample.input)));

test("the profiles grant what the docs promise", () => {
  for (const [profile, permissions] of Object.entries(CONTRACT)) assertEquals([...resolveProfile(profile)].sort(), [...permissions].sort(), profile);
  assertEquals(resolveProfile("nobody.unknown").size, 0);
  for (const permissions of Object.values(CONTRACT)) for (const p of permissions) assert((PERMISSIONS as readonly string[]).includes(p), `${p} is a known permission`);
});

/** Every registered skill's permissions, by name. */
const SKILLS = new Map<string, { permissions: string[] }>();
{
  const { session } = await prepare([...FAMILIES.keys()][0]);
  for (const skill of session.registry.all()) SKILLS.set(skill.name, { permissions: [...skill.permissions] });
  session.dispose();
}

test("every registered skill has a sample input, and its permissions are known ones", async () => {
  const { session } = await prepare([...FAMILIES.keys()][0]);
  const names = session.registry.all().map((k) => k.name);
  assertEquals(names.filter((n) => !SAMPLES.has(n)), []);
  assertEquals([...SAMPLES.keys()].filter((n) => !names.includes(n)), []);
  for (const skill of session.registry.all()) for (const p of skill.permissions) assert((PERMISSIONS as readonly string[]).includes(p), `${skill.name} needs ${p}, which is no known permission`);
  session.dispose();
});

test("allowed exactly when the profile grants every permission: allowed calls have their effect, denials change nothing", async () => {
  let checked = 0;
  let denials = 0;
  // A world serves call after call while each call leaves it as prepared: a denial (it must change
  // nothing) or an allowed call of a skill that needs no world-writing permission and says nothing
  // else (it must change nothing observed). Any other call retires it, so every call starts from a
  // world the matrix observes as freshly prepared. A sample with its own `before` gets its own world.
  const worlds = new Map<unknown, MatrixWorld>();
  for (const [name, { family, sample }] of SAMPLES) {
    const key = sample.before ? sample : family;
    for (const profile of MATRIX_PROFILES) {
      const grants = granted(profile);
      const skill = SKILLS.get(name)!;
      const allowedStatically = skill.permissions.every((p) => grants.has(p));
      const allowed = allowedStatically && (sample.needs?.permissions ?? []).every((p) => grants.has(p));
      const w = worlds.get(key) ?? worlds.set(key, await prepare(family, sample)).get(key)!;
      const s = w.session;
      const input = inputOf(sample, w);
      const writes = skill.permissions.some((p) => WORLD_WRITE_PERMISSIONS.has(p));
      const changes = sample.changes ?? writes;
      const digest = s.digest();
      const shown = presentation(s);
      const events = s.tracer.size;
      const r = await s.registry.invoke(name, input, { agentId: "caller", sessionId: "matrix", permissions: grants, profile });
      const where = `${name} under ${profile}`;
      if (allowed) {
        assert(r.ok, `${where} must succeed: ${codeOf(r)}: ${messageOf(r)}`);
        const changed = s.digest() !== digest || presentation(s) !== shown;
        assertEquals(changed, changes, `${where}: ${changes ? "an allowed world-writing call must change the world" : "this skill must change nothing"}`);
        if (r.ok && name === "trace.export") await Limina.run({ cmd: "rm", args: ["-f", `${traceDir()}/${(r.value as { name: string }).name}`] });
        if (r.ok) sample.after?.(r.value);
        if (writes || sample.changes !== undefined) {
          s.dispose();
          worlds.delete(key);
        }
      } else {
        denials++;
        assertEquals(codeOf(r), "forbidden", where);
        assertEquals(s.digest(), digest, `${where}: a denial must leave the world digest as it was`);
        assertEquals(presentation(s), shown, `${where}: a denial must leave presentation, walks and the catalog as they were`);
        if (allowedStatically) {
          // Refused by the handler before it acts: a failed call, nothing else.
          assertEquals(messageOf(r), sample.needs!.message, where);
          assertEquals(s.tracer.history().slice(events).map((e) => e.type), ["skill.failed"], where);
        } else {
          const missing = skill.permissions.find((p) => !grants.has(p));
          assertEquals(messageOf(r), `missing permission: ${missing}`, where);
          assertEquals(s.tracer.history().slice(events).map((e) => e.type), ["security.permission.denied"], where);
        }
      }
      checked++;
    }
  }
  for (const w of worlds.values()) w.session.dispose();
  assertEquals(checked, MATRIX_PROFILES.length * SAMPLES.size);
  assert(denials > 20, `the matrix exercises denials (${denials})`);
  for (const f of FAMILIES.values()) await f.cleanup?.();
});

test("the same holds with the policy engine attached", async () => {
  for (const profile of MATRIX_PROFILES) {
    const grants = granted(profile);
    for (const name of ["scene.createEntity", "ecs.updateComponent", "physics.applyImpulse", "agent.emitEvent", "inspector.snapshot", "skills.list"]) {
      const { family, sample } = SAMPLES.get(name)!;
      const w = await prepare(family, sample);
      const s = w.session;
      s.registry.attachPolicy(new PolicyEngine(s.tracer));
      const skill = s.registry.get(name)!;
      const allowed = skill.permissions.every((p: string) => grants.has(p));
      const before = s.digest();
      const r = await s.registry.invoke(name, inputOf(sample, w), { agentId: "caller", sessionId: "m", permissions: grants, profile });
      if (allowed) assert(r.ok, `${name} under ${profile}: ${codeOf(r)}: ${messageOf(r)}`);
      else {
        assertEquals(codeOf(r), "forbidden", `${name} under ${profile}`);
        assertEquals(s.digest(), before);
        assertEquals(s.tracer.history().slice(-2).map((e) => e.type), ["policy.denied", "security.permission.denied"]);
      }
      s.dispose();
    }
  }
});
