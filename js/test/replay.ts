// limina: --deterministic
// Replay of the world log with `limina replay`: the builder demo's exported
// trace replays to its recorded digest; a recorded session of builder calls,
// physics impulses and agents acting replays bit-for-bit at every
// checkpoint; a world change the log cannot explain is named at the first
// divergent tick; tampered and truncated traces are refused by the chain check.
import { createAgentSystems, pursueNearest, readTrace, saveWorld, ScriptedProvider, traceDir, waitSteps, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { sh } from "./support/shell.ts";

interface Checkpoint {
  tick: number;
  digest: string;
}

function checkpoints(path: string): Checkpoint[] {
  return readTrace(path).filter((e) => e.type === "world.checkpoint").map((e) => e.payload as Checkpoint);
}

function replay(...args: string[]) {
  return Limina.run({ cmd: Limina.execPath, args: ["replay", ...args] });
}

const digestLine = (stdout: string) => /^digest (sha256:[0-9a-f]{64})$/m.exec(stdout)?.[1];

async function edited(path: string, edit: (lines: string[]) => string[]): Promise<string> {
  const out = `${path}.edited.jsonl`;
  const text = (await Limina.run({ cmd: "cat", args: [path] })).stdout;
  const lines = edit(text.split("\n").filter((l) => l !== ""));
  await sh(`cat > ${out}`, { stdin: lines.map((l) => l + "\n").join("") });
  return out;
}

test("the builder demo's exported trace replays to its recorded final digest; one edited payload is refused", async () => {
  const demo = await Limina.run({ cmd: Limina.execPath, args: ["demo", "builder", "--deterministic"] });
  assertEquals(demo.code, 0, demo.stderr);
  const trace = `${traceDir()}/${/ to traces\/(\S+);/.exec(demo.stdout)![1]}`;
  const recorded = checkpoints(trace);
  assert(recorded.length >= 2, `the demo's log holds periodic checkpoints and the one trace.export records (${recorded.length})`);
  const final = recorded.at(-1)!;
  const run = await replay(trace);
  assertEquals(run.code, 0, run.stdout + run.stderr);
  assertEquals(digestLine(run.stdout), final.digest, run.stdout);
  assert(run.stdout.includes(`ok: tick ${final.tick}`), run.stdout);
  assert(run.stdout.includes(`${recorded.length} checkpoints matched`), run.stdout);

  // The impulse on the first ball, made stronger in place: the chain no longer verifies.
  const tampered = await edited(trace, (lines) => lines.map((l) => l.includes('"skill":"physics.applyImpulse"') ? l.replace('"impulse":[1.5,0,0]', '"impulse":[9.5,0,0]') : l));
  assert((await Limina.run({ cmd: "grep", args: ["-c", "9.5,0,0", tampered] })).stdout.trim() === "1", "exactly one payload was edited");
  const refused = await replay(tampered);
  assertEquals(refused.code, 1);
  assert(refused.stderr.includes("refusing") && refused.stderr.includes("hash_mismatch"), refused.stderr);
  assert(!refused.stdout.includes("digest"), "nothing was replayed");
  await Limina.run({ cmd: "rm", args: [trace, tampered] });
});

test("a recorded session of builder calls, impulses and agents acting replays bit-for-bit at every checkpoint", async () => {
  const session = new WorldSession({ checkpointEvery: 20 });
  const mcp = session.mcp();
  mcp.initialize({ agentId: "recorder", sessionId: "sess_rec", profile: "builder.readWrite" });
  const call = <T = { entity: string }>(tool: string, input: Record<string, unknown>) => mcp.mustCall<T>(tool, input);
  await call("scene.createEntity", { shape: "box", size: 40, position: [0, -20, 0], static: true });
  const hunter = (await call("scene.createEntity", { shape: "sphere", size: 1, position: [0, 0.5, 0], dynamic: true })).entity;
  const balls: string[] = [];
  for (let i = 0; i < 6; i++) {
    balls.push((await call("scene.createEntity", { shape: "sphere", size: 0.6, position: [3 + i, 2 + i * 0.5, (i % 3) - 1], dynamic: true, restitution: 0.5 })).entity);
    await waitSteps(3);
  }
  await call("physics.applyImpulse", { entity: balls[2], impulse: [-1, 0.5, 0.3] });
  await call("three.setTransform", { entity: balls[4], position: [6, 4, 2] });
  await call("ecs.addComponent", { entity: balls[0], component: "prey" });
  const sys = createAgentSystems(session, { scripted: new ScriptedProvider(pursueNearest()) });
  sys.agents.add({ id: "agt_hunter", type: "player", entityId: hunter, decisionIntervalTicks: 8, profile: "player.limited", sessionId: "ses_hunter", llm: { provider: "scripted", model: "", systemPrompt: "pursue" } });
  await waitSteps(90);
  await call("scene.destroyEntity", { entity: balls[5] });
  await waitSteps(45);
  sys.dispose();
  const actions = session.tracer.history().filter((e) => e.type === "skill.executed" && e.actorId === "agt_hunter");
  assert(actions.length >= 5, `the agent acted (${actions.length} actions)`);
  // The export records the world as it is when called (it steps on while the file is written).
  const atExport = { tick: session.tick, digest: session.digest() };
  const exported = await call<{ name: string }>("trace.export", { name: "replay-session" });
  const trace = `${traceDir()}/${exported.name}`;
  const recorded = checkpoints(trace);
  assert(recorded.length >= 8, `checkpoints every 20 ticks (${recorded.length})`);
  assertEquals(recorded.at(-1), atExport, "the export's checkpoint is the world at the call");

  const run = await replay(trace);
  assertEquals(run.code, 0, run.stdout + run.stderr);
  assert(run.stdout.includes(`${recorded.length} checkpoints matched`), run.stdout);
  assertEquals(digestLine(run.stdout), recorded.at(-1)!.digest, "the final digest is the one recorded at the export");

  // --until stops early at a checkpoint's tick, with that checkpoint's digest.
  const mid = recorded[3];
  const early = await replay(trace, "--until", String(mid.tick));
  assertEquals(early.code, 0, early.stdout + early.stderr);
  assertEquals(digestLine(early.stdout), mid.digest);

  // A truncated log (the terminator and last events dropped) is refused by the chain check.
  const truncated = await edited(trace, (lines) => lines.slice(0, -3));
  const refused = await replay(truncated);
  assertEquals(refused.code, 1);
  assert(refused.stderr.includes("truncated"), refused.stderr);
  session.dispose();
  await Limina.run({ cmd: "rm", args: [trace, truncated] });
});

test("a world change the log cannot explain is reported at the first divergent tick", async () => {
  const session = new WorldSession({ checkpointEvery: 10 });
  const mcp = session.mcp();
  mcp.initialize({ agentId: "recorder", sessionId: "sess_div", profile: "builder.readWrite" });
  await mcp.mustCall("scene.createEntity", { shape: "box", size: 40, position: [0, -20, 0], static: true });
  await mcp.mustCall("scene.createEntity", { shape: "sphere", size: 1, position: [0, 3, 0], dynamic: true });
  await waitSteps(25);
  // Module code moving the world behind the log's back (no skill call records it).
  session.entities.create({ shape: "sphere", size: 1, position: [2, 3, 0], dynamic: true, static: false, color: 0xffffff, friction: 0.5, restitution: 0 });
  const changedAt = session.tick;
  await waitSteps(25);
  const exported = await mcp.mustCall<{ name: string }>("trace.export", { name: "replay-diverged" });
  const trace = `${traceDir()}/${exported.name}`;
  const firstAfter = checkpoints(trace).find((c) => c.tick > changedAt)!;
  const run = await replay(trace);
  assertEquals(run.code, 1, run.stdout + run.stderr);
  assert(run.stdout.includes(`diverged at tick ${firstAfter.tick}`), `${run.stdout} (changed at ${changedAt})`);
  assert(run.stdout.includes(`expected ${firstAfter.digest}`), run.stdout);
  session.dispose();
  await Limina.run({ cmd: "rm", args: [trace] });
});

test("replay from a snapshot: --snapshot S re-applies only what the log holds after S, to the same digests", async () => {
  const session = new WorldSession({ checkpointEvery: 15 });
  const mcp = session.mcp();
  mcp.initialize({ agentId: "recorder", sessionId: "sess_snap", profile: "builder.readWrite" });
  const call = (tool: string, input: Record<string, unknown>) => mcp.mustCall<{ entity: string }>(tool, input);
  await call("scene.createEntity", { shape: "box", size: 30, position: [0, -15, 0], static: true });
  const a = (await call("scene.createEntity", { shape: "sphere", size: 1, position: [0, 2, 0], dynamic: true })).entity;
  await waitSteps(40);
  const world = `/tmp/limina-replay-snapshot-${Date.now()}.world`;
  await saveWorld(session, world);
  // After the snapshot: three more world-changing calls, and steps.
  const b = (await call("scene.createEntity", { shape: "box", size: 0.7, position: [1, 4, 0], dynamic: true })).entity;
  await call("physics.applyImpulse", { entity: a, impulse: [0.5, 2, 0] });
  await waitSteps(20);
  await call("scene.destroyEntity", { entity: b });
  await waitSteps(20);
  const exported = await mcp.mustCall<{ name: string }>("trace.export", { name: "replay-from-snapshot" });
  const trace = `${traceDir()}/${exported.name}`;
  const recorded = checkpoints(trace);
  const run = await replay(trace, "--snapshot", world);
  assertEquals(run.code, 0, run.stdout + run.stderr);
  assert(run.stdout.includes("3 calls replayed"), `only the calls after the snapshot: ${run.stdout}`);
  assertEquals(digestLine(run.stdout), recorded.at(-1)!.digest);
  const whole = await replay(trace);
  assertEquals(whole.code, 0, whole.stdout + whole.stderr);
  assertEquals(digestLine(whole.stdout), recorded.at(-1)!.digest, "from the start too");
  const missing = await replay(trace, "--snapshot", `${world}.missing`);
  assertEquals(missing.code, 1);
  assert(missing.stderr.includes("cannot restore") && missing.stderr.includes("no world file"), missing.stderr);
  session.dispose();
  await Limina.run({ cmd: "rm", args: [trace, world] });
});
