// audio.* skills over the world's AudioScene: synthesised blips, ambience
// beds, positional one-shots heard from the view camera, and speech. Every
// handler only sends to the audio thread. Handles are opaque strings; one
// that names no live sound of this world answers {ok: false}.

import type * as THREE from "three";
import { z } from "zod";
import { type AudioScene, BUSES, setBusVolume } from "../../../crates/limina-audio/js/audio.ts";
import { syncListener } from "../audio/listener.ts";
import type { SkillDefinition } from "./registry.ts";
import { WORLD_EXTENT, WorldVec3 } from "./schemas.ts";

const Bus = z.enum(BUSES as [string, ...string[]]);
const Volume = z.number().min(0).max(1);
/** Up to the mixer's Nyquist frequency: anything above would alias. */
const Freq = z.number().gt(0).max(24_000);
const Secs = z.number().gt(0).max(10);
const Handle = z.object({ handle: z.string() });
const Ok = z.object({ ok: z.boolean() });

const PREFIX = "snd_";

/** The opaque handle of sound `id`. */
export function handleOf(id: number): string {
  return PREFIX + id.toString(36);
}

/** The sound a handle names, or null for anything that is not one of ours. */
function idOf(handle: string): number | null {
  if (!/^snd_[1-9a-z][0-9a-z]{0,10}$/.test(handle)) return null;
  const id = parseInt(handle.slice(PREFIX.length), 36);
  return Number.isSafeInteger(id) ? id : null;
}

const audioPlayInput = z.strictObject({ freq: Freq, secs: Secs, bus: Bus.default("sfx"), volume: Volume.default(1) });
const audioAmbientInput = z.strictObject({ bus: Bus.default("ambience"), volume: Volume.default(1) });
const audioPlayAtInput = z.strictObject({
  freq: Freq,
  secs: Secs,
  position: WorldVec3,
  bus: Bus.default("sfx"),
  volume: Volume.default(1),
  maxDistance: z.number().min(0).max(4 * WORLD_EXTENT).optional(),
});
const audioSpeakInput = z.strictObject({ text: z.string().min(1).max(500), position: WorldVec3, volume: Volume.default(1) });
const audioStopInput = z.strictObject({ handle: z.string() });
const audioSetVolumeInput = z.strictObject({ handle: z.string(), volume: Volume });
const audioSetBusVolumeInput = z.strictObject({ bus: Bus, volume: Volume });

export function audioSkills({ audio, camera }: { audio: AudioScene; camera: THREE.Object3D }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "audioSkills" };
  return [
    {
      name: "audio.play",
      version: "1.0.0",
      category: "audio",
      description: "Play a one-shot synthesized SFX blip (sine + envelope) on a bus (master/sfx/ambience/voice). Returns an opaque handle.",
      input: audioPlayInput,
      output: Handle,
      permissions: ["audio.play"],
      source,
      handler: ({ freq, secs, bus, volume }) => ({ handle: handleOf(audio.play({ freq, secs, bus, volume })) }),
    },
    {
      name: "audio.ambient",
      version: "1.0.0",
      category: "audio",
      description: "Start a looping synthesized ambience bed on a bus (default ambience). Returns an opaque handle.",
      input: audioAmbientInput,
      output: Handle,
      permissions: ["audio.play"],
      source,
      handler: ({ bus, volume }) => ({ handle: handleOf(audio.ambient({ bus, volume })) }),
    },
    {
      name: "audio.playAt",
      version: "1.0.0",
      category: "audio",
      description: "Play a one-shot POSITIONAL synthesized SFX at a world position; 3D-panned + attenuated relative to the camera listener. Optional maxDistance cutoff. Returns an opaque handle.",
      input: audioPlayAtInput,
      output: Handle,
      permissions: ["audio.play"],
      source,
      handler: ({ freq, secs, position, bus, volume, maxDistance }) => {
        // Heard from where the camera is now, not where it was last frame.
        syncListener(audio, camera);
        return { handle: handleOf(audio.playAt({ freq, secs, position, bus, volume, maxDistance })) };
      },
    },
    {
      name: "audio.speak",
      version: "1.0.0",
      category: "audio",
      description: "Speak a line of text aloud at a world position via a pluggable local TTS voice (voice bus, positional). FIRE-AND-FORGET: returns immediately; synthesis runs off-thread and never blocks the frame. Returns an opaque handle.",
      input: audioSpeakInput,
      output: Handle,
      permissions: ["audio.play"],
      source,
      handler: ({ text, position, volume }) => {
        syncListener(audio, camera);
        return { handle: handleOf(audio.speak(text, position, volume)) };
      },
    },
    {
      name: "audio.stop",
      version: "1.0.0",
      category: "audio",
      description: "Stop a playing sound by handle.",
      input: audioStopInput,
      output: Ok,
      permissions: ["audio.play"],
      source,
      handler: ({ handle }) => {
        const id = idOf(handle);
        return { ok: id !== null && audio.stop(id) };
      },
    },
    {
      name: "audio.setVolume",
      version: "1.0.0",
      category: "audio",
      description: "Set a playing sound's volume (0..1) by handle.",
      input: audioSetVolumeInput,
      output: Ok,
      permissions: ["audio.play"],
      source,
      handler: ({ handle, volume }) => {
        const id = idOf(handle);
        return { ok: id !== null && audio.setVolume(id, volume) };
      },
    },
    {
      name: "audio.setBusVolume",
      version: "1.0.0",
      category: "audio",
      description: "Set a mixer bus volume (master/sfx/ambience/voice), re-gaining all live sounds on it.",
      input: audioSetBusVolumeInput,
      output: Ok,
      permissions: ["audio.play"],
      source,
      handler: ({ bus, volume }) => {
        setBusVolume(bus, volume);
        return { ok: true };
      },
    },
  ];
}
