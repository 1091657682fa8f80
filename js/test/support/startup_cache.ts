// The start-up cache seen from a test: waiting for the background maker to
// have written a start-up snapshot (and the shell step its suites use).
import { sh } from "./shell.ts";

export { sh };

/**
 * The path of the `kind` start-up snapshot in `cache`, once the background maker has written it (none in progress).
 * One shell looks every 50 ms with its own globs: the maker runs at a low priority, and a look that spawned processes
 * would take the CPU it waits for.
 */
export async function madeSnapshot(cache: string, kind: string): Promise<string> {
  const made = await sh(`i=0
while [ $i -lt 3600 ]; do
  set -- ${cache}/code-*/snapshot-${kind}-*.lock; [ -e "$1" ] || { set -- ${cache}/code-*/snapshot-${kind}-*.bin; [ -e "$1" ] && { echo "$1"; exit 0; }; }
  sleep 0.05; i=$((i + 1))
done`);
  if (!made) throw new Error(`no ${kind} snapshot in ${cache} after three minutes`);
  return made.trim();
}
