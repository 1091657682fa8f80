// Packages under attack: a session loading many busy packages to starve
// the loop (the world's per-tick budget and the per-session package cap),
// package.load naming reserved, confusable or other sessions' agent ids,
// a package allocating past the host's memory limit, a package holding a
// symlink, and what a missing package's error tells a player.
import { createWorldSession, type EngineEvent, type LoadDecision, resolveProfile, TickBudget, waitSteps, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { value } from "./support/results.ts";
import { sh } from "./support/shell.ts";

const tmp = (await sh("mktemp -d /tmp/limina-package-attacks-XXXXXX")).trim();
const dir = `${tmp}/packages`;
await sh(`mkdir -p ${dir} && cp -r tests/packages/burner tests/packages/balloon tests/packages/ticker ${dir}/`);
const keygen = await Limina.run({ cmd: Limina.execPath, args: ["package", "keygen", `${tmp}/k`] });
assertEquals(keygen.code, 0, keygen.stderr);
await sh(`echo ${keygen.stdout.trim()} > ${tmp}/trusted`);
for (const p of ["burner", "balloon", "ticker"]) assertEquals((await Limina.run({ cmd: Limina.execPath, args: ["package", "sign", `${dir}/${p}`, "--key", `${tmp}/k`] })).code, 0);
// A package with a symlink among its files.
await sh(`cp -r ${dir}/ticker ${dir}/linked && sed -i 's/"ticker"/"linked"/' ${dir}/linked/limina-package.json && ln -s /etc/passwd ${dir}/linked/data.txt`);
const install = { dir, trustedKeys: `${tmp}/trusted` };

const player = (sessionId: string, agentId = `agt_${sessionId}`) => ({ agentId, sessionId, profile: "player.limited", permissions: [...resolveProfile("player.limited")] });
const load = async (s: WorldSession, ref: string, agentId: string, caller = player("mcp-1"), label = "mine") =>
  value<LoadDecision>(await s.registry.invoke("package.load", { ref, agentId, sessionId: label, profile: "player.limited" }, caller));
const eventOf = (s: WorldSession, id: string | null) => s.tracer.history().find((e) => e.id === id) as EngineEvent;

test("tick starvation: one session loading a busy package under 40 agent ids gets 8 loaded, and all packages share the world's per-tick budget", async () => {
  // Each run may take 5 ms, all of a step's 10 ms: the burner's 1–2 ms never overruns its own.
  const s = createWorldSession({ packages: { install, limits: { tickCpuMs: 5, worldTickCpuMs: 10 } } });
  const decisions = [];
  for (let i = 0; i < 40; i++) decisions.push(await load(s, "burner@1.0.0", `agt_burn_${i}`));
  const loaded = decisions.filter((d) => d.ok);
  assertEquals(loaded.length, 8, "a session may have 8 packages loaded");
  const capped = decisions.filter((d) => d.rejectReason === "session_package_cap");
  assertEquals(capped.length, 32);
  assert(capped[0].reason!.includes("8 packages loaded"), capped[0].reason!);
  // Another session's one package is not crowded out by the first session's eight.
  const other = await load(s, "burner@1.0.0", "agt_other", player("mcp-2"));
  assert(other.ok, String(other.reason));
  const s0 = Limina.loop.steps();
  await waitSteps(120);
  const steps = Limina.loop.steps() - s0;
  const ticks = (agentId: string) => s.packages.get(agentId)!.ticks;
  const first = loaded.reduce((n, d) => n + ticks(d.agentId!), 0);
  // A run starts while a whole run's budget (5 ms) is left of the world's 10 ms, one of each session
  // per round: the lone package runs in every round its session is offered, the eight share the
  // rest. How many runs fit in a step depends on how fast the machine runs the burner (a loaded
  // machine leaves room for one run a step, or none in steps run back to back to catch up), so the
  // check is the fairness itself: with one run a step taken in turns, the lone package still has
  // half of them; an order that serves the crowded session first starves it.
  assert(ticks("agt_other") * 2 >= Math.min(steps, first), `the other session's package ran ${ticks("agt_other")} times in ${steps} steps, the crowded session's eight ${first}`);
  assert(first < steps * 8 * 0.75, `the crowded session's eight ran ${first} times in ${steps} steps, fewer than every step`);
  assert(loaded.every((d) => ticks(d.agentId!) > 0), "none of the eight starves");
  const over = s.tracer.history().filter((e) => e.type === "package.tick.overbudget");
  assert(over.length >= 1, "runs deferred for the world's budget are recorded");
  const p = over[0].payload as { budgetMs: number; deferredRuns: number; bySession: Record<string, number> };
  assert(p.budgetMs === 10 && p.deferredRuns > 0 && p.bySession["mcp-1"] > 0, JSON.stringify(p));
  assert(!s.tracer.history().some((e) => e.type === "package.tick.overrun"), "no package ran over its own budget");
  s.dispose();
});

test("the world's tick budget: runs start only while a whole run's budget is left, round-robin across sessions, resuming where the last step stopped", () => {
  const pkgs = (session: string, n: number) => Array.from({ length: n }, (_, i) => ({ sessionId: session, canTick: true, name: `${session}${i}` }));
  const reports: unknown[] = [];
  let clock = 0;
  const budget = new TickBudget<{ sessionId: string; canTick: boolean; name: string }>(4, 2, (r) => reports.push(r), () => clock);
  for (const p of [...pkgs("a", 4), ...pkgs("b", 1), ...pkgs("c", 2)]) budget.add(p);
  const ran: string[][] = [];
  for (let step = 1; step <= 4; step++) {
    clock += 1000 / 60;
    const now: string[] = [];
    // Every run uses 1.5 ms: two fit in 4 ms (after two, 1 ms is left, less than a run's 2 ms).
    budget.tick(step, (p, spend) => (now.push(p.name), spend(1.5)));
    ran.push(now);
  }
  assertEquals(ran, [["a0", "b0"], ["c0", "a1"], ["b0", "c1"], ["a2", "b0"]]);
  const used = ran.map((r) => r.length * 1.5);
  assert(used.every((ms) => ms <= 4), `never over the world's budget: ${used}`);
  // A package waiting on the host is skipped, not counted.
  const idle = { sessionId: "d", canTick: false, name: "d0" };
  budget.add(idle);
  clock += 1000 / 60;
  budget.tick(5, (p, spend) => (assert(p !== idle, "a waiting package does not run"), spend(0.1)));
  // Every step over budget so far is summed up in one event once a step fits.
  assertEquals(reports.length, 1);
  const r = reports[0] as { fromTick: number; toTick: number; ticksOverBudget: number; deferredRuns: number };
  assertEquals([r.fromTick, r.toTick, r.ticksOverBudget, r.deferredRuns], [1, 4, 4, 20]);
});

test("the world's tick budget is earned by the clock: steps run back to back to catch up share one step's budget", () => {
  let clock = 0;
  const budget = new TickBudget<{ sessionId: string; canTick: boolean }>(4, 2, () => {}, () => clock);
  for (let i = 0; i < 8; i++) budget.add({ sessionId: `s${i}`, canTick: true });
  const runs = (steps: number) => {
    let n = 0;
    for (let i = 0; i < steps; i++) budget.tick(i, (_p, spend) => (n++, spend(1.5)));
    return n;
  };
  // Five steps at one instant (a slow machine catching up): one step's budget, two runs.
  clock += 1000 / 60;
  assertEquals(runs(5), 2);
  // Five steps' worth of time later, five steps earn one step each (not more: nothing is banked).
  clock += 5 * (1000 / 60);
  assertEquals(runs(1), 2);
  clock += 1000 / 60;
  assertEquals(runs(1), 2);
});

test("package.load naming a reserved, confusable or another live session's agent id is refused; a package acts in its caller's session", async () => {
  const s = createWorldSession({ packages: { install } });
  const release = s.identities.claim("alice", "mcp-7");
  for (const [agentId, reason] of [
    ["system", "reserved_id"],
    ["operator", "reserved_id"],
    ["Operator", "reserved_id"],
    ["SYSTEM", "reserved_id"],
    ["operator\u200b", "reserved_id"],
    ["\uff4fperator", "reserved_id"],
    ["alice", "id_in_use"],
    ["ALICE", "id_in_use"],
  ]) {
    const d = await load(s, "ticker@1.0.0", agentId);
    assertEquals([agentId, d.ok, d.rejectReason], [agentId, false, reason], String(d.reason));
    assert(eventOf(s, d.loadEventId).type === "package.rejected", agentId);
  }
  assert(!s.tracer.history().some((e) => e.type === "package.loaded"), "nothing was loaded");
  // Alice herself may have a package act as her.
  const own = await load(s, "ticker@1.0.0", "alice", player("mcp-7", "alice"));
  assert(own.ok, String(own.reason));
  release();
  // A fresh id: the package acts in the caller's session, under the label it gave.
  const d = await load(s, "ticker@1.0.0", "agt_helper", player("mcp-3"), "helper-label");
  assert(d.ok, String(d.reason));
  const loaded = eventOf(s, d.loadEventId);
  assertEquals([loaded.actorId, loaded.threadId, (loaded.payload as { label: string }).label], ["agt_helper", "mcp-3", "helper-label"]);
  // Its id is held while it runs: another session cannot take it.
  const taken = await load(s, "ticker@1.0.0", "AGT_helper", player("mcp-4"));
  assertEquals(taken.rejectReason, "id_in_use");
  s.dispose();
});

test("a package allocating past the host's memory limit is stopped at load", async () => {
  const s = createWorldSession({ simulate: false, packages: { install } });
  const d = await load(s, "balloon@1.0.0", "agt_balloon");
  assertEquals([d.ok, d.rejectReason], [false, "memory_budget"], String(d.reason));
  s.dispose();
});

test("a package holding a symlink is refused with its reason, not hidden; a missing package's error names no server path", async () => {
  const s = createWorldSession({ simulate: false, packages: { install } });
  const linked = await load(s, "linked@1.0.0", "agt_linked");
  assertEquals([linked.ok, linked.rejectReason], [false, "invalid_manifest"], String(linked.reason));
  assert(linked.reason!.includes("data.txt") && linked.reason!.includes("link"), linked.reason!);
  const missing = await load(s, "nothing@1.0.0", "agt_none");
  assertEquals(missing.rejectReason, "not_found");
  for (const d of [linked, missing]) assert(!d.reason!.includes(tmp) && !d.reason!.includes("/tmp/"), `no server path: ${d.reason}`);
  s.dispose();
});

test("cleanup", () => sh(`rm -rf ${tmp}`));
