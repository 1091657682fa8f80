// The engine's look: a world's render settings (environment, post stack,
// quality tier) and how any renderer draws a scene with them. A `Look`
// belongs to a scene (world state: skills change it, snapshots keep it); a
// `LookRenderer` belongs to a renderer and keeps what is tied to its GPU
// device — the environment baked from the sky or HDRI (PMREM), re-baked only
// when the environment moves and shared by every look whose sky draws the
// same, and one post stack per camera. The window
// and render.capture draw through the same path, so a capture shows what
// the window shows. Browser-safe: three only.

import * as THREE from "three";
import { drawBare, nextFrame } from "./before-render.ts";
import { copy, defaultEnvironment, Environment, type EnvironmentSettings, type HdriLoader, TONE_MAPPINGS } from "./environment.ts";
import { activePasses, defaultPost, isBare, type PngDecoder, PostStack, type PostSettings, usePngDecoder } from "./post.ts";
import { noteAdapter, type QualityTier, TIERS } from "./quality.ts";
import { fitSunShadow, shadowPerRenderer } from "./shadows.ts";

export interface LookSettings {
  environment: EnvironmentSettings;
  post: PostSettings;
  quality: QualityTier;
}

/** Frames a one-off capture renders with TAA, so its history has converged. */
const TAA_SETTLE_FRAMES = 8;

/** The least number of frames between two bakes while the sun keeps moving (a time-of-day sweep). */
const REBAKE_EVERY = 10;

/**
 * A revision number for state that code may also change in place (three's lights and cameras, a look's post
 * settings): it moves whenever a value `read` lists differs from the last reading, so what sends that state only when
 * it changed (the state stream's `world`) compares a few dozen values a tick instead of rebuilding and serialising it.
 * It may move with the state unchanged (then the consumer compares what it builds), never the other way round.
 */
export class Revision {
  private last: unknown[] = [];
  private next: unknown[] = [];
  private value = 0;

  constructor(private readonly read: (out: unknown[]) => void) {}

  /** The revision now (the inputs read once). */
  get current(): number {
    const next = this.next;
    next.length = 0;
    this.read(next);
    if (!sameValues(next, this.last)) {
      this.value++;
      this.next = this.last;
      this.last = next;
    }
    return this.value;
  }
}

/** Equal lists of values (NaN equal to itself, as a serialised copy would see it). */
function sameValues(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(a[i] !== a[i] && b[i] !== b[i])) return false;
  return true;
}

/**
 * What an object's world position follows, as `updateMatrixWorld` makes it (what Environment.sunDirection reads):
 * its position (its own matrix when three does not compose that) and its parent's world matrix.
 */
function placement(o: THREE.Object3D, out: unknown[]): void {
  if (o.matrixAutoUpdate) out.push(o.position.x, o.position.y, o.position.z);
  else out.push(...o.matrix.elements);
  if (o.parent) out.push(...o.parent.matrixWorld.elements);
}

/** A scene's render settings and its environment. */
export class Look {
  readonly environment: Environment;
  post: PostSettings = defaultPost();
  quality: QualityTier;
  /**
   * Moves whenever `settings()` may read differently: the environment's settings (its version), where the sun light
   * and its target stand (code may move them: the sun's angles are read from them), the tier and the post settings
   * (code may replace or edit them).
   */
  readonly revision = new Revision((out) => {
    const { sun } = this.environment;
    out.push(this.environment.version, this.quality);
    placement(sun, out);
    placement(sun.target, out);
    // Serialised natively in one call: cheaper than walking its few dozen fields in script.
    out.push(JSON.stringify(this.post));
  });

