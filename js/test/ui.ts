// ui.* skills and the native text substrate: containers drawn as
// instanced quads (chrome and signed-distance glyphs) on real Three.js
// meshes, rendered offscreen on this machine's
// WebGPU adapter (lavapipe here) through render.capture, decoded and
// checked pixel by pixel.
import { assert, assertEquals, test } from "limina/testing";
import { Capturer, createWorldSession, type DecodedImage, decodePng, glyphAtlas, layoutText, paint, type Paint, QUAD_FLOATS, quadsOf, readPng, resolveProfile, type WorldSession } from "limina";
import { refused, value } from "./support/results.ts";

const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const PLAYER = { agentId: "p1", sessionId: "s2", permissions: resolveProfile("player.limited"), profile: "player.limited" };
const STEP = 1 / 60;

const capturer = await Capturer.create();

async function world(): Promise<WorldSession> {
  const s = createWorldSession({ simulate: false });
  assertEquals(await s.enableCapture(capturer), true);
  return s;
}

type Rgb = [number, number, number];
interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  n: number;
}

/** Pixel helpers over a decoded RGBA image. */
function pixelsOf(png: DecodedImage) {
  const at = (x: number, y: number): Rgb => {
    const o = (y * png.width + x) * 4;
    return [png.data[o], png.data[o + 1], png.data[o + 2]];
  };
  /** The bounding box and count of pixels `match` accepts. */
  const box = (match: (c: Rgb) => boolean): Box => {
    const b = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, n: 0 };
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        if (!match(at(x, y))) continue;
        b.n++;
        b.x0 = Math.min(b.x0, x);
        b.y0 = Math.min(b.y0, y);
        b.x1 = Math.max(b.x1, x);
        b.y1 = Math.max(b.y1, y);
      }
    }
    return b;
  };
  const pixels = (match: (c: Rgb) => boolean): [number, number][] => {
    const out: [number, number][] = [];
    for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) if (match(at(x, y))) out.push([x, y]);
    return out;
  };
  return { ...png, at, box, pixels };
}

