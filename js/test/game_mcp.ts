// The gameplay families over MCP (stdio) on a fresh binary, with the
// official SDK client: tools/list has working skills in every family,
// skills.search finds them by intent, and one of each is called and its
// effect checked (js/test/node/sdk_game.mjs).
import { assert, assertEquals, test } from "limina/testing";

test("tools/list over stdio has working skills in each gameplay family; skills.search finds them by intent", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/sdk_game.mjs", Limina.execPath] });
  assertEquals(r.code, 0, r.stderr + r.stdout);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { ok: boolean; tools: number; listed: Record<string, number> };
  assert(out.ok);
  assertEquals(Object.keys(out.listed).length, 18);
  assert(Object.values(out.listed).reduce((a, b) => a + b) >= 120, `${JSON.stringify(out.listed)}`);
});
