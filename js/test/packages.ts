// Packages: `limina package keygen|sign|verify`, package.list's provenance,
// and package.load's checks in order — manifest, engine range, content hash
// and signature against the trusted keys, the profile named, declared
// capabilities against it — each rejection with its rejectReason, reason
// and audited policy event; a loaded package driving the world only through
// what its profile grants; onTick within its per-tick budget, with repeated
// overruns unloading it; and an agent package as a player's provider.
import { type LoadDecision, PackageProvider, createAgentSystems, type EngineEvent, resolveProfile, WorldSession, waitSteps } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { value } from "./support/results.ts";
import { sh } from "./support/shell.ts";

async function limina(args: string[], env: Record<string, string> = {}) {
  return await Limina.run({ cmd: Limina.execPath, args, env });
}

// An install directory of the fixtures, signed with a trusted key, plus
// the ways an attestation goes wrong.
const tmp = (await sh("mktemp -d /tmp/limina-packages-XXXXXX")).trim();
const dir = `${tmp}/packages`;
await sh(`mkdir -p ${dir} && cp -r tests/packages/. ${dir}/`);
const keygen = await limina(["package", "keygen", `${tmp}/trusted.key`]);
assertEquals(keygen.code, 0, keygen.stderr);
const trustedKey = keygen.stdout.trim();
const otherKey = (await limina(["package", "keygen", `${tmp}/other.key`])).stdout.trim();
await sh(`echo '# the operator trusts one key' > ${tmp}/trusted-keys && echo ${trustedKey} >> ${tmp}/trusted-keys`);
const sign = (pkg: string, key = "trusted") => limina(["package", "sign", `${dir}/${pkg}`, "--key", `${tmp}/${key}.key`]);
for (const pkg of ["builder", "spin", "future", "greedy", "sneaky", "ticker", "hog", "bot"]) {
  const r = await sign(pkg);
  assertEquals(r.code, 0, `${pkg}: ${r.stderr}`);
}
// Tampered after signing; signed with a bad signature; signed by a stranger; never signed.
await sh(`cp -r ${dir}/builder ${dir}/tampered && sed -i 's/"builder"/"tampered"/' ${dir}/tampered/limina-package.json`);
assertEquals((await sign("tampered")).code, 0);
await sh(`echo '// one more line' >> ${dir}/tampered/main.js`);
await sh(`cp -r ${dir}/builder ${dir}/forged && sed -i 's/"builder"/"forged"/' ${dir}/forged/limina-package.json`);
assertEquals((await sign("forged")).code, 0);
await sh(`cd ${dir}/forged && python3 -c "
import json; m = json.load(open('limina-package.json')); v = m['signature']['value']
m['signature']['value'] = ('0' if v[0] != '0' else '1') + v[1:]; json.dump(m, open('limina-package.json', 'w'))"`);
await sh(`cp -r ${dir}/builder ${dir}/stranger && sed -i 's/"builder"/"stranger"/' ${dir}/stranger/limina-package.json`);
assertEquals((await sign("stranger", "other")).code, 0);
await sh(`cp -r tests/packages/builder ${dir}/plain && sed -i 's/"builder"/"plain"/' ${dir}/plain/limina-package.json`);
await sh(`mkdir ${dir}/broken && echo '{"name": "broken", "version": "1.0.0", "kind": "robot", "entry": "main.js", "capabilities": [], "engine": "*"}' > ${dir}/broken/limina-package.json && echo 1 > ${dir}/broken/main.js`);

const install = { dir, trustedKeys: `${tmp}/trusted-keys` };

function session(options: { allowUnsigned?: boolean; limits?: Record<string, number>; simulate?: boolean } = {}) {
  return new WorldSession({ simulate: options.simulate ?? false, packages: { install: { ...install, allowUnsigned: options.allowUnsigned ?? false }, limits: options.limits } });
}

const builder = { agentId: "agt_builder", sessionId: "sess_op", permissions: [...resolveProfile("builder.readWrite")], profile: "builder.readWrite" };

async function load(s: WorldSession, ref: string, profile = "builder.readWrite", agentId = "agt_pkg", caller = builder): Promise<LoadDecision> {
  return value<LoadDecision>(await s.registry.invoke("package.load", { ref, agentId, sessionId: "sess_pkg", profile }, caller));
}

