// The JS face of limina-mcp's static player export (`limina export-web`):
// the spectator page's embedded files and the player's data, written as one
// folder that appears whole or not at all.

export interface ExportedPlayer {
  path: string;
  files: number;
  bytes: number;
}

interface WebExportOps {
  op_mcp_web_export(out: string, files: [string, string][]): ExportedPlayer;
}

const ops = Limina.ops as unknown as WebExportOps;

/**
 * Writes the page (index.html, page.js, page.css, the HDRIs) and `files` (plain names → text) into
 * the folder `out`, staged beside it and renamed into place. `invalid_input` when `out` exists and
 * is not an empty folder; an I/O error (nothing written) when it cannot be written.
 */
export function writePlayerFolder(out: string, files: Record<string, string>): ExportedPlayer {
  return ops.op_mcp_web_export(out, Object.entries(files));
}