/** A capture from `pose`, with pixel helpers. */
async function capture(s: WorldSession, width: number, height: number, camera?: { position: number[]; target: number[]; fov?: number }) {
  const r = value<{ png: string }>(await s.registry.invoke("render.capture", { width, height, ...(camera ? { camera } : {}) }, BUILDER));
  return pixelsOf(decodePng((Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(r.png)));
}

const near = (c: Rgb, want: Rgb, tol = 24) => c.every((v, i) => Math.abs(v - want[i]) <= tol);
const isRed = (c: Rgb) => c[0] > 150 && c[1] < 90 && c[2] < 90;
const isReddish = (c: Rgb) => c[0] > 60 && c[0] > 2 * c[1] && c[0] > 2 * c[2];
const isBlue = (c: Rgb) => near(c, [0, 0, 255], 40);
const isGreen = (c: Rgb) => near(c, [0, 255, 0]);
const isMagenta = (c: Rgb) => near(c, [255, 0, 255], 40);

const FRONT = { position: [0, 1, 6], target: [0, 1, 0], fov: 50 };

test("the text substrate: word wrap within maxWidth, maxLines with an ellipsis, DPI-aware pixelScale, the same paints as GPU quads", () => {
  const text = "the quick brown fox jumps over the lazy dog";
  const wide = layoutText({ text, size: 16 });
  assertEquals(wide.lines.length, 1);
  const wrapped = layoutText({ text, size: 16, maxWidth: 120 });
  assert(wrapped.lines.length >= 3 && wrapped.width <= 120, JSON.stringify(wrapped));
  assertEquals(wrapped.lines.join(" "), text);
  const cut = layoutText({ text, size: 16, maxWidth: 120, maxLines: 2 });
  assert(cut.truncated && cut.lines.length === 2 && cut.lines[1].endsWith("…"), JSON.stringify(cut));
  const ink = (scale: number) => {
    const img = paint(100, 30, scale, [{ op: "text", x: 4, y: 4, text: { text: "Hi there", size: 16 }, color: [255, 255, 255, 255] }]);
    let n = 0;
    for (let i = 3; i < img.data.length; i += 4) if (img.data[i] > 128) n++;
    return { img, n };
  };
  const one = ink(1);
  const two = ink(2);
  assertEquals([one.img.width, one.img.height, two.img.width, two.img.height], [100, 30, 200, 60]);
  assert(two.n > 3 * one.n && one.n > 40, `glyph pixels at 1× and 2×: ${one.n}, ${two.n}`);
  let threw = "";
  try {
    paint(10_000, 10, 1, []);
  } catch (e) {
    threw = (e as { code?: string }).code ?? "";
  }
  assertEquals(threw, "invalid_input", "an image over 4096 px a side is refused");
  // The same paints as GPU quads: one per box, one per inked glyph, over the shared atlas.
  const q = quadsOf([{ op: "roundRect", x: 0, y: 0, w: 100, h: 30, radius: 6, fill: [0, 0, 0, 255] }, { op: "text", x: 4, y: 4, text: { text: "Hi there", size: 16 }, color: [255, 255, 255, 255] }]);
  assertEquals([q.count, q.data.byteLength], [8, 8 * QUAD_FLOATS * 4]);
  const atlas = glyphAtlas();
  assert(atlas.version >= q.atlasVersion && atlas.data.length === atlas.width * atlas.height && atlas.data.some((v) => v > 128), `the atlas: ${atlas.width}×${atlas.height} v${atlas.version}`);
  const refusedQuads = (paints: Paint[]) => {
    try {
      quadsOf(paints);
      return "";
    } catch (e) {
      return `${(e as { code?: string }).code}: ${(e as Error).message}`;
    }
  };
  assert(refusedQuads([{ op: "triangle", points: [[0, 0], [1, 0], [0, 1]], fill: [0, 0, 0, 255] }]).startsWith("invalid_input: triangles"), "a triangle is not a quad");
  assert(refusedQuads([{ op: "text", x: 0, y: 0, text: { text: "x", size: 0 }, color: [0, 0, 0, 255] }]).startsWith("invalid_input: text size"), "a bad size is refused as in layout");
});

test("a speech bubble's text pixels lie inside its box, its tail below it towards the speaker", async () => {
  const s = await world();
  const speaker = value<{ entity: string }>(await s.registry.invoke("scene.createEntity", { shape: "box", size: 0.5, color: 0x202020, position: [-1.6, -0.4, 0] }, BUILDER)).entity;
  const { handle } = value<{ handle: string }>(
    await s.registry.invoke("ui.speechBubble", {
      anchor: { type: "world", position: [0, 1.2, 0] },
      text: "Hello there, traveller of the woods!",
      maxWidth: 180,
      style: { fill: "#ffffff", border: "#0000ff", borderWidth: 3, textColor: "#ff0000" },
      tail: { target: speaker },
    }, BUILDER),
  );
  assert(/^ui_[0-9a-z]+$/.test(handle), handle);
  const img = await capture(s, 320, 320, FRONT);
  const border = img.box(isBlue);
  const text = img.pixels(isRed);
  assert(border.n > 100, `the border is drawn: ${border.n} blue pixels`);
  assert(text.length > 60, `the text is drawn: ${text.length} red pixels`);
  for (const [x, y] of text) assert(x > border.x0 && x < border.x1 && y > border.y0 && y < border.y1, `text pixel (${x}, ${y}) outside the box ${JSON.stringify(border)}`);
  // The tail: white below the box, leaning left towards the speaker.
  const white = (c: Rgb) => near(c, [255, 255, 255], 30);
  const tail = img.pixels(([r, g, b]) => white([r, g, b])).filter(([, y]) => y > border.y1 + 2);
  assert(tail.length > 20, `a tail below the bubble: ${tail.length} pixels`);
  const tailX = tail.reduce((a, [x]) => a + x, 0) / tail.length;
  assert(tailX < (border.x0 + border.x1) / 2 - 3, `the tail leans towards the speaker on the left: mean x ${tailX} vs box centre ${(border.x0 + border.x1) / 2}`);
  s.dispose();
});

test("a HUD panel sits at its corner at two resolutions, over the scene, DPI-aware", async () => {
  const s = await world();
  // A red wall right in front of the camera: the HUD must still draw over it.
  value(await s.registry.invoke("scene.createEntity", { shape: "box", size: 4, color: 0xff0000, position: [0, 1, 3] }, BUILDER));
  const hud = (pixelScale: number) =>
    s.registry.invoke("ui.hudPanel", { anchor: { type: "screen", corner: "topRight", offset: [10, 20] }, title: "Agents", text: "3 live", pixelScale, style: { fill: "#00ff00", titleFill: "#00ff00", border: "#00ff00", textColor: "#000000", titleColor: "#000000" } }, BUILDER);
  const { handle } = value<{ handle: string }>(await hud(1));
  const [pw, ph] = s.ui.inspect(handle)!.pixelSize;
  for (const [w, h] of [[256, 192], [400, 300]]) {
    const img = await capture(s, w, h, FRONT);
    const g = img.box(isGreen);
    assertEquals([g.x1, g.y0], [w - 10 - 1, 20], `top-right corner at ${w}×${h}: ${JSON.stringify(g)}`);
    assert(Math.abs(g.x1 - g.x0 + 1 - pw) <= 2 && Math.abs(g.y1 - g.y0 + 1 - ph) <= 2, `its size is its texture's ${pw}×${ph} at ${w}×${h}: ${JSON.stringify(g)}`);
    assert(isReddish(img.at(Math.floor(w / 2), Math.floor(h / 2))), `the scene is behind it: ${img.at(Math.floor(w / 2), Math.floor(h / 2))}`);
  }
  assertEquals(value<{ removed: boolean }>(await s.registry.invoke("ui.remove", { handle }, BUILDER)).removed, true);
  const big = value<{ handle: string }>(await hud(2)).handle;
  const [bw, bh] = s.ui.inspect(big)!.pixelSize;
  assert(Math.abs(bw - 2 * pw) <= 2 && Math.abs(bh - 2 * ph) <= 2, `pixelScale 2 doubles it: ${bw}×${bh} vs ${pw}×${ph}`);
  const img = await capture(s, 400, 300, FRONT);
  const g = img.box(isGreen);
  assertEquals([g.x1, g.y0], [400 - 20 - 1, 40], "the offset scales with pixelScale");
  s.dispose();
});

test("a world label billboards toward the camera from two angles; an unbillboarded one does not", async () => {
  const s = await world();
  const label = (billboard: boolean, x: number) =>
    s.registry.invoke("ui.label", { anchor: { type: "world", position: [x, 1, 0], billboard }, text: "billboard", style: { fill: "#ff00ff", textColor: "#ff00ff" } }, BUILDER);
  const { handle } = value<{ handle: string }>(await label(true, 0));
  const front = (await capture(s, 256, 256, { position: [0, 1, 6], target: [0, 1, 0], fov: 50 })).box(isMagenta);
  const side = (await capture(s, 256, 256, { position: [6, 1, 0], target: [0, 1, 0], fov: 50 })).box(isMagenta);
  assert(front.n > 300, `seen from the front: ${front.n} px`);
  const fw = front.x1 - front.x0;
  const sw = side.x1 - side.x0;
  assert(Math.abs(fw - sw) <= 3 && Math.abs(front.n - side.n) < front.n * 0.1, `the same face from both angles: ${JSON.stringify(front)} vs ${JSON.stringify(side)}`);
  assert(Math.abs((front.x0 + front.x1) / 2 - 128) <= 3 && Math.abs((side.x0 + side.x1) / 2 - 128) <= 3, "centred on its anchor both times");
  value(await s.registry.invoke("ui.remove", { handle }, BUILDER));
  value(await label(false, 0));
  const flatFront = (await capture(s, 256, 256, { position: [0, 1, 6], target: [0, 1, 0], fov: 50 })).box(isMagenta);
  const flatSide = (await capture(s, 256, 256, { position: [6, 1, 0], target: [0, 1, 0], fov: 50 })).box(isMagenta);
  assert(flatFront.n > 300 && flatSide.n < flatFront.n / 10, `facing +z, it is edge-on from the side: ${flatFront.n} then ${flatSide.n} px`);
  s.dispose();
});

test("a fade reaches zero alpha: the panel fades out after its ttl and is gone", async () => {
  const s = await world();
  // What the world shows with no panel: the look's sky and the ground below its horizon.
  const empty = await capture(s, 200, 150, FRONT);
  const { handle } = value<{ handle: string }>(
    await s.registry.invoke("ui.hudPanel", { anchor: { type: "screen", corner: "bottomLeft", offset: [8, 8] }, text: "fading", style: { fill: "#00ff00", border: "#00ff00", textColor: "#00ff00" }, lifecycle: { ttl: 0.25, fadeOut: 0.5 } }, BUILDER),
  );
  const full = await capture(s, 200, 150, FRONT);
  const g = full.box(isGreen);
  assert(g.n > 200, `shown at full strength: ${g.n} px`);
  const probe: [number, number] = [Math.round((g.x0 + g.x1) / 2), Math.round((g.y0 + g.y1) / 2)];
  const seen: number[] = [];
  for (let i = 0; i < 60 && s.ui.has(handle); i++) {
    s.step(STEP);
    const info = s.ui.inspect(handle);
    if (info) seen.push(info.opacity);
    if (i === 30) {
      const mid = (await capture(s, 200, 150, FRONT)).at(...probe);
      assert(mid[1] > 20 && mid[1] < 235, `half-faded: ${mid}`);
      assertEquals(s.ui.inspect(handle)!.phase, "fadingOut");
    }
  }
  assertEquals(seen.slice(0, 14).every((o) => o === 1), true, `full until the ttl: ${seen.slice(0, 16)}`);
  for (let i = 1; i < seen.length; i++) assert(seen[i] <= seen[i - 1], `never brightens: ${seen}`);
  assert(seen[seen.length - 1] <= 1 / 30 + 1e-9, `down to (nearly) zero before it goes: ${seen.at(-1)}`);
  assertEquals(s.ui.has(handle), false, "removed when the fade reached zero");
  const after = await capture(s, 200, 150, FRONT);
  assertEquals(after.at(...probe), empty.at(...probe), "nothing left where it was");
  assertEquals(value(await s.registry.invoke("ui.update", { handle, text: "x" }, BUILDER)), { ok: false, changed: false });
  s.dispose();
});

test("fade in and typewriter: the text appears a character at a time", async () => {
  const s = await world();
  const { handle } = value<{ handle: string }>(
    await s.registry.invoke("ui.textBox", { anchor: { type: "screen", corner: "center", offset: [0, 0] }, text: "typed out one character at a time", style: { textColor: "#ff0000" }, lifecycle: { fadeIn: 0.1, typewriter: 30 } }, BUILDER),
  );
  assertEquals(s.ui.inspect(handle)!.opacity, 0);
  const counts: number[] = [];
  for (const steps of [12, 18, 60]) {
    for (let i = 0; i < steps; i++) s.step(STEP);
    counts.push((await capture(s, 320, 200, FRONT)).pixels(isRed).length);
  }
  assertEquals(s.ui.inspect(handle)!.opacity, 1);
  assert(counts[0] > 0 && counts[0] < counts[1] && counts[1] < counts[2], `more text each time: ${counts}`);
  s.dispose();
});

/** The instanced quads of the only container in `s` (chrome and glyphs, one mesh). */
function quadsOf1(s: WorldSession) {
  const meshes: { geometry: { instanceCount: number; getAttribute(name: string): { data: { version: number; count: number } } } }[] = [];
  s.ui.overlay.traverse((o) => {
    if ((o as unknown as { geometry?: { isInstancedBufferGeometry?: boolean } }).geometry?.isInstancedBufferGeometry) meshes.push(o as never);
  });
  assertEquals(meshes.length, 1);
  return meshes[0];
}

test("text on the GPU: ui.update rewrites the same quads in place, a typewriter step moves none, new characters join the atlas", async () => {
  const s = await world();
  const { handle } = value<{ handle: string }>(
    await s.registry.invoke("ui.speechBubble", { anchor: { type: "world", position: [0, 1, 0] }, text: "first words typed here", style: { textColor: "#ff0000" }, lifecycle: { typewriter: 20 } }, BUILDER),
  );
  const mesh = quadsOf1(s);
  const buffer = mesh.geometry.getAttribute("quadRect").data;
  const written = buffer.version;
  const counts: number[] = [];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 20; j++) s.step(STEP);
    counts.push((await capture(s, 320, 240, FRONT)).pixels(isRed).length);
  }
  assert(counts[0] > 0 && counts[0] < counts[1] && counts[1] < counts[2], `typed out progressively: ${counts}`);
  assertEquals(buffer.version, written, "typing rewrote no quads");
  const quads = mesh.geometry.instanceCount;
  assertEquals(value(await s.registry.invoke("ui.update", { handle, text: "other words typed here" }, BUILDER)), { ok: true, changed: true });
  assertEquals(quadsOf1(s), mesh, "the same mesh");
  assert(mesh.geometry.getAttribute("quadRect").data === buffer && buffer.version > written, "the same instance buffer, rewritten");
  assertEquals(mesh.geometry.instanceCount, quads, "as many glyphs, as many quads");
  value(await s.registry.invoke("ui.remove", { handle }, BUILDER));
  // Beyond Latin-1: Cyrillic and a check mark are made into the atlas on first use.
  value(await s.registry.invoke("ui.hudPanel", { anchor: { type: "screen", corner: "center", offset: [0, 0] }, text: "Привет, мир ✓", pixelScale: 2, style: { fill: "#000000", border: "#000000", textColor: "#ff0000" } }, BUILDER));
  const img = await capture(s, 320, 240, FRONT);
  const box = img.box((c) => c[0] < 8 && c[1] < 8 && c[2] < 8);
  const red = img.pixels(isRed);
  assert(red.length > 150, `the text is drawn: ${red.length} red pixels`);
  for (const [x, y] of red) assert(x > box.x0 && x < box.x1 && y > box.y0 && y < box.y1, `text pixel (${x}, ${y}) outside its panel ${JSON.stringify(box)}`);
  s.dispose();
});

