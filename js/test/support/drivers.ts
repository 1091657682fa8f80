// Running a Node or Python driver script against this binary, as the wire
// suites do: the script gets the binary's path and prints a JSON summary as
// its last stdout line.
import { assert, assertEquals } from "limina/testing";

/** Runs a driver (with `args` after the binary's path); its last stdout line is its JSON summary, which must say ok. */
export async function drive(cmd: string, script: string, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await Limina.run({ cmd, args: [script, Limina.execPath, ...args] });
  assertEquals(r.code, 0, `${script}:\n${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok === true, r.stdout);
  return out;
}
