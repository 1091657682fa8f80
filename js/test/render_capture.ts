// render.capture and camera.*: the world rendered offscreen to a PNG on this
// machine's WebGPU adapter (lavapipe here), decoded and checked pixel by
// pixel; the view camera that the window shows and captures use by default.
import { assert, assertAlmostEquals, assertEquals, test } from "limina/testing";
import { Capturer, createEngine, createWorldSession, decodePng, isImageResult, onFixedStep, resolveProfile, type WorldSession } from "limina";
import { refused, value } from "./support/results.ts";
import { decodeCapture, meanDifference } from "./support/images.ts";

const PLAYER = { agentId: "p1", sessionId: "s1", permissions: resolveProfile("player.limited"), profile: "player.limited" };
const BUILDER = { agentId: "b1", sessionId: "s2", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
/** No catalog profile lacks scene.read: an unknown one grants nothing. */
const NOBODY = { agentId: "n1", sessionId: "s3", permissions: resolveProfile("nobody.unknown"), profile: "nobody.unknown" };

const RED = 0xff0000;

// One capturer (one offscreen renderer) for every session here.
const capturer = await Capturer.create();

async function world(): Promise<WorldSession> {
  const s = createWorldSession({ simulate: false });
  assertEquals(await s.enableCapture(capturer), true);
  return s;
}

interface Capture {
  png: string;
  mimeType: string;
  width: number;
  height: number;
  clamped: boolean;
  camera: { position: number[]; target: number[]; fov: number };
}

/** The capture's PNG, decoded from its base64. */
function image(c: Capture) {
  const bytes = (Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(c.png);
  assertEquals(Array.from(bytes.subarray(0, 8)), [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG signature");
  const png = decodePng(bytes);
  const at = (x: number, y: number) => {
    const o = (Math.floor(y) * png.width + Math.floor(x)) * 4;
    return Array.from(png.data.subarray(o, o + 4));
  };
  const corners = () => [at(0, 0), at(png.width - 1, 0), at(0, png.height - 1), at(png.width - 1, png.height - 1)];
  let red = 0;
  for (let i = 0; i < png.data.length; i += 4) if (isRed([png.data[i], png.data[i + 1], png.data[i + 2]])) red++;
  return { ...png, at, corners, redShare: red / (png.width * png.height), centre: () => at(png.width / 2, png.height / 2) };
}

const isRed = (c: number[]) => c[0] > 120 && c[1] < 50 && c[2] < 50;

/** What an empty world shows from `camera` at `width`×`height`: the engine's sky (and the ground below its horizon). */
async function background(camera: Capture["camera"], width: number, height: number) {
  const empty = await world();
  const c = value<Capture>(await empty.registry.invoke("render.capture", { width, height, camera }, PLAYER));
  empty.dispose();
  return image(c);
}

/** Whether two pixels are the same but for a level or two. */
const same = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]) <= 2);

test("a red box at the origin, captured from a camera looking at it: a PNG of the requested size, red at the centre, background at the corners", async () => {
  const s = await world();
  value(await s.registry.invoke("scene.createEntity", { color: RED }, BUILDER));
  const r = await s.registry.invoke("render.capture", { width: 320, height: 200, camera: { position: [0, 0, 4], target: [0, 0, 0] } }, PLAYER);
  const c = value<Capture>(r);
  assert(isImageResult(c), "an image result");
  assertEquals([c.mimeType, c.width, c.height, c.clamped], ["image/png", 320, 200, false]);
  assertEquals(c.camera, { position: [0, 0, 4], target: [0, 0, 0], fov: 55 }, "the given camera; fov the view's");
  const png = image(c);
  assertEquals([png.width, png.height, png.data.length], [320, 200, 320 * 200 * 4]);
  assert(isRed(png.centre()), `red at the centre: ${png.centre()}`);
  const sky = (await background(c.camera, 320, 200)).corners();
  png.corners().forEach((corner, i) => assert(same(corner, sky[i]) && !isRed(corner), `the sky at the corners: ${corner} vs ${sky[i]}`));
  assert(sky[0][2] > sky[0][0], `a bluish sky up high: ${sky[0]}`);
  assertEquals(r.metadata.eventsEmitted, ["render.captured", "skill.executed"]);
  const event = s.tracer.tail().find((e) => e.type === "render.captured")!;
  assertEquals(event.payload, { width: 320, height: 200, bytes: (c.png.length / 4) * 3 - (c.png.endsWith("==") ? 2 : c.png.endsWith("=") ? 1 : 0), camera: c.camera, entity: null });
  assertEquals(s.view.get().position, [10, 8, 12], "a capture's own camera leaves the view alone");
  s.dispose();
});

test("sizes: 512×512 by default; oversize requests are clamped to 1024 a side and say so", async () => {
  const s = await world();
  const plain = value<Capture>(await s.registry.invoke("render.capture", {}, PLAYER));
  assertEquals([plain.width, plain.height, plain.clamped], [512, 512, false]);
  assertEquals([image(plain).width, image(plain).height], [512, 512]);
  const big = value<Capture>(await s.registry.invoke("render.capture", { width: 5000, height: 300 }, PLAYER));
  assertEquals([big.width, big.height, big.clamped], [1024, 300, true]);
  assertEquals([image(big).width, image(big).height], [1024, 300]);
  const edge = value<Capture>(await s.registry.invoke("render.capture", { width: 1024, height: 1024 }, PLAYER));
  assertEquals([edge.width, edge.height, edge.clamped], [1024, 1024, false]);
  const description = s.registry.get("render.capture")!.description;
  assert(description.includes("512") && description.includes("clamped to 1024"), description);
  s.dispose();
});

test("camera.set moves the view the window shows and captures use; camera.get reads it back", async () => {
  const s = await world();
  value(await s.registry.invoke("scene.createEntity", { color: RED, position: [5, 1, -3] }, BUILDER));
  assertEquals(value(await s.registry.invoke("camera.get", {}, PLAYER)), { position: [10, 8, 12], target: [0, 0, 0], fov: 55 });
  const set = await s.registry.invoke("camera.set", { position: [5, 1, 1], target: [5, 1, -3], fov: 40 }, BUILDER);
  assertEquals(value(set), { position: [5, 1, 1], target: [5, 1, -3], fov: 40 });
  assertEquals(set.metadata.eventsEmitted, ["camera.moved", "skill.executed"]);
  assertEquals(value(await s.registry.invoke("camera.get", {}, PLAYER)), { position: [5, 1, 1], target: [5, 1, -3], fov: 40 });
  // The camera object a window renders through moved with it.
  const cam = s.view.camera;
  assertEquals([cam.position.toArray(), cam.fov], [[5, 1, 1], 40]);
  const dir = cam.getWorldDirection(cam.position.clone());
  assertAlmostEquals(dir.z, -1, 1e-9);

  const seen = value<Capture>(await s.registry.invoke("render.capture", { width: 128, height: 128 }, PLAYER));
  assertEquals(seen.camera, { position: [5, 1, 1], target: [5, 1, -3], fov: 40 }, "captures use the view");
  assert(isRed(image(seen).centre()), `the box at the centre: ${image(seen).centre()}`);
  // fov alone omitted keeps it; looking away, the box is out of view.
  value(await s.registry.invoke("camera.set", { position: [5, 1, 1], target: [5, 1, 9] }, BUILDER));
  assertEquals(s.view.get().fov, 40);
  const away = image(value<Capture>(await s.registry.invoke("render.capture", { width: 128, height: 128 }, PLAYER)));
  const behind = await background({ position: [5, 1, 1], target: [5, 1, 9], fov: 40 }, 128, 128);
  assert(same(away.centre(), behind.centre()), `the empty world's view at the centre: ${away.centre()} vs ${behind.centre()}`);
  assertEquals(away.redShare, 0);
  s.dispose();
});

test("the engine renders through the view camera: after camera.set its frame and a capture show the same view", async () => {
  const W = 160;
  const H = 120;
  const engine = await createEngine({ width: W, height: H, antialias: false, simulate: false });
  const s = engine.session;
  assert(engine.camera === s.view.camera, "the engine's camera is the world's view camera");
  assert(s.registry.has("render.capture"), "createEngine enables captures");
  value(await s.registry.invoke("scene.createEntity", { color: RED, position: [20, 0, 0] }, BUILDER));
  const centre = async () => {
    engine.renderFrame();
    const px = await engine.output.readPixels();
    const o = ((H / 2) * W + W / 2) * 4;
    return Array.from(px.subarray(o, o + 4));
  };
  assert(!isRed(await centre()), "the default view looks at the origin");
  value(await s.registry.invoke("camera.set", { position: [20, 0, 5], target: [20, 0, 0] }, BUILDER));
  assert(isRed(await centre()), "the engine's frame follows camera.set");
  const c = value<Capture>(await s.registry.invoke("render.capture", { width: W, height: H }, PLAYER));
  assertEquals(c.camera, { position: [20, 0, 5], target: [20, 0, 0], fov: 55 });
  assert(isRed(image(c).centre()), "and so does a capture");
  s.dispose();
});

test("the engine's renderer and its captures (two GPU devices) draw one scene's sun shadow each: the engine's frame is unchanged by a capture, and the capture is a single renderer's", async () => {
  const W = 160;
  const H = 120;
  const engine = await createEngine({ width: W, height: H, antialias: false, simulate: false, quality: "low" });
  const errors: string[] = [];
  (engine.renderer.backend as unknown as { device: GPUDevice }).device.addEventListener("uncapturederror", (e) => errors.push((e as GPUUncapturedErrorEvent).error.message));
  // The same world on the suite's capturer, which draws nothing else of it.
  const alone = createWorldSession({ simulate: false, quality: "low" });
  assertEquals(await alone.enableCapture(capturer), true);
  const lit = async (s: WorldSession, castShadow: boolean) => value(await s.registry.invoke("three.setLighting", { castShadow, direction: [-6, 5, 1] }, BUILDER));
  for (const s of [engine.session, alone]) {
    const floor = value<{ entity: string }>(await s.registry.invoke("scene.createEntity", { shape: "box", size: 1, position: [0, -0.1, 0], static: true }, BUILDER)).entity;
    value(await s.registry.invoke("three.setTransform", { entity: floor, scale: [20, 0.2, 20] }, BUILDER));
    value(await s.registry.invoke("three.setMaterial", { entity: floor, receiveShadow: true }, BUILDER));
    const box = value<{ entity: string }>(await s.registry.invoke("scene.createEntity", { shape: "box", size: 1, position: [0, 0.5, 0], color: RED }, BUILDER)).entity;
    value(await s.registry.invoke("three.setMaterial", { entity: box, castShadow: true }, BUILDER));
    await lit(s, true);
    value(await s.registry.invoke("camera.set", { position: [0, 2.5, 5], target: [0, 0.3, 0] }, BUILDER));
  }
  const frame = async () => {
    engine.renderFrame();
    return { width: W, height: H, data: await engine.output.readPixels() };
  };
  const capture = async (s: WorldSession) => decodeCapture(value<Capture>(await s.registry.invoke("render.capture", { width: W, height: H }, PLAYER)).png);
  const before = await frame();
  const single = await capture(alone);
  const differences: number[] = [];
  for (let round = 0; round < 3; round++) differences.push(meanDifference(await capture(engine.session), single), meanDifference(await frame(), before));
  assertEquals({ errors, differences }, { errors: [], differences: [0, 0, 0, 0, 0, 0] }, "each capture against a single renderer's, then the engine's frame against its first");
  await lit(alone, false);
  assert(meanDifference(single, await capture(alone)) > 0.2, "the shadow shows");
  engine.session.dispose();
  alone.dispose();
});

test("a view steered by code (an orbit control) reads back as where it now looks", async () => {
  const s = await world();
  s.view.set({ position: [0, 0, 10], target: [0, 0, 0] });
  s.view.camera.position.set(10, 0, 0);
  s.view.camera.lookAt(0, 0, 0);
  const pose = value<{ position: number[]; target: number[]; fov: number }>(await s.registry.invoke("camera.get", {}, PLAYER));
  assertEquals(pose.position, [10, 0, 0]);
  pose.target.forEach((v, i) => assertAlmostEquals(v, [0, 0, 0][i], 1e-9));
  s.dispose();
});

test("framing an entity: the camera looks at it from the view's direction and it fills the frame", async () => {
  const s = await world();
  const { entity } = value<{ entity: string }>(await s.registry.invoke("scene.createEntity", { color: RED, size: 2, position: [30, 0, -20] }, BUILDER));
  const c = value<Capture>(await s.registry.invoke("render.capture", { width: 200, height: 200, entity }, PLAYER));
  c.camera.target.forEach((v, i) => assertAlmostEquals(v, [30, 0, -20][i], 1e-9));
  const away = c.camera.position.map((v, i) => v - c.camera.target[i]);
  const view = [10, 8, 12];
  const cos = (away[0] * view[0] + away[1] * view[1] + away[2] * view[2]) / (Math.hypot(...away) * Math.hypot(...view));
  assertAlmostEquals(cos, 1, 1e-9, "the view's angle");
  const png = image(c);
  assert(isRed(png.centre()), `the entity at the centre: ${png.centre()}`);
  assert(png.redShare > 0.2 && png.redShare < 0.9, `it fills much of the frame: ${(png.redShare * 100).toFixed(1)}%`);
  const empty = (await background(c.camera, 200, 200)).corners();
  png.corners().forEach((corner, i) => assert(same(corner, empty[i]), `background at the corners: ${corner} vs ${empty[i]}`));
  s.dispose();
});

test("a capture right after another draws the lights as they are now, whether or not time passed between the two", async () => {
  // Three updates lights' uniforms once a frame: each capture is a frame of its own, whatever the wall clock did meanwhile.
  const s = await world();
  value(await s.registry.invoke("scene.createEntity", { shape: "box", size: 1, position: [0, 0.5, 0], color: 0x808080 }, BUILDER));
  const shot = async () => decodeCapture(value<Capture>(await s.registry.invoke("render.capture", { width: 64, height: 48, camera: { position: [0, 2, 4], target: [0, 0.5, 0] } }, PLAYER)).png);
  const sun = s.lighting.directional;
  const bright = await shot();
  sun.intensity /= 4;
  const dim = await shot();
  assert(meanDifference(bright, dim) > 1, `a dimmer sun shows at once: ${meanDifference(bright, dim).toFixed(2)}`);
  sun.intensity *= 4;
  assertEquals(meanDifference(bright, await shot()), 0, "bright again, drawn at once");
  sun.intensity /= 4;
  await new Promise((done) => setTimeout(done, 50));
  assertEquals(meanDifference(dim, await shot()), 0, "dim again, drawn after a pause");
  s.dispose();
});

test("permissions: without scene.read a capture and camera.get are denied; camera.set needs scene.write", async () => {
  const s = await world();
  const before = s.tracer.size;
  refused(await s.registry.invoke("render.capture", {}, NOBODY), "forbidden", "missing permission: scene.read");
  refused(await s.registry.invoke("camera.get", {}, NOBODY), "forbidden", "missing permission: scene.read");
  refused(await s.registry.invoke("camera.set", { position: [1, 2, 3], target: [0, 0, 0] }, PLAYER), "forbidden", "missing permission: scene.write");
  assertEquals(s.tracer.history().slice(before).map((e) => e.type), ["security.permission.denied", "security.permission.denied", "security.permission.denied"]);
  assertEquals(s.view.get(), { position: [10, 8, 12], target: [0, 0, 0], fov: 55 }, "the view did not move");
  s.dispose();
});

test("bad input is refused before any effect", async () => {
  const s = await world();
  const { entity } = value<{ entity: string }>(await s.registry.invoke("scene.createEntity", {}, BUILDER));
  const events = s.tracer.size;
  for (const [input, message] of [
    [{ position: [1e6, 0, 0], target: [0, 0, 0] }, "position"],
    [{ position: [0, 0, 5], target: [0, -2e5, 0] }, "target"],
    [{ position: [0, 0, 5], target: [0, 0, 0], fov: 0 }, "fov"],
    [{ position: [0, 0, 5], target: [0, 0, 0], fov: 171 }, "fov"],
    [{ position: [0, 0, 5], target: [0, 0, 5.0001] }, "at least 1 mm"],
    [{ position: [0, 0, 5] }, "target"],
    [{ position: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0] }, "up"],
    [{ position: [0, Number.NaN, 5], target: [0, 0, 0] }, "position"],
  ] as const) {
    refused(await s.registry.invoke("camera.set", input, BUILDER), "invalid_input", message);
  }
  for (const [input, message] of [
    [{ width: 0 }, "width"],
    [{ height: 1.5 }, "height"],
    [{ width: -4 }, "width"],
    [{ camera: { position: [0, 0, 1], target: [0, 0, 1] } }, "at least 1 mm"],
    [{ camera: { position: [0, 0, 4], target: [0, 0, 0], fov: 500 } }, "fov"],
    [{ camera: { position: [0, 0, 4], target: [0, 0, 0] }, entity }, "not both"],
    [{ format: "jpeg" }, "format"],
  ] as const) {
    refused(await s.registry.invoke("render.capture", input, PLAYER), "invalid_input", message);
  }
  assertEquals(s.tracer.size, events, "nothing recorded, nothing rendered");
  refused(await s.registry.invoke("render.capture", { entity: "ent_404" }, PLAYER), "not_found", "ent_404");
  assertEquals(s.view.get(), { position: [10, 8, 12], target: [0, 0, 0], fov: 55 });
  s.dispose();
});

