// save.* and checkpoint.* skills: the whole world written to a save file
// on disk (atomically, refused across incompatible versions) and read back
// in place; checkpoints kept in the world under a name, loaded back in
// place.

import { z } from "zod";
import { deleteSave, listSaves, readSave, writeSave } from "../../../../crates/limina-trace/js/saves.ts";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { Id } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";

/** The permission to write and delete save files on disk. */
export const SAVE_WRITE = "save.write";

const SaveName = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/, "1-64 letters, digits, '.', '_' or '-', not starting with '.'");
const CheckpointView = z.object({ name: z.string(), tick: z.number(), digest: z.string(), bytes: z.number() });

/** Writes and reads whole-world saves for the session that owns the game. */
export interface Saving {
  /** The world now as snapshot bytes (UI left out), with its digest. */
  bytes(): { bytes: Uint8Array; digest: string };
  /** Replaces the world with saved snapshot bytes, in place; resolves to its digest. */
  load(bytes: Uint8Array): Promise<string>;
}

const saveExportInput = z.strictObject({ name: SaveName });
const saveExportOutput = z.object({ name: z.string(), path: z.string(), bytes: z.number(), digest: z.string() });
const saveImportInput = z.strictObject({ name: SaveName });
const saveImportOutput = z.object({ name: z.string(), digest: z.string() });
const saveListInput = z.strictObject({});
const saveListOutput = z.object({ saves: z.array(z.object({ name: z.string(), path: z.string(), bytes: z.number() })) });
const saveDeleteInput = z.strictObject({ name: SaveName });
const saveDeleteOutput = z.object({ deleted: z.boolean() });
const checkpointCreateInput = z.strictObject({ name: Id });
const checkpointLoadInput = z.strictObject({ name: Id });
const checkpointLoadOutput = z.object({ name: z.string(), digest: z.string() });
const checkpointListInput = z.strictObject({});
const checkpointListOutput = z.object({ checkpoints: z.array(CheckpointView) });
const checkpointDeleteInput = z.strictObject({ name: Id });
const checkpointDeleteOutput = z.object({ deleted: z.boolean() });

export function saveSkills({ game, saving }: { game: Game; saving: Saving }): SkillDefinition[] {
  const { checkpoints } = game;
  return gameSkills(game, { module: import.meta.url, factory: "saveSkills" }, [
    skill({
      name: "save.export",
      description: "Save the whole world — entities, physics, scene, and every game family's state (inventories, quests, stats, flags, timers, checkpoints) — to a named save file on disk, written atomically. Returns its path and the world digest it holds.",
      access: "read",
      also: [SAVE_WRITE],
      input: saveExportInput,
      output: saveExportOutput,
      handler: async ({ name }, { ctx }) => {
        const { bytes, digest } = saving.bytes();
        const file = await writeSave(name, bytes);
        ctx.emit("save.exported", { name, bytes: file.bytes, digest });
        return { ...file, digest };
      },
    }),
    skill({
      name: "save.import",
      description: "Load a save file in place: the world becomes exactly what was saved (the digest equals the one saved). A damaged file, or one from an incompatible engine version, is refused and nothing changes.",
      access: "define",
      also: [SAVE_WRITE],
      input: saveImportInput,
      output: saveImportOutput,
      handler: async ({ name }, { ctx }) => {
        const digest = await saving.load(readSave(name));
        ctx.emit("save.imported", { name, digest });
        return { name, digest };
      },
    }),
    skill({
      name: "save.list",
      description: "The save files on disk, by name, with their sizes.",
      access: "read",
      input: saveListInput,
      output: saveListOutput,
      handler: () => ({ saves: listSaves() }),
    }),
    skill({
      name: "save.delete",
      description: "Delete a save file.",
      access: "read",
      also: [SAVE_WRITE],
      input: saveDeleteInput,
      output: saveDeleteOutput,
      handler: ({ name }, { ctx }) => {
        const deleted = deleteSave(name);
        if (deleted) ctx.emit("save.deleted", { name });
        return { deleted };
      },
    }),
    skill({
      name: "checkpoint.create",
      description: `Take a checkpoint: the whole world kept under a name inside the world itself (at most 16; world files and saves carry them). Replaces one of the same name.`,
      access: "define",
      input: checkpointCreateInput,
      output: CheckpointView,
      handler: ({ name }, { ctx }) => {
        const c = checkpoints.create(name, ctx.emit);
        return { name, tick: c.tick, digest: c.digest, bytes: c.bytes.length };
      },
    }),
    skill({
      name: "checkpoint.load",
      description: "Load a checkpoint in place: entities, physics, scene and every game family's state go back to what they were (the digest equals the checkpoint's); the tick, the agents and the checkpoints themselves go on.",
      access: "define",
      input: checkpointLoadInput,
      output: checkpointLoadOutput,
      handler: async ({ name }, { ctx }) => ({ name, digest: await checkpoints.restore(name, ctx.emit) }),
    }),
    skill({
      name: "checkpoint.list",
      description: "The checkpoints the world keeps: name, tick taken, digest, size.",
      access: "read",
      input: checkpointListInput,
      output: checkpointListOutput,
      handler: () => ({ checkpoints: checkpoints.list() }),
    }),
    skill({
      name: "checkpoint.delete",
      description: "Delete a checkpoint.",
      access: "define",
      input: checkpointDeleteInput,
      output: checkpointDeleteOutput,
      handler: ({ name }, { ctx }) => ({ deleted: checkpoints.delete(name, ctx.emit) }),
    }),
  ]);
}
