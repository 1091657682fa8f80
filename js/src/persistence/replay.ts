// Replay: rebuilds a world from its world log. The log's world-changing
// skill calls (those needing a world-writing permission) are applied again,
// in log order, each on the tick it took effect, with the world stepped on
// the fixed step in between; at every `world.checkpoint` the replayed
// world's digest must equal the recorded one. Replay starts from an empty
// world or from a snapshot (skipping what the log held before it).

import type { EngineEvent } from "../observability/tracer.ts";
import { FIXED_DT } from "../loop.ts";
import type { WorldSession } from "../world-session.ts";

/** Permissions that let a skill change the world state; skill calls needing one are replayed. */
export const WORLD_WRITE_PERMISSIONS: ReadonlySet<string> = new Set(["scene.write", "ecs.modify", "physics.write", "ui.write", "social.act", "game.act", "game.define", "world.write", "render.write", "physics.define", "nav.define", "character.define", "character.act"]);

export interface ReplayOptions {
  /** Stop at this tick (the world is stepped up to it; later events are not applied). */
  until?: number;
  /**
   * The snapshot the session was restored from: replay skips what the log held before it — its
   * first `logSeq` events, or, in the log of a world restored from it, everything up to and
   * including that log's `world.restored` (whose digest must be the snapshot's).
   */
  from?: { logSeq: number; digest: string };
  /** Called before each fixed step with the tick the world is at, once everything the log applies at that tick is applied. */
  beforeStep?: (tick: number) => void;
}

export type ReplayResult =
  | { ok: true; tick: number; digest: string; checkpoints: number; calls: number }
  | { ok: false; tick: number; reason: string; expected?: string; actual?: string; checkpoints: number; calls: number };

interface Checkpoint {
  tick: number;
  digest: string;
}

interface SkillExecuted {
  skill: string;
  version?: string;
  input: unknown;
  tick: number;
  appliedTick?: number;
}

/** An event's sequence number in its log (from its id). */
function seqOf(id: string): number {
  const m = /_(\d{12})_[0-9a-f]{4}$/.exec(id);
  return m ? Number(m[1]) : -1;
}

/**
 * Replays `events` (a verified world log, oldest first) into `session`, a session that does not
 * step on the loop (`simulate: false`), new or restored from the snapshot the log continues.
 */
export async function replay(session: WorldSession, events: readonly EngineEvent[], options: ReplayOptions = {}): Promise<ReplayResult> {
  const until = options.until ?? Infinity;
  let checkpoints = 0;
  let calls = 0;
  const diverged = (tick: number, reason: string, more: { expected?: string; actual?: string } = {}): ReplayResult => ({ ok: false, tick, reason, ...more, checkpoints, calls });
  const advance = (tick: number): void => {
    while (session.tick < tick) {
      options.beforeStep?.(session.tick);
      session.step(FIXED_DT);
    }
  };
  let start = 0;
  const restoredAt = events.findLastIndex((e) => e.type === "world.restored");
  if (restoredAt >= 0) {
    const restored = events[restoredAt].payload as Checkpoint;
    if (options.from?.digest !== restored.digest) {
      return diverged(restored.tick, `this log continues a world restored at tick ${restored.tick} (digest ${restored.digest}): replay it from that snapshot`, { expected: restored.digest, actual: options.from?.digest ?? session.digest() });
    }
    start = restoredAt + 1;
  } else if (options.from) {
    start = events.findIndex((e) => seqOf(e.id) >= options.from!.logSeq);
    if (start < 0) start = events.length;
  }
  for (const event of events.slice(start)) {
    if (event.type === "world.checkpoint") {
      const { tick, digest } = event.payload as Checkpoint;
      if (tick > until) break;
      if (tick < session.tick) return diverged(session.tick, `${event.id}: a checkpoint at tick ${tick} comes after tick ${session.tick} in the log`);
      advance(tick);
      const actual = session.digest();
      checkpoints++;
      if (actual !== digest) return diverged(tick, `the world digest differs at tick ${tick}`, { expected: digest, actual });
    } else if (event.type === "skill.executed") {
      const call = event.payload as SkillExecuted;
      const skill = session.registry.get(call.skill);
      if (!skill || !skill.permissions.some((p) => WORLD_WRITE_PERMISSIONS.has(p))) continue;
      const tick = call.appliedTick ?? call.tick;
      if (tick > until) break;
      if (tick < session.tick) return diverged(session.tick, `${event.id}: a ${call.skill} call at tick ${tick} comes after tick ${session.tick} in the log`);
      advance(tick);
      calls++;
      const input = call.version !== undefined && call.version !== skill.version && skill.upgrade ? skill.upgrade(call.input, call.version) : call.input;
      const result = await session.registry.invoke(call.skill, input, { agentId: event.actorId, sessionId: event.threadId, permissions: skill.permissions });
      if (!result.ok) return diverged(tick, `${event.id}: ${call.skill} succeeded when recorded but fails on replay: ${result.error.code}: ${result.error.message}`);
    }
  }
  if (Number.isFinite(until)) advance(until);
  return { ok: true, tick: session.tick, digest: session.digest(), checkpoints, calls };
}
