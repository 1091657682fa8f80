// What a scene's particles look like to whoever draws it: before each draw,
// every renderer brings its own GPU particle fields in line with the world's
// emitters (and the weather's precipitation) and steps them to the world's
// tick, then the scene's `vfx` group shows that renderer's fields. Fields
// belong to a renderer because their buffers live on its device; the window
// and render.capture each keep theirs. Browser-safe: three only (a page
// feeds it the emitters, ticks and positions it receives).

import * as THREE from "three";
import { onBeforeRender } from "../render/before-render.ts";
import type { EmitterState } from "./emitters.ts";
import { type FieldOptions, MAX_DISPATCHES, ParticleField } from "./particles.ts";
import { PRESETS } from "./presets.ts";

export interface VfxSource {
  emitters(): Iterable<Readonly<EmitterState>>;
  /** The world's tick now. */
  tick(): number;
  /** Where an entity stands, or null when it is gone. */
  positionOf(entity: string): [number, number, number] | null;
  /** The wind's velocity, m/s. */
  wind(): [number, number, number];
  /** How lit the world is, 0–1 (the daylight and the weather's dimming): what does not glow darkens with it. */
  light(): number;
  /** The precipitation falling and the tick it began, or null. */
  precipitation(): { kind: "rain" | "snow"; intensity: number; since: number } | null;
}

/** The seed of the weather's precipitation (a world has one). */
const PRECIPITATION_SEED = 0x5eed_7a1;

export class VfxLayer {
  /** Holds the fields of the renderer drawing now. */
  readonly group = new THREE.Group();
  private readonly fields = new WeakMap<THREE.WebGPURenderer, Map<string, ParticleField>>();
  private readonly origin = new THREE.Vector3();
  private readonly windV = new THREE.Vector3();
  private readonly stopDrawing: () => void;
  /** Particles the last draw showed fields for, and their number (for benchmarks and tests). */
  lastDrawn = { fields: 0, particles: 0 };

  constructor(readonly scene: THREE.Scene, private readonly source: VfxSource) {
    this.group.name = "vfx";
    scene.add(this.group);
    this.stopDrawing = onBeforeRender(scene, (renderer, camera, continuous) => this.prepare(renderer, camera, continuous));
  }

  /** Brings `renderer`'s fields in line with the world and steps them to its tick; the group then shows them. */
  prepare(renderer: THREE.WebGPURenderer, camera: THREE.Camera, continuous: boolean): void {
    const dispatches = continuous ? MAX_DISPATCHES.continuous : MAX_DISPATCHES.oneOff;
    let fields = this.fields.get(renderer);
    if (!fields) this.fields.set(renderer, (fields = new Map()));
    const tick = this.source.tick();
    this.windV.set(...this.source.wind());
    const light = this.source.light();
    const wanted = new Set<string>();
    let particles = 0;
    const show = (key: string, options: FieldOptions, start: number) => {
      let field = fields.get(key);
      if (field && !field.matches(options)) {
        field.dispose();
        field = undefined;
      }
      if (!field) fields.set(key, (field = new ParticleField(options)));
      field.advance(renderer, Math.max(0, tick - start), this.origin, this.windV, dispatches, light);
      wanted.add(key);
      particles += options.count;
    };
    for (const e of this.source.emitters()) {
      if (e.entity !== null) {
        const at = this.source.positionOf(e.entity);
        if (at === null) continue;
        this.origin.set(at[0] + e.position[0], at[1] + e.position[1], at[2] + e.position[2]);
      } else this.origin.set(...e.position);
      show(`${e.id}@${e.start}`, { preset: e.preset, count: e.count, seed: e.seed, scale: e.scale, color: e.color }, e.start);
    }
    const rainOrSnow = this.source.precipitation();
    if (rainOrSnow) {
      const spec = PRESETS[rainOrSnow.kind];
      // Falling around whoever looks: the box's top a little above the camera.
      camera.getWorldPosition(this.origin);
      this.origin.y += spec.floor! - spec.extent[1];
      const count = Math.max(1, Math.round(spec.count * rainOrSnow.intensity));
      show(`weather@${rainOrSnow.since}`, { preset: rainOrSnow.kind, count, seed: PRECIPITATION_SEED, scale: 1, color: null }, rainOrSnow.since);
    }
    for (const [key, field] of fields) {
      if (wanted.has(key)) continue;
      field.dispose();
      fields.delete(key);
    }
    this.group.clear();
    for (const field of fields.values()) this.group.add(field.object);
    this.lastDrawn = { fields: fields.size, particles };
  }

  dispose(): void {
    this.stopDrawing();
    this.group.removeFromParent();
  }
}
