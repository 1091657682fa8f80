// The spectator page in real headless Chromium (WebGL2 through SwiftShader,
// no display): see js/test/node/web_page.mjs.
import { assert, assertEquals, test } from "limina/testing";

test("limina --mcp-ws serves the spectator page; Chromium draws the world, follows it live, and cannot write to it", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/web_page.mjs", Limina.execPath] });
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok === true && out.checks >= 29, r.stdout);
});
