// A world session: one World (SoA transforms + EntityTable), its own native
// physics world, its Three.js scene graph, its spatial index, its sounds, its
// world log and the skill registry over them — what a game, a test or an MCP server
// starts from. The session owns these; each skill module and system gets
// only the services it uses.

import type * as THREE from "three";
import { AudioScene } from "../../crates/limina-audio/js/audio.ts";
import { renderConfig } from "../../crates/limina-render/js/ops.ts";
import { PhysicsWorld } from "../../crates/limina-physics/js/physics.ts";
import { Navigation } from "../../crates/limina-nav/js/nav.ts";
import { AgentDirectory, type AgentSummary } from "./agents/directory.ts";
import { Avatars } from "./web/avatar.ts";
import { followCamera } from "./audio/listener.ts";
import { CameraRig } from "./camera/rig.ts";
import { CharacterSystem } from "./characters/characters.ts";
import { WorldResources } from "./ecs/resources.ts";
import { World } from "./ecs/world.ts";
import { onFixedStep, onFrame } from "./loop.ts";
import { Mcp } from "./mcp/mcp.ts";
import { Tracer, type TracerOptions } from "./observability/tracer.ts";
import { Game } from "./game/game.ts";
import { WorldDigestCache } from "./persistence/digest.ts";
import { decodeSnapshot, encodeSnapshot, replaceWorld, snapshotSession } from "./persistence/snapshot.ts";
import { PackageHost, type PackageHostServices } from "./packages/host.ts";
import { PolicyEngine } from "./policy/engine.ts";
import { LiveIdentities } from "./policy/identity.ts";
import { Capturer } from "./render/capture.ts";
import { loadHdriAsset } from "./render/hdri.ts";
import { attachLook, Look } from "./render/look.ts";
import type { QualityTier } from "./render/quality.ts";
import { ViewCamera } from "./render/view-camera.ts";
import { Entities } from "./scene/entities.ts";
import { Prefabs } from "./scene/prefabs.ts";
import { createSceneGraph, type Lighting } from "./scene/scene-graph.ts";
import { registerCoreSkills } from "./skills/core.ts";
import { renderSkills } from "./skills/render.ts";
import { SkillRegistry } from "./skills/registry.ts";
import type { SceneBuilder } from "./skills/system.ts";
import { Locomotion } from "./social/locomotion.ts";
import { Terrain } from "./terrain/terrain.ts";
import { Climate } from "./climate/climate.ts";
import { VfxEmitters } from "./vfx/emitters.ts";
import { VfxLayer } from "./vfx/layer.ts";
import { SpatialIndex } from "./spatial/spatial-index.ts";
import { UiLayer } from "./ui/layer.ts";

export interface WorldSessionOptions {
  /** Attach the dynamic policy engine (default: static profile checks). */
  policy?: boolean;
  /** Step physics on the host loop's fixed steps (default true). */
  simulate?: boolean;
  /** Start paused: on the loop, but taking no steps until `paused` is set false (default false). */
  paused?: boolean;
  /** Options of the session's world log. */
  trace?: TracerOptions;
  /**
   * Let `dev.reload` swap skill handlers (default true: a module that makes
   * its own session is its operator; `limina --mcp-*` allows it only with
   * `--dev`, since every reload loads another copy of a module).
   */
  skillReload?: boolean;
  /** Log a `world.checkpoint` (tick and world digest) every this many steps; 0 never (default 60). */
  checkpointEvery?: number;
  /** Where packages are installed, whom they must be signed by, and their sandboxes' budgets (default: the environment's settings and DEFAULT_PACKAGE_LIMITS). */
  packages?: Pick<PackageHostServices, "install" | "limits">;
  /** The render quality tier the world starts at (default: `--quality`, else balanced). */
  quality?: QualityTier;
  /** The agent ids held live in this world, when something (a server's handshakes) held them before it existed. */
  identities?: LiveIdentities;
}

