// The engine's look: a world's render settings (environment, post stack,
// quality tier) and how any renderer draws a scene with them. A `Look`
// belongs to a scene (world state: skills change it, snapshots keep it); a
// `LookRenderer` belongs to a renderer and keeps what is tied to its GPU
// device — the environment baked from the sky or HDRI (PMREM), re-baked only
// when the environment moves, and one post stack per camera. The window
// and render.capture draw through the same path, so a capture shows what
// the window shows. Browser-safe: three only.

import * as THREE from "three";
import { copy, defaultEnvironment, Environment, type EnvironmentSettings, type HdriLoader, TONE_MAPPINGS } from "./environment.ts";
import { activePasses, defaultPost, isBare, type PngDecoder, PostStack, type PostSettings, usePngDecoder } from "./post.ts";
import { type QualityTier, TIERS } from "./quality.ts";
import { fitSunShadow } from "./shadows.ts";

export interface LookSettings {
  environment: EnvironmentSettings;
  post: PostSettings;
  quality: QualityTier;
}

/** Frames a one-off capture renders with TAA, so its history has converged. */
const TAA_SETTLE_FRAMES = 8;

/** The least number of frames between two bakes while the sun keeps moving (a time-of-day sweep). */
const REBAKE_EVERY = 10;

/** A scene's render settings and its environment. */
export class Look {
  readonly environment: Environment;
  post: PostSettings = defaultPost();
  quality: QualityTier;

  constructor(readonly scene: THREE.Scene, sun: THREE.DirectionalLight, loadHdri: HdriLoader, quality: QualityTier = "balanced") {
    this.environment = new Environment(sun, loadHdri);
    this.quality = quality;
    scene.add(this.environment.hemisphere);
  }

  settings(): LookSettings {
    return { environment: this.environment.settings(), post: copy(this.post), quality: this.quality };
  }

  /** Applies whole settings (a snapshot's); an HDRI that cannot load refuses them before anything changes. */
  async restore(s: LookSettings): Promise<void> {
    await this.environment.set(s.environment);
    this.post = copy(s.post);
    this.quality = s.quality;
  }
}

/** The defaults a new world starts with. */
export function defaultLookSettings(quality: QualityTier = "balanced"): LookSettings {
  return { environment: defaultEnvironment(), post: defaultPost(), quality };
}

const looks = new WeakMap<THREE.Scene, Look>();

/** Makes `look` the look `scene` renders with. */
export function attachLook(scene: THREE.Scene, look: Look): void {
  looks.set(scene, look);
}

export function lookOf(scene: THREE.Scene): Look | undefined {
  return looks.get(scene);
}

/**
 * Renderer-wide switches every renderer takes (the rest follows each
 * scene's look per frame). `host.decodePng`: the PNG decoder of a host
 * without DOM images (see usePngDecoder).
 */
export function applyEngineLook(renderer: THREE.WebGPURenderer, host: { decodePng?: PngDecoder } = {}): void {
  if (host.decodePng) usePngDecoder(host.decodePng);
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.PCFShadowMap;
  renderer.toneMapping = THREE.ACESFilmicToneMapping;
}

/** Textures the look baked, so a scene's own environment map is never replaced. */
const baked = new WeakSet<THREE.Texture>();

/** Everything the look keeps per renderer (GPU resources of its device). */
export class LookRenderer {
  private pmrem: THREE.PMREMGenerator | null = null;
  private bakes = new WeakMap<Look, { target: THREE.RenderTarget; version: number; size: number; frame: number; hdri: boolean }>();
  private stacks = new WeakMap<THREE.Scene, Map<THREE.Camera, PostStack>>();
  private frame = 0;
  /** Milliseconds the last bake took (for the benchmark). */
  lastBakeMs = 0;

