// Scripted policies for ScriptedProvider agents.

import type { MCPRequest } from "../mcp/protocol.ts";
import type { DecideRequest } from "./providers/provider.ts";

/**
 * Pursue the nearest perceived entity (other than those in `ignore`) by
 * pushing the agent's own body toward it with a horizontal impulse.
 */
export function pursueNearest(strength = 1.2, ignore: (entityId: string) => boolean = () => false) {
  return (req: DecideRequest): MCPRequest[] => {
    const p = req.perception;
    if (!p.position || !p.selfEntity) return [];
    const target = p.nearby.find((n) => n.distance > 0.05 && !ignore(n.id));
    if (!target) return [];
    const d = [target.position[0] - p.position[0], 0, target.position[2] - p.position[2]];
    const len = Math.hypot(d[0], d[2]) || 1;
    return [{ tool: "physics.applyImpulse", input: { entity: p.selfEntity, impulse: [(d[0] / len) * strength, 0, (d[2] / len) * strength] } }];
  };
}
