// What a scene's particles look like to whoever draws it: before each draw,
// every renderer brings its own GPU particle fields in line with the world's
// emitters (and the weather's precipitation) and steps them to the world's
// tick, then the scene's `vfx` group shows that renderer's fields. Fields
// belong to a renderer because their buffers live on its device; the window
// and render.capture each keep theirs. Browser-safe: three only (a page
// feeds it the emitters, ticks and positions it receives).

import * as THREE from "three";
import { onBareDraw, onBeforeRender } from "../render/before-render.ts";
import { lookOf } from "../render/look.ts";
import { onSoftwareAdapter } from "../render/quality.ts";
import type { EmitterState } from "./emitters.ts";
import { type FieldOptions, MAX_DISPATCHES, ParticleField } from "./particles.ts";
import { PRESETS } from "./presets.ts";
import { SplatScreen } from "./splat.ts";

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

/**
 * How fields are drawn: `triangles` (a triangle a particle), `splat` (a compute pass over the pixels each particle
 * covers, then one composite; only in a bare frame — no post stack — without MSAA, drawn to the renderer's output),
 * or `auto`: splat fields of at least SPLAT_FROM particles of small dots (SPLAT_DOT_AREA) on a software adapter,
 * where each triangle costs the submitting thread (docs/PERF.md, VFX), triangles elsewhere.
 */
export type ParticleDrawing = "auto" | "triangles" | "splat";

/**
 * The least particles a field splats in `auto` on a software adapter. Lavapipe, 640×360, old and new alternated
 * under load (docs/PERF.md, VFX): below 100k spread particles the triangles are as fast or faster; from 100k
 * splatting is faster for spread fields, while a packed one (every dot over the same few hundred pixels) is
 * faster as triangles up to 100k and splatted at 200k.
 */
export const SPLAT_FROM = 100_000;

/**
 * The largest dot, m² (its preset's largest size squared, times its stretch and its scale squared), a field splats
 * in `auto`: the splat pays an atomic add a covered pixel, the triangles a cost a primitive, so fields of big
 * dots (fire, smoke, explosions) stay triangles. 100,000 fire particles splatted at 1280×720 took 1.6 s a frame
 * on lavapipe; snow, rain, sparks and magic splat.
 */
export const SPLAT_DOT_AREA = 0.02;

/** Whether `auto` splats `field` on a software adapter. */
const splatsByItself = (field: ParticleField): boolean => {
  const { spec, options } = field;
  return options.count >= SPLAT_FROM && Math.max(...spec.size) ** 2 * spec.stretch * options.scale ** 2 <= SPLAT_DOT_AREA;
};

/** The seed of the weather's precipitation (a world has one). */
const PRECIPITATION_SEED = 0x5eed_7a1;

export class VfxLayer {
  /** Holds the fields of the renderer drawing now. */
  readonly group = new THREE.Group();
  private readonly fields = new WeakMap<THREE.WebGPURenderer, Map<string, ParticleField>>();
  private readonly origin = new THREE.Vector3();
  private readonly windV = new THREE.Vector3();
  private readonly screens = new WeakMap<THREE.WebGPURenderer, SplatScreen>();
  private readonly stopDrawing: () => void;
  private readonly stopBare: () => void;
  /** How fields are drawn (see ParticleDrawing). */
  drawing: ParticleDrawing = "auto";
  /** Particles the last draw showed fields for, and their number, and of those how many were splatted (for benchmarks and tests). */
  lastDrawn = { fields: 0, particles: 0, splatted: 0 };

  constructor(readonly scene: THREE.Scene, private readonly source: VfxSource) {
    this.group.name = "vfx";
    scene.add(this.group);
    this.stopDrawing = onBeforeRender(scene, (renderer, camera, continuous) => this.prepare(renderer, camera, continuous));
    this.stopBare = onBareDraw(scene, (renderer, _scene, camera) => this.drawBare(renderer, camera));
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
    this.lastDrawn = { fields: fields.size, particles, splatted: 0 };
  }

  /** Draws a bare frame with the fields that splat splatted (see ParticleDrawing); false: none does, or it cannot. */
  private drawBare(renderer: THREE.WebGPURenderer, camera: THREE.Camera): boolean {
    const fields = this.fields.get(renderer);
    if (!fields || this.drawing === "triangles" || renderer.samples > 1 || renderer.getRenderTarget() !== null) return false;
    const splatted = [...fields.values()].filter((f) => this.drawing === "splat" || (splatsByItself(f) && onSoftwareAdapter(renderer)));
    if (splatted.length === 0) return false;
    let screen = this.screens.get(renderer);
    if (!screen) this.screens.set(renderer, (screen = new SplatScreen(renderer, lookOf(this.scene)?.environment ?? null)));
    screen.draw(renderer, this.scene, camera, splatted);
    this.lastDrawn.splatted = splatted.reduce((n, f) => n + f.options.count, 0);
    return true;
  }

  dispose(): void {
    this.stopBare();
    this.stopDrawing();
    this.group.removeFromParent();
  }
}
