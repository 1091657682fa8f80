// The start-up cache under damage: a start-up snapshot truncated, its first
// bytes overwritten, or a byte flipped mid-file, and a damaged code-cache
// entry, are each found out by the file's header (length and checksum),
// ignored, said once on stderr, and made again — the run's output is the
// same as ever. A cache directory the user cannot write (not root) caches
// nothing and fails nothing.
import { assert, assertEquals, test } from "limina/testing";
import { madeSnapshot, sh } from "./support/startup_cache.ts";

const tmp = (await sh("mktemp -d /tmp/limina-startup-cache-XXXXXX")).trim();
const cache = `${tmp}/cache`;
await sh(`printf '%s\\n' 'console.log("hello " + Limina.args.join(","));' > ${tmp}/hello.ts`);

/** Runs hello.ts with the cache at `dir`; the start-up log on. */
async function hello(arg: string, dir = cache) {
  const r = await Limina.run({ cmd: Limina.execPath, args: [`${tmp}/hello.ts`, arg], env: { LIMINA_CACHE_DIR: dir, LIMINA_STARTUP_LOG: "1", LIMINA_SOURCE_DIR: "" } });
  assertEquals([r.code, r.stdout], [0, `hello ${arg}\n`], r.stderr);
  return r.stderr;
}

test("a damaged start-up snapshot (truncated, overwritten, flipped mid-file) is ignored, said once, and made again", async () => {
  assert((await hello("first")).includes('start-up snapshot "base" not ready'));
  const file = await madeSnapshot(cache, "base");
  assert((await hello("intact")).includes('start-up snapshot "base" used'));
  const size = Number((await sh(`stat -c %s ${file}`)).trim());
  for (const [how, damage, words] of [
    ["truncated", `truncate -s ${Math.floor(size / 2)} ${file}`, "truncated or extended"],
    ["overwritten at the start", `printf 'garbage!garbage!' | dd of=${file} bs=1 seek=0 conv=notrunc status=none`, "not a Limina cache file"],
    // The byte's complement, so it changes whatever it was.
    ["flipped mid-file", `at=${Math.floor(size / 2)}; b=$(dd if=${file} bs=1 skip=$at count=1 status=none | od -An -tu1 | tr -d ' '); printf "\\\\$(printf %03o $((255 - b)))" | dd of=${file} bs=1 seek=$at conv=notrunc status=none`, "checksum mismatch"],
  ]) {
    await sh(damage);
    const log = await hello(how.replace(/ /g, "-"));
    const said = log.split("\n").filter((l) => l.includes("is damaged"));
    assertEquals(said.length, 1, `${how}: ${log}`);
    assert(said[0].includes(words) && said[0].includes("making it again"), `${how}: ${said[0]}`);
    // Made again in the background: the next run uses it, and says nothing more.
    await madeSnapshot(cache, "base");
    const next = await hello("after");
    assert(next.includes('start-up snapshot "base" used') && !next.includes("is damaged"), `${how}, then: ${next}`);
  }
});

test("a damaged code-cache entry is ignored, said once and written again", async () => {
  const dir = (await sh(`ls -d ${cache}/code-*`)).trim();
  // The transpiled hello.ts: the one transpiled entry whose text holds it.
  const entry = (await sh(`grep -l 'hello ' ${dir}/*.tjs | head -1`)).trim();
  assert(entry.length > 0, "hello.ts's transpiled entry");
  await sh(`printf 'XX' | dd of=${entry} bs=1 seek=70 conv=notrunc status=none`);
  const log = await hello("code");
  assertEquals(log.split("\n").filter((l) => l.includes("is damaged")).length, 1, log);
  assert(!(await hello("code-again")).includes("is damaged"), "it was written again");
});

test("a cache directory the user cannot write (not root): nothing cached, nothing fails, nothing said", async () => {
  // As nobody, with a copy of the binary nobody may run and a cache directory it may not write.
  await sh(`mkdir -p ${tmp}/ro/cache && cp ${Limina.execPath} ${tmp}/ro/limina && cp ${tmp}/hello.ts ${tmp}/ro/ && chmod 755 ${tmp} ${tmp}/ro ${tmp}/ro/limina && chmod 644 ${tmp}/ro/hello.ts && chmod 555 ${tmp}/ro/cache`);
  for (const arg of ["one", "two"]) {
    const r = await Limina.run({
      cmd: "setpriv",
      args: ["--reuid", "nobody", "--regid", "nogroup", "--clear-groups", "env", `LIMINA_CACHE_DIR=${tmp}/ro/cache`, "HOME=/nonexistent", `${tmp}/ro/limina`, `${tmp}/ro/hello.ts`, arg],
    });
    assertEquals([r.code, r.stdout, r.stderr], [0, `hello ${arg}\n`, ""]);
  }
  assertEquals((await sh(`ls -A ${tmp}/ro/cache`)).trim(), "", "nothing was written");
});

test("cleanup", () => sh(`rm -rf ${tmp}`));
