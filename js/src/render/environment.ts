// A world's environment: what lights and surrounds its scene — the physical
// sky (or an HDRI) as background and as image-based lighting, the sun's
// direction, a hemisphere fill, tone mapping and exposure, and distance and
// height fog tinted by the sky. The scene-side half of the look: state and
// TSL nodes, no renderer. Renderers bake its lighting (see look.ts) whenever
// `version` moves. Later systems (time of day, weather) drive it through
// setSun / set. Browser-safe: three only, HDRIs come through an injected loader.

import * as THREE from "three";
import { Sky } from "./sky.ts";
import { type Node, tsl } from "./tsl.ts";

const { vec3, vec4, uniform, exp, max, dot, normalize, pow, positionWorld, positionLocal, cameraPosition, cameraProjectionMatrix, modelViewMatrix, normalWorldGeometry, texture, equirectUV, fog } = tsl;

/** The HDRI presets embedded in the binary: each is the built-in asset `hdri_<name>`. */
export const HDRI_PRESETS = ["studio", "warehouse", "city", "forest", "sunset", "night", "park", "dawn"] as const;
export type HdriPreset = (typeof HDRI_PRESETS)[number];
/** "sky": the physical sky driven by the sun; otherwise an embedded HDRI. */
export type EnvironmentPreset = "sky" | HdriPreset;
export type ToneMappingName = "aces" | "agx" | "neutral" | "none";

export const TONE_MAPPINGS: Record<ToneMappingName, THREE.ToneMapping> = {
  aces: THREE.ACESFilmicToneMapping,
  agx: THREE.AgXToneMapping,
  neutral: THREE.NeutralToneMapping,
  none: THREE.NoToneMapping,
};

export interface FogSettings {
  enabled: boolean;
  /** Extinction per metre at the fog's base height. */
  density: number;
  /** How fast the fog thins with height above `height`, per metre (0: uniform). */
  heightFalloff: number;
  /** The height, metres, below which the fog is at full density. */
  height: number;
  /** A fixed colour (0xRRGGBB), or null to follow the sky's horizon. */
  color: number | null;
}

export interface EnvironmentSettings {
  preset: EnvironmentPreset;
  /** An asset id of kind "hdri" (the user's assets/ or a built-in): overrides `preset`. */
  hdri: string | null;
  /** Degrees clockwise from +Z toward +X, seen from above. */
  sunAzimuth: number;
  /** Degrees above the horizon (negative: below it). */
  sunElevation: number;
  /** Atmospheric haze of the physical sky, 1.7 (clear) to 10 (hazy). */
  turbidity: number;
  exposure: number;
  toneMapping: ToneMappingName;
  /** Strength of the image-based lighting from the sky or HDRI. */
  environmentIntensity: number;
  /** The sky-to-ground hemisphere fill light's intensity. */
  hemisphere: number;
  /** Draw the sky or HDRI behind the scene when the scene has no background of its own. */
  background: boolean;
  fog: FogSettings;
}

export const DEFAULT_FOG: Readonly<FogSettings> = Object.freeze({ enabled: true, density: 0.0025, heightFalloff: 0.04, height: 0, color: null });

/** The look a world starts with (the sun where the scene graph's default light stands). */
export function defaultEnvironment(): EnvironmentSettings {
  return {
    preset: "sky",
    hdri: null,
    sunAzimuth: 39.8,
    sunElevation: 49.4,
    turbidity: 2.5,
    exposure: 1,
    toneMapping: "aces",
    environmentIntensity: 1,
    hemisphere: 0.1,
    background: true,
    fog: { ...DEFAULT_FOG },
  };
}

/** The unit vector toward a sun at `azimuth`/`elevation` degrees. */
export function sunVector(azimuth: number, elevation: number, out = new THREE.Vector3()): THREE.Vector3 {
  const az = THREE.MathUtils.degToRad(azimuth);
  const el = THREE.MathUtils.degToRad(elevation);
  return out.set(Math.sin(az) * Math.cos(el), Math.sin(el), Math.cos(az) * Math.cos(el));
}

/** Azimuth and elevation, degrees, of a direction (need not be unit length). */
export function sunAngles(direction: THREE.Vector3): { azimuth: number; elevation: number } {
  const d = direction.clone().normalize();
  const azimuth = THREE.MathUtils.radToDeg(Math.atan2(d.x, d.z));
  return { azimuth: round((azimuth + 360) % 360), elevation: round(THREE.MathUtils.radToDeg(Math.asin(THREE.MathUtils.clamp(d.y, -1, 1)))) };
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** A deep copy of plain settings. */
export const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value));

