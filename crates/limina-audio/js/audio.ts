// The JS face of limina-audio. One process has one audio thread and one
// 4-bus mixer; each world session gets an AudioScene: its own listener
// (which follows its camera) and its own sounds, addressed by numeric
// handles only that scene can stop or re-gain. Every call only sends to the
// audio thread; none waits on it.

import { engineError } from "../../limina-ops/js/errors.ts";
import type { Quat, Vec3 } from "../../limina-ops/js/soa.ts";

export type Bus = "master" | "sfx" | "ambience" | "voice";
export const BUSES: readonly Bus[] = ["master", "sfx", "ambience", "voice"];

/** The mixer's rate: PCM handed to `playPcm` is at this rate. */
export const SAMPLE_RATE = 48_000;

export interface AudioInfo {
  /** `device`, `null` or `wav:<path>` (LIMINA_AUDIO). */
  backend: string;
  deterministic: boolean;
  /** Whether the audio thread runs (it starts with the first sound). */
  started: boolean;
  /** The speech voice once started, or null with `voiceError` saying why there is none. */
  voice: string | null;
  voiceError: string | null;
}

interface AudioOps {
  op_audio_scene_create(): number;
  op_audio_scene_drop(scene: number): boolean;
  op_audio_set_listener(scene: number, px: number, py: number, pz: number, qx: number, qy: number, qz: number, qw: number): void;
  op_audio_play(scene: number, freq: number, secs: number, bus: string, volume: number): number;
  op_audio_play_at(scene: number, freq: number, secs: number, bus: string, volume: number, x: number, y: number, z: number, maxDistance: number): number;
  op_audio_ambient(scene: number, bus: string, volume: number): number;
  op_audio_speak(scene: number, text: string, x: number, y: number, z: number, volume: number): number;
  op_audio_play_pcm(scene: number, samples: Uint8Array, channels: number, bus: string, volume: number, positional: boolean, x: number, y: number, z: number, maxDistance: number): number;
  op_audio_stop(scene: number, handle: number): boolean;
  op_audio_set_volume(scene: number, handle: number, volume: number): boolean;
  op_audio_playing(scene: number, handle: number): boolean;
  op_audio_set_bus_volume(bus: string, volume: number): void;
  op_audio_info(): AudioInfo;
  op_audio_block_stats(): [number, number, number][];
}

const ops = Limina.ops as unknown as AudioOps;

export interface ToneOptions {
  freq: number;
  /** Seconds, in (0, 10]. */
  secs: number;
  bus?: Bus;
  /** 0..1 (default 1). */
  volume?: number;
}

export interface Placed {
  position: Vec3;
  /** Silent beyond this distance from the listener (default: no cutoff). */
  maxDistance?: number;
}

export interface PcmOptions {
  /** 1 (mono) or 2 (interleaved stereo). */
  channels?: 1 | 2;
  bus?: Bus;
  volume?: number;
  /** Plays positionally when given. */
  at?: Placed;
}

/** A world session's ears and sounds. Call `dispose()` to stop them. */
export class AudioScene {
  readonly id: number = ops.op_audio_scene_create();

  /** Puts the listener at a camera's pose (looking down its local -Z). */
  setListener([px, py, pz]: Vec3, [qx, qy, qz, qw]: Quat): void {
    ops.op_audio_set_listener(this.id, px, py, pz, qx, qy, qz, qw);
  }
  /** A one-shot sine blip with a click-free envelope (default bus sfx). */
  play({ freq, secs, bus = "sfx", volume = 1 }: ToneOptions): number {
    return ops.op_audio_play(this.id, freq, secs, bus, volume);
  }
  /** A one-shot blip at a world position: panned and attenuated (1/d²) for the listener. */
  playAt({ freq, secs, bus = "sfx", volume = 1, position: [x, y, z], maxDistance }: ToneOptions & Placed): number {
    return ops.op_audio_play_at(this.id, freq, secs, bus, volume, x, y, z, maxDistance ?? -1);
  }
  /** A synthesised ambience bed that plays until stopped (default bus ambience). */
  ambient({ bus = "ambience", volume = 1 }: { bus?: Bus; volume?: number } = {}): number {
    return ops.op_audio_ambient(this.id, bus, volume);
  }
  /**
   * Speaks a line at a world position on the voice bus. Returns at once;
   * the line is synthesised off-thread and plays when ready. Throws
   * `unavailable` when the process has no voice (see `info().voiceError`).
   */
  speak(text: string, [x, y, z]: Vec3, volume = 1): number {
    return ops.op_audio_speak(this.id, text, x, y, z, volume);
  }
  /**
   * Plays samples this module synthesised (f32 at SAMPLE_RATE). The buffer
   * is handed to the audio thread without a copy: it is detached, so
   * `samples` is empty afterwards.
   */
  playPcm(samples: Float32Array, { channels = 1, bus = "sfx", volume = 1, at }: PcmOptions = {}): number {
    // Checked before the op detaches the buffer, so a refused call leaves it usable.
    if (!(samples instanceof Float32Array) || samples.length === 0 || samples.length % channels !== 0) {
      throw engineError("invalid_input", `samples must be a non-empty Float32Array of whole ${channels}-channel frames`);
    }
    const [x, y, z] = at?.position ?? [0, 0, 0];
    // A byte view of the same memory: the op takes bytes, and detaching
    // them detaches `samples` too.
    const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
    return ops.op_audio_play_pcm(this.id, bytes, channels, bus, volume, at !== undefined, x, y, z, at?.maxDistance ?? -1);
  }
  /** Stops a sound; false when the handle is not a live sound of this scene. */
  stop(handle: number): boolean {
    return ops.op_audio_stop(this.id, handle);
  }
  /** Re-gains a sound (0..1); false when the handle is not a live sound of this scene. */
  setVolume(handle: number, volume: number): boolean {
    return ops.op_audio_set_volume(this.id, handle, volume);
  }
  /** Whether a sound is still playing (speech: or still being synthesised). */
  playing(handle: number): boolean {
    return ops.op_audio_playing(this.id, handle);
  }
  /** Stops this scene's sounds and frees its listener. */
  dispose(): void {
    ops.op_audio_scene_drop(this.id);
  }
}

/** Sets a mixer bus's volume (0..1): every live sound on it, in every world, is re-gained. */
export function setBusVolume(bus: Bus, volume: number): void {
  ops.op_audio_set_bus_volume(bus, volume);
}

/** The process's audio backend and speech voice. */
export function audioInfo(): AudioInfo {
  return ops.op_audio_info();
}

/** The mixer's recent blocks: frames, live voices and the microseconds each took to mix. */
export function mixerBlocks(): { frames: number; voices: number; micros: number }[] {
  return ops.op_audio_block_stats().map(([frames, voices, micros]) => ({ frames, voices, micros }));
}
