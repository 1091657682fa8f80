// audio.* skills: the contract is live (validated, permission-checked,
// traced); playing sound needs limina-audio, and until it lands an allowed
// call fails saying so.

import { z } from "../../build/zod.bundle.mjs";
import type { SkillDefinition, SkillRegistry } from "./registry.ts";
import { notYet, Vec3 } from "./schemas.ts";

const Bus = z.enum(["master", "sfx", "ambience", "voice"]);
const Volume = z.number().min(0).max(1);
const NEEDS = "the audio mixer (limina-audio)";

export function audioSkills(_registry: SkillRegistry): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "audioSkills" };
  const handle = z.object({ handle: z.string() });
  const ok = z.object({ ok: z.boolean() });
  const common = { version: "1.0.0", category: "audio" as const, permissions: ["audio.play"], source };
  const skill = (name: string, description: string, input: z.ZodType, output: z.ZodType): SkillDefinition => ({
    ...common,
    name,
    description,
    input,
    output,
    handler: () => notYet(name, NEEDS),
  });
  return [
    skill("audio.play", "Play a one-shot synthesized SFX blip (sine + envelope) on a bus (master/sfx/ambience/voice). Returns an opaque handle.",
      z.strictObject({ freq: z.number().gt(0), secs: z.number().gt(0).max(10), bus: Bus.optional(), volume: Volume.optional() }), handle),
    skill("audio.ambient", "Start a looping synthesized ambience bed on a bus (default ambience). Returns an opaque handle.",
      z.strictObject({ bus: Bus.optional(), volume: Volume.optional() }), handle),
    skill("audio.playAt", "Play a one-shot POSITIONAL synthesized SFX at a world position; 3D-panned + attenuated relative to the camera listener. Optional maxDistance cutoff. Returns an opaque handle.",
      z.strictObject({ freq: z.number().gt(0), secs: z.number().gt(0).max(10), position: Vec3, bus: Bus.optional(), volume: Volume.optional(), maxDistance: z.number().min(0).optional() }), handle),
    skill("audio.speak", "Speak a line of text aloud at a world position via a pluggable local TTS voice (voice bus, positional). FIRE-AND-FORGET: returns immediately; synthesis runs off-thread and never blocks the frame. Returns an opaque handle.",
      z.strictObject({ text: z.string().min(1).max(500), position: Vec3, volume: Volume.optional() }), handle),
    skill("audio.stop", "Stop a playing sound by handle.", z.strictObject({ handle: z.string() }), ok),
    skill("audio.setVolume", "Set a playing sound's volume (0..1) by handle.", z.strictObject({ handle: z.string(), volume: Volume }), ok),
    skill("audio.setBusVolume", "Set a mixer bus volume (master/sfx/ambience/voice), re-gaining all live sounds on it.", z.strictObject({ bus: Bus, volume: Volume }), ok),
  ];
}