/** An equirectangular HDR image, linear RGB(A) floats, and what fog takes from it. */
export interface LoadedHdri {
  texture: THREE.DataTexture;
  /** The average colour of its horizon band, linear. */
  horizon: THREE.Color;
  /**
   * What the texture shows, the same in every process (the engine's loader: the asset id and the sha256 of
   * its file; the texture is never written after its decode): bakes of it are kept on disk. Without it, a
   * bake is shared within the process only.
   */
  content?: string;
}

export type HdriLoader = (assetId: string) => Promise<LoadedHdri>;

/** An equirectangular OpenEXR image as the environment shows and bakes it (throws saying why it cannot be). */
export function decodeHdri(bytes: ArrayBuffer): LoadedHdri {
  // Half floats: filterable on every adapter (32-bit float filtering is an optional feature), and what
  // the loader reads a half-float EXR into without converting a value (the decode blocks the loop thread).
  const loader = new THREE.EXRLoader().setDataType(THREE.HalfFloatType);
  let parsed: { width: number; height: number; data: Uint16Array; format: THREE.PixelFormat };
  try {
    parsed = loader.parse(bytes) as unknown as typeof parsed;
  } catch (e) {
    throw new Error(`not a readable OpenEXR image: ${e instanceof Error ? e.message : e}`);
  }
  const { width, height, data, format } = parsed;
  const channels = format === THREE.RGBAFormat ? 4 : format === THREE.RGFormat ? 2 : format === THREE.RedFormat ? 1 : 4;
  if (channels !== 4) throw new Error("an HDRI needs RGB(A) channels");
  const texture = new THREE.DataTexture(data, width, height, THREE.RGBAFormat, THREE.HalfFloatType);
  texture.mapping = THREE.EquirectangularReflectionMapping;
  texture.colorSpace = THREE.LinearSRGBColorSpace;
  texture.minFilter = texture.magFilter = THREE.LinearFilter;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.needsUpdate = true;
  return { texture, horizon: horizonColor(data, width, height, channels, THREE.DataUtils.fromHalfFloat) };
}

/** The asset id of a preset's HDRI. */
export const hdriAssetOf = (preset: HdriPreset) => `hdri_${preset}`;

/** The mean of an equirect image's rows within ±`band` of the horizon (rows of RGBA values, `toFloat` reading each). */
export function horizonColor(data: ArrayLike<number>, width: number, height: number, channels: number, toFloat = (v: number) => v, band = 0.08): THREE.Color {
  const rows = Math.max(1, Math.round(height * band));
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = Math.floor(height / 2 - rows); y < Math.ceil(height / 2 + rows); y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * channels;
      for (let c = 0; c < 3; c++) sum[c] += toFloat(data[o + c]);
      n++;
    }
  }
  return new THREE.Color(sum[0] / n, sum[1] / n, sum[2] / n);
}

/** What drawing an environment takes beyond its settings (see `Environment.drawn`). */
interface Drawing {
  skyScene: THREE.Scene;
  backgroundNode: Node;
  skyDome: THREE.Mesh;
  fogNode: Node;
}

/**
 * The environment of one scene. `attach` adds its lights; each frame a
 * renderer calls `update` (which notices when code moved the sun light) and
 * reads `version` to know when to re-bake its lighting.
 */
export class Environment {
  readonly sky = new Sky();
  /** The hemisphere fill (sky colour above, ground below). */
  readonly hemisphere = new THREE.HemisphereLight(0xbfd4ff, 0x4a4238, 0.1);
  /** Bumped whenever the settings are set or the sun moves: renderers re-bake their lighting, the state stream resends them. */
  version = 1;
  /** The loaded HDRI when the settings name one, else null. */
  hdri: LoadedHdri | null = null;
  /** What only drawing uses (see `drawn`): built by the first renderer to ask, so a world that never renders (a server's) never builds it. */
  private drawing: Drawing | null = null;

  private current: EnvironmentSettings = defaultEnvironment();
  private readonly fogColor = uniform(new THREE.Color());
  private readonly fogDensity = uniform(0);
  private readonly fogFalloff = uniform(0);
  private readonly fogHeight = uniform(0);
  private readonly sunGlow = uniform(new THREE.Color());
  private readonly hdriMap = texture(new THREE.DataTexture(new Float32Array(4), 1, 1, THREE.RGBAFormat, THREE.FloatType));
  private readonly useHdri = uniform(0);
  private readonly lastSun = new THREE.Vector3();

