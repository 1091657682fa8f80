// The public API of Limina: `import { … } from "limina"`. Everything a game,
// a tool or a test builds on — the loop, the world session, rendering, the
// skill registry and MCP, agents — under one stable specifier. The testing
// harness is "limina/testing"; benchmark helpers are "limina/bench".

// The loop.
export { FIXED_DT, onFixedStep, onFrame, stepsRun, waitSteps } from "./loop.ts";

// Errors: one vocabulary from native ops to MCP.
export { engineError, ERROR_CODES, type ErrorCode, errorCodeOf, nativeErrorCodes } from "../../crates/limina-ops/js/errors.ts";
export type { Quat, QuatColumns, Vec3, Vec3Columns } from "../../crates/limina-ops/js/soa.ts";
export { base64 } from "../../crates/limina-ops/js/base64.ts";

// The world: ECS, entities, physics, spatial queries, scene graph.
export { MAX_ENTITIES, type SpawnOptions, World, type WorldSnapshot } from "./ecs/world.ts";
export { type EntityEntry, type EntityId, EntityTable, type EntityTableSnapshot } from "./ecs/entity-table.ts";
export { type BodySpec, type ContactEvent, type CreateEntityOptions, Entities, type EntityStyle, type GroupsSpec, type StyleChanges } from "./scene/entities.ts";
export { type EntityShape, geometryFor, normalizeShape, primitiveMesh, SHAPES, type ShapeInput, type ShapeName } from "./scene/shapes.ts";
export { COLLIDER_BUILDERS, collidersFor, type ColliderSpec, geometrySource, type GeometrySource } from "./scene/colliders.ts";
export { type BodyDescription, describeEntity, describeJoints, type EntityDescription, type EntityLook, type JointDescription, entityLook } from "./scene/describe.ts";
export { type Placement, type PrefabDefinition, type PrefabJoint, Prefabs, type PrefabsSnapshot } from "./scene/prefabs.ts";
export { createSceneGraph, type Lighting } from "./scene/scene-graph.ts";
export {
  type BodyDesc,
  type BodyKind,
  type BodyState,
  type ColliderDesc,
  type ColliderMaterial,
  type CollisionEvent,
  type Fallen,
  type Groups,
  type JointDesc,
  type JointState,
  type JointType,
  type KillPlane,
  type Motor,
  PhysicsWorld,
  type RayHit,
  type ShapeDesc,
} from "../../crates/limina-physics/js/physics.ts";
export { checkQueries, type Hit, SpatialGrid, type SpatialResults } from "../../crates/limina-ecs/js/grid.ts";
export { NativeSpatialQuery } from "../../crates/limina-ecs/js/native.ts";
export { SpatialIndex } from "./spatial/spatial-index.ts";
export {
  audioInfo,
  type AudioInfo,
  AudioScene,
  BUSES,
  type Bus,
  mixerBlocks,
  type PcmOptions,
  type Placed,
  SAMPLE_RATE,
  setBusVolume,
  type ToneOptions,
} from "../../crates/limina-audio/js/audio.ts";
export { createWorldSession, WorldSession, type WorldSessionOptions } from "./world-session.ts";

// Rendering and input.
export { createEngine, type Engine, type EngineOptions } from "./engine.ts";
export { bakeCache } from "../../crates/limina-render/js/bakes.ts";
export { createOffscreenRenderer } from "../../crates/limina-render/js/offscreen.ts";
export { readTexture, type RenderTarget } from "../../crates/limina-render/js/target.ts";
export { createGLTFLoader } from "../../crates/limina-render/js/gltf.ts";
export { decodePng, type DecodedImage, encodePng, gpuIdle, readPng, type RenderConfig, renderConfig, writePng } from "../../crates/limina-render/js/ops.ts";
export { Input, type InputEvent } from "../../crates/limina-render/js/input.ts";
export { type Orbit, steerOrbit } from "./render/orbit-camera.ts";
export { type CameraPose, DEFAULT_POSE, framing, placeCamera, ViewCamera } from "./render/view-camera.ts";
export { Capturer, MAX_CAPTURE_SIDE } from "./render/capture.ts";
export { applyEngineLook, attachLook, type BakeStore, defaultLookSettings, Look, LookRenderer, lookOf, lookRendererOf, type LookSettings } from "./render/look.ts";
export {
  defaultEnvironment,
  Environment,
  type EnvironmentPreset,
  type EnvironmentSettings,
  type FogSettings,
  HDRI_PRESETS,
  type HdriLoader,
  type HdriPreset,
  type LoadedHdri,
  sunAngles,
  sunVector,
  type ToneMappingName,
} from "./render/environment.ts";
export { Sky } from "./render/sky.ts";
export { type AoSettings, type BloomSettings, defaultPost, type DofSettings, type GradeSettings, type PostSettings, postOff } from "./render/post.ts";
export { type AntialiasMethod, QUALITY_TIERS, type QualityTier, TIERS, type TierSpec } from "./render/quality.ts";
export { createMaterial, isMaterialName, libraryMaterialOf, MATERIAL_NAMES, materialCatalog, type MaterialName, type MaterialOptions } from "./render/materials.ts";
export { LUT_NAMES, type LutName } from "./render/lut.ts";
export { loadHdriAsset } from "./render/hdri.ts";
export { type AssetInfo, env, readAsset, resolveAsset } from "../../crates/limina-runtime/js/host.ts";