test("captures never hold up the fixed step: steps run while each 1024² frame is read back", async () => {
  const s = await world();
  // The capture path is what is checked, over the bare look (no sky, fog or post passes): the look's
  // passes are GPU work, which on lavapipe is CPU work on the loop's own two cores, and its cost is
  // the look benchmark's to report (docs/PERF.md), not this test's.
  value(await s.registry.invoke("render.setPost", { ao: false, bloom: false, antialias: "none", grade: false, dof: false }, BUILDER));
  value(await s.registry.invoke("render.setEnvironment", { background: false, fog: false }, BUILDER));
  for (let i = 0; i < 40; i++) value(await s.registry.invoke("scene.createEntity", { color: RED, position: [i % 8, Math.floor(i / 8), 0] }, BUILDER));
  value(await s.registry.invoke("render.capture", { width: 1024, height: 1024 }, PLAYER)); // warm: pipelines compiled
  // Captures take turns, so they settle in order: the steps that ran while capture k was the one pending
  // (after capture k - 1 settled, before it did) are counted in slot k. A frame's steps run in one go
  // between two turns of the event loop, so steps in all three slots ran in three different frames.
  // A capture that holds the loop thread until its pixels are read and encoded lets none run in its slot,
  // however idle or busy the machine; a loaded machine only makes each slot longer.
  const steps = [0, 0, 0];
  let settled = 0;
  const off = onFixedStep(() => {
    if (settled < steps.length) steps[settled]++;
  });
  const frames = Limina.loop.stats().frames;
  const started = performance.now();
  const captures = await Promise.all(steps.map(() => s.registry.invoke("render.capture", { width: 1024, height: 1024 }, PLAYER).finally(() => settled++)));
  const took = performance.now() - started;
  off();
  for (const r of captures) assertEquals(value<Capture>(r).width, 1024);
  console.log(`  3 captures at 1024² took ${took.toFixed(0)} ms over ${Limina.loop.stats().frames - frames} frames; steps while each was pending: ${steps.join(", ")}`);
  assert(steps.every((n) => n > 0), `a fixed step ran while each capture was pending: ${steps.join(", ")} steps`);
  s.dispose();
});

