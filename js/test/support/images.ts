// Image measures the look's suites share: decoding captures, luminance,
// regional means and contrast, edge energy, and SSIM against a reference.
import { type DecodedImage, decodePng } from "limina";

/** A render.capture result's PNG, decoded. */
export function decodeCapture(png: string): DecodedImage {
  return decodePng((Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(png));
}

/** Rec. 709 luma of each pixel, 0–255, row-major. */
export function lumaOf(img: DecodedImage): Float64Array {
  const out = new Float64Array(img.width * img.height);
  for (let i = 0; i < out.length; i++) out[i] = 0.2126 * img.data[i * 4] + 0.7152 * img.data[i * 4 + 1] + 0.0722 * img.data[i * 4 + 2];
  return out;
}

export interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The whole image as a region. */
export const whole = (img: DecodedImage): Region => ({ x0: 0, y0: 0, x1: img.width, y1: img.height });

/** A region of an image as an image of its own. */
export function crop(img: DecodedImage, r: Region): DecodedImage {
  const width = r.x1 - r.x0;
  const height = r.y1 - r.y0;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) data.set(img.data.subarray(((r.y0 + y) * img.width + r.x0) * 4, ((r.y0 + y) * img.width + r.x1) * 4), y * width * 4);
  return { width, height, data };
}

/** Mean RGB over a region. */
export function meanRgb(img: DecodedImage, r: Region = whole(img)): [number, number, number] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = r.y0; y < r.y1; y++) {
    for (let x = r.x0; x < r.x1; x++) {
      const o = (y * img.width + x) * 4;
      for (let c = 0; c < 3; c++) sum[c] += img.data[o + c];
      n++;
    }
  }
  return sum.map((s) => s / n) as [number, number, number];
}

/** Mean luma over a region. */
export function meanLuma(img: DecodedImage, r: Region = whole(img)): number {
  const [red, green, blue] = meanRgb(img, r);
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

/** Mean absolute per-channel difference of two same-sized images, 0–255. */
export function meanDifference(a: DecodedImage, b: DecodedImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let sum = 0;
  for (let i = 0; i < a.data.length; i += 4) for (let c = 0; c < 3; c++) sum += Math.abs(a.data[i + c] - b.data[i + c]);
  return sum / ((a.data.length / 4) * 3);
}

/** Sum of squared luma steps between horizontal and vertical neighbours in a region: what aliasing adds along edges. */
export function edgeEnergy(img: DecodedImage, r: Region = whole(img)): number {
  const l = lumaOf(img);
  let e = 0;
  for (let y = r.y0; y < r.y1 - 1; y++) {
    for (let x = r.x0; x < r.x1 - 1; x++) {
      const i = y * img.width + x;
      e += (l[i + 1] - l[i]) ** 2 + (l[i + img.width] - l[i]) ** 2;
    }
  }
  return e;
}

/**
 * Structural similarity (Wang et al. 2004) of two same-sized images' luma:
 * the mean over 8×8 windows (stride 4) of the SSIM index, with the usual
 * constants for 8-bit data. 1 for identical images.
 */
export function ssim(a: DecodedImage, b: DecodedImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  const la = lumaOf(a);
  const lb = lumaOf(b);
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  const W = 8;
  let total = 0;
  let windows = 0;
  for (let y = 0; y + W <= a.height; y += 4) {
    for (let x = 0; x + W <= a.width; x += 4) {
      let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (let j = 0; j < W; j++) {
        for (let i = 0; i < W; i++) {
          const k = (y + j) * a.width + x + i;
          sa += la[k];
          sb += lb[k];
          saa += la[k] * la[k];
          sbb += lb[k] * lb[k];
          sab += la[k] * lb[k];
        }
      }
      const n = W * W;
      const ma = sa / n, mb = sb / n;
      const va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb;
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      windows++;
    }
  }
  return total / windows;
}
