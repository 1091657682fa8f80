// How a gameplay skill is declared: its name, what it needs (reading game
// state, acting as a player, defining the rules), its Zod contracts and a
// handler over the world's Game. Handlers run through `Game.run`: events
// are attributed to the caller, a failed world-writing call leaves the game
// as it was, a successful one is settled (quests, rules) before it returns.

import type { z } from "zod";
import type { ExecutionContext, SkillDefinition } from "../skills/registry.ts";
import type { Game } from "./game.ts";

/** What a gameplay skill needs: `read` game state, `act` as the entity one plays, or `define` the rules. */
export type Access = "read" | "act" | "define";

/** The permission each kind of access needs. */
export const ACCESS: Record<Access, string> = { read: "game.read", act: "game.act", define: "game.define" };

export interface Call {
  ctx: ExecutionContext;
  /** The entity the calling agent plays (game.addPlayer); not_found when it plays none. */
  actor(): string;
}

export interface GameSkillSpec<I extends z.ZodType, O extends z.ZodType> {
  name: string;
  description: string;
  access: Access;
  /** Permissions beyond the access's own. */
  also?: string[];
  input: I;
  output: O;
  handler(input: z.output<I>, call: Call): z.input<O> | Promise<z.input<O>>;
}

/** The definitions of one family's skills over `game`, built by `factory` (exported by `module`, so dev.reload can build them again). */
export function gameSkills(game: Game, source: { module: string; factory: string }, specs: GameSkillSpec<z.ZodType, z.ZodType>[]): SkillDefinition[] {
  return specs.map((spec) => ({
    name: spec.name,
    version: "1.0.0",
    category: "game",
    description: spec.description,
    input: spec.input,
    output: spec.output,
    permissions: [ACCESS[spec.access], ...(spec.also ?? [])],
    source,
    handler: (input: unknown, ctx: ExecutionContext) => {
      const call: Call = { ctx, actor: () => game.state.actorOf(ctx.agentId) };
      return game.run(ctx, spec.access !== "read", () => spec.handler(input, call));
    },
  }));
}

/** A skill spec with its input and output types inferred (what family factories list). */
export function skill<I extends z.ZodType, O extends z.ZodType>(spec: GameSkillSpec<I, O>): GameSkillSpec<z.ZodType, z.ZodType> {
  return spec as unknown as GameSkillSpec<z.ZodType, z.ZodType>;
}
