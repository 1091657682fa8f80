// render.capture latency at 256² and 1024² on whatever WebGPU adapter this
// machine has: the whole skill call (validation, draw, GPU, readback, PNG
// encoding, base64) over a small lit world — a floor and 60 boxes — while
// the fixed-step loop runs. Also the longest gap between fixed steps during
// the captures: what a capture costs the loop thread.
// Run: limina js/bench/capture.ts   (final line: JSON figures)
import { Capturer, createWorldSession, onFixedStep, resolveProfile, waitSteps } from "limina";
import { round, summarize } from "limina/bench";

const RUNS = 20;
const caller = { agentId: "bench", sessionId: "bench", permissions: resolveProfile("system.readonly"), profile: "system.readonly" };
const builder = { agentId: "build", sessionId: "build", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

const capturer = await Capturer.create();
const session = createWorldSession();
await session.enableCapture(capturer);
const call = async (tool: string, input: unknown, base = caller) => {
  const r = await session.registry.invoke(tool, input, base);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code}: ${r.error.message}`);
  return r.value as Record<string, unknown>;
};
await call("scene.createEntity", { size: 40, position: [0, -20.5, 0], color: 0x777777, static: true }, builder);
for (let i = 0; i < 60; i++) {
  await call("scene.createEntity", { shape: i % 2 ? "box" : "sphere", size: 1, position: [(i % 10) * 2 - 9, 0.5 + Math.floor(i / 30), Math.floor((i % 30) / 10) * 2 - 2], color: 0x3366ff + i * 997 }, builder);
}
await call("camera.set", { position: [14, 10, 16], target: [0, 0, 0] }, builder);

let last = 0;
let maxGap = 0;
onFixedStep(() => {
  const now = performance.now();
  if (last) maxGap = Math.max(maxGap, now - last);
  last = now;
});

async function latency(side: number) {
  const cold = performance.now();
  await call("render.capture", { width: side, height: side });
  const coldMs = performance.now() - cold;
  for (let i = 0; i < 2; i++) await call("render.capture", { width: side, height: side });
  await waitSteps(2);
  maxGap = 0;
  last = 0;
  const t: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const a = performance.now();
    const c = await call("render.capture", { width: side, height: side });
    t.push(performance.now() - a);
    bytes = (c.png as string).length;
  }
  const s = summarize(t);
  return { p50Ms: round(s.p50, 1), p95Ms: round(s.p95, 1), minMs: round(s.min, 1), firstMs: round(coldMs, 1), base64Bytes: bytes, stepGapMaxMs: round(maxGap, 1) };
}

const at256 = await latency(256);
const at1024 = await latency(1024);
const figures = { bench: "capture", adapter: capturer.adapter, runs: RUNS, at256, at1024 };
console.log(`${capturer.adapter}: render.capture 256² p50 ${at256.p50Ms} ms, 1024² p50 ${at1024.p50Ms} ms; longest fixed-step gap ${at256.stepGapMaxMs} / ${at1024.stepGapMaxMs} ms`);
console.log(JSON.stringify(figures));
session.dispose();
Limina.exit(0);
