// What the gameplay suites share: a world stepped by hand, a builder caller
// (builder.readWrite) and players (player.limited) who play entities, and
// reading a call's value or refusal.
import { createWorldSession, FIXED_DT, type InvokeResult, resolveProfile, type WorldSession } from "limina";
import { assertEquals } from "limina/testing";
import { refused, value } from "./results.ts";

export { refused, value };

export interface GameWorld {
  session: WorldSession;
  /** Calls `tool` as the builder; it must succeed. */
  build<T = Record<string, unknown>>(tool: string, input?: Record<string, unknown>): Promise<T>;
  /** Calls `tool` as agent `agentId` under `profile` (default player.limited). */
  as(agentId: string, tool: string, input?: Record<string, unknown>, profile?: string): Promise<InvokeResult>;
  /** Calls `tool` as `agentId` (player.limited); it must succeed. */
  play<T = Record<string, unknown>>(agentId: string, tool: string, input?: Record<string, unknown>): Promise<T>;
  /** A box entity (static body unless `dynamic`) at `position`; returns its id. */
  box(position: [number, number, number], options?: { size?: number; dynamic?: boolean; body?: boolean; color?: number }): Promise<string>;
  /** Binds agent `agentId` to a new entity at `position` (a player); returns the entity. */
  player(agentId: string, position: [number, number, number]): Promise<string>;
  /** Advances `n` fixed steps. */
  steps(n: number): void;
  /** The types of the events logged since `from` (a tracer size). */
  eventsSince(from: number): string[];
}

export function gameWorld(): GameWorld {
  const session = createWorldSession({ simulate: false });
  const base = (agentId: string, profile: string) => ({ agentId, sessionId: `sess_${agentId}`, permissions: resolveProfile(profile), profile });
  const w: GameWorld = {
    session,
    build: async <T>(tool: string, input: Record<string, unknown> = {}) => value<T>(await session.registry.invoke(tool, input, base("builder", "builder.readWrite"))),
    as: (agentId, tool, input = {}, profile = "player.limited") => session.registry.invoke(tool, input, base(agentId, profile)),
    play: async <T>(agentId: string, tool: string, input: Record<string, unknown> = {}) => value<T>(await session.registry.invoke(tool, input, base(agentId, "player.limited"))),
    async box(position, options = {}) {
      const body = options.body ?? true;
      return (await w.build<{ entity: string }>("scene.createEntity", { shape: "box", position, size: options.size ?? 1, color: options.color ?? 0x888888, dynamic: body && !!options.dynamic, static: body && !options.dynamic })).entity;
    },
    async player(agentId, position) {
      const entity = await w.box(position, { size: 1, body: false });
      await w.build("game.addPlayer", { agentId, entity });
      return entity;
    },
    steps(n) {
      for (let i = 0; i < n; i++) session.step(FIXED_DT);
    },
    eventsSince: (from) => session.tracer.history().slice(from).map((e) => e.type),
  };
  return w;
}

/** Asserts the call was refused and the world digest is what it was. */
export async function refusedUnchanged(w: GameWorld, call: () => Promise<InvokeResult>, code: string, message: string): Promise<void> {
  const before = w.session.digest();
  refused(await call(), code, message);
  assertEquals(w.session.digest(), before, `a refused call (${message}) changes nothing`);
}
