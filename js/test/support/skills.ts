// Shared by the registry and policy suites: a caller under a profile, and a
// test skill that changes the world.
import { createWorldSession, type InvokeBase, resolveProfile, type SkillDefinition, type World } from "limina";
import { z } from "zod";

/** A caller under `profile`. */
export function as(profile: string, agentId = "agent_a", sessionId = "sess_a"): InvokeBase {
  return { agentId, sessionId, permissions: resolveProfile(profile), profile };
}

/** A skill that changes the world: spawns an entity in `world`, logging its hooks and handler to `log`. */
export function spawner(world: World, log: string[] = []): SkillDefinition {
  return {
    name: "test.spawn",
    version: "1.0.0",
    category: "scene",
    description: "Spawns an entity at a position.",
    input: z.strictObject({ position: z.tuple([z.number(), z.number(), z.number()]) }),
    output: z.object({ entity: z.string() }),
    permissions: ["scene.write"],
    hooks: {
      before: (input) => void log.push(`before ${input.position}`),
      after: (result) => void log.push(`after ${result.entity}`),
    },
    handler: ({ position }) => {
      log.push("handler");
      return { entity: world.spawn({ position }).id };
    },
  };
}

/** The names a fresh world session registers, in registration order. */
export function registeredSkillNames(): string[] {
  const session = createWorldSession({ simulate: false });
  const names = session.registry.all().map((s) => s.name);
  session.dispose();
  return names;
}

/**
 * What an MCP server's tools/list must list exactly: the registered skills and
 * `render.capture`, which a server enables on this machine's WebGPU adapter
 * (tests compare with it instead of a count every new skill family changes).
 */
export function servedSkillNames(): string[] {
  return [...registeredSkillNames(), "render.capture"];
}
