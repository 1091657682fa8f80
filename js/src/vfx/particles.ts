// GPU particles: each emitter's particles live in storage buffers on the
// renderer's device and are stepped by a TSL compute kernel — one dispatch per
// world tick, or fewer, longer steps when a draw comes late — so a particle's
// position, velocity, age and life never leave the GPU. A weather field (rain,
// snow: `wraps`) has no state at all: its particles move in closed form, and
// where one is is worked out where it is drawn from its seed and the time.
// Either way they are drawn as
// camera-facing soft dots, a triangle each, or splatted by a compute pass
// over the pixels those triangles would cover (splat.ts). What a field shows is a function of its
// emitter's state, the world's ticks and when it was drawn: its random numbers
// are hashes of the seed, the particle and the tick, so captures of a
// deterministic world at the same ticks draw the same particles. Presentation
// only: nothing here is world state. Browser-safe: three only.

import * as THREE from "three";
import { type Node, tsl } from "../render/tsl.ts";
import { type PresetSpec, PRESETS, type VfxPreset } from "./presets.ts";
import { FIXED_POINT, nearestPixel, nearestWord, PLANE, type SplatScreen, TILE } from "./splat.ts";

const { Fn, If, Loop, instancedArray, instanceIndex, uniform, hash, vec2, vec3, vec4, float, int, uint, mix, sin, cos, sqrt, clamp, smoothstep, select, max, min, exp, log, ceil, floor, atomicAdd, atomicLoad, atomicMax, atomicStore, textureLoad, ivec2, vertexStage, vertexIndex, cameraViewMatrix, positionGeometry } = tsl;

/** The world's fixed step, seconds: a field steps once per world tick. */
export const STEP_SECONDS = 1 / 60;

/** Ticks in a wrapping field's epoch (see ParticleField's `epochs`): 256 s. */
const EPOCH_TICKS = 256 * 60;

/**
 * The most dispatches one draw runs: a window (drawing continuously) at most 2 — a slow frame
 * folds the ticks it missed into longer steps instead of falling further behind — and a one-off
 * capture, or any renderer's first draw of a field, at most 32, so a field met long after its
 * emitter started warms up smoothly.
 */
export const MAX_DISPATCHES = { continuous: 2, oneOff: 32 } as const;

export interface FieldOptions {
  preset: VfxPreset;
  count: number;
  seed: number;
  scale: number;
  /** Multiplies the preset's colours (0xRRGGBB), or null. */
  color: number | null;
}

/** The corners of `count` particles' triangles: each the triangle around the circle of radius 0.5 (the dot a quad of side 1 holds). */
function dotCorners(count: number): Float32Array {
  const h = Math.sqrt(3) / 2;
  const one = [0, 1, 0, -h, -0.5, 0, h, -0.5, 0];
  const corners = new Float32Array(9 * count);
  for (let i = 0; i < corners.length; i += 9) corners.set(one, i);
  return corners;
}

/** How opaque a dot is at `edge` (0 at its centre, 1 at its rim), relative to its opacity: soft toward the rim, nothing past it. */
const dotOpacity = (edge: Node): Node => smoothstep(1, 0.3, edge);

/** A uniform direction from two uniform numbers in [0, 1). */
function unit(a: Node, b: Node): Node {
  const z = a.mul(2).sub(1);
  const t = b.mul(Math.PI * 2);
  const r = sqrt(max(float(0), float(1).sub(z.mul(z))));
  return vec3(r.mul(cos(t)), z, r.mul(sin(t)));
}