const digest = (s: WorldSession) => JSON.stringify([s.world.snapshot(), s.physics.bodyCount()]);
const event = (s: WorldSession, id: string | null) => s.tracer.history().find((e) => e.id === id) as EngineEvent;

test("limina package verify: exit 0 for a package signed by a trusted key, 1 naming the reason otherwise", async () => {
  const verify = (pkg: string) => limina(["package", "verify", `${dir}/${pkg}`, "--trusted-keys", `${tmp}/trusted-keys`]);
  const ok = await verify("builder");
  assertEquals(ok.code, 0, ok.stderr);
  assert(ok.stdout.startsWith("ok: builder@1.0.0 sha256:") && ok.stdout.includes(trustedKey), ok.stdout);
  for (const [pkg, reason] of [["tampered", "hash_mismatch"], ["forged", "bad_signature"], ["stranger", "untrusted_key"], ["plain", "unsigned"], ["broken", "invalid_manifest"]]) {
    const r = await verify(pkg);
    assertEquals(r.code, 1, `${pkg}: ${r.stdout}`);
    assert(r.stderr.startsWith(`error: ${reason}:`), `${pkg}: ${r.stderr}`);
  }
  // The environment names the trusted keys when the flag does not.
  const env = await limina(["package", "verify", `${dir}/builder`], { LIMINA_TRUSTED_KEYS: `${tmp}/trusted-keys` });
  assertEquals(env.code, 0, env.stderr);
  const none = await limina(["package", "verify", `${dir}/builder`], { LIMINA_TRUSTED_KEYS: `${tmp}/missing` });
  assert(none.code === 1 && none.stderr.includes("untrusted_key") && none.stderr.includes("cannot be read"), none.stderr);
});

test("limina package: keygen never overwrites a key; sign refuses a bad key or package; re-signing keeps the content hash", async () => {
  const again = await limina(["package", "keygen", `${tmp}/trusted.key`]);
  assert(again.code === 1 && again.stderr.includes("refusing to overwrite"), again.stderr);
  assertEquals(otherKey.length, 64);
  await sh(`echo nothex > ${tmp}/bad.key`);
  const bad = await limina(["package", "sign", `${dir}/builder`, "--key", `${tmp}/bad.key`]);
  assert(bad.code === 1 && bad.stderr.includes("secret key"), bad.stderr);
  const nowhere = await limina(["package", "sign", `${tmp}/nowhere`, "--key", `${tmp}/trusted.key`]);
  assertEquals(nowhere.code, 1);
  const before = (await limina(["package", "verify", `${dir}/builder`, "--trusted-keys", `${tmp}/trusted-keys`])).stdout.split(" ")[2];
  assertEquals((await sign("builder")).code, 0);
  const after = (await limina(["package", "verify", `${dir}/builder`, "--trusted-keys", `${tmp}/trusted-keys`])).stdout.split(" ")[2];
  assertEquals(after, before, "the signature is not part of the hash");
  assert(/^sha256:[0-9a-f]{64}$/.test(after));
});

test("package.list: each usable package's provenance, in the catalog's shape; a name filters", async () => {
  const s = session();
  const all = value<{ packages: Record<string, unknown>[] }>(await s.registry.invoke("package.list", {}, builder)).packages;
  const refs = all.map((p) => p.ref);
  assert(!refs.includes("broken@1.0.0"), "a package whose manifest is invalid is not listed");
  for (const ref of ["builder@1.0.0", "spin@1.0.0", "future@2.0.0", "tampered@1.0.0", "forged@1.0.0", "stranger@1.0.0", "plain@1.0.0"]) assert(refs.includes(ref), ref);
  const b = all.find((p) => p.ref === "builder@1.0.0")!;
  assertEquals(Object.keys(b).sort(), ["attested", "contentHash", "declaredCapabilities", "engineCompat", "kind", "name", "ref", "version"]);
  assertEquals([b.name, b.version, b.kind, b.declaredCapabilities, b.engineCompat, b.attested], ["builder", "1.0.0", "script", ["scene.write", "agent.write"], ">=0.1.0, <1.0.0", true]);
  assert(/^sha256:[0-9a-f]{64}$/.test(b.contentHash as string));
  const attested = Object.fromEntries(all.map((p) => [p.name, p.attested]));
  assertEquals([attested.tampered, attested.forged, attested.stranger, attested.plain], [false, false, false, false]);
  const one = value<{ packages: { ref: string }[] }>(await s.registry.invoke("package.list", { name: "ticker" }, builder)).packages;
  assertEquals(one.map((p) => p.ref), ["ticker@1.0.0"]);
  // Listing needs no permission.
  value(await s.registry.invoke("package.list", {}, { ...builder, permissions: [] }));
  s.dispose();
});

