// The disk cache of environment bakes (see bake_cache.rs): a PMREM map's
// levels, each level's six faces packed tightly, written into a texture of
// the same shape or read back from one.

import { asWork, gpuIdle, renderOps } from "./ops.ts";

/** Bytes a texel of the maps this cache holds (rgba16float, what three's PMREM targets are). */
const TEXEL = 8;

/** Bytes of a cube texture's whole map: every level's six faces. */
function mapBytes(texture: GPUTexture): number {
  let bytes = 0;
  for (let level = 0; level < texture.mipLevelCount; level++) bytes += 6 * TEXEL * (texture.width >> level) ** 2;
  return bytes;
}

/** The cache of at-once bakes: `key` is what the look says the map shows; the native side adds the build and the adapter. */
export const bakeCache = {
  /** Fills `texture` (a cube of rgba16float levels) with the stored map of `key`; false when none is stored intact. */
  load(device: GPUDevice, texture: GPUTexture, key: string): boolean {
    if (texture.format !== "rgba16float") return false;
    const map = renderOps.op_render_bake_load(device, key, mapBytes(texture));
    if (map === null) return false;
    let offset = 0;
    for (let level = 0; level < texture.mipLevelCount; level++) {
      const width = texture.width >> level;
      device.queue.writeTexture({ texture, mipLevel: level }, map, { offset, bytesPerRow: width * TEXEL, rowsPerImage: width }, [width, width, 6]);
      offset += 6 * TEXEL * width * width;
    }
    return true;
  },

  /** Reads `texture`'s map back and stores it under `key`; the copy is submitted before this returns. */
  async store(device: GPUDevice, texture: GPUTexture, key: string): Promise<void> {
    if (texture.format !== "rgba16float") return;
    // A copy's rows are 256-byte aligned: each level gets its own padded span of the buffer.
    const spans: { offset: number; width: number; stride: number }[] = [];
    let size = 0;
    for (let level = 0; level < texture.mipLevelCount; level++) {
      const width = texture.width >> level;
      const stride = Math.ceil((width * TEXEL) / 256) * 256;
      spans.push({ offset: size, width, stride });
      size += stride * width * 6;
    }
    const buffer = device.createBuffer({ size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder();
    spans.forEach(({ offset, width, stride }, level) => {
      encoder.copyTextureToBuffer({ texture, mipLevel: level }, { buffer, offset, bytesPerRow: stride, rowsPerImage: width }, [width, width, 6]);
    });
    device.queue.submit([encoder.finish()]);
    try {
      await asWork(async () => {
        await gpuIdle(device);
        await buffer.mapAsync(GPUMapMode.READ);
      });
      const padded = new Uint8Array(buffer.getMappedRange());
      const map = new Uint8Array(mapBytes(texture));
      let at = 0;
      for (const { offset, width, stride } of spans) {
        for (let row = 0; row < width * 6; row++, at += width * TEXEL) map.set(padded.subarray(offset + row * stride, offset + row * stride + width * TEXEL), at);
      }
      renderOps.op_render_bake_store(device, key, map);
    } finally {
      buffer.destroy();
    }
  },
};