export class WorldSession {
  readonly tracer: Tracer;
  /** The ECS: SoA transforms and the EntityTable. */
  readonly world = new World();
  /** Named state the world holds beside its entities (game state): digests, snapshots and world files cover it. */
  readonly resources = new WorldResources();
  /** This session's own Rapier world. */
  readonly physics = new PhysicsWorld();
  /** This world's sounds, heard from its view camera. */
  readonly audio = new AudioScene();
  readonly scene: THREE.Scene;
  readonly lighting: Lighting;
  /** The world's render settings: environment, post stack, quality tier (what render.* skills change). */
  readonly look: Look;
  /** The world's view camera: what the window shows, what captures use by default. */
  readonly view = new ViewCamera();
  /** Whole entities: ECS entity + scene object + physics body. */
  readonly entities: Entities;
  /** Groups of entities defined once and placed many times. */
  readonly prefabs: Prefabs;
  readonly spatial: SpatialIndex;
  /** The world's UI containers (what ui.* skills author). */
  readonly ui: UiLayer;
  /** The agents living in this world, as their systems publish them. */
  readonly agents = new AgentDirectory();
  /** Agents walking toward what they approach (social.approach). */
  readonly locomotion: Locomotion;
  /** People who joined from the browser page, each in an avatar (avatar.take; the world resource "avatars"). */
  readonly avatars: Avatars;
  /** The ground: a generated region, its water, vegetation and edits (world.* and terrain.* skills; the world resource "terrain"). */
  readonly terrain: Terrain;
  /** The world's time of day and weather (world.setTime, world.setWeather; the world resources "world.time" and "world.weather"). */
  readonly climate: Climate;
  /** The world's particle emitters (vfx.* skills; the world resource "vfx"). */
  readonly vfx: VfxEmitters;
  /** Draws the emitters' (and the weather's) particles, on whichever renderer draws the scene. */
  readonly particles: VfxLayer;
  /** The navmesh over the static colliders, and the crowd walking it (the world resource "nav"). */
  readonly nav: Navigation;
  /** Bodies that walk: humanoids with controllers and animation (character.*, animation.*, nav.moveTo; the world resource "characters"). */
  readonly characters: CharacterSystem;
  /** What drives the view camera when a rig does (camera.follow, camera.orbit, …). */
  readonly cameraRig: CameraRig;
  /** The world's gameplay: items, quests, triggers, stats, dialogue … (its state is world resources). */
  readonly game: Game;
  /** Named scene builders `dev.reload` can re-run. */
  readonly sceneBuilders = new Map<string, SceneBuilder>();
  /** Whether `dev.reload` may swap skill handlers. */
  readonly skillReload: boolean;
  readonly registry: SkillRegistry;
  /** Set when the session runs with the dynamic policy engine. */
  readonly policy: PolicyEngine | null;
  /** Packages loaded into sandboxes in this world. */
  readonly packages: PackageHost;
  /** The agent ids live MCP sessions and packages hold: no one may take one, or one that reads as it. */
  readonly identities: LiveIdentities;
  /** Steps this world has taken (carried on from its snapshot when restored): the tick its log records. */
  tick = 0;
  /**
   * True when this session was restored from a snapshot (a world file): a module skips its
   * one-time building. `restoredAgents` then holds the agent records saved with it.
   */
  restored = false;
  restoredAgents: AgentSummary[] = [];
  /**
   * While true the session takes no steps: no physics, no tick, and its packages and agent
   * systems wait. A world built over awaited calls starts paused and resumes once built, so that
   * under `--deterministic` its first step is the same on every run, however long the build took.
   */
  paused: boolean;
  private readonly checkpointEvery: number;
  private readonly digests = new WorldDigestCache();
  private readonly stopStepping: () => void;
  private readonly stopListening: () => void;
  private readonly stopRefreshing: () => void;

  constructor(options: WorldSessionOptions = {}) {
    this.tracer = new Tracer({ tick: () => this.tick, ...options.trace });
    this.identities = options.identities ?? new LiveIdentities();
    this.checkpointEvery = options.checkpointEvery ?? 60;
    this.skillReload = options.skillReload ?? true;
    ({ scene: this.scene, lighting: this.lighting } = createSceneGraph());
    this.look = new Look(this.scene, this.lighting.directional, loadHdriAsset, options.quality ?? startingTier());
    attachLook(this.scene, this.look);
    this.entities = new Entities(this.world, this.scene, this.physics, (type, payload) => void this.tracer.emit(type, { tick: this.tick, ...(payload as object) }));
    this.resources.register("physics.contacts", this.entities.contactsResource());
    this.prefabs = new Prefabs(this.entities);
    this.resources.register("scene.prefabs", this.prefabs);
    this.spatial = new SpatialIndex(this.world);
    this.ui = new UiLayer(this.scene, this.entities);
    this.avatars = new Avatars(this.entities, () => this.characters);
    this.agents.publish(this.avatars);
    this.resources.register("avatars", this.avatars);
    this.terrain = new Terrain(this.physics);
    this.resources.register("terrain", this.terrain);
    this.climate = new Climate(this.look.environment, this.lighting, () => this.tick);
    this.resources.register("world.time", this.climate.clock);
    this.resources.register("world.weather", this.climate.weather);
    this.vfx = new VfxEmitters({ tick: () => this.tick, tracer: this.tracer, entityExists: (id) => Boolean(this.world.entities.get(id)) });
    this.resources.register("vfx", this.vfx);
    this.particles = new VfxLayer(this.scene, {
      emitters: () => this.vfx.live(),
      tick: () => this.tick,
      positionOf: (id) => {
        const e = this.world.entities.get(id);
        return e ? this.world.position(e.eid) : null;
      },
      wind: () => this.climate.weather.wind(),
      light: () => this.climate.light(),
      precipitation: () => {
        const p = this.climate.weather.precipitation();
        return p && { ...p, since: this.climate.weather.state.since };
      },
    });
    this.nav = new Navigation(this.physics);
    this.characters = new CharacterSystem(this.entities, this.nav, this.tracer);
    this.resources.register("nav", this.characters.navState);
    this.resources.register("characters", this.characters);
    this.cameraRig = new CameraRig(this.view, this.entities, this.physics);
    this.locomotion = new Locomotion(this.entities, this.agents, this.tracer, this.characters);
    this.registry = new SkillRegistry(this.tracer, () => this.tick);
    this.game = new Game({
      entities: this.entities,
      spatial: this.spatial,
      tracer: this.tracer,
      resources: this.resources,
      ui: this.ui,
      audio: this.audio,
      tick: () => this.tick,
      checkpointing: {
        take: (exclude) => {
          const snap = snapshotSession(this, { exclude, withoutUi: true });
          return { bytes: encodeSnapshot(snap), digest: snap.snapshot.digest };
        },
        load: (bytes, keep) => replaceWorld(this, decodeSnapshot(bytes), keep),
      },
    });
    this.policy = options.policy ? new PolicyEngine(this.tracer) : null;
    this.registry.attachPolicy(this.policy);
    // Without the dynamic engine, packages still get one: it decides their loads and crossings and keeps their budgets.
    this.paused = options.paused ?? false;
    this.packages = new PackageHost({ ...options.packages, registry: this.registry, agents: this.agents, identities: this.identities, tracer: this.tracer, policy: this.policy ?? new PolicyEngine(this.tracer), simulate: options.simulate ?? true, paused: () => this.paused });
    registerCoreSkills(this);
    this.stopStepping = options.simulate ?? true ? onFixedStep((dt) => {
      if (!this.paused) this.step(dt);
    }) : () => {};
    // Like stepping, following the camera is what a session on the loop does.
    this.stopListening = options.simulate ?? true ? followCamera(this.audio, this.view.camera) : () => {};
    // The spatial grid is re-indexed once a frame, not by the first query after it.
    this.stopRefreshing = options.simulate ?? true ? onFrame(() => this.spatial.refresh()) : () => {};
  }

