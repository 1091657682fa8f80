// The typed face of limina-runtime's host ops that engine modules use:
// the sandboxed asset store, HTTP for LLM providers, and the environment.

export interface AssetInfo {
  id: string;
  kind: string;
  /** The manifest path, relative to the asset directory. */
  source: string;
  description: string;
}

export interface HttpPostRequest {
  url: string;
  body: string;
  headers: [string, string][];
  /** The whole exchange, connecting included. */
  timeoutMs: number;
  /** The TCP connect, and then the TLS handshake, each (default 10 000). */
  connectTimeoutMs?: number;
}

export interface HttpPostResponse {
  status: number;
  /** Names lower-case. */
  headers: [string, string][];
  body: string;
}

interface HostOps {
  op_assets_resolve(id: string): Promise<AssetInfo>;
  op_assets_read(id: string): Promise<Uint8Array>;
  op_http_post(request: HttpPostRequest): Promise<HttpPostResponse>;
  op_limina_env(name: string): string | null;
}

const ops = Limina.ops as unknown as HostOps;

/** An asset's manifest entry, by id (the user's `assets/` first, then the built-in ones), looked up off the loop. */
export const resolveAsset = (id: string): Promise<AssetInfo> => ops.op_assets_resolve(id);
/** An asset's bytes, by id, read off the loop (regular files only, at most 256 MiB). */
export const readAsset = (id: string): Promise<Uint8Array> => ops.op_assets_read(id);
/** One HTTP POST off the loop: the status and body. */
export const httpPost = (request: HttpPostRequest): Promise<HttpPostResponse> => ops.op_http_post(request);
/** An environment variable, or undefined when unset. */
export const env = (name: string): string | undefined => ops.op_limina_env(name) ?? undefined;