// In-world UI: text laid out and rasterized natively, containers composited into textures.
export { glyphAtlas, type GlyphAtlas, layoutText, type Paint, paint, type PaintedImage, QUAD_FLOATS, type Quads, quadsOf, type Rgba, type TextLayout, type TextSpec } from "../../crates/limina-render/js/text.ts";
export { type ContainerInfo, MAX_CONTAINERS, UiLayer } from "./ui/layer.ts";
export { PanelSpec, type PanelSpecInput } from "./ui/panel.ts";
export { Anchor as UiAnchor, SCREEN_CORNERS } from "./ui/anchor.ts";
export { Lifecycle as UiLifecycle } from "./ui/lifecycle.ts";
export { CONTAINER_KINDS, type ContainerKind, UiStyle } from "./ui/style.ts";

// Skills, permissions and policy.
export {
  type ExecutionContext,
  type InvokeBase,
  type InvokeMetadata,
  type InvokeResult,
  inputSchema,
  type SkillCategory,
  type SkillDefinition,
  type SkillFactory,
  SkillRegistry,
  type SkillTool,
  type SurfaceMode,
} from "./skills/registry.ts";
export { compactSchema, type CompactOptions, oneLine, outlineSchema } from "./skills/compact-schema.ts";
export { type Permission, PERMISSIONS, PROFILES, resolveProfile } from "./skills/profiles.ts";
export { EventSchema, Quat as QuatSchema, Vec3 as Vec3Schema } from "./skills/schemas.ts";
export { type GltfResource, loadGltf } from "./skills/three.ts";
export { type CaptureResult, isImageResult } from "./skills/render.ts";
export type { SceneBuilder } from "./skills/system.ts";
export {
  type Boundary,
  type BudgetSnapshot,
  type Decision,
  PolicyEngine,
  type PolicyEngineOptions,
  type PolicyInput,
  type PolicyRule,
  type QuotaSnapshot,
} from "./policy/engine.ts";

