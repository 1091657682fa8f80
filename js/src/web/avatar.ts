// avatar.*: a person joining a world from the browser page takes a body —
// a humanoid character (characters/) bound to the caller's agent id — and
// then walks it (character.move, nav.moveTo) and speaks (social.say)
// through the very skills and permissions agents use. Which agent inhabits which avatar is world state
// (the world resource "avatars"): snapshots, world files, the digest and
// replay cover it, and agent rosters list the avatars.

import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { AgentSource, AgentSummary } from "../agents/directory.ts";
import type { WorldResource } from "../ecs/resources.ts";
import type { CharacterSystem } from "../characters/characters.ts";
import type { Entities } from "../scene/entities.ts";
import type { SkillDefinition } from "../skills/registry.ts";

/** Avatars stand on a ring this far from the world's origin, metres. */
const SPAWN_RADIUS = 3;

interface Avatar {
  agentId: string;
  entity: string;
  name: string;
}

/** The world's avatars: an agent roster for locomotion and speech, and a world resource. */
interface SavedAvatars {
  taken: number;
  avatars: Avatar[];
}

export class Avatars implements AgentSource, WorldResource<SavedAvatars> {
  private readonly byAgent = new Map<string, Avatar>();
  /** Avatars ever taken (their spawn places around the ring). */
  private taken = 0;

  /** `characters`: the world's characters system (the session makes it after the avatars). */
  constructor(private readonly entities: Entities, private readonly characters: () => CharacterSystem) {}

  list(): AgentSummary[] {
    return [...this.byAgent.values()].filter((a) => this.entities.world.entities.get(a.entity)).map((a) => ({ agentId: a.agentId, entityId: a.entity, name: a.name, kind: "avatar" }));
  }

  perceptionOf(): null {
    return null;
  }

  /** The live avatar of `agentId`, or a new humanoid standing on the spawn ring; `created` says which. */
  async take(agentId: string, name: string): Promise<{ entity: string; created: boolean }> {
    const had = this.byAgent.get(agentId);
    if (had && this.entities.world.entities.get(had.entity)) return { entity: had.entity, created: false };
    const angle = this.taken * 2.399963; // the golden angle: spawn places spread without colliding
    let hue = 0;
    for (const c of agentId) hue = (hue * 31 + c.charCodeAt(0)) % 360;
    this.taken++;
    const character = await this.characters().spawn({
      position: [Math.cos(angle) * SPAWN_RADIUS, 0, Math.sin(angle) * SPAWN_RADIUS],
      appearance: { shirt: hslHex(hue / 360, 0.65, 0.55) },
      tags: ["avatar", `avatar:${name}`],
    });
    this.byAgent.set(agentId, { agentId, entity: character.entity.id, name });
    return { entity: character.entity.id, created: true };
  }

  save(): SavedAvatars {
    return { taken: this.taken, avatars: [...this.byAgent.values()].map((a) => ({ ...a })) };
  }

  load(saved: SavedAvatars | null): void {
    const ok = saved === null || (Number.isInteger(saved?.taken) && Array.isArray(saved.avatars) &&
      saved.avatars.every((a) => typeof a?.agentId === "string" && typeof a.entity === "string" && typeof a.name === "string"));
    if (!ok) throw engineError("invalid_input", "avatars: a saved roster is {taken, avatars: [{agentId, entity, name}]}");
    this.byAgent.clear();
    this.taken = saved?.taken ?? 0;
    for (const a of saved?.avatars ?? []) this.byAgent.set(a.agentId, { ...a });
  }
}

function hslHex(h: number, s: number, l: number): number {
  const f = (n: number) => {
    const k = (n + h * 12) % 12;
    const v = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255);
  };
  return (f(0) << 16) | (f(8) << 8) | f(4);
}

const avatarTakeInput = z.strictObject({ name: z.string().min(1).max(32).regex(/^[^\u0000-\u001f]+$/).optional().describe("what the avatar is called (tag avatar:<name>); default the agent id") });
const avatarTakeOutput = z.object({ entity: z.string(), created: z.boolean() });

export function avatarSkills({ avatars }: { avatars: Avatars }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "avatarSkills" };
  return [
    {
      name: "avatar.take",
      version: "1.0.0",
      category: "social",
      description:
        "Take a body in the world as the calling agent (a person joining from the browser page): a new humanoid character (tagged avatar), or the one the caller already has. Then character.move and nav.moveTo walk it and social.say speaks as it.",
      input: avatarTakeInput,
      output: avatarTakeOutput,
      permissions: ["social.act"],
      source,
      handler: async ({ name }, ctx) => {
        const r = await avatars.take(ctx.agentId, name ?? ctx.agentId.slice(0, 32));
        if (r.created) ctx.emit("avatar.taken", { agentId: ctx.agentId, entity: r.entity });
        return r;
      },
    },
  ];
}
