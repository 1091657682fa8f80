// agent.* skills: signals into the trace, and the caller's perception.

import { z } from "zod";
import type { AgentDirectory } from "../agents/directory.ts";
import type { SkillDefinition } from "./registry.ts";

const agentEmitEventInput = z.strictObject({
  type: z.string().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, "type may hold letters, digits, '.', '_' and '-'"),
  payload: z.record(z.string(), z.unknown()).default({}),
});
const agentEmitEventOutput = z.object({ eventId: z.string() });
const agentGetPerceptionInput = z.strictObject({});
const agentGetPerceptionOutput = z.object({ perception: z.unknown() });

export function agentSkills({ agents }: { agents: AgentDirectory }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "agentSkills" };
  return [
    {
      name: "agent.emitEvent",
      version: "1.0.0",
      category: "agent",
      description: "Emit a custom event into the observability trace (inter-agent or system signal). Emitted as agent.signal.<type>.",
      input: agentEmitEventInput,
      output: agentEmitEventOutput,
      permissions: ["agent.write"],
      source,
      handler: ({ type, payload }, ctx) => ({ eventId: ctx.emit(`agent.signal.${type}`, payload) }),
    },
    {
      name: "agent.getPerception",
      version: "1.0.0",
      category: "agent",
      description: "Get the calling agent's current perception (nearby entities + recent events).",
      input: agentGetPerceptionInput,
      output: agentGetPerceptionOutput,
      permissions: ["agent.read"],
      source,
      handler: (_input, ctx) => ({ perception: agents.perceptionOf(ctx.agentId) }),
    },
  ];
}
