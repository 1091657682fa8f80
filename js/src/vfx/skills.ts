// vfx.* skills over the world's emitters: spawn and attach (render.write:
// builders), stop (render.write), list and presets (scene.read).

import { z } from "zod";
import type { SkillDefinition } from "../skills/registry.ts";
import { WORLD_EXTENT } from "../skills/schemas.ts";
import { EmitterState, MAX_EMITTER_PARTICLES, MAX_WORLD_PARTICLES, type EmitterOptions, type VfxEmitters } from "./emitters.ts";
import { PRESETS, VFX_PRESETS, type VfxPreset } from "./presets.ts";

const Coord = z.number().min(-WORLD_EXTENT).max(WORLD_EXTENT);
const Point = z.tuple([Coord, Coord, Coord]);

const Look = {
  count: z.number().int().min(1).max(MAX_EMITTER_PARTICLES).optional().describe("particles it keeps alive (default: the preset's)"),
  seed: z.number().int().min(0).max(0xffffffff).optional().describe("random seed (default: from the emitter's number)"),
  scale: z.number().gt(0).max(100).optional().describe("multiplies the particles' size and the region they are born in (default 1)"),
  color: z.number().int().min(0).max(0xffffff).nullable().optional().describe("tints the preset's colours (0xRRGGBB)"),
  duration: z.number().gt(0).max(86_400).optional().describe("seconds until it ends by itself (default: until vfx.stop; an explosion ends when its particles die)"),
};

const Emitter = EmitterState;

const presets = VFX_PRESETS.map((p) => `${p} (${PRESETS[p].description})`).join("; ");
const vfxSpawnInput = z.strictObject({ preset: z.enum(VFX_PRESETS), position: Point, ...Look });
const vfxAttachInput = z.strictObject({ preset: z.enum(VFX_PRESETS), entity: z.string().min(1), offset: Point.optional(), ...Look });
const vfxStopInput = z.strictObject({ id: z.string().min(1).optional(), entity: z.string().min(1).optional() });
const vfxStopOutput = z.object({ stopped: z.array(z.string()) });
const vfxListInput = z.strictObject({});
const vfxListOutput = z.object({ emitters: z.array(Emitter), particles: z.number().int() });
const vfxPresetsInput = z.strictObject({});
const vfxPresetsOutput = z.object({ presets: z.array(z.object({ name: z.string(), description: z.string(), count: z.number().int(), life: z.tuple([z.number(), z.number()]), burst: z.boolean() })) });

export function vfxSkills({ vfx }: { vfx: VfxEmitters }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "vfxSkills" };
  const spawn = (o: EmitterOptions, emit: (type: string, data: unknown) => void) => {
    const e = vfx.spawn(o);
    emit("vfx.spawned", e);
    return e;
  };
  return [
    {
      name: "vfx.spawn",
      version: "1.0.0",
      category: "vfx",
      description:
        `Start a particle effect at a point: preset ${presets}. GPU particles, simulated where the world is drawn; the emitter itself (preset, place, count, seed, start) is world state. A world keeps at most ${MAX_WORLD_PARTICLES} particles in all. Returns the emitter (its id for vfx.stop).`,
      input: vfxSpawnInput,
      output: Emitter,
      permissions: ["render.write"],
      source,
      handler: (input, ctx) => spawn({ ...input, preset: input.preset as VfxPreset }, (type, data) => ctx.emit(type, data)),
    },
    {
      name: "vfx.attach",
      version: "1.0.0",
      category: "vfx",
      description: `Start a particle effect that follows an entity (at offset from it, default [0, 0, 0]): a torch's fire, a wizard's magic, smoke from a chimney. It ends when the entity is destroyed. Presets and options as vfx.spawn.`,
      input: vfxAttachInput,
      output: Emitter,
      permissions: ["render.write"],
      source,
      handler: ({ offset, ...input }, ctx) => spawn({ ...input, preset: input.preset as VfxPreset, position: offset ?? [0, 0, 0] }, (type, data) => ctx.emit(type, data)),
    },
    {
      name: "vfx.stop",
      version: "1.0.0",
      category: "vfx",
      description: "Stop particle effects: one by id, every one following an entity, or all of them (neither given). Their particles disappear at once. Returns the ids stopped.",
      input: vfxStopInput,
      output: vfxStopOutput,
      permissions: ["render.write"],
      source,
      handler: (input, ctx) => {
        const stopped = vfx.stop(input);
        ctx.emit("vfx.stopped", { stopped });
        return { stopped };
      },
    },
    {
      name: "vfx.list",
      version: "1.0.0",
      category: "vfx",
      description: "The world's particle emitters (id, preset, position or offset, the entity followed, count, seed, scale, colour, start tick and the tick it ends at) and the particles they keep in all.",
      input: vfxListInput,
      output: vfxListOutput,
      permissions: ["scene.read"],
      source,
      handler: () => ({ emitters: vfx.list(), particles: vfx.particles() }),
    },
    {
      name: "vfx.presets",
      version: "1.0.0",
      category: "vfx",
      description: "The particle presets vfx.spawn and vfx.attach take: what each looks like, its particle count, lifetimes, and whether it is a one-off burst.",
      input: vfxPresetsInput,
      output: vfxPresetsOutput,
      permissions: ["scene.read"],
      source,
      handler: () => ({ presets: VFX_PRESETS.map((name) => ({ name, description: PRESETS[name].description, count: PRESETS[name].count, life: PRESETS[name].life, burst: PRESETS[name].burst })) }),
    },
  ];
}