test("package.load: a signed package under a granting profile drives the world through skills, attributed to the package", async () => {
  const s = session();
  const d = await load(s, "builder@1.0.0");
  assertEquals([d.ok, d.ref, d.agentId, d.rule, d.rejectReason, d.reason], [true, "builder@1.0.0", "agt_pkg", "profile.grant", null, null]);
  const loaded = event(s, d.loadEventId);
  assertEquals(loaded.type, "package.loaded");
  const p = loaded.payload as Record<string, unknown>;
  assertEquals([p.attested, p.key, p.invoked, p.resident, p.by], [true, trustedKey, 2, false, "agt_builder"]);
  assertEquals(s.world.entities.size, 1);
  const created = s.tracer.history().find((e) => e.type === "skill.executed" && (e.payload as { skill: string }).skill === "scene.createEntity")!;
  // The package acts in its caller's session ("sess_pkg" is the label the caller gave).
  assertEquals([created.actorId, created.threadId, (created.payload as { pkg: string }).pkg], ["agt_pkg", "sess_op", "builder@1.0.0"]);
  const built = s.tracer.history().find((e) => e.type === "agent.signal.built")!;
  assertEquals(built.payload, { entity: "ent_1" });
  // The skill call is caused by the load's allow decision and its own crossing's.
  const causes = created.causedBy.map((id) => event(s, id));
  assertEquals(causes.map((e) => [e.type, (e.payload as { boundary: string }).boundary]), [["policy.decision", "package"], ["policy.decision", "sandbox"]]);
  s.dispose();
});

test("package.load: a package calling a skill its capabilities do not grant is denied, and the world is unchanged", async () => {
  const s = session();
  const before = digest(s);
  const d = await load(s, "sneaky@1.0.0");
  assert(d.ok, String(d.reason));
  assertEquals(digest(s), before);
  const said = s.tracer.history().find((e) => e.type === "agent.signal.sneaky")!;
  const outcome = (said.payload as { outcome: string }).outcome;
  assert(outcome.startsWith("forbidden:") && outcome.includes("scene.write"), outcome);
  s.dispose();
});

/** Loads `ref` and checks the rejection: its reason, an audited policy.denied behind it, and no effect. */
async function rejected(s: WorldSession, ref: string, rejectReason: string, rule: string, profile = "builder.readWrite", caller = builder): Promise<LoadDecision> {
  const before = digest(s);
  const d = await load(s, ref, profile, "agt_pkg", caller);
  assertEquals([d.ok, d.ref, d.rejectReason, d.rule], [false, ref, rejectReason, rule], String(d.reason));
  assert(typeof d.reason === "string" && d.reason.length > 10, "a human reason");
  const e = event(s, d.loadEventId);
  assertEquals(e.type, "package.rejected");
  assertEquals((e.payload as { rejectReason: string }).rejectReason, rejectReason);
  const policy = event(s, e.causedBy[0]);
  assertEquals(policy.type, "policy.denied");
  assertEquals((policy.payload as { boundary: string; context: { package: string } }).boundary, "package");
  assertEquals(digest(s), before);
  assertEquals(s.packages.get("agt_pkg"), undefined);
  // The audit skills answer from that record.
  const explained = value<{ decision: { allow: boolean; rule: string } }>(await s.registry.invoke("audit.explain", { eventId: d.loadEventId }, builder));
  assertEquals([explained.decision.allow, explained.decision.rule], [false, rule]);
  return d;
}

