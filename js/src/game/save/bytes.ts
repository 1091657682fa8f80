// Base64 back to bytes (checkpoints travel as base64 inside world files;
// limina-ops encodes natively, and decoding happens only on loads).

import { engineError } from "../../../../crates/limina-ops/js/errors.ts";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** The bytes of standard, padded base64; anything else is `invalid_input`. */
export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0) throw engineError("invalid_input", "base64 length must be a multiple of 4");
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const c = text.charCodeAt(i + k);
      const v = c === 61 && i + k >= text.length - pad ? 0 : c < 128 ? VALUE[c] : -1;
      if (v < 0) throw engineError("invalid_input", `not base64 at character ${i + k}`);
      n = (n << 6) | v;
    }
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
