// Base64 of a typed array's bytes, encoded natively (limina-ops).

interface OpsOps {
  op_limina_base64(bytes: ArrayBufferView): string;
}

const ops = Limina.ops as unknown as OpsOps;

/** Standard, padded base64 of the bytes `view` covers. */
export function base64(view: ArrayBufferView): string {
  return ops.op_limina_base64(view);
}