  constructor(readonly scene: THREE.Scene, sun: THREE.DirectionalLight, loadHdri: HdriLoader, quality: QualityTier = "balanced") {
    this.environment = new Environment(sun, loadHdri);
    shadowPerRenderer(sun);
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
 * Where at-once bakes outlive the process (the engine's disk cache; a page has none). `key` says
 * what the map shows on this renderer's device; the store adds what else shapes its pixels (build, driver).
 */
export interface BakeStore {
  /** Fills `texture` (the map's cube, all its levels) with the stored map of `key`; false when none is stored. */
  load(device: GPUDevice, texture: GPUTexture, key: string): boolean;
  /** Reads `texture`'s map back and stores it under `key` (the copy is submitted before this returns). */
  store(device: GPUDevice, texture: GPUTexture, key: string): Promise<void>;
}

const bakeStores = new WeakMap<THREE.WebGPURenderer, BakeStore>();

/** Said once per process: a store that fails only means bakes are not kept. */
let storeFailed = false;

/**
 * Renderer-wide switches every renderer takes (the rest follows each
 * scene's look per frame). `host.decodePng`: the PNG decoder of a host
 * without DOM images (see usePngDecoder); `host.adapter`: the adapter's name,
 * for what draws differently on a software rasteriser (onSoftwareAdapter);
 * `host.bakes`: where this renderer's at-once bakes (skies, HDRIs whose content is known) are kept across processes.
 */
export function applyEngineLook(renderer: THREE.WebGPURenderer, host: { decodePng?: PngDecoder; adapter?: string; bakes?: BakeStore } = {}): void {
  if (host.decodePng) usePngDecoder(host.decodePng);
  if (host.bakes) bakeStores.set(renderer, host.bakes);
  if (host.adapter !== undefined) noteAdapter(renderer, host.adapter);
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.PCFShadowMap;
  renderer.toneMapping = THREE.ACESFilmicToneMapping;
}

/** The PMREM levels of a bake's target (three lists them as the texture's mipmaps). */
const levelsOf = (target: THREE.RenderTarget) => (target.texture as unknown as { mipmaps: { width: number }[] }).mipmaps;

/** The six faces of a cube level (its size set per level). */
const region = new THREE.Box3(new THREE.Vector3(), new THREE.Vector3());

/** Textures the look baked, so a scene's own environment map is never replaced. */
const baked = new WeakSet<THREE.Texture>();

/**
 * Maps no look uses that a LookRenderer keeps, by what they show, for the next world with the same sky
 * (a fresh world's default sky is the same PMREM every time: about a second of CPU on lavapipe).
 */
const KEPT_UNUSED_BAKES = 8;

interface Bake {
  target: THREE.CubeRenderTarget;
  version: number;
  size: number;
  frame: number;
  hdri: boolean;
  /** What the map shows: its size and the sky's Environment.drawnKey when its bake began. */
  key: string;
  /** The renderer's shared map this is, or null for a map of the look's own (an amortised bake's, written in place). */
  shared: SharedBake | null;
}

/** An at-once bake, shared by the looks whose environments draw the same sky (`key`: the size and Environment.drawnKey). */
interface SharedBake {
  key: string;
  target: THREE.CubeRenderTarget;
  /** Looks whose map it is now. */
  users: number;
}

/**
 * A bake spread over frames: the sky (or HDRI) captured into the cube a face a step, then its
 * pieces filtered, as many a step as BAKE_STEP_SAMPLES allows.
 */
interface PendingBake extends Omit<Bake, "shared"> {
  look: Look;
  /** Cube faces of the sky (or HDRI) captured so far. */
  captured: number;
  pieces: Piece[];
  /** The next piece to filter; the bake is done past the last one. */
  next: number;
}

/** Rows [y0, y1) of one cube face of one PMREM level, and what filtering them costs (texels × source samples). */
interface Piece {
  level: number;
  face: number;
  y0: number;
  y1: number;
  cost: number;
}

/**
 * Source samples a window's bake step may filter: about 5 ms on lavapipe, inside its frame-time spread
 * (docs/PERF.md, look_bake: twice this added some 10 ms to the median frame). A 256² map (about 38 M
 * samples) spreads over some 160 frames.
 */
const BAKE_STEP_SAMPLES = 1 << 18;

/**
 * Source samples a texel of PMREM level `level` (of `levels`) reads in three's filter (0.187): the mirror level
 * copies one, the sharp levels take 256 GGX samples, the three roughest weight every texel of three 16² faces.
 */
function samplesPerTexel(level: number, levels: number): number {
  if (level === 0) return 1;
  return level >= levels - 3 ? 3 * 16 * 16 : 256;
}

/** The pieces of a PMREM target of `size`² with `levels` levels: each face of each level cut into bands of rows costing at most BAKE_STEP_SAMPLES. */
function bakePieces(size: number, levels: number): Piece[] {
  const pieces: Piece[] = [];
  for (let level = 0; level < levels; level++) {
    const width = size >> level;
    const perRow = width * samplesPerTexel(level, levels);
    const rows = Math.max(1, Math.min(width, Math.floor(BAKE_STEP_SAMPLES / perRow)));
    for (let face = 0; face < 6; face++) {
      for (let y0 = 0; y0 < width; y0 += rows) {
        const y1 = Math.min(width, y0 + rows);
        pieces.push({ level, face, y0, y1, cost: (y1 - y0) * perRow });
      }
    }
  }
  return pieces;
}

/** The private steps of three's PMREMGenerator that an amortised bake calls piece by piece (three 0.187). */
interface PmremSteps {
  _applyPMREM(target: THREE.RenderTarget): void;
  _renderCube(target: THREE.RenderTarget, lod: number, material: THREE.Material): void;
  _setSize(cubeSize: number): void;
  _allocateTarget(): THREE.CubeRenderTarget;
}

/** Everything the look keeps per renderer (GPU resources of its device). */
export class LookRenderer {
  private pmrem: THREE.PMREMGenerator | null = null;
  private bakes = new WeakMap<Look, Bake>();
  /**
   * At-once bakes by what they show, least recently used first; per renderer, as a texture belongs to its
   * device. Kept while a look uses them, and up to `keep` more.
   */
  private shared = new Map<string, SharedBake>();
  /** A look collected with a shared map gives it back (its Bake is the unregister token). */
  private readonly collected = new FinalizationRegistry<SharedBake>((entry) => this.unuse(entry));
  /** The one amortised bake under way (the generator's source cube is shared, so one at a time). */
  private pending: PendingBake | null = null;
  private stacks = new WeakMap<THREE.Scene, Map<THREE.Camera, PostStack>>();
  private frame = 0;
  /** Milliseconds the last bake step took, or the whole bake when done at once (for the benchmark). */
  lastBakeMs = 0;
  /** Frames the last completed bake took (1 when baked at once). */
  lastBakeFrames = 0;
  /**
   * Whether the last frame lit with an out-of-date map (an amortised bake under way or due): a renderer that
   * draws only when something changed (the web page) draws again until it is not.
   */
  stale = false;
  /** Bake steps done (an at-once bake is one) and bakes completed, for the benchmark. */
  bakeSteps = 0;
  bakesDone = 0;
  /** Of the bakes completed, those loaded from the renderer's bake store. */
  bakesLoaded = 0;
  /** Settles when the maps this renderer has sent to its bake store are stored. */
  private storing: Promise<void> = Promise.resolve();

  /**
   * `amortise`: a renderer drawing every frame (the window) spreads a re-bake over several
   * frames — the sky captured a cube face a frame, then bands of rows of each face of each PMREM level,
   * about a quarter of a million source samples a frame (BAKE_STEP_SAMPLES) — keeping the previous
   * map in use until the new one is complete, and starts one for a sun that keeps moving at
   * most every REBAKE_EVERY frames. One drawing now and then (captures) bakes at once whenever
   * it is stale. `keep`: how many maps no look uses it keeps for a look that draws the same sky later.
   */
  constructor(readonly renderer: THREE.WebGPURenderer, private readonly amortise: boolean, private readonly keep = KEPT_UNUSED_BAKES) {}

  /** Draws `scene` from `camera` with `look`; `exact`: bakes a stale map at once even when amortising (a screenshot's frame). */
  render(look: Look, scene: THREE.Scene, camera: THREE.Camera, exact = false): void {
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

    const map = this.bake(look, version, tier.environmentSize, exact);
    this.stale = this.bakes.get(look)?.version !== version;
    if (scene.environment === null || baked.has(scene.environment)) scene.environment = map;
    scene.environmentIntensity = settings.environmentIntensity;
    const sky = settings.background && scene.background === null;
    const passes = activePasses(look.post, tier);
    const bare = isBare(passes);
    // A bare frame from a perspective camera draws the sky as a dome after the opaque objects (Environment.skyDome);
    // the post stack's passes and orthographic views keep three's background.
    const dome = sky && bare && (camera as THREE.PerspectiveCamera).isPerspectiveCamera === true;
    scene.backgroundNode = sky && !dome ? env.backgroundNode : null;
    scene.fogNode = scene.fog === null && settings.fog.enabled ? env.fogNode : null;

    if (bare) {
      nextFrame(renderer);
      if (dome) scene.add(env.skyDome);
      try {
        drawBare(renderer, scene, camera);
      } finally {
        if (dome) scene.remove(env.skyDome);
      }
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
      // Each draw is a frame of its own (see nextFrame), each of TAA's jittered ones too.
      nextFrame(renderer);
      stack.render();
    }
  }

  /** The environment map for `look`: baked again when its environment moved (see `amortise`). */
  private bake(look: Look, version: number, size: number, exact: boolean): THREE.Texture {
    const env = look.environment;
    const last = this.bakes.get(look);
    const hdri = env.hdri !== null;
    if (last && last.version === version) return last.target.texture;
    const key = `${size} ${env.drawnKey()}`;
    if (last?.key === key) {
      // Settings set again as they were (a page restoring a world's look, a player seeking): the map shows them already.
      if (this.pending?.look === look) this.drop();
      last.version = version;
      last.frame = this.frame;
      return last.target.texture;
    }
    if (!last || !this.amortise || exact) {
      // The generator's source cube is shared: an at-once bake abandons an amortised one (its look re-bakes later).
      this.drop();
      let entry = this.shared.get(key);
      if (entry) {
        this.shared.delete(key);
      } else {
        const start = performance.now();
        entry = { key, target: this.bakeAtOnce(look, size, key), users: 0 };
        this.lastBakeMs = performance.now() - start;
        this.lastBakeFrames = 1;
        this.bakeSteps++;
        this.bakesDone++;
      }
      this.shared.set(key, entry);
      entry.users++;
      const bake = { target: entry.target, version, size, frame: this.frame, hdri, key, shared: entry };
      this.collected.register(look, entry, bake);
      this.use(look, bake);
      return entry.target.texture;
    }
    const pending = this.pending;
    if (pending === null) {
      const moving = this.frame - last.frame < REBAKE_EVERY && last.size === size && last.hdri === hdri && !env.changedExplicitlySince(last.version);
      if (!moving) this.step(look, version, size, hdri, key);
    } else if (pending.look === look) {
      // Settings set before the capture is complete would mix two skies in one cube (a sun that code moves
      // barely shifts between faces); another size needs another cube.
      if ((pending.captured < 6 && env.changedExplicitlySince(pending.version)) || pending.size !== size) this.drop();
      this.step(look, version, size, hdri, key);
    }
    return (this.bakes.get(look) ?? last).target.texture;
  }

  /**
   * An at-once bake of `look`'s map, loaded from the renderer's bake store when it holds the map, else
   * filtered and sent to the store. An HDRI whose content is unknown is not stored: its key names a texture of this process.
   */
  private bakeAtOnce(look: Look, size: number, key: string): THREE.CubeRenderTarget {
    const hdri = look.environment.hdri;
    const disk = hdri === null || hdri.content !== undefined ? bakeStores.get(this.renderer) : undefined;
    if (!disk) return this.capture(look, size, true);
    // The target first: a stored map needs no capture of the sky (or HDRI) into the source cube.
    const target = this.emptyTarget(look, size);
    this.renderer.initRenderTarget(target);
    const backend = this.renderer.backend as unknown as { device: GPUDevice; get(texture: THREE.Texture): { texture: GPUTexture } };
    const texture = backend.get(target.texture).texture;
    const stored = `pmrem ${target.width} ${levelsOf(target).length} ${key}`;
    if (disk.load(backend.device, texture, stored)) {
      this.bakesLoaded++;
      return target;
    }
    this.capture(look, size, true, target);
    const storing = disk.store(backend.device, texture, stored).catch((e) => {
      if (!storeFailed) console.warn(`limina: environment bakes are not kept: ${e instanceof Error ? e.message : e}`);
      storeFailed = true;
    });
    this.storing = Promise.all([this.storing, storing]).then(() => {});
    return target;
  }

  /** Resolves when the maps sent to the bake store so far are stored (or failed to be). */
  stored(): Promise<void> {
    return this.storing;
  }

  /** One step of the amortised bake for `look` (starting it when none is under way); swaps the map in when complete. */
  private step(look: Look, version: number, size: number, hdri: boolean, key: string): void {
    const start = performance.now();
    const pending = this.pending;
    if (pending === null) {
      const target = this.onFace(0, () => this.capture(look, size, false));
      const pieces = bakePieces(target.width, levelsOf(target).length);
      this.pending = { look, target, version, size, hdri, key, frame: this.frame, captured: 1, pieces, next: 0 };
    } else if (pending.captured < 6) {
      // The last face also makes the source cube's mipmaps, which the filter reads.
      this.onFace(pending.captured++, () => this.capture(look, size, false, pending.target));
    } else {
      const { pieces, target } = pending;
      let budget = BAKE_STEP_SAMPLES;
      do {
        const piece = pieces[pending.next++];
        this.filter(target, piece);
        budget -= piece.cost;
      } while (pending.next < pieces.length && pieces[pending.next].cost <= budget);
      if (pending.next >= pieces.length) {
        this.pending = null;
        this.lastBakeFrames = this.frame - pending.frame + 1;
        this.completeInPlace(look, { target, version: pending.version, size: pending.size, frame: pending.frame, hdri: pending.hdri, key: pending.key, shared: null });
      }
    }
    this.lastBakeMs = performance.now() - start;
    this.bakeSteps++;
  }

  /** The PMREM target `capture` makes for `look` at `size`, empty (an HDRI's size is its image's, as three's _fromTexture sets it). */
  private emptyTarget(look: Look, size: number): THREE.CubeRenderTarget {
    this.pmrem ??= new THREE.PMREMGenerator(this.renderer);
    const steps = this.pmrem as unknown as PmremSteps;
    const hdri = look.environment.hdri;
    steps._setSize(hdri ? hdri.texture.image.width / 4 : size);
    return steps._allocateTarget();
  }

  /**
   * Renders the sky (or HDRI) of `look` into the generator's source cube, for `into` or a new PMREM target;
   * `filter` false leaves its levels for `filter` to do.
   */
  private capture(look: Look, size: number, filter: boolean, into: THREE.CubeRenderTarget | null = null): THREE.CubeRenderTarget {
    const env = look.environment;
    this.pmrem ??= new THREE.PMREMGenerator(this.renderer);
    const steps = this.pmrem as unknown as PmremSteps;
    const apply = steps._applyPMREM;
    if (!filter) steps._applyPMREM = () => {};
    try {
      return env.hdri ? this.pmrem.fromEquirectangular(env.hdri.texture, into) : this.pmrem.fromScene(env.skyScene, 0, 0.1, 100, { size, renderTarget: into });
    } finally {
      steps._applyPMREM = apply;
    }
  }

  /** Runs `draw` with only its draws into cube face `face` let through (a cube camera sets each face as the target before drawing it). */
  private onFace<T>(face: number, draw: () => T): T {
    const { renderer } = this;
    const { render } = renderer;
    renderer.render = (scene, camera) => {
      if (renderer.getActiveCubeFace() === face) render.call(renderer, scene, camera);
    };
    try {
      return draw();
    } finally {
      renderer.render = render;
    }
  }

  /**
   * Filters `piece` of `target` from the captured cube with three's own filter: its other levels and faces are
   * skipped and a scissor keeps the piece's rows, so the pieces together write what one whole filter does.
   */
  private filter(target: THREE.RenderTarget, piece: Piece): void {
    const { renderer } = this;
    const steps = this.pmrem as unknown as PmremSteps;
    const { _renderCube: renderCube } = steps;
    const { autoClear } = renderer;
    steps._renderCube = (t, lod, material) => {
      if (lod === piece.level) renderCube.call(steps, t, lod, material);
    };
    // Bands of one face are drawn by separate passes: a clear would wipe the bands before.
    renderer.autoClear = false;
    // three shifts a render target's scissor size, not its offset, by the mip level.
    target.scissor.set(0, piece.y0, target.width, (piece.y1 - piece.y0) << piece.level);
    target.scissorTest = true;
    try {
      this.onFace(piece.face, () => steps._applyPMREM(target));
    } finally {
      steps._renderCube = renderCube;
      renderer.autoClear = autoClear;
      target.scissorTest = false;
    }
  }

  /** Makes `bake` the map of `look`, giving back the one it had. */
  private use(look: Look, bake: Bake): void {
    const old = this.bakes.get(look);
    if (old && old !== bake) {
      if (old.shared) {
        this.collected.unregister(old);
        this.unuse(old.shared);
      } else if (old.target !== bake.target) {
        old.target.dispose();
      }
    }
    baked.add(bake.target.texture);
    this.bakes.set(look, bake);
  }

  /** One look fewer uses `entry`; the least recently used maps no look uses are disposed past `keep`. */
  private unuse(entry: SharedBake): void {
    entry.users--;
    let unused = 0;
    for (const e of this.shared.values()) if (e.users === 0) unused++;
    for (const [key, e] of this.shared) {
      if (unused <= this.keep) break;
      if (e.users > 0) continue;
      this.shared.delete(key);
      e.target.dispose();
      unused--;
    }
  }

  private complete(look: Look, bake: Bake): void {
    this.use(look, bake);
    this.bakesDone++;
  }

  /**
   * Completes an amortised bake: its levels are copied into the map in use when they match in size and no
   * other look shares it, so the scene keeps the same texture (a new one would rebuild every material that
   * the environment lights).
   */
  private completeInPlace(look: Look, bake: Bake): void {
    const current = this.bakes.get(look);
    const live = current?.target;
    const levels = levelsOf(bake.target);
    if (!current || !live || live.width !== bake.target.width || levelsOf(live).length !== levels.length || !this.own(current)) return this.complete(look, bake);
    levels.forEach(({ width }, level) => {
      region.max.set(width, width, 6);
      this.renderer.copyTextureToTexture(bake.target.texture, live.texture, region, null, level, level);
    });
    bake.target.dispose();
    this.complete(look, { ...bake, target: live });
  }

  /** Whether `bake` is its look's alone, taking it out of the shared maps when only its look uses it (it is about to be rewritten). */
  private own(bake: Bake): boolean {
    const entry = bake.shared;
    if (entry === null) return true;
    if (entry.users > 1) return false;
    this.shared.delete(entry.key);
    this.collected.unregister(bake);
    bake.shared = null;
    return true;
  }

  /** Abandons the amortised bake under way (a newer one replaces it). */
  private drop(): void {
    this.pending?.target.dispose();
    this.pending = null;
  }
}

const renderers = new WeakMap<THREE.WebGPURenderer, LookRenderer>();

/** The look's state for `renderer` (see LookRenderer for `amortise`). */
export function lookRendererOf(renderer: THREE.WebGPURenderer, amortise = true): LookRenderer {
  let r = renderers.get(renderer);
  if (!r) renderers.set(renderer, (r = new LookRenderer(renderer, amortise)));
  return r;
}