test("ui.update re-composites, a feed keeps the newest lines, ui.remove detaches and disposes", async () => {
  const s = await world();
  const { handle } = value<{ handle: string }>(await s.registry.invoke("ui.hudPanel", { anchor: { type: "screen" }, title: "ops", lines: ["one"], lifecycle: { feed: { maxLines: 3 } } }, BUILDER));
  const before = s.ui.inspect(handle)!;
  for (const line of ["two", "three", "four"]) assertEquals(value(await s.registry.invoke("ui.update", { handle, lines: [line] }, BUILDER)), { ok: true, changed: true });
  assertEquals(s.ui.inspect(handle)!.content.lines, ["two", "three", "four"]);
  assertEquals(value(await s.registry.invoke("ui.update", { handle, title: "ops" }, BUILDER)), { ok: true, changed: false });
  value(await s.registry.invoke("ui.update", { handle, text: "a much longer status line than before" }, BUILDER));
  assert(s.ui.inspect(handle)!.pixelSize[0] > before.pixelSize[0], "a longer text makes a wider texture");
  const children = s.ui.overlay.children.length;
  assertEquals(value(await s.registry.invoke("ui.remove", { handle }, BUILDER)), { removed: true });
  assertEquals(s.ui.overlay.children.length, children - 1, "its meshes left the scene");
  assertEquals(value(await s.registry.invoke("ui.remove", { handle }, BUILDER)), { removed: false });
  assertEquals(value(await s.registry.invoke("ui.update", { handle: "ui_zzz", text: "x" }, BUILDER)), { ok: false, changed: false });
  s.dispose();
});

