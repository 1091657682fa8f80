// The JS face of limina-trace's world files: a snapshot's bytes on disk,
// versioned and content-hashed, saved atomically (a crash mid-save leaves
// the previous file), and the sha256 the world digest is made of.

interface WorldFileOps {
  op_world_sha256(bytes: Uint8Array): string;
  op_world_file_write(path: string, body: Uint8Array): Promise<number>;
  op_world_file_write_sync(path: string, body: Uint8Array): number;
  op_world_file_read(path: string): Uint8Array;
  op_world_stop_signal(): Promise<string>;
}

const ops = Limina.ops as unknown as WorldFileOps;

/** `"sha256:"` and the hex digest of `bytes`. */
export function sha256(bytes: Uint8Array): string {
  return ops.op_world_sha256(bytes);
}

/** Saves `body` as the world file at `path` off the loop; resolves to the file's size in bytes. */
export function saveWorldFile(path: string, body: Uint8Array): Promise<number> {
  return ops.op_world_file_write(path, body);
}

/** Saves `body` before returning (the last save of a process about to exit). */
export function saveWorldFileNow(path: string, body: Uint8Array): number {
  return ops.op_world_file_write_sync(path, body);
}

/**
 * The body of the world file at `path`, checked against its header's version, length and
 * content hash (`invalid_input` naming what is wrong); `not_found` when there is no file.
 */
export function readWorldFile(path: string): Uint8Array {
  return ops.op_world_file_read(path);
}

/**
 * Resolves with "SIGTERM" or "SIGINT" when the process is told to stop. From the first call
 * on, those signals no longer end the process by themselves: the caller must exit.
 */
export function waitForStopSignal(): Promise<string> {
  return ops.op_world_stop_signal();
}
