// `limina export-web TRACE --out DIR [--snapshot S]`: the static player.
// The trace's chain is verified and the world replayed here, natively, on
// the fixed step (a broken trace, or one that does not replay to its
// recorded digests, is refused); the state stream a spectator would have
// seen is recorded for every tick — a keyframe (the whole state) every
// second of world time and a delta for each tick between — by the same
// StateSync that feeds the spectator page. DIR gets the page, the world log
// itself (the browser checks its chain again before playing) and that
// recording, bound to the log by its head hash.

import { writePlayerFolder } from "../../../crates/limina-mcp/js/web-export.ts";
import { commandFailure, loadReplay } from "../cli/replay-input.ts";
import { StateSync } from "../mcp/state-sync.ts";
import { replay } from "../persistence/replay.ts";
import type { RecordingHeader } from "./player.ts";
import { characterAnimation, worldLookFeed } from "./world-look.ts";

const fail: (message: string) => never = commandFailure("export-web");

const args = [...Limina.args];
let source: string | undefined;
let out: string | undefined;
let snapshotPath: string | undefined;
while (args.length > 0) {
  const a = args.shift()!;
  if (a === "--out") out = args.shift();
  else if (a === "--snapshot") snapshotPath = args.shift();
  else source = a;
}
if (!source || !out) fail("usage: limina export-web TRACE --out DIR [--snapshot S]");

// The browser plays a sealed log only: a live stream has no terminator yet.
if (source.startsWith("nats://")) fail("export-web takes a trace file (a sealed world log), not a live stream");
const { text, events, session, from } = await loadReplay(source, snapshotPath, fail);
const firstTick = session.tick;
const stream: string[] = [];
const sync = new StateSync(session.entities, session.spatial, { scene: worldLookFeed(session), sink: (t) => stream.push(t), animation: characterAnimation(session) });
const result = await replay(session, events, { from, beforeStep: (tick) => sync.tick(tick) });
if (!result.ok) fail(`${source} does not replay (diverged at tick ${result.tick}: ${result.reason}): nothing written`);
sync.tick(session.tick);
const header: RecordingHeader = {
  format: "limina.recording",
  version: 1,
  log: "world.jsonl",
  events: events.length,
  headHash: events.at(-1)?.integrity?.hash ?? null,
  firstTick,
  lastTick: session.tick,
  digest: result.digest,
};
try {
  const written = writePlayerFolder(out, {
    "config.json": JSON.stringify({ server: "player", wsPort: null, token: false }),
    "world.jsonl": text,
    "recording.jsonl": [JSON.stringify(header), ...stream].join("\n") + "\n",
  });
  console.log(`exported ticks ${firstTick}–${session.tick} of ${source} (${events.length} events, digest ${result.digest}) to ${written.path}: ${written.files} files, ${written.bytes} bytes`);
  console.log(`serve it with any static file server, e.g. python3 -m http.server -d ${written.path}`);
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
Limina.exit(0);
