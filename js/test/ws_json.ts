// The JSON state stream's full-view deltas, their transform columns built
// off the loop, are byte for byte the deltas the loop builds whole, and keep
// their place among the replies (driven by real WebSocket clients:
// node/ws_json.mjs).
import { assertEquals, test } from "limina/testing";

test("full-view JSON deltas built off the loop are the text the loop builds", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/ws_json.mjs", Limina.execPath] });
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assertEquals(out.checks, 13);
});
