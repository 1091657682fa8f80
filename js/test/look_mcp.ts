// The look over MCP stdio on a fresh binary, driven by the official
// TypeScript SDK (js/test/node/look_stdio.mjs): the six skills are listed;
// with a floor and a sphere, captures differ measurably between every post
// pass off and AO + bloom + AA on, and between two sun elevations; the
// default capture shows a sky with a vertical gradient, not a flat colour.
import { assert, assertEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";
import { decodeCapture, meanDifference, meanLuma, meanRgb } from "./support/images.ts";

const out = await drive("node", "js/test/node/look_stdio.mjs");
const png = (name: string) => decodeCapture(out[name] as string);

test("tools/list has the six look skills; the settings read back what was set", () => {
  assert((out.tools as number) >= 6);
  const settings = out.settings as { environment: { sunElevation: number }; post: { ao: unknown; bloom: unknown; antialias: string } };
  assertEquals(settings.environment.sunElevation, 8);
  assertEquals([settings.post.ao !== false, settings.post.bloom !== false, settings.post.antialias], [true, true, "fxaa"]);
});

test("every post pass off vs AO + bloom + AA on: the captures differ measurably", () => {
  const d = meanDifference(png("off"), png("on"));
  assert(d > 0.25, `mean difference ${d.toFixed(2)} levels`);
});

test("two sun elevations: the captures differ measurably, the low sun's sky darker", () => {
  const high = png("high");
  const low = png("low");
  const d = meanDifference(high, low);
  assert(d > 5, `mean difference ${d.toFixed(2)} levels`);
  const band = { x0: 0, y0: 0, x1: 256, y1: 20 };
  assert(meanLuma(low, band) < meanLuma(high, band), `sky ${meanLuma(high, band).toFixed(0)} → ${meanLuma(low, band).toFixed(0)}`);
});

test("the default capture shows a sky with a vertical gradient, not a flat clear colour", () => {
  const sky = png("sky");
  const rows = [0, 20, 40, 60].map((y) => meanLuma(sky, { x0: 0, y0: y, x1: 256, y1: y + 4 }));
  for (let i = 1; i < rows.length; i++) assert(rows[i] > rows[i - 1] + 2, `brighter toward the horizon: ${rows.map(Math.round)}`);
  const [r, , b] = meanRgb(sky, { x0: 0, y0: 0, x1: 256, y1: 8 });
  assert(b > r + 20, `blue overhead: r ${r.toFixed(0)} b ${b.toFixed(0)}`);
});
