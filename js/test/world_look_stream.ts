// limina: --deterministic
// The world's look on the state stream (its look settings, lighting and view
// camera: a snapshot's `world`, a delta's when it changed) is rebuilt only when
// a revision of its inputs moved (render/look.ts's Revision): a tick with the
// look unchanged does not build it at all, and every way a look changes —
// through the skills, or code setting three's lights, the view camera, the
// sun or the post settings in place — still reaches the stream, once; and a
// look's own revision moves with each of its inputs.
import { createWorldSession, resolveProfile, StateSync, worldLookFeed, type WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { value } from "./support/results.ts";

const STEP = 1 / 60;
const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const call = async <T>(s: WorldSession, tool: string, input: unknown) => value<T>(await s.registry.invoke(tool, input, BUILDER));

interface Message {
  method: string;
  params: Record<string, any>;
}

/** A world with a floor streaming to a sink, the look's builds counted. */
async function streamedWorld() {
  const s = createWorldSession({ simulate: false, checkpointEvery: 0 });
  await call(s, "scene.createEntity", { shape: "box", size: [60, 1, 60], position: [0, -0.5, 0], static: true });
  const feed = worldLookFeed(s);
  let builds = 0;
  const messages: Message[] = [];
  const sync = new StateSync(s.entities, s.spatial, { scene: { revision: () => feed.revision(), look: () => (builds++, feed.look()) }, sink: (text) => messages.push(JSON.parse(text)) });
  /** Steps the world once and streams the tick; returns this tick's messages. */
  const step = (): Message[] => {
    s.step(STEP);
    sync.tick(s.tick);
    return messages.splice(0);
  };
  return { s, step, builds: () => builds };
}

/** The world's look now, as a fresh feed builds it. */
const lookNow = (s: WorldSession) => JSON.stringify(worldLookFeed(s).look());

test("an unchanged look is not rebuilt tick after tick, and no delta carries it", async () => {
  const { s, step, builds } = await streamedWorld();
  const snapshot = step().find((m) => m.method === "state/snapshot");
  assert(snapshot !== undefined, "the first tick brings the sink's snapshot");
  assertEquals(JSON.stringify(snapshot.params.world), lookNow(s), "the snapshot carries the world's look");
  const built = builds();
  assertEquals(built, 1, "the look was built once for the first tick");
  for (let i = 0; i < 30; i++) {
    for (const m of step()) assert(m.method !== "state/delta" || !("world" in m.params), `tick ${s.tick}: a delta carries an unchanged look`);
  }
  assertEquals(builds(), built, "thirty ticks with the look unchanged did not build it");
});

/** Each way the look changes, and a check of what the stream then carries. */
const CHANGES: [string, (s: WorldSession) => Promise<unknown> | void, (world: any) => boolean][] = [
  ["render.setPost (the post settings replaced)", (s) => call(s, "render.setPost", { bloom: { strength: 2.5 } }), (w) => w.look.post.bloom.strength === 2.5],
  ["the post settings edited in place", (s) => void (s.look.post.antialias = "fxaa"), (w) => w.look.post.antialias === "fxaa"],
  ["the quality tier set", (s) => void (s.look.quality = "cinematic"), (w) => w.look.quality === "cinematic"],
  ["the sun set by the time-of-day hook", (s) => s.look.environment.setSun(120, 30), (w) => w.look.environment.sunAzimuth === 120 && w.look.environment.sunElevation === 30],
  // The sun stays where it is: the lights do not change, the environment's settings do.
  ["render.setEnvironment (the exposure)", (s) => call(s, "render.setEnvironment", { exposure: 1.75 }), (w) => w.look.environment.exposure === 1.75],
  // The light stays where it is: the lighting does not change, the sun's direction does.
  ["the sun light's target moved by code", (s) => void s.lighting.directional.target.position.set(2, 0, 0), (w) => w.look.environment.sunAzimuth !== 120],
  ["the sun light moved by code", (s) => void s.lighting.directional.position.set(-5, 9, 6), (w) => w.lighting.directional.position[0] === -5 && w.look.environment.sunAzimuth !== 120],
  ["the sun light's intensity set by code", (s) => void (s.lighting.directional.intensity = 7), (w) => w.lighting.directional.intensity === 7],
  ["the sun light's shadow bias set by code", (s) => void (s.lighting.directional.shadow.bias = -0.002), (w) => w.lighting.directional.shadow.bias === -0.002],
  ["the ambient light's colour set by code", (s) => void s.lighting.ambient.color.setHex(0x112233), (w) => w.lighting.ambient.color === 0x112233],
  ["camera.set", (s) => call(s, "camera.set", { position: [20, 10, 0], target: [0, 1, 0] }), (w) => w.view.position[0] === 20 && w.view.target[1] === 1],
  ["a pose whose target alone moved (the camera stands and looks the same way)", (s) => void s.view.set({ position: [20, 10, 0], target: [-20, -8, 0] }), (w) => w.view.target[0] === -20],
  ["the view camera steered by code", (s) => void s.view.camera.position.setY(12), (w) => w.view.position[1] === 12],
  ["the field of view set by code", (s) => void (s.view.camera.fov = 40), (w) => w.view.fov === 40],
];

test("every way the look changes reaches the stream once, as the world's look now", async () => {
  const { s, step } = await streamedWorld();
  step();
  for (const [what, change, carries] of CHANGES) {
    const before = lookNow(s);
    await change(s);
    assert(lookNow(s) !== before, `${what}: the change changes the world's look`);
    const deltas = step().filter((m) => m.method === "state/delta");
    assertEquals(deltas.length, 1, `${what}: one delta follows the change`);
    const world = deltas[0].params.world;
    assert(world !== undefined, `${what}: the delta carries the look`);
    assertEquals(JSON.stringify(world), lookNow(s), `${what}: the delta's look is the world's look now`);
    assert(carries(world), `${what}: the delta's look has the change`);
    for (const m of step()) assert(m.method !== "state/delta" || !("world" in m.params), `${what}: the tick after resends the look`);
  }
});

test("a change undone within a tick sends nothing, as a look compared whole would", async () => {
  const { s, step, builds } = await streamedWorld();
  step();
  const built = builds();
  const { intensity } = s.lighting.directional;
  s.lighting.directional.intensity = 9;
  s.lighting.directional.intensity = intensity;
  for (const m of step()) assert(m.method !== "state/delta" || !("world" in m.params), "an undone change is not sent");
  assertEquals(builds(), built, "nor was the look rebuilt for it");
});

test("a look's revision moves with each of its own inputs, and only then", () => {
  const s = createWorldSession({ simulate: false, checkpointEvery: 0 });
  const { look } = s;
  const changes: [string, () => void][] = [
    ["the sun light moved", () => s.lighting.directional.position.set(1, 9, 6)],
    ["the sun light's target moved", () => s.lighting.directional.target.position.set(0, 0, 1)],
    ["the environment set", () => look.environment.setSun(200, 20)],
    ["the tier set", () => void (look.quality = "low")],
    ["the post settings replaced", () => void (look.post = { ...look.post, antialias: "taa" })],
    ["a post setting edited in place", () => void (look.post.antialias = "smaa")],
  ];
  let revision = look.revision.current;
  for (const [what, change] of changes) {
    assertEquals(look.revision.current, revision, `before ${what}: nothing changed, the revision stands`);
    change();
    assert(look.revision.current !== revision, `${what}: the revision moved`);
    revision = look.revision.current;
  }
});