/** One emitter's particles on one renderer. */
export class ParticleField {
  /** What draws them: `count` camera-facing triangles in one draw. */
  readonly object: THREE.Mesh;
  private readonly geometry: THREE.BufferGeometry;
  /** Ticks stepped since the emitter started. */
  steps = 0;
  readonly spec: PresetSpec;
  /** The state and kernels of a field whose particles are integrated step by step; null for one that `wraps`. */
  private readonly simulation: { position: Node; velocity: Node; init: Node; update: Node } | null;
  private readonly origin = uniform(new THREE.Vector3());
  private readonly wind = uniform(new THREE.Vector3());
  private readonly step = uniform(0, "uint");
  private readonly dt = uniform(STEP_SECONDS);
  /** A wrapping field's seconds since its emitter started. */
  private readonly time = uniform(0);
  /**
   * The same in whole epochs (EPOCH_TICKS) and the rest: a particle's fall over the epochs is reduced modulo the box
   * before the rest's is added, so it stays smooth in 32-bit floats however long a field runs (the first's rounding,
   * a few centimetres after days, changes once an epoch, not every frame).
   */
  private readonly epochs = uniform(0);
  private readonly sinceEpoch = uniform(0);
  /** How far a wrapping field's wind has carried it (metres, modulo its box): the wind's velocity summed over the ticks drawn. */
  private readonly drift = uniform(new THREE.Vector3());
  /** A wrapping field's box, metres: its low corner from the emitter, and its size. */
  private readonly box: { low: THREE.Vector3; size: THREE.Vector3 };
  /** How lit the scene is, 0–1: smoke, rain and snow are not lamps and darken with the daylight. */
  private readonly light = uniform(1);
  /** Ticks after which a field has forgotten how it started (its longest life): further behind, it skips ahead. */
  private readonly warm: number;
  private readonly material: THREE.NodeMaterial;
  /** The kernel that splats the particles onto a screen (built for that screen's buffers), when drawn without triangles. */
  private splatter: { screen: SplatScreen; generation: number; nearest: boolean; kernel: Node } | null = null;
  /** The colour slot (0–3) a field splatted nearest-wins takes in the screen's colours. */
  readonly slot = uniform(0, "uint");
  private started = false;

  constructor(readonly options: FieldOptions) {
    const spec = (this.spec = PRESETS[options.preset]);
    this.warm = Math.ceil(spec.life[1] / STEP_SECONDS) + 1;
    const { count, scale } = options;
    const ext = spec.extent.map((e) => e * scale);
    const below = (spec.floor ?? 0) * scale;
    this.box = { low: new THREE.Vector3(-ext[0], -below, -ext[2]), size: new THREE.Vector3(2 * ext[0], ext[1] + below, 2 * ext[2]) };
    this.simulation = spec.wraps ? null : this.simulate();

    const material = (this.material = new THREE.NodeMaterial());
    material.transparent = true;
    material.depthWrite = false;
    material.blending = spec.additive ? THREE.AdditiveBlending : THREE.NormalBlending;
    // Three vertices a particle in one plain draw: a software rasteriser (lavapipe) runs each instance of an
    // instanced draw as a draw of its own, several times slower for 100k small particles.
    const { at, alive, size, tone } = this.particle(vertexIndex.div(3));
    // Each vertex's corner (a triangle around the unit dot), turned to face the camera (the view matrix's rows).
    const corner = positionGeometry.xy;
    const extent = select(alive, corner.mul(vec2(size, size.mul(spec.stretch))), vec2(0, 0));
    const right = vec3(cameraViewMatrix[0].x, cameraViewMatrix[1].x, cameraViewMatrix[2].x);
    const up = vec3(cameraViewMatrix[0].y, cameraViewMatrix[1].y, cameraViewMatrix[2].y);
    material.positionNode = at.add(right.mul(extent.x)).add(up.mul(extent.y));
    // A soft round dot (a streak for rain): opacity falls off toward the edge of the unit dot (radius 0.5).
    const edge = vertexStage(corner).length().mul(2);
    // Colour and opacity are the particle's own: worked out once a vertex, not once a pixel.
    const lit = vertexStage(tone);
    material.colorNode = vec4(lit.rgb, lit.a.mul(dotOpacity(edge)));
    material.fog = !spec.additive;

    const geometry = (this.geometry = new THREE.BufferGeometry());
    geometry.setAttribute("position", new THREE.BufferAttribute(dotCorners(count), 3));
    this.object = new THREE.Mesh(geometry, material);
    this.object.frustumCulled = false;
    this.object.renderOrder = 10;
    this.object.name = `vfx.${options.preset}`;
  }

