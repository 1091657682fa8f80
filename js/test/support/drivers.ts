// Running a Node or Python driver script against this binary, as the wire
// suites do: the script gets the binary's path and prints a JSON summary as
// its last stdout line.
import { assert, assertEquals } from "limina/testing";

/** Runs a driver (with `args` after the binary's path); its last stdout line is its JSON summary, which must say ok. */
export function drive(cmd: string, script: string, ...args: string[]): Promise<Record<string, unknown>> {
  return started(cmd, script, ...args)();
}

/**
 * Starts a driver now, so that drivers which mostly wait (on timeouts, other processes) overlap; the
 * returned function awaits it and checks its summary as `drive` does, in the test that calls it.
 */
export function started(cmd: string, script: string, ...args: string[]): () => Promise<Record<string, unknown>> {
  const run = startedRun(cmd, script, ...args);
  return async () => summary(script, await run);
}

/** The JSON summary (its last stdout line) of driver `script`'s finished run, which must have exited 0 and say ok. */
export function summary(script: string, r: { code: number | null; stdout: string; stderr: string }): Record<string, unknown> {
  assertEquals(r.code, 0, `${script}:\n${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok === true, r.stdout);
  return out;
}

/** Starts a driver now and gives its whole result, for a test that checks more than its summary when it awaits it. */
export function startedRun(cmd: string, script: string, ...args: string[]): Promise<LiminaRunResult> {
  const run = Limina.run({ cmd, args: [script, Limina.execPath, ...args] });
  // A driver that cannot start fails its own test when awaited, not the process as an unhandled rejection first.
  run.catch(() => {});
  return run;
}
