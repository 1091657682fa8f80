// UI text and panels: the CPU painter's glyph throughput (a paragraph laid
// out and rasterized into a panel, glyphs per second, at 1× and 2×), layout
// alone, a bubble's paints as GPU quads against the same bubble painted at
// pixelScale 2, the glyph atlas's first build, and what a container costs
// end to end: ui.speechBubble (layout, quads, meshes, trace) and
// ui.update of a speech bubble and of a HUD feed, plus one typewriter step.
// Run: limina js/bench/ui.ts   (final line: JSON figures)
import { createWorldSession, layoutText, type Paint, paint, quadsOf, resolveProfile } from "limina";
import { round, summarize } from "limina/bench";

const RUNS = 200;
const PARAGRAPH = "The forest was quiet but for the wind in the pines; two travellers met at the old stone bridge and began, cautiously, to talk about the road ahead.";
const builder = { agentId: "bench", sessionId: "bench", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

function time(fn: () => void, runs = RUNS): number[] {
  for (let i = 0; i < 10; i++) fn();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = performance.now();
    fn();
    t.push(performance.now() - a);
  }
  return t;
}

// The first quads build the glyph atlas (ASCII and Latin-1), once a process.
const atlasStart = performance.now();
quadsOf([]);
const atlasBuildMs = performance.now() - atlasStart;

const glyphs = [...PARAGRAPH].filter((c) => c !== " ").length;
const laid = layoutText({ text: PARAGRAPH, size: 18, maxWidth: 300 });
const textPaint = (scale: number) => () => paint(320, laid.height + 20, scale, [{ op: "text", x: 10, y: 10, text: { text: PARAGRAPH, size: 18, maxWidth: 300 }, color: [20, 20, 20, 255] }]);
const raster1 = summarize(time(textPaint(1)));
const raster2 = summarize(time(textPaint(2)));
const layout = summarize(time(() => layoutText({ text: PARAGRAPH, size: 18, maxWidth: 300 })));
// A bubble's chrome and paragraph: as quads, and painted as the texture it used to be.
const bubblePaints: Paint[] = [
  { op: "roundRect", x: 0, y: 0, w: 284, h: laid.height + 24, radius: 14, fill: [255, 255, 255, 255], border: 2, borderColor: [34, 34, 34, 255] },
  { op: "text", x: 12, y: 12, text: { text: PARAGRAPH, size: 18, maxWidth: 260 }, color: [17, 17, 17, 255] },
];
const bubbleQuads = summarize(time(() => quadsOf(bubblePaints)));
const bubblePainted = summarize(time(() => paint(284, laid.height + 24, 2, bubblePaints)));

const session = createWorldSession({ simulate: false });
const call = async (tool: string, input: unknown) => {
  const r = await session.registry.invoke(tool, input, builder);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code}: ${r.error.message}`);
  return r.value as Record<string, unknown>;
};

async function timeAsync(fn: () => Promise<unknown>, runs = RUNS): Promise<number[]> {
  for (let i = 0; i < 5; i++) await fn();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = performance.now();
    await fn();
    t.push(performance.now() - a);
  }
  return t;
}

const created: string[] = [];
const panel = summarize(await timeAsync(async () => {
  created.push((await call("ui.speechBubble", { anchor: { type: "world", position: [0, 2, 0] }, text: PARAGRAPH, maxWidth: 260 })).handle as string);
}));
for (const handle of created) await call("ui.remove", { handle });
const bubble = (await call("ui.speechBubble", { anchor: { type: "world", position: [0, 2, 0] }, text: PARAGRAPH, maxWidth: 260 })).handle as string;
let n = 0;
const update = summarize(await timeAsync(() => call("ui.update", { handle: bubble, text: `${PARAGRAPH} ${n++ % 2 ? "Yes." : "No."}` })));
const feed = (await call("ui.hudPanel", { anchor: { type: "screen" }, title: "agent ops", lines: [], lifecycle: { feed: { maxLines: 12 } } })).handle as string;
const feedUpdate = summarize(await timeAsync(() => call("ui.update", { handle: feed, lines: [`tick ${n++}: agt_walker social.say ok 0.4 ms`] })));
await call("ui.speechBubble", { anchor: { type: "world", position: [0, 2, 0] }, text: PARAGRAPH, maxWidth: 260, lifecycle: { typewriter: 60 } });
// Each step reveals one more character: a uniform, nothing laid out again.
const typewriter = summarize(time(() => session.step(1 / 60), 150));

const figures = {
  bench: "ui",
  glyphsPerParagraph: glyphs,
  rasterP50Ms: round(raster1.p50, 3),
  glyphsPerSec1x: Math.round(glyphs / (raster1.p50 / 1000)),
  raster2xP50Ms: round(raster2.p50, 3),
  glyphsPerSec2x: Math.round(glyphs / (raster2.p50 / 1000)),
  layoutP50Ms: round(layout.p50, 3),
  atlasBuildMs: round(atlasBuildMs, 1),
  bubbleQuadsP50Ms: round(bubbleQuads.p50, 3),
  bubblePaintedP50Ms: round(bubblePainted.p50, 3),
  panelCreateP50Ms: round(panel.p50, 3),
  bubbleUpdateP50Ms: round(update.p50, 3),
  hudFeedUpdateP50Ms: round(feedUpdate.p50, 3),
  typewriterStepP50Ms: round(typewriter.p50, 3),
};
console.log(`painter: ${figures.glyphsPerSec1x} glyphs/s at 1×, ${figures.glyphsPerSec2x} at 2×; a bubble as quads ${figures.bubbleQuadsP50Ms} ms, painted at 2× ${figures.bubblePaintedP50Ms} ms; atlas built in ${figures.atlasBuildMs} ms`);
console.log(`ui.speechBubble ${figures.panelCreateP50Ms} ms, ui.update ${figures.bubbleUpdateP50Ms} ms, HUD feed line ${figures.hudFeedUpdateP50Ms} ms, typewriter step ${figures.typewriterStepP50Ms} ms`);
console.log(JSON.stringify(figures));
session.dispose();
