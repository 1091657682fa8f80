// Checkpoints: whole-world snapshots kept in the world itself under a name
// (so they travel in world files and saves, and a replay re-creates them
// exactly as the original run did), loaded back in place — entities,
// physics, scene objects, lighting and every game family's state; the
// tick, the agents, the world log and the checkpoints themselves go on.
// The world resource `game.checkpoints`; the world digest hashes the
// digest each checkpoint holds, not its bytes.

import { z } from "zod";
import { base64 } from "../../../../crates/limina-ops/js/base64.ts";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import { sha256 } from "../../../../crates/limina-trace/js/world-file.ts";
import type { Game } from "../game.ts";
import { Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { fromBase64 } from "./bytes.ts";

/** Checkpoints a world keeps at once. */
export const MAX_CHECKPOINTS = 16;
/** The largest checkpoint, bytes. */
export const MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024;
/** The name of the resource (what a checkpoint leaves out of itself and keeps when loaded). */
export const CHECKPOINTS = "game.checkpoints";

/** Takes and loads whole-world snapshots, for the session that owns the game. */
export interface Checkpointing {
  /** The world now as snapshot bytes, without the resources in `exclude` (UI left out); with its digest. */
  take(exclude: readonly string[]): { bytes: Uint8Array; digest: string };
  /** Replaces the world with snapshot bytes in place, keeping the resources in `keep`; resolves to the digest. */
  load(bytes: Uint8Array, keep: readonly string[]): Promise<string>;
}

/** Records an event attributed to the caller (checkpoint loads await, so they cannot use the game's current caller). */
export type Emit = (type: string, payload: unknown) => string;

export interface Checkpoint {
  tick: number;
  digest: string;
  bytes: Uint8Array;
  /** sha256 of the bytes. */
  hash: string;
}

const Saved = z.array(z.tuple([Id, z.strictObject({ tick: z.number().int().min(0), digest: z.string(), hash: z.string(), data: z.string() })]));
type Saved = z.infer<typeof Saved>;

export class Checkpoints {
  readonly all = new Map<string, Checkpoint>();

  constructor(private readonly game: Game, private readonly checkpointing: Checkpointing) {}

  save(): Saved {
    return [...this.all].map(([name, c]) => [name, { tick: c.tick, digest: c.digest, hash: c.hash, data: base64(c.bytes) }]);
  }

  /** Each checkpoint's name, tick and the digest of the world it holds (its bytes also carry presentation and the log position, which are not world state). */
  digestState(): unknown {
    return [...this.all].map(([name, c]) => [name, c.tick, c.digest]);
  }

  load(saved: Saved | null): void {
    const s = saved === null ? [] : parseSaved(Saved, saved, CHECKPOINTS);
    const out: [string, Checkpoint][] = [];
    for (const [name, c] of s) {
      const bytes = fromBase64(c.data);
      if (sha256(bytes) !== c.hash) throw engineError("invalid_input", `saved checkpoint ${name} does not match its content hash`);
      out.push([name, { tick: c.tick, digest: c.digest, hash: c.hash, bytes }]);
    }
    this.all.clear();
    for (const [name, c] of out) this.all.set(name, c);
  }

  /** Snapshots the world as checkpoint `name` (replacing one of that name). */
  create(name: string, emit: Emit): Checkpoint {
    if (!this.all.has(name) && this.all.size >= MAX_CHECKPOINTS) throw engineError("capacity_exceeded", `a world keeps at most ${MAX_CHECKPOINTS} checkpoints: delete one first`);
    const { bytes, digest } = this.checkpointing.take([CHECKPOINTS]);
    if (bytes.length > MAX_CHECKPOINT_BYTES) throw engineError("capacity_exceeded", `this world's checkpoint would be ${bytes.length} bytes, more than ${MAX_CHECKPOINT_BYTES}`);
    const c: Checkpoint = { tick: this.game.tick(), digest, bytes, hash: sha256(bytes) };
    this.all.set(name, c);
    emit("checkpoint.created", { checkpoint: name, digest, bytes: bytes.length });
    return c;
  }

  require(name: string): Checkpoint {
    const c = this.all.get(name);
    if (!c) throw engineError("not_found", `no checkpoint ${JSON.stringify(name)}${this.all.size ? `; there are ${[...this.all.keys()].join(", ")}` : ""}`);
    return c;
  }

  /** Loads checkpoint `name` in place; resolves to the world's digest, which equals the one it was taken with. */
  async restore(name: string, emit: Emit): Promise<string> {
    const c = this.require(name);
    const digest = await this.checkpointing.load(c.bytes, [CHECKPOINTS]);
    emit("checkpoint.loaded", { checkpoint: name, digest, takenAt: c.tick });
    return digest;
  }

  delete(name: string, emit: Emit): boolean {
    const had = this.all.delete(name);
    if (had) emit("checkpoint.deleted", { checkpoint: name });
    return had;
  }

  list(): { name: string; tick: number; digest: string; bytes: number }[] {
    return [...this.all].map(([name, c]) => ({ name, tick: c.tick, digest: c.digest, bytes: c.bytes.length }));
  }
}
