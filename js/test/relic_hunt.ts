// The relic_hunt demo, run as users run it: a builder agent builds the game
// over MCP and a scripted player wins it; under --deterministic two runs
// print the same lines; `limina replay` of the exported world log matches
// every checkpoint and ends on the digest the demo printed; windowed under
// Xvfb the window shows the game.
import { readTrace, traceDir } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { cleanUp, countPixels, runDemo } from "./support/demos.ts";

const env = { LIMINA_AUDIO: "null" };
const demo = () => Limina.run({ cmd: Limina.execPath, args: ["demo", "relic_hunt", "--deterministic"], env });
/** The world log a run exported (its name is on stderr), removed once read. */
async function exported(stderr: string): Promise<string> {
  const name = /world log exported to traces\/(\S+) \(/.exec(stderr)?.[1];
  assert(name, stderr);
  return `${traceDir()}/${name}`;
}

const first = await demo();
assertEquals(first.code, 0, first.stdout + first.stderr);
const firstTrace = await exported(first.stderr);
const lines = first.stdout.trim().split("\n");

test("a builder agent builds the game over MCP, a scripted player wins it, one line per milestone", () => {
  assert(/^relic_hunt: built over MCP by agt_builder in \d+ calls: \d+ entities/.test(lines[0]), lines[0]);
  const milestones = lines.slice(1, -1).map((l) => l.replace(/^ {2}tick +\d+: /, ""));
  for (const want of ['the Keeper offered "The three relics"', "agt_hunter accepted the quest", "the vault door slid open", "picked up relic 1/3", "picked up relic 2/3", "picked up relic 3/3", "the relics lie on the altar: quest complete"]) {
    assert(milestones.includes(want), `milestone "${want}" in:\n${first.stdout}`);
  }
  assert(milestones.some((m) => m.startsWith("the lava burns: ")), "the hazard dealt damage");
  const last = lines.at(-1)!;
  assert(/^relic_hunt: won at tick \d+ \([\d.]+ s of world time\): 3 relics on the altar, health \d+\/100, \d+ player actions, digest sha256:[0-9a-f]{64}$/.test(last), last);
  const health = Number(/health (\d+)\/100/.exec(last)![1]);
  assert(health > 0 && health < 100, `hurt by the lava, alive: ${health}`);
});

test("the world log the demo exported replays with every checkpoint matching, to the digest it printed", async () => {
  const recorded = readTrace(firstTrace).filter((e) => e.type === "world.checkpoint").length;
  assert(recorded > 10, `${recorded} checkpoints`);
  const replay = await Limina.run({ cmd: Limina.execPath, args: ["replay", firstTrace], env });
  assertEquals(replay.code, 0, replay.stdout + replay.stderr);
  assert(replay.stdout.includes(`, ${recorded} checkpoints matched`), replay.stdout);
  const printed = /digest (sha256:[0-9a-f]{64})$/.exec(lines.at(-1)!)![1];
  assertEquals(/^digest (sha256:[0-9a-f]{64})$/m.exec(replay.stdout)?.[1], printed);
  const tick = /won at tick (\d+)/.exec(lines.at(-1)!)![1];
  assert(replay.stdout.startsWith(`ok: tick ${tick}, `), replay.stdout);
});

test("under --deterministic a second run prints exactly the same", async () => {
  await Limina.run({ cmd: "rm", args: ["-f", firstTrace] });
  const second = await demo();
  assertEquals(second.code, 0, second.stderr);
  assertEquals(second.stdout, first.stdout);
  await Limina.run({ cmd: "rm", args: ["-f", await exported(second.stderr)] });
});

test("windowed under Xvfb, the window shows the game: ground, relics, the player, the lava", async () => {
  // Deterministic: frame 40 shows the built game on any machine, however loaded; a window draws every frame, so few are quick.
  const w = await runDemo("relic_hunt", { frames: 40, size: "640x360", window: true, deterministic: true, env });
  assert(/\(640×360, frame 40, .*, window\)/.test(w.stderr), w.stderr);
  const gold = countPixels(w.frame, (r, g, b) => r > 170 && g > 120 && b < 80 && r > g);
  const blue = countPixels(w.frame, (r, g, b) => b > 140 && r < 0.5 * b && g < 0.8 * b);
  const lava = countPixels(w.frame, (r, g, b) => r > 180 && g < 110 && b < 60);
  assert(gold >= 10 && blue >= 10 && lava >= 10, `relic ${gold}, player ${blue}, lava ${lava} pixels`);
});

test("cleanup", cleanUp);
