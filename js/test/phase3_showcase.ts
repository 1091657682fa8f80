// The phase3_showcase demo, run as users run it: offscreen, its frame shows
// the textured glTF models, the three players and the devtools HUD panel's
// text; its printed evidence
// shows the observer refused, the crates moved by physics, the scheduler's
// weights ordering who acted most, the policy audit per bound session, and
// an exported trace that `limina trace verify` accepts; windowed under Xvfb
// it shows the same arena.
import { assert, assertEquals, test } from "limina/testing";
import { traceDir } from "limina";
import { PLAYERS } from "../../examples/phase3_showcase_core.ts";
import { cleanUp, countPixels, demoOutput, runDemo, textStrokes } from "./support/demos.ts";

const run = await runDemo("phase3_showcase", { frames: 420, size: "960x540", deterministic: true, env: { LIMINA_AUDIO: "null" } });
const lines = run.stdout.split("\n");

const orange = (r: number, g: number, b: number) => r > 120 && r > 1.3 * g && g > b;
const teal = (r: number, g: number, b: number) => g > 60 && g > 1.5 * r && b > 1.5 * r;
const red = (r: number, g: number, b: number) => r > 140 && g < 70 && b < 70;
const green = (r: number, g: number, b: number) => g > 120 && r < 0.6 * g && b < 0.7 * g;
const blue = (r: number, g: number, b: number) => b > 140 && r < 0.5 * b && g < 0.7 * b;

test("the frame shows the checker-textured glTF models and all three players", () => {
  for (const [name, is, least] of [["orange checker", orange, 60], ["teal checker", teal, 60], ["red player", red, 20], ["green player", green, 20], ["blue player", blue, 20]] as const) {
    const n = countPixels(run.frame, is);
    assert(n >= least, `${n} ${name} pixels`);
  }
});

test("the devtools HUD panel's text is in the frame", () => {
  // Without the panel this corner holds the night sky and the floor's edge: about one run a row.
  const n = textStrokes(run.frame, { x0: 0, y0: 0, x1: 320, y1: 150 });
  assert(n > 600, `${n} dark-to-light runs in the top-left corner`);
});

test("two bound builder sessions built the arena; the read-only observer was refused", () => {
  assert(/^phase3_showcase: built by two bound builder sessions: \d+ entities, \d+ physics bodies$/m.test(run.stdout), run.stdout);
  assert(run.stdout.includes("observer (system.readonly) tried scene.createEntity → forbidden: missing permission: scene.write"), run.stdout);
  const audit = lines.filter((l) => l.includes(" audit: ")).pop()!;
  assert(/sess_architect [1-9]\d* allowed\/0 denied/.test(audit) && /sess_decorator [1-9]\d* allowed\/0 denied/.test(audit), audit);
  assert(/sess_observer \d+ allowed\/1 denied/.test(audit), audit);
});

test("physics moves the crates; the players share the action budget by their scheduler weights", () => {
  const inspector = lines.filter((l) => l.includes(" inspector: ")).pop()!;
  assert(/physics: 6 of 6 crates knocked about/.test(inspector), inspector);
  assert(/ 3 agents, /.test(inspector), inspector);
  const scheduler = lines.filter((l) => l.includes(" scheduler ")).pop()!;
  const actions = PLAYERS.map((p) => Number(new RegExp(`${p.id} weight ${p.weight}: (\\d+) actions`).exec(scheduler)![1]));
  // One action a tick for all three, shared weighted-fair: the weight-1 player gets clearly less
  // than either heavier one (the two heavier ones' queues run dry at times, so theirs come closer).
  assert(actions[0] > 0 && actions[0] < 0.7 * actions[1] && actions[0] < 0.7 * actions[2], scheduler);
  assert(actions.reduce((a, b) => a + b) <= 300, `at most one action a tick over the first 300 ticks: ${scheduler}`);
  // The trace tail (trace.tail filtered to one actor's executed skills) shows that player's pushes.
  const tails = lines.filter((l) => l.includes(" trace tail of agt_blue's actions: ")).map((l) => l.split("actions: ")[1]);
  assertEquals(tails.length, 2, run.stdout);
  for (const t of tails) assertEquals(t, Array(3).fill("skill.executed physics.applyImpulse").join(" → "));
});

test("under --deterministic two runs print the same evidence, however long the build took", async () => {
  const evidence = (r: { stdout: string }) => r.stdout.split("\n").filter((l) => / (inspector|scheduler \(1 action\/tick shared\)): /.test(l)).join("\n");
  // The second run takes no screenshot, so it draws no frame: the evidence does not hang on rendering.
  const again = await demoOutput("phase3_showcase", { frames: 420, deterministic: true, env: { LIMINA_AUDIO: "null" } });
  assert(evidence(run).includes("t=5.0s inspector"), run.stdout);
  assertEquals(evidence(again), evidence(run));
});

test("the trace exported at 5 s passes limina trace verify", async () => {
  const m = /exported (\d+) events to traces\/(\S+); chain verified \((\d+) events\)/.exec(run.stdout);
  assert(m, run.stdout);
  assertEquals(m[1], m[3]);
  const path = `${traceDir()}/${m[2]}`;
  const verify = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", path] });
  assertEquals(verify.code, 0, verify.stderr);
  assert(verify.stdout.startsWith(`ok: ${m[1]} events, chain intact and sealed`), verify.stdout);
  await Limina.run({ cmd: "rm", args: [path] });
});

test("windowed under Xvfb, the window shows the arena", async () => {
  // Deterministic: the arena stands at frame 60 however long a loaded machine takes to build it.
  const w = await runDemo("phase3_showcase", { frames: 60, size: "640x360", window: true, deterministic: true, env: { LIMINA_AUDIO: "null" } });
  assert(/\(640×360, frame 60, .*, window\)/.test(w.stderr), w.stderr);
  assert(countPixels(w.frame, orange) >= 60 && countPixels(w.frame, teal) >= 60, "the checker cubes");
  assert(countPixels(w.frame, red) + countPixels(w.frame, green) + countPixels(w.frame, blue) >= 60, "the players");
});

test("cleanup", cleanUp);
