// The start-up cache seen from a test: waiting for the background maker to
// have written a start-up snapshot (and the shell step its suites use).
import { sh } from "./shell.ts";

export { sh };

/** The path of the `kind` start-up snapshot in `cache`, once the background maker has written it (none in progress). */
export async function madeSnapshot(cache: string, kind: string): Promise<string> {
  for (let i = 0; i < 1200; i++) {
    const files = (await sh(`ls ${cache}/code-* 2>/dev/null || true`)).split("\n");
    const bin = files.find((f) => f.startsWith(`snapshot-${kind}-`) && f.endsWith(".bin"));
    if (bin && !files.some((f) => f.startsWith(`snapshot-${kind}-`) && f.endsWith(".lock"))) return (await sh(`ls -d ${cache}/code-*`)).trim() + `/${bin}`;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${kind} snapshot in ${cache} after a minute`);
}