  /** The k-th random number in [0, 1) of particle `i` (a uint node) at `step`: a hash of the seed, the particle and the step. */
  private random(i: Node, step: Node, k: number): Node {
    return hash(i.add(step.mul(uint(this.options.count))).bitXor(uint(this.options.seed >>> 0)).add(uint((k * 0x9e3779b1) >>> 0)));
  }

  /** The storage buffers and kernels of a field integrated step by step. */
  private simulate(): { position: Node; velocity: Node; init: Node; update: Node } {
    const { spec, options } = this;
    const { count, scale } = options;
    const position = instancedArray(count, "vec4"); // xyz, age (s; negative: not yet born)
    const velocity = instancedArray(count, "vec4"); // xyz, life (s)
    const { origin, wind, step, dt } = this;
    const random = (k: number) => this.random(instanceIndex, step, k);
    const ext = spec.extent.map((e) => e * scale);
    const born = (p: Node, v: Node) => {
      let offset: Node;
      if (spec.shape === "ball") offset = unit(random(1), random(2)).mul(vec3(...ext)).mul(random(3).pow(1 / 3));
      else offset = vec3(random(1).mul(2).sub(1).mul(ext[0]), random(2).mul(2).sub(1).mul(ext[1]), random(3).mul(2).sub(1).mul(ext[2]));
      const kick = unit(random(4), random(5)).mul(random(6).mul(spec.spread));
      const life = mix(float(spec.life[0]), float(spec.life[1]), random(7));
      p.assign(vec4(origin.add(offset), 0));
      v.assign(vec4(vec3(...spec.velocity).add(kick), life));
    };

    const init = Fn(() => {
      const p = position.element(instanceIndex);
      const v = velocity.element(instanceIndex);
      if (spec.burst) born(p, v);
      else {
        // A steady stream: each particle is first born at a random moment within one lifetime, so the stream starts evenly.
        p.assign(vec4(origin, random(8).mul(spec.life[1]).negate()));
        v.assign(vec4(0, 0, 0, 0));
      }
    })().compute(count);

    const update = Fn(() => {
      const p = position.element(instanceIndex);
      const v = velocity.element(instanceIndex);
      const age = p.w.add(dt).toVar();
      const life = v.w;
      If(age.greaterThanEqual(life), () => {
        if (spec.burst) p.w.assign(life.add(1)); // spent for good
        else born(p, v);
      }).Else(() => {
        p.w.assign(age);
        If(age.greaterThanEqual(0), () => {
          const vel = v.xyz.add(vec3(0, dt.mul(spec.gravity), 0)).mul(exp(dt.mul(-spec.drag))).toVar();
          v.xyz.assign(vel);
          let drift: Node = vel.add(wind.mul(spec.wind));
          if (spec.flutter > 0) {
            const phase = float(instanceIndex.toFloat().mul(0.7131)).add(age.mul(2.3));
            drift = drift.add(vec3(sin(phase), 0, cos(phase.mul(1.3))).mul(spec.flutter));
          }
          p.xyz.assign(p.xyz.add(drift.mul(dt)));
          if (spec.floor !== null) {
            // Reaching the ground ends a drop: it is reborn at the next step.
            If(p.y.lessThan(origin.y.sub(spec.floor * scale)), () => {
              p.w.assign(life);
            });
          }
        });
      });
    })().compute(count);
    return { position, velocity, init, update };
  }

