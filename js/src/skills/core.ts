// The core skill set, registered in the spec's order. Each module exports
// a factory of its definitions (the factory is also what dev.reload calls).

import type { SkillRegistry } from "./registry.ts";
import { agentSkills } from "./agent.ts";
import { audioSkills } from "./audio.ts";
import { auditSkills } from "./audit.ts";
import { ecsSkills } from "./ecs.ts";
import { packageSkills } from "./package.ts";
import { physicsSkills } from "./physics.ts";
import { sceneSkills } from "./scene.ts";
import { socialSkills } from "./social.ts";
import { systemSkills } from "./system.ts";
import { threeSkills } from "./three.ts";
import { uiSkills } from "./ui.ts";

const CORE = [sceneSkills, ecsSkills, threeSkills, physicsSkills, agentSkills, systemSkills, auditSkills, uiSkills, audioSkills, socialSkills, packageSkills];

export function registerCoreSkills(registry: SkillRegistry): void {
  for (const factory of CORE) for (const skill of factory(registry)) registry.register(skill);
}