  /** `amortise`: a renderer drawing every frame re-bakes a moving environment at most every REBAKE_EVERY frames; one drawing now and then (captures) bakes whenever it is stale. */
  constructor(readonly renderer: THREE.WebGPURenderer, private readonly amortise: boolean) {}

  /** Draws `scene` from `camera` with `look`. */
  render(look: Look, scene: THREE.Scene, camera: THREE.Camera): void {
    this.frame++;
    const { renderer } = this;
    const tier = TIERS[look.quality];
    const env = look.environment;
    const version = env.update();
    const settings = env.live;
    renderer.toneMapping = TONE_MAPPINGS[settings.toneMapping];
    renderer.toneMappingExposure = settings.exposure;
    env.sun.shadow.radius = tier.softShadows ? 3 : 1;
    if ((camera as THREE.PerspectiveCamera).isPerspectiveCamera) fitSunShadow(env.sun, camera as THREE.PerspectiveCamera, scene, tier.shadowDistance, tier.shadowMapSize);

    const map = this.bake(look, version, tier.environmentSize);
    if (scene.environment === null || baked.has(scene.environment)) scene.environment = map;
    scene.environmentIntensity = settings.environmentIntensity;
    scene.backgroundNode = settings.background && scene.background === null ? env.backgroundNode : null;
    scene.fogNode = scene.fog === null && settings.fog.enabled ? env.fogNode : null;

    const passes = activePasses(look.post, tier);
    if (isBare(passes)) {
      renderer.render(scene, camera);
      return;
    }
    let perCamera = this.stacks.get(scene);
    if (!perCamera) this.stacks.set(scene, (perCamera = new Map()));
    let stack = perCamera.get(camera);
    if (!stack || !stack.matches(passes, tier)) {
      stack?.dispose();
      stack = new PostStack(renderer, scene, camera, passes, tier);
      perCamera.set(camera, stack);
    }
    stack.tune(look.post);
    // TAA converges over frames: a one-off frame (a capture) renders the jitter sequence through, a window converges as it runs.
    const frames = passes.antialias === "taa" && !this.amortise ? TAA_SETTLE_FRAMES : 1;
    for (let i = 0; i < frames; i++) {
      // Each draw is a frame of its own for the passes that update once a frame (the scene pass, TAA's history):
      // three counts frames on its own timer, which neither a capture nor a deterministic run keeps pace with.
      (renderer as unknown as { _nodes: { nodeFrame: { update(): void } } })._nodes.nodeFrame.update();
      stack.render();
    }
  }

  /** The environment map for `look`, baked again when its environment moved (at most every REBAKE_EVERY frames while it keeps moving). */
  private bake(look: Look, version: number, size: number): THREE.Texture {
    const env = look.environment;
    const last = this.bakes.get(look);
    const hdri = env.hdri !== null;
    const stale = !last || last.version !== version;
    if (last) {
      const deferred = this.amortise && this.frame - last.frame < REBAKE_EVERY && last.size === size && last.hdri === hdri && !env.changedExplicitlySince(last.version);
      if (!stale || deferred) return last.target.texture;
    }
    const start = performance.now();
    this.pmrem ??= new THREE.PMREMGenerator(this.renderer);
    last?.target.dispose();
    const target = env.hdri ? this.pmrem.fromEquirectangular(env.hdri.texture) : this.pmrem.fromScene(env.skyScene, 0, 0.1, 100, { size });
    baked.add(target.texture);
    this.bakes.set(look, { target, version, size, frame: this.frame, hdri });
    this.lastBakeMs = performance.now() - start;
    return target.texture;
  }
}

const renderers = new WeakMap<THREE.WebGPURenderer, LookRenderer>();

/** The look's state for `renderer` (see LookRenderer for `amortise`). */
export function lookRendererOf(renderer: THREE.WebGPURenderer, amortise = true): LookRenderer {
  let r = renderers.get(renderer);
  if (!r) renderers.set(renderer, (r = new LookRenderer(renderer, amortise)));
  return r;
}