  /** A new in-process MCP endpoint over this world. */
  mcp(): Mcp {
    return new Mcp(this.registry);
  }

  /**
   * Registers render.capture over `capturer`, or by default over one that
   * starts WebGPU on the first capture: a world that never captures never
   * touches the GPU driver (starting it takes about half a second and tens of
   * MB on a software adapter). Resolves to whether the skill is offered:
   * false, and it stays unlisted, when no GPU driver is installed; if the
   * first capture then finds no adapter after all, that capture fails
   * `unavailable` and the skill is withdrawn (listeners hear the change).
   */
  async enableCapture(capturer?: Capturer): Promise<boolean> {
    if (this.registry.has("render.capture")) return true;
    const chosen = capturer ?? Capturer.deferred(() => this.registry.unregister("render.capture"));
    if (chosen === null) return false;
    this.registry.registerAll(renderSkills, { scene: this.scene, view: this.view, entities: this.entities, capturer: chosen });
    return true;
  }

  /** Advances the simulation one step by hand (sessions made with `simulate: false`). */
  step(dt: number): void {
    this.tick++;
    this.locomotion.step(dt);
    this.characters.step(dt);
    this.terrain.step(dt);
    this.climate.step(dt);
    this.vfx.step();
    this.entities.step(dt);
    this.characters.afterStep(dt);
    this.cameraRig.step(dt);
    this.game.step();
    this.ui.step(dt);
    if (this.checkpointEvery > 0 && this.tick % this.checkpointEvery === 0) this.checkpoint();
  }

  /**
   * The digest of this world now: identity, SoA transforms, physics and everything else skills
   * change (see persistence/digest.ts); `exclude` leaves named world resources out.
   */
  digest(exclude: readonly string[] = []): string {
    return this.digests.digest(this, exclude);
  }

  /** Logs `world.checkpoint` with the tick and digest, for replay to compare; returns the digest. */
  checkpoint(): string {
    const digest = this.digest();
    this.tracer.emit("world.checkpoint", { tick: this.tick, digest });
    return digest;
  }

  /** Marks the session restored at `tick` with its saved agent records (what restoreSession ends with). */
  resume(tick: number, agents: AgentSummary[]): void {
    this.tick = tick;
    this.restored = true;
    this.restoredAgents = agents;
  }

  /** Stops this session's systems, agents and sounds and frees its physics world and world log. */
  dispose(): void {
    this.agents.close();
    this.stopStepping();
    this.stopListening();
    this.stopRefreshing();
    this.ui.clear();
    this.packages.dispose();
    this.nav.dispose();
    this.physics.dispose();
    this.audio.dispose();
    this.tracer.close();
  }
}

/** The tier `--quality` asked for, else balanced. */
function startingTier(): QualityTier {
  return (renderConfig().quality as QualityTier | null) ?? "balanced";
}

/** A new world session (the same as `new WorldSession(options)`). */
export function createWorldSession(options: WorldSessionOptions = {}): WorldSession {
  return new WorldSession(options);
}