  /**
   * Particle `i` (a uint node) now: where it is, whether it is alive, its size (metres, before `stretch`) and its colour
   * and opacity (rgba, lit). A simulated field's particle is read from its buffers; a wrapping field's is worked out
   * from its seed and the time: it falls at a steady speed (its preset's velocity and a random kick), carried by the
   * wind and swaying with the flutter, through its box around the emitter, and wraps from the box's bottom to its top
   * at a new place across it (and across its sides) — fixed in the world, so a box that moves (the weather's follows
   * the camera) leaves its particles where they are. It first shows at a random moment within the preset's longest
   * life, so a field starts as a simulated stream does, and it lives life after life (its size and colour cycle).
   */
  private particle(i: Node): { at: Node; alive: Node; size: Node; tone: Node } {
    const { spec, options, simulation } = this;
    let at: Node;
    let age: Node;
    let life: Node;
    let alive: Node;
    if (simulation !== null) {
      const p = simulation.position.element(i);
      at = p.xyz;
      age = p.w;
      life = simulation.velocity.element(i).w;
      alive = age.greaterThanEqual(0).and(age.lessThan(life));
    } else {
      const random = (k: number) => this.random(i, uint(0), k);
      const size = vec3(this.box.size);
      const velocity = vec3(...spec.velocity).add(unit(random(4), random(5)).mul(random(6).mul(spec.spread)));
      const long = velocity.mul(this.epochs).toVar();
      const longLaps = floor(long.div(size)).toVar();
      let moved: Node = long.sub(size.mul(longLaps)).add(velocity.mul(this.sinceEpoch)).add(this.drift);
      if (spec.flutter > 0) {
        // The flutter's sway, integrated: the simulated sway's velocity (sin, 0, cos of a phase turning 2.3 rad/s).
        const phase = i.toFloat().mul(0.7131).add(this.time.mul(2.3));
        moved = moved.add(vec3(cos(phase).div(-2.3), 0, sin(phase.mul(1.3)).div(2.3 * 1.3)).mul(spec.flutter));
      }
      const low = this.origin.add(vec3(this.box.low)).toVar();
      // Height in the box, unwrapped: each time the particle wraps (each lap) it comes back elsewhere across the box,
      // as a simulated drop is born anew (a drop falling through the same column forever would show).
      const y = random(2).mul(size.y).add(moved.y).sub(low.y);
      const lap = floor(y.div(size.y));
      const again = (k: number) => this.random(i, uint(int(lap.add(longLaps.y))), k);
      const across = vec2(again(1), again(3)).mul(size.xz).add(moved.xz).sub(low.xz);
      at = low.add(vec3(across.x.sub(size.x.mul(floor(across.x.div(size.x)))), y.sub(size.y.mul(lap)), across.y.sub(size.z.mul(floor(across.y.div(size.z))))));
      const first = random(8).mul(spec.life[1]);
      life = mix(float(spec.life[0]), float(spec.life[1]), random(7));
      const since = this.time.sub(first);
      age = since.sub(life.mul(floor(since.div(life))));
      alive = since.greaterThanEqual(0);
    }
    const t = clamp(age.div(max(life, 1e-3)), 0, 1);
    const tint = new THREE.Color(options.color ?? 0xffffff);
    const [c0, c1] = spec.color.map((c) => vec3(c[0] * tint.r, c[1] * tint.g, c[2] * tint.b));
    const size = mix(float(spec.size[0] * options.scale), float(spec.size[1] * options.scale), t);
    const rgb = mix(c0, c1, t);
    const tone = vec4(spec.additive ? rgb : rgb.mul(this.light), mix(float(spec.opacity[0]), float(spec.opacity[1]), t));
    return { at, alive, size, tone };
  }

  /**
   * Adds the particles to `screen`'s accumulators, each over the pixels of its dot — what the triangle would cover,
   * with the same opacity at each pixel — where it is not behind the scene's depth: the additive presets' light, or
   * for the others their colour weighted by -log transmittance and that weight (an order-independent blend; see
   * splat.ts). Integer sums: any order of adding gives the same frame. `nearest`: instead, one atomic max a covered
   * pixel of a word packing the particle's distance, fog and opacity and its colour `slot` (see nearestWord): the
   * nearest particle wins a pixel, whatever the order.
   */
  splat(renderer: THREE.WebGPURenderer, screen: SplatScreen, nearest: boolean): void {
    if (this.splatter?.screen !== screen || this.splatter.generation !== screen.generation || this.splatter.nearest !== nearest) {
      this.splatter?.kernel.dispose();
      this.splatter = { screen, generation: screen.generation, nearest, kernel: this.splatKernel(screen, nearest) };
    }
    renderer.compute(this.splatter.kernel);
  }