  /** `sun`: the directional light that is the sun (its direction is the sky's). */
  constructor(readonly sun: THREE.DirectionalLight, private readonly loadHdri: HdriLoader) {
    this.hemisphere.name = "look.hemisphere";
    this.apply(this.current, false);
  }

  /** A scene holding only the sky, which renderers bake into environment lighting. */
  get skyScene(): THREE.Scene {
    return this.drawn().skyScene;
  }

  get backgroundNode(): Node {
    return this.drawn().backgroundNode;
  }

  /**
   * The background as a mesh of its own: three's background mesh with a depth test, drawn after everything
   * opaque, so only the pixels nothing covers evaluate the sky (three draws its background first, over every pixel).
   */
  get skyDome(): THREE.Mesh {
    return this.drawn().skyDome;
  }

  get fogNode(): Node {
    return this.drawn().fogNode;
  }

  /** The sky's, background's and fog's node graphs and the sky dome, built once, on first use. */
  private drawn(): Drawing {
    if (this.drawing) return this.drawing;
    const skyNode = this.sky.radiance(normalWorldGeometry);
    const hdriNode = this.hdriMap.sample(equirectUV(normalWorldGeometry)).rgb;
    const backgroundNode = this.useHdri.greaterThan(0.5).select(hdriNode, skyNode);
    const skyScene = new THREE.Scene();
    skyScene.backgroundNode = backgroundNode;
    const dome = new THREE.NodeMaterial();
    dome.side = THREE.BackSide;
    dome.depthWrite = false;
    dome.fog = false;
    dome.lights = false;
    // Turned with the camera, never moved by it, and at the far plane (as three's background mesh): behind everything drawn.
    const clip = cameraProjectionMatrix.mul(vec4(modelViewMatrix.mul(vec4(positionLocal, 0)).xyz, 1));
    dome.vertexNode = clip.setZ(clip.w);
    dome.colorNode = vec4(backgroundNode, 1);
    const skyDome = new THREE.Mesh(new THREE.SphereGeometry(1, 32, 32), dome);
    skyDome.name = "look.sky";
    skyDome.frustumCulled = false;
    // Last of the opaque objects (transparent ones follow, over it).
    skyDome.renderOrder = Number.MAX_SAFE_INTEGER;
    const { color, factor } = this.fogAt(positionWorld, cameraPosition);
    return (this.drawing = { skyScene, backgroundNode, skyDome, fogNode: fog(color, factor) });
  }

  /**
   * The height fog at world `position` seen from `eye`: its colour and how much of what lies there it hides (0–1).
   * `fogNode` is this at each fragment; GPU particles drawn without triangles take it at each particle.
   */
  fogAt(position: Node, eye: Node): { color: Node; factor: Node } {
    const { fogColor, fogDensity, fogFalloff, fogHeight, sunGlow } = this;
    const toPoint = position.sub(eye);
    const height = max(position.y.sub(fogHeight), 0);
    const factor = exp(fogDensity.mul(toPoint.length()).mul(exp(fogFalloff.mul(height).negate())).negate()).oneMinus();
    // In-scattering toward the sun: the haze glows around it.
    const color = vec3(fogColor).add(vec3(sunGlow).mul(pow(max(dot(normalize(toPoint), this.sky.sunDirection), 0), 8)));
    return { color, factor };
  }

  /** Everything a bake of this environment draws, as text: environments with equal keys bake the same map. */
  drawnKey(): string {
    const hdri = this.hdri;
    return hdri ? `hdri ${hdri.content ?? hdri.texture.uuid} ${hdri.texture.version}` : `sky ${this.sky.drawnKey()}`;
  }

  /** The current settings, with the sun's angles read from the sun light. */
  settings(): EnvironmentSettings {
    const { azimuth, elevation } = sunAngles(this.sunDirection());
    return { ...copy(this.current), sunAzimuth: azimuth, sunElevation: elevation };
  }

  /** The current settings themselves (read-only; per frame, without a copy). */
  get live(): Readonly<EnvironmentSettings> {
    return this.current;
  }

