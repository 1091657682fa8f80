// The bounded generative fuzz run (js/test/node/fuzz.mjs) over stdio and
// WebSocket: 5,000 random messages each; its seed is printed so a failure
// can be replayed exactly.
import { assert, assertEquals, test } from "limina/testing";

test("5,000 random messages per transport: the server survives, every id answered once, the world unchanged", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/fuzz.mjs", Limina.execPath, "5000"] });
  console.log(r.stdout.trim().split("\n")[0]);
  assertEquals(r.code, 0, r.stderr + r.stdout);
  assert(r.stdout.includes("ok: fuzz"), r.stdout);
});
