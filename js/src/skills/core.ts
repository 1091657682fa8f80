// The core skill set, registered in the spec's order. The UI, audio and
// package modules join as those subsystems land.

import type { SkillRegistry } from "./registry.ts";
import { registerAgentSkills } from "./agent.ts";
import { registerAuditSkills } from "./audit.ts";
import { registerEcsSkills } from "./ecs.ts";
import { registerPhysicsSkills } from "./physics.ts";
import { registerSceneSkills } from "./scene.ts";
import { registerSocialSkills } from "./social.ts";
import { registerSystemSkills } from "./system.ts";
import { registerThreeSkills } from "./three.ts";

export function registerCoreSkills(registry: SkillRegistry): void {
  registerSceneSkills(registry);
  registerEcsSkills(registry);
  registerThreeSkills(registry);
  registerPhysicsSkills(registry);
  registerAgentSkills(registry);
  registerSystemSkills(registry);
  registerAuditSkills(registry);
  registerSocialSkills(registry);
}
