// The JS face of limina-trace's save files: world files by name in the
// save directory (LIMINA_SAVE_DIR, or saves/ in the working directory),
// written atomically, read back verified, listed and deleted.

export interface SavedFile {
  name: string;
  path: string;
  bytes: number;
}

interface SaveOps {
  op_save_write(name: string, body: Uint8Array): Promise<SavedFile>;
  op_save_read(name: string): Uint8Array;
  op_save_list(): SavedFile[];
  op_save_delete(name: string): boolean;
}

const ops = Limina.ops as unknown as SaveOps;

/** Writes `body` as save `name` (replacing it), atomically and off the loop. */
export function writeSave(name: string, body: Uint8Array): Promise<SavedFile> {
  return ops.op_save_write(name, body);
}

/** The verified body of save `name`: `not_found` without one, `invalid_input` for a damaged or foreign file. */
export function readSave(name: string): Uint8Array {
  return ops.op_save_read(name);
}

/** The saves there are, by name. */
export function listSaves(): SavedFile[] {
  return ops.op_save_list();
}

/** Deletes save `name`; false when there was none. */
export function deleteSave(name: string): boolean {
  return ops.op_save_delete(name);
}