  /** Applies `settings` (loading an HDRI first when they name one: a missing one changes nothing). */
  async set(settings: EnvironmentSettings): Promise<void> {
    const id = settings.hdri ?? (settings.preset === "sky" ? null : hdriAssetOf(settings.preset));
    const hdri = id === null ? null : id === this.hdriLoadedFor && this.hdri ? this.hdri : await this.loadHdri(id);
    this.hdri = hdri;
    this.hdriLoadedFor = id;
    this.apply(copy(settings));
  }

  /** Moves the sun (the light and the sky together); the time-of-day hook. */
  setSun(azimuth: number, elevation: number): void {
    this.apply({ ...this.current, sunAzimuth: azimuth, sunElevation: elevation });
  }

  /** The direction toward the sun, from the sun light's pose. */
  sunDirection(out = new THREE.Vector3()): THREE.Vector3 {
    this.sun.updateMatrixWorld();
    this.sun.target.updateMatrixWorld();
    const from = new THREE.Vector3().setFromMatrixPosition(this.sun.target.matrixWorld);
    out.setFromMatrixPosition(this.sun.matrixWorld).sub(from);
    return out.lengthSq() > 0 ? out.normalize() : out.set(0, 1, 0);
  }

  /** Per frame, before rendering: follows a sun light that code moved. Returns the current version. */
  update(): number {
    const dir = this.sunDirection();
    if (dir.distanceToSquared(this.lastSun) > 1e-10) this.followSun(dir);
    return this.version;
  }

  private hdriLoadedFor: string | null = null;
  private explicitVersion = 0;

  /** Takes `s`; `moveSun` false keeps the light where it is (the settings' angles follow it). */
  private apply(s: EnvironmentSettings, moveSun = true): void {
    this.current = s;
    let dir = sunVector(s.sunAzimuth, s.sunElevation);
    if (moveSun) {
      // Keep the light's distance from its target; only its direction is the sun's.
      const distance = Math.max(this.sun.position.distanceTo(this.sun.target.position), 1);
      this.sun.position.copy(this.sun.target.position).addScaledVector(dir, distance);
      this.sun.updateMatrixWorld();
    } else {
      dir = this.sunDirection();
    }
    this.hemisphere.intensity = s.hemisphere;
    this.fogDensity.value = s.fog.enabled ? s.fog.density : 0;
    this.fogFalloff.value = s.fog.heightFalloff;
    this.fogHeight.value = s.fog.height;
    this.useHdri.value = this.hdri ? 1 : 0;
    if (this.hdri) this.hdriMap.value = this.hdri.texture;
    this.followSun(dir);
    this.explicitVersion = this.version;
  }

  /** Whether settings were set (not merely the sun light moved) after `version`: renderers bake those at once. */
  changedExplicitlySince(version: number): boolean {
    return this.explicitVersion > version;
  }

  private followSun(dir: THREE.Vector3): void {
    this.lastSun.copy(dir);
    const { azimuth, elevation } = sunAngles(dir);
    this.current.sunAzimuth = azimuth;
    this.current.sunElevation = elevation;
    this.sky.set({ sun: dir, turbidity: this.current.turbidity });
    const horizon = this.hdri ? this.hdri.horizon : this.sky.horizon;
    const fixed = this.current.fog.color;
    if (fixed !== null) this.fogColor.value.setHex(fixed);
    else this.fogColor.value.copy(horizon);
    // The glow around the sun: the sun's colour through the haze, none below the horizon or for fixed colours and HDRIs.
    const glow = fixed === null && !this.hdri ? Math.max(0, Math.min(1, dir.y * 4)) * 0.6 : 0;
    this.sunGlow.value.copy(this.sun.color).multiplyScalar(glow * 0.25);
    this.hemisphere.color.copy(this.hdri ? this.hdri.horizon : this.sky.zenithColor).multiplyScalar(1 / Math.max(1e-3, maxComponent(this.hdri ? this.hdri.horizon : this.sky.zenithColor)));
    this.hemisphere.groundColor.setHex(0x4a4238);
    // The ground beyond the scene, lit by the sun (irradiance / π) and the sky (about its horizon radiance).
    const sunOnGround = (this.sun.intensity * Math.max(dir.y, 0)) / Math.PI;
    this.sky.horizonLight.value.copy(this.sun.color).multiplyScalar(sunOnGround).add(this.sky.horizon);
    this.version++;
  }
}

const maxComponent = (c: THREE.Color) => Math.max(c.r, c.g, c.b);
