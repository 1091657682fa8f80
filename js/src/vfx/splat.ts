// GPU particles drawn without triangles: a software rasteriser (lavapipe)
// pays for every triangle on the submitting thread (vertex stage and setup),
// while its compute shaders run on every core. A renderer's bare frame then
// draws the scene without the splatted fields into a target of its own
// (colour and depth), a compute pass adds each particle to per-pixel integer
// accumulators over the pixels its dot covers (depth-tested against the
// scene) and marks the screen tiles it touched, a second resolves the touched
// tiles' sums into a texture (zeroing them for the next frame; the other tiles
// are transparent without reading a sum), and one full-screen pass
// composites that over the scene with the frame's tone mapping: the additive presets' light summed, the others by a
// weighted blend (order-independent transparency), equal to the triangles'
// blend where particles do not overlap. Integer sums make the frame the same
// whatever order the GPU adds in. Weather fields (rain, snow: one colour,
// nearly opaque or thin) take a cheaper way: one atomic max a covered pixel of
// a word packing the particle's distance, fog and opacity, so the nearest
// particle wins each pixel (the same whatever the order), and the composite
// reads those words itself (copied into an integer texture) — no sums, no
// tiles, no resolve.
// Browser-safe: three only.

import * as THREE from "three";
import { type Node, tsl } from "../render/tsl.ts";
import type { Environment } from "../render/environment.ts";
import type { ParticleField } from "./particles.ts";

const { Fn, If, instancedArray, instanceIndex, storage, uniform, textureLoad, textureStore, screenCoordinate, ivec2, uvec2, uvec4, uint, float, vec2, vec3, vec4, exp, max, mix, select, floatBitsToUint } = tsl;

/**
 * Integers a pixel accumulates in each of two planes: the blended presets' colour weighted by -log transmittance
 * (rgb) and that weight (the sum: -log of the pixel's transmittance); then, in a plane of their own, the additive
 * presets' light (rgb) and one unused. A plane's pixels lie one after another: a resolve reads them in order.
 */
export const PLANE = 4;
/**
 * Pixels on a side of the square tiles the splat marks as touched: the resolve reads and zeroes the sums of marked tiles
 * only, a tile a workgroup (64 threads), so a field over part of the screen costs the rest a store a pixel.
 */
export const TILE = 8;
/** Units of one in the accumulators (12 fractional bits: a pixel sums up to a million units of light before wrapping). */
export const FIXED_POINT = 4096;

/** Colours the nearest-wins words of one frame can name (a word's two lowest bits). */
export const NEAREST_COLOURS = 4;

/**
 * Whether a field can be splatted nearest-wins: a weather field (`wraps`) of one colour, not additive (light adds up;
 * it does not hide what lies behind).
 */
export const nearestWins = (field: ParticleField): boolean => {
  const { spec } = field;
  return spec.wraps && !spec.additive && spec.color[0].every((c, i) => c === spec.color[1][i]);
};

/**
 * A particle's nearest-wins word, less what the kernel or's in a pixel (its opacity there, bits 2–8, 0–127, and bit 31,
 * set where that is at least half the dot's own: its solid middle): bits 17–30 how near it is (0x3fff less the top 14
 * bits of its distance's float bits, which order as the distances do: 6 bits of mantissa, under 2 % apart), bits 9–16
 * its fog factor (0–255), bits 0–1 its colour slot. The largest word wins: a solid middle over a faint rim (a near
 * dot's soft edge does not blot out the dots behind it), then the nearest (equally near: the foggier, then the more
 * opaque, then the higher slot); an atomic max in any order leaves the same word, and an untouched pixel's 0 is none.
 */
export function nearestWord(distance: Node, fogFactor: Node, slot: Node): Node {
  const near = uint(0x3fff).sub(floatBitsToUint(distance).shiftRight(17));
  return near.shiftLeft(17).bitOr(uint(fogFactor.mul(255).add(0.5)).shiftLeft(9)).bitOr(slot);
}

/** The bits a pixel adds to a particle's nearest-wins word: its opacity `a` there, of the dot's `opacity`. */
export const nearestPixel = (a: Node, opacity: Node): Node =>
  uint(a.mul(127).add(0.5)).shiftLeft(2).bitOr(select(a.greaterThanEqual(opacity.mul(0.5)), uint(0x80000000), uint(0)));

