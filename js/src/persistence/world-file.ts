// A world session on disk: its snapshot written as a world file (versioned,
// content-hashed, saved atomically) and read back. `keepWorldFile` is what
// a durable server does: save every so often and when told to stop
// (SIGTERM/SIGINT), so a restarted server continues the same world.

import { readWorldFile, saveWorldFile, saveWorldFileNow, waitForStopSignal } from "../../../crates/limina-trace/js/world-file.ts";
import { errorCodeOf } from "../../../crates/limina-ops/js/errors.ts";
import type { WorldSession } from "../world-session.ts";
import { decodeSnapshot, encodeSnapshot, restoreSession, snapshotSession } from "./snapshot.ts";

/** The session's snapshot as bytes (what a world file holds). */
export function snapshotBytes(session: WorldSession): Uint8Array {
  return encodeSnapshot(snapshotSession(session));
}

/** Restores snapshot bytes into a new session (see `restoreSession`). */
export function restoreBytes(session: WorldSession, bytes: Uint8Array): Promise<void> {
  return restoreSession(session, decodeSnapshot(bytes));
}

/** Saves the session as the world file at `path`, written off the loop; resolves to its size. */
export function saveWorld(session: WorldSession, path: string): Promise<number> {
  return saveWorldFile(path, snapshotBytes(session));
}

/** Saves the session as the world file at `path` before returning (the last save of a process about to exit); returns its size. */
export function saveWorldNow(session: WorldSession, path: string): number {
  return saveWorldFileNow(path, snapshotBytes(session));
}

/**
 * Restores the world file at `path` into a new session; resolves to false (and changes
 * nothing) when there is no file. A damaged or foreign file is an `invalid_input` error.
 */
export async function loadWorld(session: WorldSession, path: string): Promise<boolean> {
  let bytes: Uint8Array;
  try {
    bytes = readWorldFile(path);
  } catch (e) {
    if (errorCodeOf(e) === "not_found") return false;
    throw e;
  }
  await restoreBytes(session, bytes);
  return true;
}

export interface KeepOptions {
  /** Milliseconds between saves (default 10 000). */
  everyMs?: number;
  /** Save and exit on SIGTERM/SIGINT (default true; false: the caller handles stopping, saving with `saveWorldNow`). */
  exitOnSignal?: boolean;
  /** Called after each save, or with the error when one failed. */
  onSave?: (result: { bytes: number } | { error: unknown }) => void;
}

/**
 * Keeps `path` up to date with the session: a save every `everyMs` (one at a time), and on
 * SIGTERM or SIGINT a last save before the process exits with status 0.
 */
export function keepWorldFile(session: WorldSession, path: string, options: KeepOptions = {}): void {
  const everyMs = options.everyMs ?? 10_000;
  let saving = false;
  setInterval(async () => {
    if (saving) return;
    saving = true;
    try {
      options.onSave?.({ bytes: await saveWorld(session, path) });
    } catch (error) {
      options.onSave?.({ error });
    } finally {
      saving = false;
    }
  }, everyMs);
  if (options.exitOnSignal === false) return;
  void waitForStopSignal().then((signal) => {
    try {
      const bytes = saveWorldNow(session, path);
      console.error(`limina: ${signal}: saved the world to ${path} (${bytes} bytes, tick ${session.tick})`);
      Limina.exit(0);
    } catch (e) {
      console.error(`limina: ${signal}: could not save the world to ${path}: ${e instanceof Error ? e.message : e}`);
      Limina.exit(1);
    }
  });
}
