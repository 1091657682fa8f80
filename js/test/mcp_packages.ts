// Packages over the MCP wire, driving the real binary with the official
// TypeScript SDK client: package.list and package.load, a `while(true){}`
// entry answered within its CPU budget while the server keeps serving and
// stepping, and an entity created by a package with `pkg` provenance.
import { assert, assertEquals, test } from "limina/testing";
import { sh } from "./support/shell.ts";

test("over the wire: while(true){} answered within its CPU budget, the server serving on; a package's entity with pkg provenance", async () => {
  const tmp = (await sh("mktemp -d /tmp/limina-mcp-packages-XXXXXX")).trim();
  await sh(`mkdir ${tmp}/packages && cp -r tests/packages/spin tests/packages/builder ${tmp}/packages/`);
  const key = await Limina.run({ cmd: Limina.execPath, args: ["package", "keygen", `${tmp}/k`] });
  assertEquals(key.code, 0, key.stderr);
  await sh(`echo ${key.stdout.trim()} > ${tmp}/trusted`);
  for (const p of ["spin", "builder"]) assertEquals((await Limina.run({ cmd: Limina.execPath, args: ["package", "sign", `${tmp}/packages/${p}`, "--key", `${tmp}/k`] })).code, 0);
  const r = await Limina.run({
    cmd: "node",
    args: ["js/test/node/sdk_packages.mjs", Limina.execPath],
    env: { LIMINA_PACKAGES_DIR: `${tmp}/packages`, LIMINA_TRUSTED_KEYS: `${tmp}/trusted` },
  });
  assertEquals(r.code, 0, r.stderr + r.stdout);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok && /^ent_\d+$/.test(out.entity), r.stdout);
  // The default load budget is 100 ms of CPU: a wide margin for a loaded machine, still far from a hang.
  assert(out.loadMs < 5_000, `package.load of while(true){} answered after ${out.loadMs} ms`);
  await sh(`rm -rf ${tmp}`);
});
