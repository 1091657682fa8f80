// What a family's file under js/test/support/matrix/ exports for the
// permission matrix (js/test/permission_matrix.ts): a sample input for each
// of its skills and, optionally, the fixture its samples need.
import type { InvokeBase, WorldSession } from "limina";

/** A matrix world: a fresh session with the base fixture and every family's `prepare` applied. */
export interface MatrixWorld {
  session: WorldSession;
  /** A caller holding every permission (builds fixtures; never the caller under test). */
  admin: InvokeBase;
  /** Calls `tool` as `admin`; it must succeed. Resolves to its value. */
  must<T = Record<string, unknown>>(tool: string, input: Record<string, unknown>): Promise<T>;
  /** Calls `tool` as the caller under test (agent `caller`, inhabiting ent_1) with every permission; it must succeed. */
  play<T = Record<string, unknown>>(tool: string, input: Record<string, unknown>): Promise<T>;
  /** Names an id a `prepare` made, for samples to use. */
  name(key: string, id: string): void;
  /** The id `prepare` named `key` (an unknown key fails the test). */
  ref(key: string): string;
}

export interface MatrixSample {
  /** A valid input, or one built from the prepared world (ids, event ids). */
  input: Record<string, unknown> | ((w: MatrixWorld) => Record<string, unknown>);
  /** Told an allowed call's value (to note what it left outside the world, for `cleanup`). */
  after?(value: unknown): void;
  /** What this one sample needs beyond its family's fixture (runs after `prepare`). */
  before?(w: MatrixWorld): Promise<void> | void;
  /** Permissions the handler requires beyond its static ones for this input, and the refusal it gives without them. */
  needs?: { permissions: string[]; message: string };
  /**
   * Whether an allowed call changes what the matrix observes (the world digest, presentation or
   * agents' walks). Default: exactly when the skill needs a world-writing permission
   * (WORLD_WRITE_PERMISSIONS, what replay re-applies).
   */
  changes?: boolean;
}

export interface MatrixFamily {
  samples: Record<string, MatrixSample>;
  /** Builds what this family's samples need into every matrix world (runs after the base fixture). */
  prepare?(w: MatrixWorld): Promise<void> | void;
  /** Removes what the samples left outside the world (files), once the matrix is done. */
  cleanup?(): Promise<void> | void;
}