/** What a field's splat kernel reads: the screen's accumulators, the scene's depth, the camera, and the fog. */
export interface SplatInputs {
  accumulators: Node;
  /** One nearest-wins word a pixel (nearestWord), in rows of `nearestRow` words (whole 256-byte rows, for a copy). */
  nearest: Node;
  nearestRow: number;
  /** One word a tile (TILE × TILE pixels, rows of `tileColumns`): nonzero where a particle's pixels lie. */
  tiles: Node;
  tileColumns: number;
  depth: Node;
  viewProjection: Node;
  /** The frame's size in pixels. */
  size: Node;
  /** Pixels a metre of camera-facing offset covers at view depth 1 (the projection's scale times half the frame). */
  pixelScale: Node;
  eye: Node;
  /** The scene's fog at a world position (nothing when the scene draws none). */
  fog(at: Node): { color: Node; factor: Node };
}

/** One renderer's screen for splatted particles: its scene target, accumulators, resolved layer and composite. */
export class SplatScreen {
  /** Bumped when the accumulators are replaced (a resize): kernels built for the old ones are rebuilt. */
  generation = 0;
  inputs!: SplatInputs;
  private readonly target: THREE.RenderTarget;
  private readonly viewProjection = uniform(new THREE.Matrix4());
  private readonly size = uniform(new THREE.Vector2());
  private readonly pixelScale = uniform(new THREE.Vector2());
  private readonly eye = uniform(new THREE.Vector3());
  private readonly fogOn = uniform(0);
  /** The inverse of viewProjection: the composite's pixels back to the world (for the fog's colour along them). */
  private readonly inverseViewProjection = uniform(new THREE.Matrix4());
  /** The colours the nearest-wins words' slots name this frame. */
  private readonly colours = Array.from({ length: NEAREST_COLOURS }, () => uniform(new THREE.Color()));
  private readonly colour = new THREE.Color();
  /** Composites by what the frame splatted: summed fields only (1), nearest-wins only (2), both (3). */
  private readonly composites: Record<1 | 2 | 3, THREE.RenderPipeline>;
  /** The particles resolved, a pixel each: their light over the scene (rgb) and the scene's transmittance (a). */
  private layer: THREE.StorageTexture | null = null;
  /** The nearest-wins words, copied for the composite to read. */
  private words: THREE.DataTexture | null = null;
  /** Resolves for frames with blended fields only, additive only, both. */
  private resolves: Node[] = [];
  private readonly drawing = new THREE.Vector2();

  constructor(renderer: THREE.WebGPURenderer, private readonly environment: Environment | null) {
    this.target = new THREE.RenderTarget(1, 1, { type: THREE.HalfFloatType, depthTexture: new THREE.DepthTexture(1, 1) });
    this.composites = { 1: new THREE.RenderPipeline(renderer), 2: new THREE.RenderPipeline(renderer), 3: new THREE.RenderPipeline(renderer) };
  }

  /**
   * Draws `scene` from `camera` to the renderer's output with `fields` splatted instead of drawn as triangles
   * (their objects hidden from the scene's own draw).
   */
  draw(renderer: THREE.WebGPURenderer, scene: THREE.Scene, camera: THREE.Camera, fields: readonly ParticleField[]): void {
    const { x: width, y: height } = renderer.getDrawingBufferSize(this.drawing);
    if (width !== this.target.width || height !== this.target.height || this.layer === null) this.allocate(renderer, width, height);
    const output = renderer.getRenderTarget();
    for (const f of fields) f.object.visible = false;
    renderer.setRenderTarget(this.target);
    try {
      renderer.render(scene, camera);
    } finally {
      renderer.setRenderTarget(output);
      for (const f of fields) f.object.visible = true;
    }
    const p = camera.projectionMatrix.elements;
    this.viewProjection.value.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    this.pixelScale.value.set((p[0] * width) / 2, (p[5] * height) / 2);
    camera.getWorldPosition(this.eye.value);
    this.fogOn.value = this.environment !== null && scene.fogNode === this.environment.fogNode ? 1 : 0;
    this.inverseViewProjection.value.copy(this.viewProjection.value).invert();
    // Weather fields go nearest-wins, a colour slot for each colour among them (while slots last); the rest are summed.
    const summed: ParticleField[] = [];
    const nearest: ParticleField[] = [];
    let slots = 0;
    for (const f of fields) {
      const colour = nearestWins(f) ? f.nearestColour(this.colour) : null;
      let slot = colour === null ? -1 : this.colours.slice(0, slots).findIndex((c) => c.value.equals(colour));
      if (colour !== null && slot < 0 && slots < NEAREST_COLOURS) this.colours[(slot = slots++)].value.copy(colour);
      if (slot < 0) summed.push(f);
      else {
        f.slot.value = slot;
        nearest.push(f);
      }
    }
    const { tiles, nearest: words } = this.inputs;
    this.clear(renderer, [...(summed.length > 0 ? [tiles] : []), ...(nearest.length > 0 ? [words] : [])]);
    for (const f of summed) f.splat(renderer, this, false);
    for (const f of nearest) f.splat(renderer, this, true);
    if (nearest.length > 0) this.copyWords(renderer);
    if (summed.length > 0) {
      const adds = summed.some((f) => f.spec.additive);
      const blends = summed.some((f) => !f.spec.additive);
      renderer.compute(this.resolves[blends && adds ? 2 : adds ? 1 : 0]);
    }
    this.composites[((summed.length > 0 ? 1 : 0) | (nearest.length > 0 ? 2 : 0)) as 1 | 2 | 3].render();
  }