// Sandboxes and packages.
export {
  type Answer,
  type Attestation,
  type InstallConfig,
  type Intent,
  listPackages,
  type OpenedPackage,
  openPackage,
  type Outcome as SandboxOutcome,
  type PackageInfo,
  Sandbox,
  type SandboxLimits,
  type SandboxStatus,
} from "../../crates/limina-sandbox/js/sandbox.ts";
export { type Attribution, HostBridge, type RunBudget, type RunResult } from "./packages/bridge.ts";
export { type ListedPackage, type LoadDecision, type LoadRequest, PackageHost, type PackageHostServices, type RejectReason } from "./packages/host.ts";
export { LoadedPackage } from "./packages/loaded.ts";
export { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from "./packages/limits.ts";
export { type OverBudget, TickBudget, type Ticking } from "./packages/tick-budget.ts";
export { PackageProvider } from "./packages/provider.ts";

// The world log.
export { type EmitOptions, type EngineEvent, fnv1a16, Tracer, type TracerOptions } from "./observability/tracer.ts";
export {
  type ExportedTrace,
  type ExportQuota,
  type IntegrityReason,
  parseTrace,
  readTrace,
  readTraceText,
  sealEvents,
  TRACE_TERMINATOR,
  type TraceFile,
  TraceIntegrityError,
  traceDir,
  type VerifiedTrace,
  verifyJsonl,
  type VerifyOptions,
  verifyTraceFile,
  WorldLog,
  type WorldLogOptions,
  writeTraceFile,
} from "../../crates/limina-trace/js/chain.ts";
/** SHA-256 of bytes, natively, as "sha256:<hex>". */
export { sha256 } from "../../crates/limina-trace/js/world-file.ts";
// The same chain checked in plain JS, as the static player checks it in a browser (no native code).
export { canonicalJson, type LogVerdict, verifyLog } from "./web/log-chain.ts";
export { sha256Hex } from "./web/sha256.ts";

// MCP.
export { Mcp, type McpSession, PROTOCOL_VERSION, toResponse } from "./mcp/mcp.ts";
export { CORE_TOOLS, type Listing, LISTING_KEY, type McpTool, type SchemaDetail, SCHEMAS_KEY, ToolListing } from "./mcp/listing.ts";
export { JSONRPC, JSONRPC_CODE_OF, type MCPErrorCode, mcpErrorToJsonRpc, type MCPRequest, type MCPResponse, type MCPTool } from "./mcp/protocol.ts";

// Agents.
export { AgentDirectory, type AgentSource, type AgentSummary } from "./agents/directory.ts";
export { type AgentRecord, AgentRegistry, type AgentSpec, type AgentUsage, type PerceivedEntity, type Perception, type QueuedAction } from "./agents/registry.ts";
export { type AgentBudget, AgentScheduler, DEFAULT_BUDGET, type SchedulerBudget } from "./agents/scheduler.ts";
export { type AgentSystems, createAgentSystems } from "./agents/systems.ts";
export { pursueNearest } from "./agents/policies.ts";
export {
  type DecideRequest,
  type DecideResult,
  decisionMessages,
  DEFAULT_RETRY,
  fromFunctionName,
  functionTools,
  type LLMProvider,
  MalformedReply,
  postJson,
  ProviderError,
  type ProviderMap,
  replyToolCalls,
  type RetryPolicy,
  type RetryRecord,
  retryAfterMs,
  toFunctionName,
  toolCallsFromFunctions,
  type Usage,
} from "./agents/providers/provider.ts";
export { ScriptedProvider } from "./agents/providers/scripted.ts";
export { OllamaChat, type OllamaOptions, OllamaProvider } from "./agents/providers/ollama.ts";
export { GATEWAY_UNCONFIGURED, type GatewayOptions, GatewayProvider } from "./agents/providers/gateway.ts";
export { ACTION_GRAMMAR, parseActions } from "./agents/action-grammar.ts";
export { CORE_PURPOSES, type DiscoveryMode, type Focus, type DiscoveryOptions, estimateTokens, LIST_SKILLS, MAX_CORE, READ_SKILL, SkillSurface } from "./agents/discovery.ts";
export { composeSystemPrompt, resolveSurfaceMode, SURFACE_MODES, SURFACE_RULES, type SurfaceRule } from "./agents/surface-modes.ts";
export { type PromptStats, promptStats } from "./agents/decision.ts";
export { type Conversation, Conversations, ConversationSpec, END_CONVERSATION, type Line, readingTicks } from "./agents/conversation.ts";

// Gameplay: the game families' module API (changes go through their skills, so the world log records them).
export {
  abilities,
  type As,
  callSkill,
  checkpoints,
  combat,
  damage,
  dialogue,
  events,
  game,
  interaction,
  inventory,
  items,
  npcs,
  progression,
  quests,
  saves,
  stats,
  status,
  triggers,
} from "./game/api.ts";
export { Game, type RuleContext } from "./game/game.ts";
export type { Condition, Effect, Who } from "./game/rules/schemas.ts";
export type { Memory, RecallQuery } from "./game/dialogue/npcs.ts";

// The durable world: digests, snapshots, world files and replay of the world log.
export { worldDigest, worldState } from "./persistence/digest.ts";
export { type WorldResource, WorldResources } from "./ecs/resources.ts";
export { decodeSnapshot, encodeSnapshot, restoreSession, type SessionSnapshot, snapshotSession } from "./persistence/snapshot.ts";
export { type KeepOptions, keepWorldFile, loadWorld, restoreBytes, saveWorld, saveWorldNow, snapshotBytes } from "./persistence/world-file.ts";
export { replay, type ReplayOptions, type ReplayResult, WORLD_WRITE_PERMISSIONS } from "./persistence/replay.ts";

// Terrain: deterministic native generation, the session's region (heights as a Float32Array), water, vegetation.
export {
  BIOMES,
  biomeOf,
  type Region,
  type SavedTerrain,
  SCATTER_LIMITS,
  Terrain,
  type TerrainChange,
  type TerrainEdit,
  type Vegetation,
  type Water,
  WATER_BUOYANCY,
  WATER_DRAG,
} from "./terrain/terrain.ts";
export {
  ALGORITHM_VERSION as TERRAIN_ALGORITHM_VERSION,
  classifyRegion,
  type ClimateParams,
  type DeformMode,
  deformHeights,
  type ErosionParams,
  type Generated,
  generateHeightsNow,
  generateRegion,
  generateRegionNow,
  heightsDigest,
  type Layout as TerrainLayout,
  type Preset as TerrainPreset,
  type RegionParams,
  regionLayout,
  scatter,
  SCATTER_STRIDE,
  type ScatterKind,
} from "../../crates/limina-terrain/js/terrain.ts";
export { applyWater, createHeightfield, createProps, type PropShape, refreshQueries, setHeightfield, type WaterBody } from "../../crates/limina-physics/js/heightfield.ts";
export { biomeColors, createTerrainMaterial, detailTexture, type TerrainMaterialOptions } from "./terrain/material.ts";
export { levelsOf, type TileOptions, TerrainTiles, tileGeometry } from "./terrain/tiles.ts";
export { createWaterMaterial, heightTexture, TerrainWater } from "./terrain/water.ts";
export { BLADES_PER_CLUMP, bushGeometry, grassGeometry, rockGeometry, type TreeLevel, TerrainVegetation, treeGeometry, treeImpostorGeometry, type VegetationDrawn, type VegetationOptions } from "./terrain/vegetation.ts";
export { TerrainView, type TerrainViewOptions } from "./terrain/view.ts";
export { Climate, DAYLIGHT_INTENSITY, daylight, sunAt, type TimeReport, WEATHER_EFFECTS, WEATHER_KINDS, Weather, type WeatherKind, type WeatherState, WorldClock } from "./climate/climate.ts";
export { type EmitterState, MAX_EMITTER_PARTICLES, MAX_EMITTERS, MAX_WORLD_PARTICLES, type EmitterOptions, VfxEmitters } from "./vfx/emitters.ts";
export { type VfxSource, VfxLayer } from "./vfx/layer.ts";
export { type FieldOptions, MAX_DISPATCHES, ParticleField } from "./vfx/particles.ts";
export { type PresetSpec, PRESETS, VFX_PRESETS, type VfxPreset } from "./vfx/presets.ts";
export { type BeforeRender, onBeforeRender } from "./render/before-render.ts";
/** The built-in humanoid's bones (names, parents, rest positions): what a user rig names its bones after for the built-in clips to drive it. */
export { BONES as HUMANOID_BONES } from "./characters/humanoid.ts";
/** A crowd of humanoids in one instanced, GPU-skinned draw per level of detail, from clips baked once (docs/navigation.md). */
export { accumulatePose, type BakedClips, BAKE_RATE, bakeClips, CROWD_CLIPS, CROWD_DETAILS, CrowdDraw, LAYER_FLOATS, LOD_BAND, LOD_DISTANCES, lodScale, ROOT_FLOATS } from "./characters/crowd.ts";
export type { Character } from "./characters/characters.ts";
export type { Appearance } from "./characters/humanoid.ts";
/** Characters' animation on the state stream: whole states, then discrete changes a copy advances through with the engine's own animator (docs/web.md). */
export { type AnimationChange, Animator, type SavedAnimation, SPEED_QUANTUM } from "./characters/animator.ts";
export { characterBody, type ClockedChange } from "./characters/characters.ts";
export { type AnimationFeed, type SceneFeed, StateSync, type StateSyncOptions } from "./mcp/state-sync.ts";
export { type MirrorChange, type MirrorEntity, StateMirror } from "./web/mirror.ts";
export { catchUp, StreamAnimation } from "./web/stream-animation.ts";
export { characterAnimation } from "./web/world-look.ts";
/** The world's look, lighting and view as StateSync's `scene` takes them: rebuilt only when a revision of their inputs moved. */
export { worldLookFeed } from "./web/world-look.ts";
