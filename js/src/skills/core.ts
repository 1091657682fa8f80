// The core skill set, registered in the spec's order.

import type { SkillRegistry } from "./registry.ts";
import { registerAgentSkills } from "./agent.ts";
import { registerAudioSkills } from "./audio.ts";
import { registerAuditSkills } from "./audit.ts";
import { registerEcsSkills } from "./ecs.ts";
import { registerPackageSkills } from "./package.ts";
import { registerPhysicsSkills } from "./physics.ts";
import { registerSceneSkills } from "./scene.ts";
import { registerSocialSkills } from "./social.ts";
import { registerSystemSkills } from "./system.ts";
import { registerThreeSkills } from "./three.ts";
import { registerUiSkills } from "./ui.ts";

export function registerCoreSkills(registry: SkillRegistry): void {
  registerSceneSkills(registry);
  registerEcsSkills(registry);
  registerThreeSkills(registry);
  registerPhysicsSkills(registry);
  registerAgentSkills(registry);
  registerSystemSkills(registry);
  registerAuditSkills(registry);
  registerUiSkills(registry);
  registerAudioSkills(registry);
  registerSocialSkills(registry);
  registerPackageSkills(registry);
}