  private allocate(renderer: THREE.WebGPURenderer, width: number, height: number): void {
    this.dispose();
    this.target.setSize(width, height);
    this.size.value.set(width, height);
    const n = width * height * PLANE * 2;
    const accumulators = instancedArray(n, "uint").toAtomic();
    const tileColumns = Math.ceil(width / TILE);
    const tileCount = tileColumns * Math.ceil(height / TILE);
    const tiles = instancedArray(tileCount, "uint").toAtomic();
    const nearestRow = Math.ceil(width / 64) * 64;
    const nearest = instancedArray(nearestRow * height, "uint").toAtomic();
    // The words copied into an integer texture for the composite: a fragment shader reading a storage buffer is
    // slower on lavapipe than one reading a texture, and the copy is a memcpy.
    const words = (this.words = new THREE.DataTexture(new Uint32Array(width * height), width, height, THREE.RedIntegerFormat, THREE.UnsignedIntType));
    words.needsUpdate = true;
    renderer.initTexture(words);
    const env = this.environment;
    const { fogOn, eye } = this;
    this.inputs = {
      accumulators,
      nearest,
      nearestRow,
      tiles,
      tileColumns,
      depth: this.target.depthTexture!,
      viewProjection: this.viewProjection,
      size: this.size,
      pixelScale: this.pixelScale,
      eye,
      fog: (at) => {
        if (env === null) return { color: vec3(0), factor: float(0) };
        const f = env.fogAt(at, eye);
        return { color: f.color, factor: f.factor.mul(fogOn) };
      },
    };
    // Resolved by a compute pass into a texture: a fragment shader reading storage buffers is several times
    // slower on lavapipe than one reading a texture.
    const layer = (this.layer = new THREE.StorageTexture(width, height));
    layer.type = THREE.HalfFloatType;
    // Read as vectors, one per kind of preset drawn: a load costs the same whatever its width.
    const sums = storage(accumulators.value, "uvec4", n / 4);
    const marked = storage(tiles.value, "uint", tileCount).toReadOnly();
    const resolve = (blends: boolean, adds: boolean) =>
      Fn(() => {
        // A workgroup a tile, a thread a pixel of it (in rows): a tile's threads all take the same branch below.
        const tile = instanceIndex.div(TILE * TILE).toVar();
        const local = instanceIndex.mod(TILE * TILE);
        const x = tile.mod(tileColumns).mul(TILE).add(local.mod(TILE)).toVar();
        const y = tile.div(tileColumns).mul(TILE).add(local.div(TILE)).toVar();
        If(x.lessThan(uint(width)).and(y.lessThan(uint(height))), () => {
          const pixel = y.mul(width).add(x).toVar();
          const at = uvec2(x, y);
          If(marked.element(tile).equal(0), () => {
            textureStore(layer, at, vec4(0, 0, 0, 1)).toWriteOnly();
          }).Else(() => {
            let rgb: Node = vec3(0);
            let transmittance: Node = float(1);
            const added = pixel.add(width * height);
            if (blends) {
              const b = vec4(sums.element(pixel)).div(FIXED_POINT).toVar();
              transmittance = exp(b.w.negate());
              // Mean colour over what the transmittance does not let through.
              rgb = select(b.w.greaterThan(0), b.xyz.div(max(b.w, 1e-6)), vec3(0)).mul(transmittance.oneMinus());
            }
            if (adds) rgb = rgb.add(vec3(sums.element(added).xyz).div(FIXED_POINT));
            textureStore(layer, at, vec4(rgb, transmittance)).toWriteOnly();
            // Read: zeroed for the next frame.
            if (blends) sums.element(pixel).assign(uvec4(0));
            if (adds) sums.element(added).assign(uvec4(0));
          });
        });
      })().compute(tileCount * TILE * TILE, [TILE * TILE]);
    this.resolves = [resolve(true, false), resolve(false, true), resolve(true, true)];
    const pixel = ivec2(screenCoordinate.xy);
    for (const which of [1, 2, 3] as const) {
      this.composites[which].outputNode = Fn(() => {
        const out = textureLoad(this.target.texture, pixel).toVar();
        if (which & 1) {
          const particles = textureLoad(layer, pixel);
          out.assign(vec4(out.rgb.mul(particles.a).add(particles.rgb), out.a.oneMinus().mul(particles.a).oneMinus()));
        }
        if (which & 2) {
          const word = textureLoad(words, pixel).x.toVar();
          // The nearest particle over what lies behind it, in its colour fogged as far as its word says (only where
          // one is: most pixels have none).
          If(word.notEqual(0), () => {
            const alpha = float(word.shiftRight(2).bitAnd(127)).div(127);
            const slot = word.bitAnd(3);
            let rgb: Node = select(slot.equal(0), this.colours[0], select(slot.equal(1), this.colours[1], select(slot.equal(2), this.colours[2], this.colours[3])));
            if (env !== null) {
              // A point along the pixel's ray: the fog's colour depends on its direction only.
              const ndc = screenCoordinate.xy.div(vec2(width, height)).mul(vec2(2, -2)).add(vec2(-1, 1));
              const far = this.inverseViewProjection.mul(vec4(ndc, 0.5, 1));
              rgb = mix(rgb, env.fogAt(far.xyz.div(far.w), eye).color, float(word.shiftRight(9).bitAnd(255)).div(255));
            }
            out.assign(vec4(mix(out.rgb, rgb, alpha), out.a.oneMinus().mul(alpha.oneMinus()).oneMinus()));
          });
        }
        return out;
      })();
      this.composites[which].needsUpdate = true;
    }
    this.generation++;
  }