  /** The colour a field splatted nearest-wins shows (before fog): its birth colour, lit. */
  nearestColour(target: THREE.Color): THREE.Color {
    const tint = new THREE.Color(this.options.color ?? 0xffffff);
    const [r, g, b] = this.spec.color[0];
    return target.setRGB(r * tint.r, g * tint.g, b * tint.b).multiplyScalar(this.spec.additive ? 1 : this.light.value);
  }

  private splatKernel(screen: SplatScreen, nearest: boolean): Node {
    const { spec } = this;
    const { accumulators, nearest: words, nearestRow, tiles, tileColumns, depth, viewProjection, size: pixels, pixelScale, eye, fog } = screen.inputs;
    return Fn(() => {
      const particle = this.particle(instanceIndex);
      const { alive, size, tone } = particle;
      const at = particle.at.toVar();
      const clip = viewProjection.mul(vec4(at, 1)).toVar();
      const z = clip.z.div(clip.w).toVar();
      // Behind the camera or outside the depth range: the triangle would be clipped whole (its depth is the dot's centre's).
      If(alive.and(clip.w.greaterThan(0)).and(z.greaterThanEqual(0)).and(z.lessThanEqual(1)), () => {
        const cx = clip.x.div(clip.w).mul(0.5).add(0.5).mul(pixels.x).toVar();
        const cy = float(0.5).sub(clip.y.div(clip.w).mul(0.5)).mul(pixels.y).toVar();
        // The dot's radii in pixels: a camera-facing offset moves clip x and y by the projection's scale alone.
        const rx = size.mul(0.5).mul(pixelScale.x).div(clip.w).toVar();
        const ry = size.mul(0.5 * spec.stretch).mul(pixelScale.y).div(clip.w).toVar();
        // The pixels whose centres lie within the radii.
        const x0 = max(int(ceil(cx.sub(rx).sub(0.5))), int(0)).toVar();
        const x1 = min(int(floor(cx.add(rx).sub(0.5))), int(pixels.x).sub(1)).toVar();
        const y0 = max(int(ceil(cy.sub(ry).sub(0.5))), int(0)).toVar();
        const y1 = min(int(floor(cy.add(ry).sub(0.5))), int(pixels.y).sub(1)).toVar();
        const width = int(pixels.x);
        const within = (visit: (x: Node, y: Node, a: Node) => void) =>
          Loop({ start: y0, end: y1, type: "int", condition: "<=", name: "py" }, ({ py: y }: { py: Node }) => {
            Loop({ start: x0, end: x1, type: "int", condition: "<=", name: "px" }, ({ px: x }: { px: Node }) => {
              const dx = x.toFloat().add(0.5).sub(cx).div(rx);
              const dy = y.toFloat().add(0.5).sub(cy).div(ry);
              const a = tone.a.mul(dotOpacity(sqrt(dx.mul(dx).add(dy.mul(dy))))).toVar();
              If(a.greaterThan(0).and(z.lessThanEqual(textureLoad(depth, ivec2(x, y)).x)), () => visit(x, y, a));
            });
          });
        if (nearest) {
          // No tiles to mark, no sums: the composite reads the words, and the screen clears them for the next frame.
          const word = nearestWord(at.sub(eye).length(), spec.additive ? float(0) : fog(at).factor, this.slot).toVar();
          within((x, y, a) => {
            atomicMax(words.element(y.mul(nearestRow).add(x)), word.bitOr(nearestPixel(a, tone.a)));
          });
          return;
        }
        // The tiles those pixels lie in, marked for the resolve (a load first: most are marked already).
        Loop({ start: y0.div(TILE), end: y1.div(TILE), type: "int", condition: "<=", name: "ty" }, ({ ty }: { ty: Node }) => {
          Loop({ start: x0.div(TILE), end: x1.div(TILE), type: "int", condition: "<=", name: "tx" }, ({ tx }: { tx: Node }) => {
            const mark = tiles.element(ty.mul(tileColumns).add(tx));
            If(atomicLoad(mark).equal(0), () => {
              atomicStore(mark, uint(1));
            });
          });
        });
        let rgb: Node = tone.rgb;
        if (!spec.additive) {
          const f = fog(at);
          rgb = mix(rgb, f.color, f.factor);
        }
        const colour = rgb.toVar();
        // The additive presets' plane follows the blended presets' (see PLANE).
        const plane = spec.additive ? width.mul(int(pixels.y)).mul(PLANE) : int(0);
        within((x, y, a) => {
          const base = y.mul(width).add(x).mul(PLANE).add(plane).toUint().toVar();
          const add = (k: number, v: Node) => atomicAdd(accumulators.element(base.add(k)), uint(v.mul(FIXED_POINT).add(0.5)));
          if (spec.additive) {
            const light = colour.mul(a);
            add(0, light.x);
            add(1, light.y);
            add(2, light.z);
          } else {
            // Weighted by -log transmittance: their sum is the pixel's total, and one dot alone blends exactly.
            const w = log(float(1).sub(min(a, 0.999))).negate().toVar();
            const weighted = colour.mul(w);
            add(0, weighted.x);
            add(1, weighted.y);
            add(2, weighted.z);
            add(3, w);
          }
        });
      });
    })().compute(this.options.count);
  }

