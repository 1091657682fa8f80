// What the builder's-toolbox suites share: a world session that steps by
// hand with a builder calling skills on it, and reading where entities are.
import { createWorldSession, resolveProfile, type WorldSession } from "limina";
import { value } from "./results.ts";

export const builder = { agentId: "builder", sessionId: "toolbox", permissions: resolveProfile("builder.readWrite") };

/** A hand-stepped world and a builder's calls on it: `raw` (the result), `call` (the value, or the test fails), `make` (an entity's id). */
export function builderWorld() {
  const s = createWorldSession({ simulate: false });
  const raw = (tool: string, input: unknown) => s.registry.invoke(tool, input, builder);
  const call = async <T = Record<string, unknown>>(tool: string, input: unknown) => value<T>(await raw(tool, input));
  const make = async (input: Record<string, unknown>) => (await call<{ entity: string }>("scene.createEntity", input)).entity;
  return { s, raw, call, make };
}

/** Steps `s` by `n` fixed steps. */
export function steps(s: WorldSession, n: number): void {
  for (let i = 0; i < n; i++) s.step(1 / 60);
}

/** Where entity `id` is. */
export const pos = (s: WorldSession, id: string) => s.world.position(s.world.entities.get(id)!.eid);
