// What `limina replay` and `limina export-web` start from: a trace's
// verified events and a session to replay them into — or the command ends
// (exit 1) saying why not.

import { parseTrace, readTraceText } from "../../../crates/limina-trace/js/chain.ts";
import { readNatsLog } from "../../../crates/limina-trace/js/nats.ts";
import { readWorldFile } from "../../../crates/limina-trace/js/world-file.ts";
import type { EngineEvent } from "../observability/tracer.ts";
import { decodeSnapshot, restoreSession } from "../persistence/snapshot.ts";
import { WorldSession } from "../world-session.ts";

/** Ends the command `limina <command>` with exit 1, printing why. */
export function commandFailure(command: string): (message: string) => never {
  return (message) => {
    console.error(`limina ${command}: ${message}`);
    Limina.exit(1);
    throw new Error(message);
  };
}

/**
 * A session to replay into (one that does not step on the loop): empty, or restored from the world
 * file at `snapshotPath`, with what `replay` needs to know of it. Throws why the file cannot be restored.
 */
async function replaySession(snapshotPath?: string): Promise<{ session: WorldSession; from?: { logSeq: number; digest: string } }> {
  const session = new WorldSession({ simulate: false, checkpointEvery: 0 });
  if (snapshotPath === undefined) return { session };
  const snap = decodeSnapshot(readWorldFile(snapshotPath));
  await restoreSession(session, snap);
  return { session, from: snap.snapshot };
}

export interface ReplayInput {
  /** The trace's text as read. */
  text: string;
  events: EngineEvent[];
  session: WorldSession;
  from?: { logSeq: number; digest: string };
}

/**
 * Reads and verifies the trace at `source` (a file, or a NATS stream read as an open log) and makes
 * the session to replay it into: empty, or restored from the world file `snapshotPath`.
 */
export async function loadReplay(source: string, snapshotPath: string | undefined, fail: (message: string) => never): Promise<ReplayInput> {
  let text = "";
  let events: EngineEvent[] = [];
  try {
    // A stream is a live log: an intact prefix (a world killed mid-run leaves no terminator).
    const open = source.startsWith("nats://");
    text = open ? await readNatsLog(source) : readTraceText(source);
    events = parseTrace(text, { open });
  } catch (e) {
    fail(`refusing ${source}: ${e instanceof Error ? e.message : e}`);
  }
  try {
    return { text, events, ...(await replaySession(snapshotPath)) };
  } catch (e) {
    fail(`cannot restore ${snapshotPath}: ${e instanceof Error ? e.message : e}`);
  }
}
