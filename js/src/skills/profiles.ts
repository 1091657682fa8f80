// Permission strings and the static permission profiles.

export const PERMISSIONS = [
  "scene.read",
  "scene.write",
  "ecs.read",
  "ecs.modify",
  "physics.read",
  "physics.write",
  "agent.read",
  "agent.write",
  "ui.write",
  "audio.play",
  "social.act",
  "game.read",
  "game.act",
  "game.define",
  "save.write",
  "world.write",
  "render.write",
  "physics.define",
  "nav.define",
  "character.define",
  "character.act",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const PROFILES: Readonly<Record<string, readonly Permission[]>> = Object.freeze({
  "builder.readWrite": [
    "scene.read", "scene.write", "ecs.read", "ecs.modify", "physics.read", "physics.write",
    "agent.read", "agent.write", "ui.write", "audio.play",
    "game.read", "game.act", "game.define", "save.write",
    "world.write",
    "render.write",
    "physics.define",
    "nav.define", "character.define", "character.act",
  ],
  "player.limited": ["scene.read", "ecs.read", "physics.read", "physics.write", "agent.read", "agent.write", "game.read", "game.act", "character.act"],
  "social.actor": ["scene.read", "ecs.read", "physics.read", "agent.read", "agent.write", "social.act", "audio.play", "game.read", "game.act", "character.act"],
  "system.readonly": ["scene.read", "ecs.read", "physics.read", "agent.read", "game.read"],
  // Watches through the state stream only (js/src/web/spectator.ts): no skill at all.
  spectator: [],
});

/** The permission set a profile grants; an unknown profile grants nothing. */
export function resolveProfile(name: string | undefined | null): ReadonlySet<string> {
  return new Set(name !== undefined && name !== null && Object.hasOwn(PROFILES, name) ? PROFILES[name] : []);
}
