// One in-process world session: tracer, world, the registered core skills
// and the host loop stepping physics — what a demo, a test or an MCP
// server starts from.

import { Mcp } from "./mcp/mcp.ts";
import { Tracer } from "./observability/tracer.ts";
import { onFixedStep } from "./loop.ts";
import { PolicyEngine } from "./policy/engine.ts";
import { stepWorld } from "./scene/entities.ts";
import { createWorldContext, type WorldContext } from "./skills/context.ts";
import { registerCoreSkills } from "./skills/core.ts";
import { SkillRegistry } from "./skills/registry.ts";

export interface WorldSession {
  tracer: Tracer;
  world: WorldContext;
  registry: SkillRegistry;
  /** Set when the session runs with the dynamic policy engine. */
  policy: PolicyEngine | null;
  /** A new in-process MCP endpoint over this world. */
  mcp(): Mcp;
  /** Stops this session's systems on the loop. */
  dispose(): void;
}

export interface WorldSessionOptions {
  /** Attach the dynamic policy engine (default: static profile checks). */
  policy?: boolean;
  /** Step physics on the host loop's fixed steps (default true). */
  simulate?: boolean;
}

export function createWorldSession(options: WorldSessionOptions = {}): WorldSession {
  const tracer = new Tracer();
  const world = createWorldContext();
  const registry = new SkillRegistry(tracer, world);
  registerCoreSkills(registry);
  const policy = options.policy ? new PolicyEngine(tracer) : null;
  registry.attachPolicy(policy);
  const off = options.simulate ?? true ? onFixedStep((dt) => stepWorld(world, dt)) : () => {};
  return { tracer, world, registry, policy, mcp: () => new Mcp(registry), dispose: off };
}
