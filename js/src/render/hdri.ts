// HDRIs from the asset store: an asset of kind "hdri" (an equirectangular
// OpenEXR file, the user's assets/ first, then the ones built into the
// binary) decoded into a float texture the environment can show and bake.
// The engine's loader; a browser page supplies its own (fetch) to the same
// Environment.

import * as THREE from "three";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { readAsset, resolveAsset } from "../../../crates/limina-runtime/js/host.ts";
import { horizonColor, type LoadedHdri } from "./environment.ts";

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
  const loader = new THREE.EXRLoader().setDataType(THREE.FloatType);
  let parsed: { width: number; height: number; data: Float32Array; format: THREE.PixelFormat };
  try {
    parsed = loader.parse(bytes.slice().buffer) as unknown as typeof parsed;
  } catch (e) {
    throw engineError("invalid_input", `asset ${id} is not a readable OpenEXR image: ${e instanceof Error ? e.message : e}`);
  }
  const { width, height, data, format } = parsed;
  const channels = format === THREE.RGBAFormat ? 4 : format === THREE.RGFormat ? 2 : format === THREE.RedFormat ? 1 : 4;
  if (channels !== 4) throw engineError("invalid_input", `asset ${id}: an HDRI needs RGB(A) channels`);
  // Half floats: filterable on every adapter (32-bit float filtering is an optional feature).
  const half = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) half[i] = THREE.DataUtils.toHalfFloat(data[i]);
  const texture = new THREE.DataTexture(half, width, height, THREE.RGBAFormat, THREE.HalfFloatType);
  texture.mapping = THREE.EquirectangularReflectionMapping;
  texture.colorSpace = THREE.LinearSRGBColorSpace;
  texture.minFilter = texture.magFilter = THREE.LinearFilter;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.needsUpdate = true;
  return { texture, horizon: horizonColor(data, width, height, channels) };
}