test("package.load rejects an over-claiming manifest, an out-of-range engine, tampered content and bad signatures, each with its reason", async () => {
  const s = session();
  const over = await rejected(s, "greedy@1.0.0", "capability_overclaim", "profile.denied", "player.limited");
  assert(over.reason!.includes("scene.write") && over.reason!.includes("player.limited"), over.reason!);
  const future = await rejected(s, "future@2.0.0", "engine_incompatible", "package.rejected");
  assert(future.reason!.includes(">=99.0.0") && future.reason!.includes(Limina.version), future.reason!);
  const tampered = await rejected(s, "tampered@1.0.0", "hash_mismatch", "package.rejected");
  assert(tampered.reason!.includes("signed sha256:"), tampered.reason!);
  await rejected(s, "forged@1.0.0", "bad_signature", "package.rejected");
  const stranger = await rejected(s, "stranger@1.0.0", "untrusted_key", "package.rejected");
  assert(stranger.reason!.includes(otherKey), stranger.reason!);
  const plain = await rejected(s, "plain@1.0.0", "unsigned", "package.rejected");
  assert(plain.reason!.includes("LIMINA_ALLOW_UNSIGNED_PACKAGES=1"), plain.reason!);
  await rejected(s, "broken@1.0.0", "invalid_manifest", "package.rejected");
  await rejected(s, "nothing@1.0.0", "not_found", "package.rejected");
  await rejected(s, "builder@1.0.0", "unknown_profile", "package.rejected", "no.such.profile");
  // Nobody gets more than they have: a reader cannot hand out builder.readWrite.
  const reader = { ...builder, permissions: ["agent.write", "scene.read"], profile: "custom" };
  await rejected(s, "builder@1.0.0", "profile_exceeds_caller", "profile.denied", "builder.readWrite", reader);
  // A bad ref or a caller without agent.write never gets that far.
  const bad = await s.registry.invoke("package.load", { ref: "no-version", agentId: "a", sessionId: "s", profile: "builder.readWrite" }, builder);
  assertEquals(bad.ok ? "ok" : bad.error.code, "invalid_input");
  const denied = await s.registry.invoke("package.load", { ref: "builder@1.0.0", agentId: "a", sessionId: "s", profile: "system.readonly" }, { ...builder, permissions: ["scene.read"] });
  assertEquals(denied.ok ? "ok" : denied.error.code, "forbidden");
  const summary = value<{ summary: { byRule: Record<string, number>; packages: string[] } }>(await s.registry.invoke("audit.query", { decision: "deny" }, builder)).summary;
  assert(summary.byRule["package.rejected"] >= 8 && summary.byRule["profile.denied"] >= 2, JSON.stringify(summary.byRule));
  assert(summary.packages.includes("tampered@1.0.0"));
  s.dispose();
});

test("an unsigned package loads only when the host allows unsigned packages, listed as not attested", async () => {
  const s = session({ allowUnsigned: true });
  const d = await load(s, "plain@1.0.0");
  assert(d.ok, String(d.reason));
  assertEquals((event(s, d.loadEventId).payload as { attested: boolean }).attested, false);
  assertEquals(s.world.entities.size, 1);
  // Allowing unsigned packages does not let a broken signature through.
  await rejected(s, "forged@1.0.0", "bad_signature", "package.rejected");
  s.dispose();
});

test("package.load of while(true){} answers within its CPU budget with the sandbox stopped, and the host goes on", async () => {
  const s = session({ limits: { loadCpuMs: 40 } });
  const started = performance.now();
  const d = await rejected(s, "spin@1.0.0", "cpu_budget", "package.rejected");
  const wall = performance.now() - started;
  assert(d.reason!.includes("CPU") && d.reason!.includes("40 ms"), d.reason!);
  assert(wall < 5_000, `answered after ${wall} ms`);
  // The same agent id can load something else next.
  assert((await load(s, "builder@1.0.0")).ok);
  s.dispose();
});