test("listed only where captures work: registered by enableCapture, over MCP too, and answering in the Limina dialect", async () => {
  const s = createWorldSession({ simulate: false });
  const listed = () => s.registry.listTools().map((t) => t.name);
  assert(listed().includes("camera.set") && listed().includes("camera.get"), "camera.* is always there");
  assert(!listed().includes("render.capture"), "no capture until enabled");
  assertEquals(await s.enableCapture(capturer), true);
  assertEquals(await s.enableCapture(), true, "enabling twice is harmless");
  assertEquals(listed().filter((n) => n === "render.capture").length, 1);
  const mcp = s.mcp();
  mcp.initialize({ agentId: "m", sessionId: "sess_m", profile: "system.readonly" });
  assert(mcp.listTools().some((t) => t.name === "render.capture"));
  const r = await mcp.callTool({ tool: "render.capture", input: { width: 64, height: 48 } });
  assert(r.success, r.error?.message);
  const c = r.result as Capture;
  assertEquals([c.mimeType, image(c).width, image(c).height], ["image/png", 64, 48]);
  s.dispose();
});

test("with no WebGPU adapter, captures are not offered and say why", async () => {
  // A backend this machine lacks leaves the process without an adapter.
  const r = await Limina.run({ cmd: "env", args: ["DENO_WEBGPU_BACKEND=dx12", Limina.execPath, "tests/fixtures/capture_no_adapter.ts"] });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(JSON.parse(r.stdout.trim()), {
    enabled: false,
    listed: false,
    camera: true,
    error: { code: "unavailable", message: "no WebGPU adapter on the backends DENO_WEBGPU_BACKEND=dx12 names: rendering is unavailable" },
  });
  // Said once, clearly, and nothing else: no driver noise.
  assertEquals(r.stderr, "limina: no WebGPU adapter on the backends DENO_WEBGPU_BACKEND=dx12 names: rendering is unavailable\n");
  const rpc = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const mcp = await Limina.run({
    cmd: "env",
    args: ["DENO_WEBGPU_BACKEND=dx12", Limina.execPath, "--mcp-stdio", "--verbose"],
    stdin: [rpc(1, "initialize", { agentId: "a", sessionId: "s", profile: "builder.readWrite" }), rpc(2, "tools/list", {}), rpc(3, "tools/call", { name: "render.capture", arguments: {} })].join("\n") + "\n",
  });
  assertEquals(mcp.code, 0, mcp.stderr);
  assert(mcp.stderr.includes("limina: render.capture is not offered: no GPU driver (Vulkan or EGL) is installed"), mcp.stderr);
  const replies = new Map(mcp.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((m) => [m.id, m]));
  const tools = replies.get(2).result.tools.map((t: { name: string }) => t.name);
  assert(!tools.includes("render.capture") && tools.includes("camera.set"), tools.join(" "));
  assertEquals(replies.get(3).error.data.error, { code: "not_found", message: "unknown skill: render.capture" });
});
