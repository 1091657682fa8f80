// Every gameplay family's skills, registered over a world session's Game
// (what registerCoreSkills calls).

import type { SkillRegistry } from "../skills/registry.ts";
import { combatSkills } from "./combat/skills.ts";
import { dialogueSkills } from "./dialogue/skills.ts";
import { eventSkills } from "./events/skills.ts";
import type { Game } from "./game.ts";
import { interactionSkills } from "./interaction/skills.ts";
import { itemSkills } from "./items/skills.ts";
import { progressionSkills } from "./progression/skills.ts";
import { questSkills } from "./quests/skills.ts";
import { type Saving, saveSkills } from "./save/skills.ts";
import { gameStateSkills } from "./state/skills.ts";
import { triggerSkills } from "./triggers/skills.ts";

export function registerGameSkills(registry: SkillRegistry, game: Game, saving: Saving): void {
  registry.registerAll(interactionSkills, game);
  registry.registerAll(itemSkills, game);
  registry.registerAll(triggerSkills, game);
  registry.registerAll(eventSkills, game);
  registry.registerAll(gameStateSkills, game);
  registry.registerAll(questSkills, game);
  registry.registerAll(combatSkills, game);
  registry.registerAll(dialogueSkills, game);
  registry.registerAll(progressionSkills, game);
  registry.registerAll(saveSkills, { game, saving });
}