test("bad input is refused precisely and changes nothing; player.limited cannot write UI", async () => {
  const s = await world();
  const children = s.ui.overlay.children.length;
  refused(await s.registry.invoke("ui.label", { anchor: { type: "world" }, text: "x" }, BUILDER), "invalid_input", "exactly one of entity or position");
  refused(await s.registry.invoke("ui.label", { anchor: { type: "world", entity: "ent_999" }, text: "x" }, BUILDER), "not_found", "ent_999");
  refused(await s.registry.invoke("ui.hudPanel", { anchor: { type: "world", position: [0, 0, 0] }, text: "x" }, BUILDER), "invalid_input", "screen-anchored");
  refused(await s.registry.invoke("ui.label", { anchor: { type: "screen" }, text: "x", style: { fill: "red" } }, BUILDER), "invalid_input", "#rrggbb");
  refused(await s.registry.invoke("ui.label", { anchor: { type: "screen" }, text: "x", tail: {} }, BUILDER), "invalid_input", "tail is for speechBubble");
  refused(await s.registry.invoke("ui.panel", { kind: "banner", anchor: { type: "screen" } }, BUILDER), "invalid_input", "kind");
  refused(await s.registry.invoke("ui.label", { anchor: { type: "screen" }, text: "x", width: 3000, pixelScale: 2 }, BUILDER), "invalid_input", "width");
  refused(await s.registry.invoke("ui.label", { anchor: { type: "screen" }, text: "x" }, PLAYER), "forbidden", "ui.write");
  assertEquals(s.ui.overlay.children.length, children);
  assertEquals(s.ui.handles(), []);
  s.dispose();
});

