// The core skill set, registered in the catalog's order. Each module exports
// a factory of its definitions over the narrow services they act on (the
// factory is also what dev.reload calls). Only skills whose subsystem exists
// in this build are registered, so discovery never offers one that cannot work.
// A family's Zod contracts live at its module's top level: built once per
// process and shared by every world, while each factory call builds only the
// definitions and handlers over that world's services (js/test/skill_contracts.ts).

import { registerGameSkills } from "../game/skills.ts";
import { decodeSnapshot, encodeSnapshot, replaceWorld, snapshotSession } from "../persistence/snapshot.ts";
import type { WorldSession } from "../world-session.ts";
import { agentSkills } from "./agent.ts";
import { animationSkills } from "./animation.ts";
import { auditSkills } from "./audit.ts";
import { audioSkills } from "./audio.ts";
import { cameraSkills } from "./camera.ts";
import { characterSkills } from "./character.ts";
import { cameraRigSkills } from "../camera/rig-skills.ts";
import { ecsSkills } from "./ecs.ts";
import { materialSkills } from "./material.ts";
import { navSkills } from "./nav.ts";
import { packageSkills } from "./package.ts";
import { physicsSkills } from "./physics.ts";
import { prefabSkills } from "./prefabs.ts";
import { renderSettingsSkills } from "./render.ts";
import { sceneSkills } from "./scene.ts";
import { socialSkills } from "./social.ts";
import { systemSkills } from "./system.ts";
import { threeSkills } from "./three.ts";
import { uiSkills } from "./ui.ts";
import { terrainSkills } from "../terrain/skills.ts";
import { climateSkills } from "../climate/skills.ts";
import { vfxSkills } from "../vfx/skills.ts";
import { avatarSkills } from "../web/avatar.ts";

export function registerCoreSkills(session: WorldSession): void {
  const { registry, entities, spatial, lighting, view, audio, tracer, agents, sceneBuilders, skillReload, packages, ui, locomotion, terrain, look, prefabs, nav, characters, cameraRig } = session;
  registry.registerAll(sceneSkills, { entities, spatial });
  registry.registerAll(prefabSkills, { entities, prefabs });
  registry.registerAll(ecsSkills, { entities });
  registry.registerAll(threeSkills, { entities, lighting });
  registry.registerAll(cameraSkills, { view, rig: cameraRig });
  registry.registerAll(physicsSkills, { entities });
  registry.registerAll(agentSkills, { agents });
  registry.registerAll(systemSkills, { registry, tracer, entities, agents, sceneBuilders, skillReload, digest: () => session.digest() });
  registry.registerAll(auditSkills, { tracer, agents });
  registry.registerAll(uiSkills, { ui });
  registry.registerAll(audioSkills, { audio, camera: view.camera });
  registry.registerAll(socialSkills, { entities, locomotion, ui, audio });
  registry.registerAll(packageSkills, { packages });
  registry.registerAll(terrainSkills, { terrain, entities });
  registerGameSkills(registry, session.game, {
    bytes: () => {
      const snap = snapshotSession(session, { withoutUi: true });
      return { bytes: encodeSnapshot(snap), digest: snap.snapshot.digest };
    },
    load: (bytes) => replaceWorld(session, decodeSnapshot(bytes)),
  });
  registry.registerAll(renderSettingsSkills, { look });
  registry.registerAll(materialSkills, { entities });
  registry.registerAll(climateSkills, { climate: session.climate });
  registry.registerAll(vfxSkills, { vfx: session.vfx });
  registry.registerAll(characterSkills, { characters });
  registry.registerAll(animationSkills, { characters });
  registry.registerAll(navSkills, { nav, characters });
  registry.registerAll(cameraRigSkills, { rig: cameraRig });
  registry.registerAll(avatarSkills, { avatars: session.avatars });
}