  /** Whether this field draws what `options` asks (else a new one is needed). */
  matches(o: FieldOptions): boolean {
    const m = this.options;
    return m.preset === o.preset && m.count === o.count && m.seed === o.seed && m.scale === o.scale && m.color === o.color;
  }

  /**
   * Steps the particles on `renderer` to `ticks` since the emitter started, born around `origin` and
   * carried by `wind` (m/s), lit `light` (0–1), in at most `dispatches` compute dispatches (one per tick when it can;
   * longer steps when it is further behind). A field asked for fewer ticks than it has stepped (a
   * world restored to an earlier moment) starts over. A wrapping field runs no kernel: its time is set, and the wind's
   * drift summed over the ticks since the last draw (over all of them when it starts over).
   */
  advance(renderer: THREE.WebGPURenderer, ticks: number, origin: THREE.Vector3, wind: THREE.Vector3, dispatches: number, light = 1): void {
    this.light.value = light;
    this.origin.value.copy(origin);
    this.wind.value.copy(wind);
    const over = !this.started || ticks < this.steps;
    this.started = true;
    if (this.simulation === null) {
      const drift = this.drift.value as THREE.Vector3;
      if (over) drift.set(0, 0, 0);
      drift.addScaledVector(wind, (ticks - (over ? 0 : this.steps)) * STEP_SECONDS * this.spec.wind);
      // Modulo the box: the field is the same, and the number stays small enough for 32-bit floats.
      const { size } = this.box;
      drift.set(drift.x - size.x * Math.floor(drift.x / size.x), drift.y - size.y * Math.floor(drift.y / size.y), drift.z - size.z * Math.floor(drift.z / size.z));
      this.time.value = ticks * STEP_SECONDS;
      const epochs = Math.floor(ticks / EPOCH_TICKS) * EPOCH_TICKS;
      this.epochs.value = epochs * STEP_SECONDS;
      this.sinceEpoch.value = (ticks - epochs) * STEP_SECONDS;
      this.steps = ticks;
      return;
    }
    if (over) {
      this.steps = Math.max(0, ticks - this.warm);
      this.step.value = this.steps;
      renderer.compute(this.simulation.init);
      // A field met late warms up smoothly, whoever draws it.
      dispatches = Math.max(dispatches, MAX_DISPATCHES.oneOff);
    }
    if (ticks - this.steps > this.warm) this.steps = ticks - this.warm;
    const behind = ticks - this.steps;
    const k = Math.min(behind, dispatches);
    for (let j = 0; j < k; j++) {
      const size = Math.floor((behind * (j + 1)) / k) - Math.floor((behind * j) / k);
      this.step.value = this.steps;
      this.dt.value = size * STEP_SECONDS;
      renderer.compute(this.simulation.update);
      this.steps += size;
    }
  }

  dispose(): void {
    this.splatter?.kernel.dispose();
    this.material.dispose();
    this.geometry.dispose();
    this.simulation?.init.dispose();
    this.simulation?.update.dispose();
  }
}
