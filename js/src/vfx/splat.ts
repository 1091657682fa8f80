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
// whatever order the GPU adds in. Browser-safe: three only.

import * as THREE from "three";
import { type Node, tsl } from "../render/tsl.ts";
import type { Environment } from "../render/environment.ts";
import type { ParticleField } from "./particles.ts";

const { Fn, If, instancedArray, instanceIndex, storage, uniform, textureLoad, textureStore, screenCoordinate, ivec2, uvec2, uvec4, uint, float, vec3, vec4, exp, max, select } = tsl;

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

/** What a field's splat kernel reads: the screen's accumulators, the scene's depth, the camera, and the fog. */
export interface SplatInputs {
  accumulators: Node;
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
  private readonly pipeline: THREE.RenderPipeline;
  /** The particles resolved, a pixel each: their light over the scene (rgb) and the scene's transmittance (a). */
  private layer: THREE.StorageTexture | null = null;
  /** Resolves for frames with blended fields only, additive only, both. */
  private resolves: Node[] = [];
  private readonly drawing = new THREE.Vector2();

  constructor(renderer: THREE.WebGPURenderer, private readonly environment: Environment | null) {
    this.target = new THREE.RenderTarget(1, 1, { type: THREE.HalfFloatType, depthTexture: new THREE.DepthTexture(1, 1) });
    this.pipeline = new THREE.RenderPipeline(renderer);
  }

  /**
   * Draws `scene` from `camera` to the renderer's output with `fields` splatted instead of drawn as triangles
   * (their objects hidden from the scene's own draw).
   */
  draw(renderer: THREE.WebGPURenderer, scene: THREE.Scene, camera: THREE.Camera, fields: readonly ParticleField[]): void {
    const { x: width, y: height } = renderer.getDrawingBufferSize(this.drawing);
    if (width !== this.target.width || height !== this.target.height || this.layer === null) this.allocate(width, height);
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
    this.clearTiles(renderer);
    for (const f of fields) f.splat(renderer, this);
    const adds = fields.some((f) => f.spec.additive);
    const blends = fields.some((f) => !f.spec.additive);
    renderer.compute(this.resolves[blends && adds ? 2 : adds ? 1 : 0]);
    this.pipeline.render();
  }

  private allocate(width: number, height: number): void {
    this.dispose();
    this.target.setSize(width, height);
    this.size.value.set(width, height);
    const n = width * height * PLANE * 2;
    const accumulators = instancedArray(n, "uint").toAtomic();
    const tileColumns = Math.ceil(width / TILE);
    const tileCount = tileColumns * Math.ceil(height / TILE);
    const tiles = instancedArray(tileCount, "uint").toAtomic();
    const env = this.environment;
    const { fogOn, eye } = this;
    this.inputs = {
      accumulators,
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
    const scene = textureLoad(this.target.texture, pixel);
    const particles = textureLoad(layer, pixel);
    this.pipeline.outputNode = vec4(scene.rgb.mul(particles.a).add(particles.rgb), scene.a.oneMinus().mul(particles.a).oneMinus());
    this.pipeline.needsUpdate = true;
    this.generation++;
  }

  /**
   * Unmarks every tile: a plain buffer clear (a memset on lavapipe). The accumulators need none: they start zeroed and
   * the resolve zeroes the sums it reads, which are all the nonzero ones.
   */
  private clearTiles(renderer: THREE.WebGPURenderer): void {
    const backend = renderer.backend as unknown as { device: GPUDevice; get(o: object): { buffer?: GPUBuffer } };
    // Not on the GPU yet: the first splat creates it, zeroed.
    const buffer = backend.get(this.inputs.tiles.value).buffer;
    if (!buffer) return;
    const encoder = backend.device.createCommandEncoder();
    encoder.clearBuffer(buffer);
    backend.device.queue.submit([encoder.finish()]);
  }

  /** Frees what the screen holds on the GPU (it can draw again: it allocates anew). */
  dispose(): void {
    this.inputs?.accumulators.value.dispose();
    this.inputs?.tiles.value.dispose();
    for (const r of this.resolves) r.dispose();
    this.layer?.dispose();
    this.layer = null;
  }
}
