// The headless builder demo (`limina demo builder`) runs to completion and
// its exported trace passes `limina trace verify`.
import { traceDir } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { registeredSkillNames } from "./support/skills.ts";

test("the builder demo builds its scene, shows a read-only observer denied, and exports a verifiable trace", async () => {
  const run = await Limina.run({ cmd: Limina.execPath, args: ["demo", "builder", "--deterministic"] });
  assertEquals(run.code, 0, run.stderr);
  for (const line of [
    `discovered ${registeredSkillNames().length} tools`,
    "lit: ambient + shadow-casting directional light",
    'loaded glTF "crate"',
    "scene.createEntity under system.readonly → forbidden: missing permission: scene.write",
    "chain verified",
  ]) {
    assert(run.stdout.includes(line), `demo output lacks "${line}":\n${run.stdout}`);
  }
  // Exports never replace a file: a rerun writes builder-demo-N.jsonl, named in the output.
  const trace = `${traceDir()}/${/ to traces\/(\S+);/.exec(run.stdout)![1]}`;
  const verify = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", trace] });
  assertEquals(verify.code, 0, verify.stderr);
  const exported = Number(/exported (\d+) events/.exec(run.stdout)![1]);
  assert(verify.stdout.startsWith(`ok: ${exported} events, chain intact and sealed`), verify.stdout);
  const py = await Limina.run({ cmd: "python3", args: ["tests/chain_check.py", trace] });
  assertEquals(py.code, 0, py.stderr);
  assertEquals(py.stdout.trim().split("\n").length, exported);
  await Limina.run({ cmd: "rm", args: [trace] });
});

test("limina demo with no name lists the demos", async () => {
  const run = await Limina.run({ cmd: Limina.execPath, args: ["demo"] });
  assertEquals(run.code, 0, run.stderr);
  for (const name of ["billiards", "builder", "fidelity_scene", "particles", "player"]) {
    assert(run.stdout.includes(name), `the list names ${name}:\n${run.stdout}`);
  }
});
