// The headless builder demo runs to completion and its exported trace passes `limina trace verify`.
import { assert, assertEquals, test } from "../src/testing.ts";

test("the builder demo builds its scene, is denied social.say, and exports a verifiable trace", async () => {
  const run = await Limina.run({ cmd: Limina.execPath, args: ["--deterministic", "js/src/demos/builder.ts"] });
  assertEquals(run.code, 0, run.stderr);
  for (const line of [
    "discovered",
    "lit: ambient + shadow-casting directional light",
    'loaded glTF "crate"',
    "social.say under builder.readWrite → forbidden: missing permission: social.act",
    "chain verified",
  ]) {
    assert(run.stdout.includes(line), `demo output lacks "${line}":\n${run.stdout}`);
  }
  const verify = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", "traces/builder-demo.jsonl"] });
  assertEquals(verify.code, 0, verify.stderr);
  const exported = Number(/exported (\d+) events/.exec(run.stdout)![1]);
  assert(verify.stdout.startsWith(`ok: ${exported} events, chain intact`), verify.stdout);
  const py = await Limina.run({ cmd: "python3", args: ["tests/chain_check.py", "traces/builder-demo.jsonl"] });
  assertEquals(py.code, 0, py.stderr);
  assertEquals(py.stdout.trim().split("\n").length, exported);
});
