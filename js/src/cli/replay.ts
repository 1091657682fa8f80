// `limina replay <trace.jsonl | nats://HOST:PORT/SUBJECT> [--snapshot S] [--until TICK]`: verifies the
// trace's chain (a broken or truncated trace is refused before anything
// runs), rebuilds the world from its skill calls on the fixed step — from
// an empty world or from the world file S — and compares the digest at
// every checkpoint. Exit 0 printing the final digest when all match; exit 1
// naming the first divergent tick, or why the trace or snapshot is refused.

import { commandFailure, loadReplay } from "./replay-input.ts";
import { replay } from "../persistence/replay.ts";

const fail: (message: string) => never = commandFailure("replay");

const args = [...Limina.args];
let source: string | undefined;
let snapshotPath: string | undefined;
let until: number | undefined;
while (args.length > 0) {
  const a = args.shift()!;
  if (a === "--snapshot") snapshotPath = args.shift();
  else if (a === "--until") {
    const v = args.shift();
    until = Number(v);
    if (!Number.isInteger(until) || until < 0) fail(`--until takes a tick (a whole number ≥ 0), got ${JSON.stringify(v)}`);
  } else source = a;
}
if (!source) fail("no trace given");

const { events, session, from } = await loadReplay(source, snapshotPath, fail);
const result = await replay(session, events, { until, from });
if (result.ok) {
  console.log(`ok: tick ${result.tick}, ${result.calls} calls replayed, ${result.checkpoints} checkpoints matched`);
  console.log(`digest ${result.digest}`);
  Limina.exit(0);
} else {
  console.log(`diverged at tick ${result.tick}: ${result.reason}`);
  if (result.expected) console.log(`expected ${result.expected}\nactual   ${result.actual}`);
  Limina.exit(1);
}
