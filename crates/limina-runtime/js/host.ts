// The typed face of limina-runtime's host ops that engine modules use:
// the sandboxed asset store, HTTP for LLM providers, and the environment.

export interface AssetInfo {
  id: string;
  kind: string;
  /** The manifest path, relative to the asset directory. */
  source: string;
  description: string;
}

interface HostOps {
  op_assets_resolve(id: string): AssetInfo;
  op_assets_read(id: string): Uint8Array;
  op_http_post(request: { url: string; body: string; headers: [string, string][]; timeoutMs: number }): Promise<{ status: number; body: string }>;
  op_limina_env(name: string): string | null;
}

const ops = Limina.ops as unknown as HostOps;

/** An asset's manifest entry, by id (the user's `assets/` first, then the built-in ones). */
export const resolveAsset = (id: string): AssetInfo => ops.op_assets_resolve(id);
/** An asset's bytes, by id. */
export const readAsset = (id: string): Uint8Array => ops.op_assets_read(id);
/** One HTTP POST off the loop: the status and body. */
export const httpPost = (request: { url: string; body: string; headers: [string, string][]; timeoutMs: number }) => ops.op_http_post(request);
/** An environment variable, or undefined when unset. */
export const env = (name: string): string | undefined => ops.op_limina_env(name) ?? undefined;
