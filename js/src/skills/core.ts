// The core skill set, registered in the spec's order. Modules for the
// world, agents, UI, audio, social and packages join as they land.

import type { SkillRegistry } from "./registry.ts";
import { registerAuditSkills } from "./audit.ts";
import { registerSystemSkills } from "./system.ts";

export function registerCoreSkills(registry: SkillRegistry): void {
  registerSystemSkills(registry);
  registerAuditSkills(registry);
}
