// What the state stream tells a spectator about the world as a whole, so the
// page draws it as native rendering does: the look settings (sky,
// environment, fog, post stack), the lighting and the view camera, and the
// characters' animation. Each entity's own look is scene/describe.ts's.

import type { AnimationFeed, SceneFeed } from "../mcp/state-sync.ts";
import { type LookSettings, Revision } from "../render/look.ts";
import type { CameraPose } from "../render/view-camera.ts";
import { lightingRevision, saveLighting, type SavedLighting } from "../scene/scene-graph.ts";
import type { WorldSession } from "../world-session.ts";

/** How the world is lit and drawn: what a spectator needs besides its entities. */
export interface WorldLook {
  look: LookSettings;
  lighting: SavedLighting;
  view: CameraPose;
}

function worldLook(session: WorldSession): WorldLook {
  return { look: session.look.settings(), lighting: saveLighting(session.lighting), view: session.view.get() };
}

/** The world's look as the state stream takes it: rebuilt only when one of its inputs' revisions moved. */
export function worldLookFeed(session: WorldSession): SceneFeed {
  const lighting = lightingRevision(session.lighting);
  const revision = new Revision((out) => out.push(session.look.revision.current, lighting.current, session.view.revision.current));
  return { revision: () => revision.current, look: () => worldLook(session) };
}

/** The characters' animation as the state stream carries it: whole states on request, discrete changes as they happen. */
export function characterAnimation(session: WorldSession): AnimationFeed {
  const characters = session.characters;
  return {
    clock: () => characters.animationClock,
    take: () => characters.takeAnimationChanges(),
    state: (id) => characters.get(id)?.animator.save(),
  };
}