test("onTick runs every fixed step within its budget; one package per agent", async () => {
  const s = session({ simulate: true });
  const d = await load(s, "ticker@1.0.0");
  assert(d.ok, String(d.reason));
  assertEquals((event(s, d.loadEventId).payload as { resident: boolean }).resident, true);
  const again = await load(s, "builder@1.0.0");
  assertEquals(again.rejectReason, "already_loaded");
  // A step that comes while the last tick still waits on the host skips the package (a loaded
  // machine runs steps back to back): wait for the signals, not for a number of steps.
  const signals = () => s.tracer.history().filter((e) => e.type === "agent.signal.ticked");
  const started = performance.now();
  while (signals().length < 2 && performance.now() - started < 10_000) await waitSteps(5);
  await waitSteps(1); // the tick behind the last signal finishes
  const ticks = signals();
  assert(ticks.length >= 2, `${ticks.length} signals after ${Limina.loop.steps()} steps`);
  assertEquals((ticks[0].payload as { seen: number }).seen, 10);
  assertEquals((ticks[1].payload as { seen: number }).seen, 20);
  const pkg = s.packages.get("agt_pkg")!;
  assert(pkg.ticks >= 20 && pkg.overruns === 0, `${pkg.ticks} ticks, ${pkg.overruns} overruns`);
  assert(s.packages.unload("agt_pkg"));
  const seen = pkg.ticks;
  await waitSteps(3);
  assertEquals(pkg.ticks, seen, "an unloaded package ticks no more");
  s.dispose();
});

test("a tick over its budget is cut off and counted; repeated overruns unload the package with an event", async () => {
  const s = session({ simulate: true, limits: { tickCpuMs: 5, maxOverruns: 3 } });
  const d = await load(s, "hog@1.0.0");
  assert(d.ok, String(d.reason));
  const pkg = s.packages.get("agt_pkg")!;
  const started = performance.now();
  while (pkg.unloaded === null && performance.now() - started < 10_000) await waitSteps(1);
  assertEquals(pkg.overruns, 3);
  const overruns = s.tracer.history().filter((e) => e.type === "package.tick.overrun");
  assertEquals(overruns.length, 3);
  for (const o of overruns) {
    const p = o.payload as { rejectReason: string; cpuMs: number; budgetMs: number };
    assertEquals([p.rejectReason, p.budgetMs], ["cpu_budget", 5]);
    assert(p.cpuMs >= 5 && p.cpuMs < 1_000, `a tick ran ${p.cpuMs} ms`);
  }
  const gone = s.tracer.history().find((e) => e.type === "package.unloaded")!;
  assertEquals((gone.payload as { rejectReason: string; ref: string }).rejectReason, "cpu_budget");
  assertEquals(s.packages.get("agt_pkg"), undefined);
  // The loop kept stepping throughout and goes on.
  const steps = Limina.loop.steps();
  await waitSteps(2);
  assert(Limina.loop.steps() >= steps + 2);
  s.dispose();
});

test("an agent package is a player's provider: its decide runs in the sandbox and its tool calls are validated and performed", async () => {
  const s = session({ simulate: true });
  const d = await load(s, "bot@1.0.0", "player.limited", "agt_bot");
  assert(d.ok, String(d.reason));
  const me = value<{ entity: string }>(await s.registry.invoke("scene.createEntity", { shape: "sphere", position: [0, 0.5, 0], dynamic: true }, builder)).entity;
  value(await s.registry.invoke("scene.createEntity", { shape: "box", position: [2, 0.5, 0] }, builder));
  const systems = createAgentSystems(s, { pkg: new PackageProvider(s.packages) });
  systems.agents.add({ id: "agt_bot", type: "player", entityId: me, profile: "player.limited", sessionId: "sess_bot", decisionIntervalTicks: 5, llm: { provider: "pkg", model: "bot@1.0.0", systemPrompt: "" } });
  const started = performance.now();
  const impulses = () => s.tracer.history().filter((e) => e.type === "skill.executed" && (e.payload as { skill: string }).skill === "physics.applyImpulse");
  while (impulses().length === 0 && performance.now() - started < 10_000) await waitSteps(5);
  const done = impulses()[0];
  assert(done !== undefined, "the package's decision was performed");
  assertEquals([done.actorId, (done.payload as { input: { entity: string; impulse: number[] } }).input.entity], ["agt_bot", me]);
  const push = (done.payload as { input: { impulse: number[] } }).input.impulse;
  assert(push[0] < 0, `pushed away from the box at +x: ${push}`);
  const made = s.tracer.history().find((e) => e.type === "agent.decision.made")!;
  assertEquals((made.payload as { provider: string }).provider, "pkg");
  // A package that is not an agent cannot decide.
  systems.dispose();
  s.dispose();
});
