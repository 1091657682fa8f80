// HDRIs from the asset store: an asset of kind "hdri" (an equirectangular
// OpenEXR file, the user's assets/ first, then the ones built into the
// binary) decoded into a float texture the environment can show and bake.
// The engine's loader; a browser page supplies its own (fetch) to the same
// Environment.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { readAsset, resolveAsset } from "../../../crates/limina-runtime/js/host.ts";
import { sha256 } from "../../../crates/limina-trace/js/world-file.ts";
import { decodeHdri, type LoadedHdri } from "./environment.ts";

const cache = new Map<string, Promise<LoadedHdri>>();

/** Loads (once per process) the HDRI asset `id`; `not_found` or `invalid_input` when it is missing or not an EXR HDRI. */
export function loadHdriAsset(id: string): Promise<LoadedHdri> {
  let loading = cache.get(id);
  if (!loading) {
    loading = decode(id);
    cache.set(id, loading);
    loading.catch(() => cache.delete(id));
  }
  return loading;
}

async function decode(id: string): Promise<LoadedHdri> {
  const info = await resolveAsset(id);
  if (info.kind !== "hdri") throw engineError("invalid_input", `asset ${id} is a ${info.kind}, not an hdri`);
  const bytes = await readAsset(id);
  try {
    return { ...decodeHdri(bytes.slice().buffer), content: `${id} ${sha256(bytes)}` };
  } catch (e) {
    throw engineError("invalid_input", `asset ${id}: ${e instanceof Error ? e.message : e}`);
  }
}