  /**
   * Zeroes `buffers` (the tile marks, the nearest-wins words): plain buffer clears (a memset on lavapipe). The
   * accumulators need none: they start zeroed and the resolve zeroes the sums it reads, which are all the nonzero ones.
   */
  private clear(renderer: THREE.WebGPURenderer, buffers: Node[]): void {
    const backend = renderer.backend as unknown as { device: GPUDevice; get(o: object): { buffer?: GPUBuffer } };
    // Not on the GPU yet: the first splat creates them, zeroed.
    const onGpu = buffers.map((b) => backend.get(b.value).buffer).filter((b) => b !== undefined);
    if (onGpu.length === 0) return;
    const encoder = backend.device.createCommandEncoder();
    for (const b of onGpu) encoder.clearBuffer(b);
    backend.device.queue.submit([encoder.finish()]);
  }

  /** Copies the nearest-wins words into their texture (a buffer-to-texture copy: a memcpy on lavapipe). */
  private copyWords(renderer: THREE.WebGPURenderer): void {
    const backend = renderer.backend as unknown as { device: GPUDevice; get(o: object): { buffer?: GPUBuffer; texture?: GPUTexture } };
    const { width, height } = this.target;
    const encoder = backend.device.createCommandEncoder();
    encoder.copyBufferToTexture({ buffer: backend.get(this.inputs.nearest.value).buffer!, bytesPerRow: this.inputs.nearestRow * 4 }, { texture: backend.get(this.words!).texture! }, [width, height]);
    backend.device.queue.submit([encoder.finish()]);
  }

  /** Frees what the screen holds on the GPU (it can draw again: it allocates anew). */
  dispose(): void {
    this.inputs?.accumulators.value.dispose();
    this.inputs?.tiles.value.dispose();
    this.inputs?.nearest.value.dispose();
    this.words?.dispose();
    for (const r of this.resolves) r.dispose();
    this.layer?.dispose();
    this.layer = null;
  }
}