test("the anchor and style schemas are in the JSON Schema agents see", () => {
  const s = createWorldSession({ simulate: false });
  const tool = s.registry.listTools().find((t) => t.name === "ui.panel")!;
  const schema = tool.inputSchema as { properties: Record<string, { anyOf?: unknown[]; oneOf?: unknown[]; properties?: Record<string, { description?: string }> }>; required: string[] };
  assertEquals(schema.required, ["kind", "anchor"]);
  const anchors = JSON.stringify(schema.properties.anchor);
  for (const word of ['"world"', '"screen"', "entity", "position", "offset", "billboard", "corner", "unitsPerPixel"]) assert(anchors.includes(word), `anchor schema has ${word}`);
  const style = schema.properties.style as { properties?: Record<string, { description?: string }> };
  for (const f of ["fill", "border", "borderWidth", "radius", "padding", "fontSize", "textColor", "opacity"]) assert(style.properties?.[f]?.description, `style.${f} is documented`);
  for (const f of ["fadeIn", "fadeOut", "typewriter", "ttl", "queue", "feed"]) assert(JSON.stringify(schema.properties.lifecycle).includes(f), `lifecycle.${f}`);
  s.dispose();
});

test("ui_showcase: as the camera orbits the world panels move while the HUD stays at its corner; a window shows the same frame", async () => {
  const dir = (await Limina.run({ cmd: "mktemp", args: ["-d", "/tmp/limina-ui-XXXXXX"] })).stdout.trim();
  const shot = async (frames: number, window: boolean) => {
    const png = `${dir}/ui-${frames}${window ? "-window" : ""}.png`;
    const args = ["examples/ui_showcase.ts", "--deterministic", "--frames", String(frames), "--screenshot", png, "--size", "480x320"];
    const r = await Limina.run(window ? { cmd: "xvfb-run", args: ["-a", Limina.execPath, ...args, "--window"] } : { cmd: Limina.execPath, args });
    assertEquals(r.code, 0, r.stderr);
    return pixelsOf(readPng(png));
  };
  // The HUD's title bar (#1d3350) and the callout's fill (#fff6d5), both opaque.
  const panels = ({ box }: ReturnType<typeof pixelsOf>) => ({ title: box((c) => near(c, [0x1d, 0x33, 0x50], 3)), callout: box((c) => near(c, [0xff, 0xf6, 0xd5], 4)) });
  const offscreen = await shot(60, false);
  const early = panels(offscreen);
  const late = panels(await shot(240, false));
  assert(early.title.n > 300 && late.title.n > 300, `the HUD title bar: ${early.title.n}, ${late.title.n} px`);
  assertEquals([early.title.x0, early.title.y0], [13, 13], "pinned 12 px in from the top-left corner, inside its 1 px border");
  assertEquals([late.title.x0, late.title.y0], [early.title.x0, early.title.y0], "where it was");
  assert(early.callout.n > 200 && late.callout.n > 200, `the world callout in both frames: ${early.callout.n}, ${late.callout.n}`);
  const moved = Math.hypot((early.callout.x0 + early.callout.x1) / 2 - (late.callout.x0 + late.callout.x1) / 2, (early.callout.y0 + early.callout.y1) / 2 - (late.callout.y0 + late.callout.y1) / 2);
  assert(moved > 20, `the world panels moved with the orbit: ${moved} px`);
  // The same frame in a window (on a private X display) and offscreen: the same panels, text and colours.
  const windowed = await shot(60, true);
  let differing = 0;
  for (let y = 0; y < offscreen.height; y++) {
    for (let x = 0; x < offscreen.width; x++) if (!near(offscreen.at(x, y), windowed.at(x, y), 8)) differing++;
  }
  assert(differing <= offscreen.width * offscreen.height * 0.005, `the window's frame differs from the capture's in ${differing} pixels`);
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
});
