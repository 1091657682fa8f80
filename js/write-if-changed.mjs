// Writes a generated file only when its bytes differ from what is there: an
// unchanged output keeps its modification time, and cargo — which embeds
// js/build and reruns the binary's build script when anything there is
// touched — has nothing to rebuild on a warm run.
import { readFileSync, writeFileSync } from "node:fs";

/** Writes `data` (a string or bytes) to `path` unless the file already holds exactly that; returns whether it wrote. */
export function writeIfChanged(path, data) {
  const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  try {
    if (readFileSync(path).equals(bytes)) return false;
  } catch {
    // Not there yet.
  }
  writeFileSync(path, bytes);
  return true;
}
