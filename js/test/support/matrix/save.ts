// Matrix samples: save.*, checkpoint.* and game.restart — the game is started (checkpoint "start"),
// checkpoint "before" taken, then a flag set: loading either puts the world back.
import type { MatrixFamily, MatrixWorld } from "./family.ts";

/** Save files the samples wrote (removed once the matrix is done). */
const written = new Set<string>();

const saved = (name: string) => async (w: MatrixWorld) => {
  written.add((await w.must<{ path: string }>("save.export", { name })).path);
  await w.must("game.setFlag", { flag: "afterSave" });
};

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("game.start", {});
    await w.must("checkpoint.create", { name: "before" });
    await w.must("game.setFlag", { flag: "afterCheckpoint" });
  },
  async cleanup() {
    for (const path of written) await Limina.run({ cmd: "rm", args: ["-f", path] });
  },
  samples: {
    "save.export": { input: { name: "matrix-export" }, after: (value) => void written.add((value as { path: string }).path) },
    "save.import": { before: saved("matrix-import"), input: { name: "matrix-import" } },
    "save.list": { input: {} },
    "save.delete": { before: saved("matrix-delete"), input: { name: "matrix-delete" } },
    "checkpoint.create": { input: { name: "after" } },
    "checkpoint.load": { input: { name: "before" } },
    "checkpoint.list": { input: {} },
    "checkpoint.delete": { input: { name: "before" } },
    "game.restart": { input: {} },
  },
};
