// limina: waits
// Durable MCP worlds (`--world-file`), over the wire with the official
// TypeScript SDK's Streamable HTTP client: see js/test/node/world_file.mjs.
import { assert, assertEquals, test } from "limina/testing";

test("a --world-file server saves on SIGTERM, restores on restart (the module skips its building), same digest and next ids, survives SIGKILL with its last periodic save", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/world_file.mjs", Limina.execPath] });
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok === true && out.checks >= 14, r.stdout);
});

test("--world-file needs a network server", async () => {
  const r = await Limina.run({ cmd: Limina.execPath, args: ["--world-file", "/tmp/x.world", "js/test/support/durable_world.ts"] });
  assertEquals(r.code, 2);
  assert(r.stderr.includes("--world-file"), r.stderr);
});
